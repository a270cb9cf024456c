#!/usr/bin/env python3
"""ncu_summary.py - the profiles device-lessons.sh takes, as short tables, one row per profiled kernel.

    ncu_summary.py ORDER_TXT NCU_CSV...

ORDER_TXT is `candidates --profile`'s output: one "profile: LABEL" line per kernel, in launch order. Each
NCU_CSV is `ncu --csv --print-units base` of that same program (one row per kernel and metric); its
kernels, in launch order, are the labels in order. A metric that no file holds is shown as "-".
Plain python3, no packages.
"""
import csv
import sys

# The tables: a title, then (metric, column header, how to show it). "us" turns nanoseconds into
# microseconds, "M" counts into millions, "%" and "x" print as they are.
TABLES = [
    ("Where the time goes (one launch each; ints, 2^26 unless named)", [
        ("gpu__time_duration.sum", "us", "us"),
        ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %", "%"),
        ("sm__warps_active.avg.pct_of_peak_sustained_active", "occup. %", "%"),
        ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue %", "%"),
        ("smsp__inst_executed.sum", "M instr", "M"),
    ]),
    ("Why warps wait: stalled warps per issued instruction, by reason", [
        ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "memory", "x"),
        ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "barrier", "x"),
        ("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "shared", "x"),
        ("smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", "mio thr.", "x"),
        ("smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", "lg thr.", "x"),
        ("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "wait", "x"),
    ]),
    ("Lanes and shared memory: thread instructions with the predicate on, shared loads and their passes", [
        ("smsp__thread_inst_executed.sum", "M thr.inst", "M"),
        ("smsp__thread_inst_executed_pred_on.sum", "M pred on", "M"),
        ("smsp__inst_executed_op_shared_ld.sum", "M sh.ld", "M"),
        ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "M wavefr.", "M"),
    ]),
    ("Reductions to global memory: warp-level RED instructions, and the requests they make of the L2", [
        ("smsp__inst_executed_op_global_red.sum", "RED instr", "n"),
        ("lts__t_requests_srcunit_tex_op_red.sum", "L2 reqs", "n"),
    ]),
]


def read_profiles(path):
    """[{metric: value}] in launch order (ncu's ID column) from one ncu CSV."""
    with open(path, encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    if not rows or "ID" not in rows[0]:
        return []
    head = rows[0]
    i_id, i_name, i_value = head.index("ID"), head.index("Metric Name"), head.index("Metric Value")
    launches = {}
    for row in rows[1:]:
        if len(row) <= max(i_id, i_name, i_value) or row[i_name] == "Metric Name":
            continue
        try:
            launches.setdefault(int(row[i_id]), {})[row[i_name]] = float(row[i_value].replace(",", ""))
        except ValueError:
            continue
    return [launches[k] for k in sorted(launches)]


def show(value, how):
    if value is None:
        return "-"
    if how == "us":
        return "%.1f" % (value / 1e3)
    if how == "M":
        return "%.2f" % (value / 1e6)
    if how == "n":
        return "%d" % value
    return "%.1f" % value if how == "%" else "%.2f" % value


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        labels = [l.split(":", 1)[1].strip() for l in f if l.startswith("profile:")]
    merged = [dict() for _ in labels]
    for path in sys.argv[2:]:
        for k, metrics in enumerate(read_profiles(path)[:len(labels)]):
            merged[k].update(metrics)
    for title, columns in TABLES:
        if not any(m in merged[k] for k in range(len(labels)) for m, _, _ in columns):
            print("\n%s: not collected" % title)
            continue
        print("\n%s" % title)
        print("  %-30s" % "kernel" + "".join("%11s" % h for _, h, _ in columns))
        for label, metrics in zip(labels, merged):
            print("  %-30s" % label[:30] + "".join("%11s" % show(metrics.get(m), how) for m, _, how in columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
