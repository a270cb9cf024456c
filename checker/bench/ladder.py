#!/usr/bin/env python3
"""ladder.py - the ladder the version lessons show: each version's time for 2^20 and 2^28 ints on the H100
and the H200, with its speed-up over the row above (from the times shown) and over v1 (as `make bench`
printed it), read from the results files.

    ladder.py [--mark VERSION]     e.g. --mark v3 puts "<-" beside v3's row
    ladder.py --check              every ladder in lessons/ and exercises/ (a fenced block that starts
                                   with "$ python3 checker/bench/ladder.py ...") is what this prints now

It reads the first table of ints at each size in checker/bench/results/nvidia-h100-2026-11-22.md (the run
of the course as committed) and in nvidia-h200-2026-11-22.md (its last run, the course as committed):
cold L2, medians. A version missing from a run is shown as "-". Plain python3, no packages.
"""
import glob
import io
import os
import re
import sys
from contextlib import redirect_stdout

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
RUNS = [("H100", "nvidia-h100-2026-11-22.md"), ("H200", "nvidia-h200-2026-11-22.md")]
ROWS = ["ex01 atomic", "v1 interleaved", "v2' strided index", "v2 sequential", "v3 first add", "v4 last warp",
        "v5 unrolled", "v6 shuffle", "ex11 fastest", "CUB DeviceReduce"]


def first_table(path, log2n):
    """{version: (cold us, x v1)} from the first table of ints at n = 2^log2n in a results file."""
    times, inside = {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if re.match(r"\s*n = 2\^%d \(\d+ ints" % log2n, line):
                inside = True
                continue
            if inside:
                m = re.match(r"\s+(\S.*?)\s{2,}(\d+\.\d)\s+\d+\s+\d+%\s+(\d+\.\d\d)\s", line)
                if not m:
                    if times:
                        return times
                    continue
                times[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return times


def check():
    """Compares every ladder shown in the lessons with what ladder.py prints now; returns the exit status."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    compared = different = 0
    for path in sorted(glob.glob(os.path.join(root, "lessons", "*.md")) +
                       glob.glob(os.path.join(root, "exercises", "*", "*.md"))):
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"\$ python3 checker/bench/ladder.py(.*)$", line)
            if not m:
                continue
            shown = []
            for later in lines[i + 1:]:
                if later.startswith("```"):
                    break
                shown.append(later)
            now = io.StringIO()
            with redirect_stdout(now):
                ladder(m.group(1).split())
            compared += 1
            name = os.path.relpath(path, root)
            if now.getvalue().rstrip("\n").split("\n") == shown:
                print("  \u2713 %s: ladder%s" % (name, m.group(1)))
            else:
                different += 1
                print("  \u2717 %s: the ladder%s is not what ladder.py prints now" % (name, m.group(1)))
    print("ladders: %d compared, %d different" % (compared, different))
    return 1 if different else 0


def main():
    if sys.argv[1:] == ["--check"]:
        return check()
    return ladder(sys.argv[1:])


def ladder(args):
    mark = args[1] if len(args) > 1 and args[0] == "--mark" else None
    data = {(gpu, k): first_table(os.path.join(RESULTS, name), k) for gpu, name in RUNS for k in (20, 28)}
    print(("  %-18s %-22s %-24s %-12s %-12s" % ("", "H100, 2^20 ints", "H100, 2^28 ints", "H200, 2^20",
                                                "H200, 2^28")).rstrip())
    print("  %-18s %6s %6s %6s   %8s %6s %6s   %5s %5s  %7s %5s" % ("version", "us", "step", "x v1", "us",
                                                                      "step", "x v1", "us", "x v1", "us", "x v1"))
    previous = {}
    show = lambda x, w, f: (f % x).rjust(w) if x is not None else "-".rjust(w)
    for row in ROWS:
        cells = []
        for gpu, k in (("H100", 20), ("H100", 28), ("H200", 20), ("H200", 28)):
            t, x_v1 = data[(gpu, k)].get(row, (None, None))
            # The step: over the row above, for the versions of the ladder (not the atomics, not CUB).
            step = previous.get((gpu, k)) if row not in ROWS[:2] + ROWS[-1:] else None
            if gpu == "H100":
                cells.append("%s %s %s" % (show(t, 6 if k == 20 else 8, "%.1f"),
                                           show(step / t if t and step else None, 6, "%.2f"), show(x_v1, 6, "%.2f")))
            else:
                cells.append("%s %s" % (show(t, 5 if k == 20 else 7, "%.1f"), show(x_v1, 5, "%.2f")))
            if t is not None and row not in ROWS[:1] + ROWS[-1:]:
                previous[(gpu, k)] = t
        line = "  %-18s %s   %s   %s  %s" % (row, cells[0], cells[1], cells[2], cells[3])
        if mark and row.split()[0] == mark:
            line += "  <-"
        print(line.rstrip())
    print("  (H200: its last run had no v2' row, and exercise 11 then began with a memset.)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
