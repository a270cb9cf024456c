#!/usr/bin/env python3
"""rows_candidates.py CSV LIBRARY... - builds of exercise 16's kernels (the reference and candidates, each a
library of the contract's functions) timed side by side at every row of make bench's Part III table, beside
PyTorch eager, torch.compile (its times kept for this GPU, as make bench reads them) and a copy of the same
bytes: one process, rows_torch.py's method (cold L2, a busy GPU before each call, medians of interleaved
repeats), each output checked against float64. Prints a line a row and writes CSV (shape, op, type, build,
path, us, pct_copy, x_best). SHAPES="8192x8192 ..." times those shapes instead of the table's (any shape: an
experiment that changes one dimension), OPS="layer_norm/fp16 ..." those operations only."""
import csv
import math
import os
import sys

import torch

import rows_torch as rt


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    builds = [(os.path.basename(p)[:-3] if p.endswith(".so") else os.path.basename(p), rt.library(p))
              for p in argv[2:]]
    missing = [name for name, lib in builds if lib is None]
    if missing:
        print("rows_candidates.py: no library for %s" % ", ".join(missing), file=sys.stderr)
        return 2
    compiled = rt.read_compile_cache()
    shapes = os.environ.get("SHAPES", "").split()
    ops = os.environ.get("OPS", "").split()
    table, wrong = [], 0
    print("Exercise 16's builds on %s, us / %% of a copy / the faster PyTorch's time over the build's:" % rt.props.name)
    for rows, cols in [tuple(map(int, s.split("x"))) for s in shapes] or rt.SHAPES:
        shape = "%dx%d" % (rows, cols)
        print("\n%s" % shape, flush=True)
        for op, fn, dtype in rt.OPS:
            tag = "%s/%s" % (op, rt.TYPE[dtype])
            if ops and tag not in ops:
                continue
            x = rt.input_rows(rows, cols, dtype)
            per_element = op != "row_stats"
            w = torch.ones(cols, dtype=dtype, device=rt.dev)
            b = torch.zeros(cols, dtype=dtype, device=rt.dev)
            outs, contenders, paths = {}, [], {}
            for name, lib in builds:
                outs[name] = torch.empty((rows, cols) if per_element else (2 * rows,),
                                         dtype=dtype if per_element else torch.float32, device=rt.dev)
                contenders.append((name, rt.course_call(lib, op, fn, x, outs[name], w, b, rows, cols)))
            eager = rt.torch_function(op, cols, w, b)
            contenders.append(("eager", lambda: eager(x)))
            xc = torch.empty_like(x)
            contenders.append(("copy", lambda: xc.copy_(x)))
            for name, call in contenders:   # warm-up; each build's output checked
                if name in outs:
                    outs[name].fill_(float("nan"))
                    paths[name] = call()
                    torch.cuda.synchronize()
                    bad = rt.wrong_values(op, outs[name], x, cols)
                    if bad:
                        wrong += 1
                        print("  %s %s: %d values outside the bound" % (tag, name, bad))
                else:
                    call()
            us = rt.time_interleaved(contenders)
            best = min(us["eager"], compiled.get((shape, op, rt.TYPE[dtype]), math.inf))
            bytes_moved = x.numel() * x.element_size() + outs[builds[0][0]].numel() * outs[builds[0][0]].element_size()
            copy_gbps = 2 * x.numel() * x.element_size() / us["copy"] / 1e3
            line = "  %-16s" % tag
            for name, _ in builds:
                pct = 100 * bytes_moved / us[name] / 1e3 / copy_gbps
                line += " | %s %.1f %.0f%% %.2fx" % (name, us[name], pct, best / us[name])
                table.append([shape, op, rt.TYPE[dtype], name, rt.PATH.get(paths[name], "none"), "%.2f" % us[name],
                              "%.1f" % pct, "%.3f" % (best / us[name])])
            print(line, flush=True)
            del x, xc, outs
            torch.cuda.empty_cache()
    with open(argv[1], "w", newline="") as f:
        csv.writer(f).writerows([["shape", "op", "type", "build", "path", "us", "pct_copy", "x_best"]] + table)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
