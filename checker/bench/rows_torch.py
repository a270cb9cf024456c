#!/usr/bin/env python3
"""rows_torch.py ROWS_CSV - Part III's kernels beside PyTorch's, on this GPU, at the shapes of `make bench`.

ROWS_CSV is the rows.csv that `make bench` writes (checker/bench/bench_rows.cuh): the course's kernels,
their cold times in microseconds. This script times what PyTorch calls for the same work on the same
shapes and types (softmax, layer_norm, rms_norm, and for ex13's row statistics mean and vector_norm in
float), by the same method: CUDA events, a warm-up, the L2 cache flushed before each timed run, the median
of at least 10 runs. It prints one table per shape: the course's time, PyTorch's, and how many times
faster the course's kernel is (below 1: slower).

Needs python3 with torch and a CUDA GPU; `make bench` runs it when both are there, and says so when not.
"""
import csv
import statistics
import sys

import torch
import torch.nn.functional as F

DTYPES = {"float": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def timed(fn, flush, repeats=10):
    """The median cold time of fn() in microseconds (the L2 flushed before each run)."""
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        flush.zero_()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def torch_op(kernel, x, cols):
    """What PyTorch runs for one of the course's kernels, as a function of no arguments, and its name."""
    dev, dt = x.device, x.dtype
    if kernel.startswith("ex13 row_stats"):
        return (lambda: (torch.mean(x, -1, dtype=torch.float32),
                         torch.linalg.vector_norm(x, dim=-1, dtype=torch.float32))), "mean + vector_norm"
    if kernel.startswith("ex14 softmax"):
        return (lambda: torch.softmax(x, -1)), "softmax"
    if kernel.startswith("ex15 layernorm"):
        w, b = torch.ones(cols, device=dev, dtype=dt), torch.zeros(cols, device=dev, dtype=dt)
        return (lambda: F.layer_norm(x, (cols,), w, b, 1e-5)), "layer_norm"
    if kernel.startswith("ex15 rmsnorm"):
        w = torch.ones(cols, device=dev, dtype=dt)
        return (lambda: F.rms_norm(x, (cols,), w, 1e-5)), "rms_norm"
    return None, None


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("PyTorch sees no CUDA GPU here: no comparison.")
        return 1
    rows = [r for r in csv.DictReader(open(argv[1])) if r["ok"] == "1" and "(yours)" not in r["kernel"]]
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * props.L2_cache_size // 4 + 1, dtype=torch.float32, device="cuda")
    print("PyTorch %s on %s, beside the course's references (cold times, us; x = PyTorch's time / ours)."
          % (torch.__version__, props.name))
    shape = None
    for r in rows:
        if r["shape"] != shape:
            shape = r["shape"]
            nrows, cols = (int(v) for v in shape.split("x"))
            inputs = {}
            print("\n%s:" % shape)
            print("  %-28s %6s %11s  %-20s %11s %8s" % ("kernel", "type", "ours (us)", "PyTorch", "(us)", "x"))
        t = r["type"]
        if t not in inputs:
            torch.manual_seed(2024)
            inputs[t] = (torch.rand(nrows, cols, device="cuda") * 8 - 4).to(DTYPES[t])
        op, name = torch_op(r["kernel"], inputs[t], cols)
        if op is None:
            continue
        theirs, ours = timed(op, flush), float(r["cold_us"])
        print("  %-28s %6s %11.1f  %-20s %11.1f %8.2f" % (r["kernel"], t, ours, name, theirs, theirs / ours))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
