#!/usr/bin/env python3
"""chart.py CSV [PNG] - draws make bench's results: bars in the terminal, and a PNG when matplotlib is there."""
import csv
import sys


def load(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["ok"] == "1"]
    largest = max(int(r["n"]) for r in rows)
    return largest, [(r["version"], float(r["gbps"])) for r in rows if int(r["n"]) == largest]


def terminal(largest, bars):
    top = max(g for _, g in bars)
    print(f"\nGB/s at n = {largest} (cold L2), longer is faster:")
    for name, gbps in bars:
        print(f"  {name:<24} {'#' * max(1, round(50 * gbps / top)):<50} {gbps:7.0f}")


def png(largest, bars, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [n for n, _ in bars][::-1]
    values = [g for _, g in bars][::-1]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(names) + 1))
    ax.barh(names, values, color=["#999999" if "copy" in n or "CUB" in n else "#4477aa" for n in names])
    ax.set_xlabel("GB/s (input bytes / time, L2 flushed)")
    ax.set_title(f"Reduction of {largest} ints")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    largest, bars = load(sys.argv[1])
    terminal(largest, bars)
    if len(sys.argv) > 2:
        png(largest, bars, sys.argv[2])
