#!/usr/bin/env python3
"""rows_torch.py OUTDIR - Part III at the roofline: exercise 16's row mapping beside PyTorch on this GPU.
rows_torch.py --eager CSV ROWS COLS OPS - PyTorch eager alone at one shape, for the speed line (speed.sh).

OUTDIR holds librows_ref.so (solutions/ex16_row_mapping.cu built as a library by `make bench`) and, once
exercise 16 passes, librows_my.so (yours). At seven shapes, for softmax (fp32, fp16), LayerNorm (fp16),
RMSNorm (bf16) and row statistics (fp16, bf16), this times the course's dispatch, yours, PyTorch eager,
torch.compile and a device-to-device copy of the same bytes, by one method: CUDA events around one call;
before each call the L2 is flushed (a zero_ of a buffer twice its size) and the GPU is kept busy for about
half a millisecond (torch.cuda._sleep), so that the host's work for the call (PyTorch's dispatch,
torch.compile's guards, the course's launch) is queued behind it and not timed. The contenders take turns
within each repeat, and each one's time is the median of its repeats: a GPU's speed drifts between runs,
and interleaving keeps that drift out of the comparisons. Every output of the course's kernels is checked
against the same computation in float64.

torch.compile's compiles cost minutes, so its times are measured once per GPU (TORCH_COMPILE=1: they are
then written to OUTDIR/torch-compile.csv) and read from checker/bench/results/torch-compile-GPU.csv when
that file exists for this GPU's name. GB/s counts the input read once and the output written once; "%
copy" compares that with a copy of the input's bytes (which reads and writes them); "x best" is the faster
of PyTorch eager and torch.compile over ours. Writes OUTDIR/roofline.csv.
"""
import csv
import ctypes
import os
import re
import statistics
import sys

import torch
import torch._dynamo
import torch.nn.functional as F

SHAPES = [(65536, 1024), (8192, 8192), (256, 262144), (1048576, 64), (8192, 50257), (16384, 4096), (32768, 128)]
# (label, contract function, dtype, PyTorch's name)
OPS = [("softmax", "softmax_rows", torch.float32), ("softmax", "softmax_rows_f16", torch.float16),
       ("layer_norm", "layernorm_rows_f16", torch.float16), ("rms_norm", "rmsnorm_rows_bf16", torch.bfloat16),
       ("row_stats", "row_stats_rows_f16", torch.float16), ("row_stats", "row_stats_rows_bf16", torch.bfloat16)]
TYPE = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}
PATH = {1: "warp", 2: "block", 3: "cluster", 4: "re-read"}
EPS = 1e-5
REPEATS = int(os.environ.get("REPEATS", "15"))
SLEEP_CYCLES = 1_000_000

dev = torch.device("cuda")
props = torch.cuda.get_device_properties(dev)
flush_buf = torch.empty(2 * props.L2_cache_size // 4 + 1024, dtype=torch.float32, device=dev)


def library(path):
    """The contract's functions of one built file, with their argument types; None when it is missing."""
    if not os.path.exists(path):
        return None
    lib = ctypes.CDLL(path)
    p, i, f = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
    for _, fn, _ in OPS:
        getattr(lib, fn).restype = i
    for fn in ("softmax_rows", "softmax_rows_f16", "row_stats_rows_f16", "row_stats_rows_bf16"):
        getattr(lib, fn).argtypes = [p, p, i, i, i]
    lib.layernorm_rows_f16.argtypes = [p, p, p, p, i, i, f, i]
    lib.rmsnorm_rows_bf16.argtypes = [p, p, p, i, i, f, i]
    return lib


def course_call(lib, op, fn, x, y, w, b, rows, cols):
    """A function of no arguments that runs the course's dispatch once and returns the path it took."""
    f = getattr(lib, fn)
    if op == "layer_norm":
        return lambda: f(x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, 0)
    if op == "rms_norm":
        return lambda: f(x.data_ptr(), w.data_ptr(), y.data_ptr(), rows, cols, EPS, 0)
    return lambda: f(x.data_ptr(), y.data_ptr(), rows, cols, 0)


def torch_function(op, cols, w, b):
    """What a PyTorch user calls for the same work (RMSNorm's eps given: its default is the type's epsilon)."""
    if op == "softmax":
        return lambda x: torch.softmax(x, -1)
    if op == "layer_norm":
        return lambda x: F.layer_norm(x, (cols,), w, b, EPS)
    if op == "rms_norm":
        return lambda x: F.rms_norm(x, (cols,), w, EPS)
    return lambda x: (torch.mean(x, -1, dtype=torch.float32), torch.linalg.vector_norm(x, dim=-1, dtype=torch.float32))


def wrong_values(op, y, x, cols):
    """How many outputs are outside the bound of the computation in float64 (the exercises' bounds, loosened
    to whole rows: 2^-10 of a softmax value plus fp16's smallest step, 2^-7 of a normalised one)."""
    xd = x.double()
    if op == "softmax":
        ref = torch.softmax(xd, -1)
        tol = 2e-5 * ref.abs() + 1e-30 if x.dtype == torch.float32 else 2 ** -10 * ref.abs() + 2 ** -24
    elif op == "layer_norm":
        ref = F.layer_norm(xd, (cols,), eps=EPS)
        tol = 2 ** -7 * (1 + ref.abs())
    elif op == "rms_norm":
        ref = xd * torch.rsqrt((xd * xd).mean(-1, keepdim=True) + EPS)
        tol = 2 ** -7 * (1 + ref.abs())
    else:
        ref = torch.stack([xd.mean(-1), torch.linalg.vector_norm(xd, dim=-1)], -1).reshape(-1)
        tol = 1e-5 * (1 + ref.abs())
    err = (y.double() - ref).abs()
    return int(((err > tol) | torch.isnan(err)).sum().item())


def time_interleaved(contenders):
    """Each contender's median cold time in us: the contenders take turns within each repeat, each call after
    an L2 flush and queued behind a sleeping GPU."""
    events = {name: [] for name, _ in contenders}
    for _ in range(REPEATS):
        for name, call in contenders:
            flush_buf.zero_()
            torch.cuda._sleep(SLEEP_CYCLES)
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            stop.record()
            events[name].append((start, stop))
    torch.cuda.synchronize()
    return {n: statistics.median(s.elapsed_time(e) * 1000 for s, e in ev) for n, ev in events.items()}


def input_rows(rows, cols, dtype):
    """The input of one shape and type: whole 1/64ths in [-4, 4), which fp16 and bf16 hold exactly."""
    gen = torch.Generator(device=dev).manual_seed(rows * 31 + cols)
    return (torch.randint(-256, 256, (rows, cols), device=dev, generator=gen).float() / 64).to(dtype)


def eager_only(path, rows, cols, ops):
    """--eager: PyTorch eager alone at one shape, for the ops whose label matches the regular expression ops
    (the speed line's first timing on a GPU where `make bench` has not run). Writes shape,op,type,eager_us."""
    table = []
    for op, _, dtype in OPS:
        if not re.search(ops, op):
            continue
        x = input_rows(rows, cols, dtype)
        w, b = torch.ones(cols, dtype=dtype, device=dev), torch.zeros(cols, dtype=dtype, device=dev)
        eager = torch_function(op, cols, w, b)
        eager(x)
        us = time_interleaved([("eager", lambda: eager(x))])
        table.append(["%dx%d" % (rows, cols), op, TYPE[dtype], "%.2f" % us["eager"]])
        del x
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([["shape", "op", "type", "eager_us"]] + table)
    return 0


def compile_cache_path():
    slug = re.sub(r"[^a-z0-9]+", "-", props.name.lower()).strip("-")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "torch-compile-%s.csv" % slug)


def read_compile_cache():
    path = compile_cache_path()
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {(r["shape"], r["op"], r["type"]): float(r["us"]) for r in csv.DictReader(f)}


def main(argv):
    if len(argv) == 6 and argv[1] == "--eager":
        return eager_only(argv[2], int(argv[3]), int(argv[4]), argv[5])
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    out = argv[1]
    ref, mine = library(os.path.join(out, "librows_ref.so")), library(os.path.join(out, "librows_my.so"))
    if ref is None:
        print("No %s: run `make bench`." % os.path.join(out, "librows_ref.so"))
        return 1
    measure_compile = os.environ.get("TORCH_COMPILE") == "1"
    cached = {} if measure_compile else read_compile_cache()
    if measure_compile:
        torch._dynamo.config.recompile_limit = 256   # one compiled function per shape and type
        torch._dynamo.config.cache_size_limit = 256
    print("Part III at the roofline: exercise 16 beside PyTorch %s on %s." % (torch.__version__, props.name))
    print("Cold times, the medians of %d interleaved repeats; x best = the faster PyTorch's time over ours."
          % REPEATS)
    if not measure_compile:
        print("torch.compile: %s" % ("times measured once on this GPU, from " + os.path.relpath(compile_cache_path())
                                     if cached else "no times for this GPU (make bench TORCH_COMPILE=1 measures them)"))
    table, compiled_rows, wrong = [], [], 0
    for rows, cols in SHAPES:
        print("\n%d x %d" % (rows, cols))
        print("  %-12s %-5s %-16s %9s %7s %7s %9s %9s %7s" % ("op", "type", "ours: path", "us", "GB/s", "% copy",
                                                            "eager us", "compile", "x best"))
        for op, fn, dtype in OPS:
            shape = "%dx%d" % (rows, cols)
            x = input_rows(rows, cols, dtype)
            per_element = op != "row_stats"
            y = torch.empty((rows, cols) if per_element else (2 * rows,), dtype=dtype if per_element else torch.float32,
                            device=dev)
            w, b = torch.ones(cols, dtype=dtype, device=dev), torch.zeros(cols, dtype=dtype, device=dev)
            contenders = [("ours", course_call(ref, op, fn, x, y, w, b, rows, cols))]
            y_mine = torch.empty_like(y)
            if mine is not None:
                contenders.append(("yours", course_call(mine, op, fn, x, y_mine, w, b, rows, cols)))
            eager = torch_function(op, cols, w, b)
            contenders.append(("eager", lambda: eager(x)))
            if measure_compile:
                compiled = torch.compile(torch_function(op, cols, w, b), dynamic=False)
                contenders.append(("compile", lambda: compiled(x)))
            xc = torch.empty_like(x)
            contenders.append(("copy", lambda: xc.copy_(x)))
            # Warm-up, and the course's outputs checked.
            path = {}
            for name, call in contenders:
                if name in ("ours", "yours"):
                    (y if name == "ours" else y_mine).fill_(float("nan"))
                    path[name] = call()
                    torch.cuda.synchronize()
                    bad = wrong_values(op, y if name == "ours" else y_mine, x, cols)
                    if bad:
                        wrong += 1 if name == "ours" else 0
                        print("  %-12s %-5s %s: %d values outside the bound" % (op, TYPE[dtype], name, bad))
                else:
                    call()
            us = time_interleaved(contenders)
            if measure_compile:
                compiled_rows.append([shape, op, TYPE[dtype], "%.2f" % us["compile"]])
            elif (shape, op, TYPE[dtype]) in cached:
                us["compile"] = cached[(shape, op, TYPE[dtype])]
            in_b, out_b = x.numel() * x.element_size(), y.numel() * y.element_size()
            copy_gbps = 2 * in_b / us["copy"] / 1e3
            best = min(us[k] for k in ("eager", "compile") if k in us)
            for who in [n for n in ("ours", "yours") if n in us]:
                gbps = (in_b + out_b) / us[who] / 1e3
                print("  %-12s %-5s %-16s %9.1f %7.0f %6.0f%% %9.1f %9s %7.2f" % (
                    op if who == "ours" else "  (yours)", TYPE[dtype], "%s: %s" % (who, PATH.get(path[who], "none")),
                    us[who], gbps, 100 * gbps / copy_gbps, us["eager"],
                    "%.1f" % us["compile"] if "compile" in us else "-", best / us[who]))
                table.append([shape, op, TYPE[dtype], who, PATH.get(path[who], "none"), "%.2f" % us[who],
                              "%.0f" % gbps, "%.1f" % (100 * gbps / copy_gbps), "%.2f" % us["eager"],
                              "%.2f" % us["compile"] if "compile" in us else "", "%.2f" % us["copy"],
                              "%.3f" % (best / us[who])])
            del x, y, y_mine, xc
            torch.cuda.empty_cache()
    with open(os.path.join(out, "roofline.csv"), "w", newline="") as f:
        csv.writer(f).writerows([["shape", "op", "type", "who", "path", "us", "gbps", "pct_copy", "eager_us",
                                  "compile_us", "copy_us", "x_best"]] + table)
    if measure_compile:
        with open(os.path.join(out, "torch-compile.csv"), "w", newline="") as f:
            csv.writer(f).writerows([["shape", "op", "type", "us"]] + compiled_rows)
        print("\ntorch.compile's times: %s (copy it to %s to keep it)" % (os.path.join(out, "torch-compile.csv"),
                                                                            os.path.relpath(compile_cache_path())))
    ours = [r for r in table if r[3] == "ours"]
    if ours:
        xs = [float(r[-1]) for r in ours]
        geo = 1.0
        for v in xs:
            geo *= v
        geo **= 1 / len(xs)
        print("\nOurs over the better of PyTorch eager and torch.compile: geometric mean %.2fx, lowest %.2fx; "
              "lowest %% of a copy: %s%%." % (geo, min(xs), min(float(r[7]) for r in ours)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
