#!/usr/bin/env python3
"""chart_allreduce.py CSV [PNG] - draws bench_allreduce's busbw against the size, one line per contender and one
chart per number of GPUs, in a PNG (log-scaled sizes) when matplotlib is there; in the terminal, bars at the
smallest and the largest size."""
import csv
import sys


def load(path):
    """{ranks: {contender: [(bytes, busbw GB/s), ...]}}, right results only, in the CSV's order."""
    charts = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["ok"] != "1":
                continue
            lines = charts.setdefault(int(r["ranks"]), {})
            lines.setdefault(r["contender"], []).append((int(r["size"]), float(r["busbw"])))
    return charts


def size_text(size):
    return f"{size >> 30} GB" if size >= 1 << 30 else f"{size >> 20} MB" if size >= 1 << 20 else f"{size >> 10} KB"


def terminal(ranks, lines):
    """Bars at the smallest and the largest size: where latency decides, and where the links do."""
    sizes = sorted({s for points in lines.values() for s, _ in points})
    for size in dict.fromkeys([sizes[0], sizes[-1]]):
        bars = [(name, b) for name, points in lines.items() for s, b in points if s == size]
        top = max(b for _, b in bars) or 1
        print(f"\nbusbw (GB/s) of an all-reduce of {size_text(size)} on {ranks} GPUs, longer is faster:")
        for name, busbw in bars:
            print(f"  {name:<22} {'#' * max(1, round(50 * busbw / top)):<50} {busbw:7.1f}")


def png(charts, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(charts), figsize=(7 * len(charts), 5), squeeze=False)
    for ax, (ranks, lines) in zip(axes[0], sorted(charts.items(), reverse=True)):
        for name, points in lines.items():
            style = "--" if "NCCL" in name else "-"
            ax.plot([s for s, _ in points], [b for _, b in points], style, marker="o", label=name)
        sizes = sorted({s for points in lines.values() for s, _ in points})
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([size_text(s) for s in sizes])
        ax.set_xlabel("message size (floats, in place)")
        ax.set_ylabel("busbw (GB/s) = bytes / time x 2(n-1)/n")
        ax.set_title(f"All-reduce on {ranks} GPUs")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    charts = load(sys.argv[1])
    for ranks, lines in sorted(charts.items(), reverse=True):
        terminal(ranks, lines)
    if len(sys.argv) > 2 and charts:
        png(charts, sys.argv[2])
