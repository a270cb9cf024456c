#!/usr/bin/env python3
"""library_table.py BENCH_TXT - the table lesson 12 quotes, from what `make bench` printed: thrust::reduce,
CUB and exercise 11 at 2^20 and 2^28 elements, ints and floats, cold L2, medians in microseconds. The GPU's
own work (events, queued behind a busy kernel) and what a caller waits (the host's clock, the sum copied to
the host) are separate rows, as bench.cu measures them."""
import re
import sys

ROWS = [
    ("ex11 fastest", False, "ex11 fastest, GPU work"),
    ("CUB DeviceReduce", False, "CUB DeviceReduce, GPU work"),
    ("thrust::reduce", True, "thrust::reduce, host clock"),
    ("CUB DeviceReduce + copy", True, "CUB + copy, host clock"),
    ("ex11 fastest + copy", True, "ex11 + copy, host clock"),
]
COLUMNS = [(20, "int"), (28, "int"), (20, "float"), (28, "float")]


def parse(lines):
    """{(log2 n, type, host?, version): cold us}, the GPU's line and the empty kernel's line."""
    times, gpu, empty = {}, "", ""
    size = kind = None
    host = False
    for line in lines:
        if line.startswith("GPU: "):
            gpu = line.strip()
        elif line.startswith("An empty kernel"):
            m = re.search(r"takes ([0-9.]+) us", line)
            empty = f"An empty kernel: {m.group(1)} us from launch to finish, on an idle GPU." if m else ""
        m = re.match(r"n = 2\^(\d+) \(\d+ (int|float)s", line)
        if m:
            size, kind, host = int(m.group(1)), m.group(2), False
            continue
        if "on the host's clock" in line:
            host = True
            continue
        m = re.match(r"  (\S.*?)\s{2,}([0-9.]+)\s+[0-9]", line)
        if m and size is not None:
            times[(size, kind, host, m.group(1))] = float(m.group(2))
    return times, gpu, empty


def main():
    try:
        with open(sys.argv[1]) as f:
            times, gpu, empty = parse(f.readlines())
    except OSError as e:
        print(f"No table: {e.strerror} ({sys.argv[1]}); `make bench` did not finish (see its step above).")
        return 1
    print(gpu)
    if empty:
        print(empty)
    print("Cold L2, medians, microseconds ('-': not in this run):")
    header = "".join(f"{'2^%d %ss' % (lg, kind):>13}" for lg, kind in COLUMNS)
    print(f"  {'':<28}{header}")
    for version, host, label in ROWS:
        cells = ""
        for lg, kind in COLUMNS:
            t = times.get((lg, kind, host, version))
            cells += f"{t:13.1f}" if t is not None else f"{'-':>13}"
        print(f"  {label:<28}{cells}")
    missing = [c for c in COLUMNS if not any(k[:2] == c for k in times)]
    if missing:
        print("  (the bench did not reach " + ", ".join("2^%d %ss" % c for c in missing) +
              ": less free GPU memory, or the run was cut short)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
