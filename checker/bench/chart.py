#!/usr/bin/env python3
"""chart.py CSV [PNG] - draws make bench's results at the largest n, one chart per element type: bars in
the terminal, and a PNG when matplotlib is there."""
import csv
import sys


def load(path):
    """{type: (n, [(version, GB/s), ...])} for the largest n of each type, right results only."""
    with open(path) as f:
        # The host-timed rows ("(host clock)") measure another thing: a caller's wait, not the GPU's work.
        rows = [r for r in csv.DictReader(f) if r["ok"] == "1" and "(host clock)" not in r["version"]]
    charts = {}
    for kind in dict.fromkeys(r["type"] for r in rows):
        mine = [r for r in rows if r["type"] == kind]
        largest = max(int(r["n"]) for r in mine)
        charts[kind] = (largest, [(r["version"], float(r["gbps"])) for r in mine if int(r["n"]) == largest])
    return charts


def terminal(kind, largest, bars):
    top = max(g for _, g in bars)
    print(f"\nGB/s summing {largest} {kind}s (cold L2), longer is faster:")
    for name, gbps in bars:
        print(f"  {name:<26} {'#' * max(1, round(50 * gbps / top)):<50} {gbps:7.0f}")


def png(charts, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tallest = max(len(bars) for _, bars in charts.values())
    fig, axes = plt.subplots(1, len(charts), figsize=(8 * len(charts), 0.35 * tallest + 1), squeeze=False)
    for ax, (kind, (largest, bars)) in zip(axes[0], charts.items()):
        names = [n for n, _ in bars][::-1]
        values = [g for _, g in bars][::-1]
        ax.barh(names, values, color=["#999999" if "copy" in n or "CUB" in n else "#4477aa" for n in names])
        ax.set_xlabel("GB/s (input bytes / time, L2 flushed)")
        ax.set_title(f"Reduction of {largest} {kind}s")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    charts = load(sys.argv[1])
    for kind, (largest, bars) in charts.items():
        terminal(kind, largest, bars)
    if len(sys.argv) > 2:
        png(charts, sys.argv[2])
