#!/usr/bin/env python3
"""ncu_table.py - the emulator's metrics beside Nsight Compute's, one table per metric.

    ncu_table.py EMU_TXT NCU_CSV    side by side, with a verdict per row
    ncu_table.py EMU_TXT            the emulator's numbers alone

EMU_TXT is metrics_runner's output on the emulator (EMU_METRICS lines); NCU_CSV is `ncu --csv` on the GPU
build (one row per kernel and metric). Verdicts:
  exact      the two counts are equal (required for global requests and sectors)
  near zero  both at most 2% of the largest count ncu gives any version for that metric (bank
             conflicts where ncu's count is small beside the strided kernel's)
  close      within 10% (bank conflicts or shared/barrier instruction counts where ncu's count is large)
  tracks     instruction counts: the version's ratio to v1 on the emulator is within a factor 1.5 of ncu's
             (PTX is not SASS, so the counts themselves differ)
  DIFFERS    none of the above
Exit status 1 if a global request/sector row or a bank-conflict row DIFFERS. Plain python3, no packages.
"""
import csv
import math
import re
import sys

VERSIONS = ["v1", "v2_strided", "v2", "v3", "v4", "v5", "v6"]

# ncu metric -> (emulator field, how the row is judged, the matching emulator instruction count for
# "near zero")
METRICS = [
    ("smsp__inst_executed.sum", "warp_instructions", "ratio", None),
    ("smsp__thread_inst_executed.sum", "thread_instructions", "ratio", None),
    ("smsp__sass_branch_targets_threads_divergent.sum", "divergent_branches", "ratio", None),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared_load_bank_conflicts", "conflicts",
     "shared_load_instructions"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared_store_bank_conflicts", "conflicts",
     "shared_store_instructions"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global_load_requests", "exact", None),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global_load_sectors", "exact", None),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global_store_requests", "exact", None),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global_store_sectors", "exact", None),
    ("smsp__inst_executed_op_shared_ld.sum", "shared_load_instructions", "count", None),
    ("smsp__inst_executed_op_shared_st.sum", "shared_store_instructions", "count", None),
    ("BARRIER", "barriers", "count", None),
]
KERNEL_VERSION = re.compile(r"reduce_(v\d(?:_strided)?)_kernel")
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def read_emu(path):
    emu = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("EMU_METRICS "):
                continue
            fields = dict(kv.split("=", 1) for kv in line.split()[1:])
            version = fields.pop("version")
            emu[version] = {k: int(v) for k, v in fields.items()}
    return emu


def read_ncu(path):
    """{version: {metric: value}} from ncu's CSV (details page: one row per kernel and metric)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = list(csv.reader(lines))
    if not rows:
        return {}
    header = rows[0]
    try:
        k_name, m_name, m_unit, m_value = (header.index(c) for c in
                                           ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
    except ValueError:
        return {}
    ncu = {}
    for row in rows[1:]:
        if len(row) <= max(k_name, m_name, m_value) or row[m_name] == "Metric Name":
            continue
        found = KERNEL_VERSION.search(row[k_name])
        if not found:
            continue
        try:
            value = float(row[m_value].replace(",", ""))
        except ValueError:
            continue
        unit = row[m_unit] if m_unit < len(row) else ""
        prefix = unit[0] if unit[:1] in ("K", "M", "G", "T") and len(unit) > 1 and unit[1].islower() else ""
        ncu.setdefault(found.group(1), {})[row[m_name]] = value * SCALE[prefix]
    return ncu


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return "%.2f" % v
    return "%d" % v


def verdict(kind, e, n, e_ratio, n_ratio, e_base):
    if e is None or n is None:
        return "-"
    if kind == "exact":
        return "exact" if e == n else "DIFFERS"
    if e == n:
        return "exact"
    if kind == "conflicts":
        small = max(1.0, 0.02 * (e_base or 0))
        if n <= small:
            return "near zero" if e <= small else "DIFFERS"
        return "close" if abs(e - n) <= 0.10 * n else "DIFFERS"
    if kind == "count" and n > 0 and abs(e - n) <= 0.10 * n:
        return "close"
    if e_ratio is None or n_ratio is None:
        return "DIFFERS" if (e == 0) != (n == 0) else "tracks"
    if e_ratio == 0 or n_ratio == 0:
        return "tracks" if e_ratio == n_ratio else "DIFFERS"
    return "tracks" if abs(math.log(e_ratio / n_ratio)) <= math.log(1.5) else "DIFFERS"


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    emu = read_emu(argv[1])
    ncu = read_ncu(argv[2]) if len(argv) == 3 else None
    versions = [v for v in VERSIONS if v in emu or (ncu and v in ncu)]
    if not emu:
        print("No EMU_METRICS lines in %s: did the emulator run?" % argv[1])
        return 2
    print("Versions: %s (n = 2^22 ints, blocks of 256, one launch each; grids: %s)" % (
        ", ".join(versions), ", ".join("%s %d" % (v, emu[v].get("grid", 0)) for v in versions if v in emu)))
    if ncu is not None and not ncu:
        print("No kernel rows in %s: did ncu profile anything?" % argv[2])
        return 2
    barrier = None
    if ncu:
        names = {m for per in ncu.values() for m in per}
        barrier = next((m for m in names if "barrier" in m or "op_bar" in m), None)
    failures = 0
    for metric, field, kind, base_field in METRICS:
        shown = barrier if metric == "BARRIER" else metric
        print()
        if ncu is None:
            print("%s (emulator: %s)" % (field, field))
        else:
            print("%s  (emulator: %s)" % (shown or "barriers: no ncu metric", field))
        print("  %-11s %14s %14s %8s %8s %8s  %s" % ("version", "emulator", "ncu", "emu/ncu", "emu/v1", "ncu/v1",
                                                   "verdict"))
        e1 = emu.get("v1", {}).get(field)
        n1 = ncu.get("v1", {}).get(shown) if ncu and shown else None
        for v in versions:
            e = emu.get(v, {}).get(field)
            n = ncu.get(v, {}).get(shown) if ncu and shown else None
            e_ratio = e / e1 if e is not None and e1 else None
            n_ratio = n / n1 if n is not None and n1 else None
            ratio = e / n if e is not None and n else None
            # "Near zero" is judged against the version with the most conflicts (Harris's strided index):
            # the GPU's counter shows a few thousand even where the accesses cannot conflict, and what the
            # lessons teach is the difference between those and the strided kernel's million.
            base = None
            if base_field:
                largest = [x.get(shown) for x in ncu.values()] if ncu and shown else []
                largest = [c for c in largest if c is not None]
                base = max(largest) if largest else emu.get(v, {}).get(base_field)
            vd = verdict(kind, e, n, e_ratio, n_ratio, base) if ncu else ""
            if vd == "DIFFERS" and kind in ("exact", "conflicts"):
                failures += 1
            print("  %-11s %14s %14s %8s %8s %8s  %s" % (
                v, fmt(e), fmt(n), "%.3f" % ratio if ratio is not None else "-",
                "%.3f" % e_ratio if e_ratio is not None else "-",
                "%.3f" % n_ratio if n_ratio is not None else "-", vd))
    if ncu:
        print()
        print("Global requests and sectors and bank conflicts: %s" % (
            "every row matches" if failures == 0 else "%d row(s) DIFFER" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
