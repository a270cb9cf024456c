#!/usr/bin/env python3
"""compare.py - compares the answers of same_answers on the GPU and on the emulator, case by case.

    compare.py GPU_ANSWERS EMU_ANSWERS     the table, then "N identical, M within tolerance, K different"
    compare.py --summary ANSWERS           what one run recorded (cases, errors, missing solutions)

An answers line is: name kind tol count word... (see cases.h). Integers (u32, u64) and text (txt) must be
identical. Floats (f32, f64) must be identical, except in a case with tol > 0 (contraction-sensitive: the
GPU may fuse a mul+add into one fma, or an approximate instruction whose error PTX bounds), where each word
may be up to tol ulps away; a negative tol is an absolute bound, 2^tol (lg2.approx near 1). Two NaNs with
different bits are a difference (the payload is part of the answer), except in kind f64n: doubles from
operations with several NaN operands, where the GPU returns the one that ptxas happened to place last in
the instruction, so any NaN answers a NaN. Exit status 0 when nothing differs.
Plain python3, no packages.
"""
import struct
import sys


def parse(path):
    cases, order = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ")
            if len(parts) < 4:
                continue
            name, kind, tol = parts[0], parts[1], parts[2]
            if kind in ("ERROR", "MISSING"):
                entry = {"kind": kind, "tol": 0, "words": [], "why": " ".join(parts[4:])}
            else:
                entry = {"kind": kind, "tol": int(tol), "words": [int(w, 16) for w in parts[4:]], "why": ""}
            base, k = name, 2
            while name in cases:  # a repeated name gets a suffix, the same on both sides
                name = "%s#%d" % (base, k)
                k += 1
            cases[name] = entry
            order.append(name)
    return cases, order


def ordered(bits, wide):
    """The float's position on the number line: adjacent floats differ by 1."""
    sign = 1 << (63 if wide else 31)
    return -(bits & (sign - 1)) if bits & sign else bits


def is_nan(bits, wide):
    if wide:
        return (bits & 0x7FF0000000000000) == 0x7FF0000000000000 and bits & 0xFFFFFFFFFFFFF
    return (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF


def show(bits, kind):
    if kind == "f32":
        return "%.9g (%08x)" % (struct.unpack("<f", struct.pack("<I", bits))[0], bits)
    if kind == "f64":
        return "%.17g (%016x)" % (struct.unpack("<d", struct.pack("<Q", bits))[0], bits)
    if kind == "u64":
        signed = bits - (1 << 64) if bits >> 63 else bits
        return "%d (%016x)" % (signed, bits)
    signed = bits - (1 << 32) if bits >> 31 else bits
    return "%d (%08x)" % (signed, bits)


def text_of(words):
    return b"".join(struct.pack("<I", w) for w in words).rstrip(b"\0").decode("utf-8", "replace")


def compare_text(g, e):
    tg, te = text_of(g["words"]), text_of(e["words"])
    if tg == te:
        return "identical", "identical (%d lines)" % tg.count("\n")
    lg, le = tg.split("\n"), te.split("\n")
    for i in range(max(len(lg), len(le))):
        a = lg[i] if i < len(lg) else "<no line>"
        b = le[i] if i < len(le) else "<no line>"
        if a != b:
            return "different", "DIFFERENT at line %d: gpu %r, emulator %r" % (i + 1, a, b)
    return "different", "DIFFERENT"


def compare(g, e):
    """Returns (category, text): category is identical / tolerance / different / missing."""
    if g["kind"] == "MISSING" or e["kind"] == "MISSING":
        return "missing", "not compared: the solution is missing (%s)" % (g["why"] or e["why"])
    if g["kind"] == "ERROR" or e["kind"] == "ERROR":
        side = "gpu" if g["kind"] == "ERROR" else "emulator"
        if g["kind"] == e["kind"]:
            side = "both"
        return "different", "DIFFERENT: error on %s: %s" % (side, g["why"] or e["why"])
    if g["kind"] != e["kind"]:
        return "different", "DIFFERENT: kinds differ (%s, %s)" % (g["kind"], e["kind"])
    kind = g["kind"]
    if kind == "txt":
        return compare_text(g, e)
    gw, ew = g["words"], e["words"]
    if len(gw) != len(ew):
        return "different", "DIFFERENT: %d words on the gpu, %d on the emulator" % (len(gw), len(ew))
    first = next((i for i in range(len(gw)) if gw[i] != ew[i]), None)
    if first is None:
        return "identical", "identical (%d words)" % len(gw)
    ndiff = sum(1 for a, b in zip(gw, ew) if a != b)
    where = "at [%d] of %d (%d words differ): gpu %s, emulator %s" % (
        first, len(gw), ndiff, show(gw[first], kind), show(ew[first], kind))
    if kind in ("u32", "u64"):
        return "different", "DIFFERENT " + where
    wide = kind in ("f64", "f64n")
    worst, nan_payload = 0, None
    for i, (a, b) in enumerate(zip(gw, ew)):
        if a == b:
            continue
        if is_nan(a, wide) and is_nan(b, wide):
            nan_payload = nan_payload if nan_payload is not None else i
            continue
        if is_nan(a, wide) or is_nan(b, wide):
            worst = float("inf")
            continue
        worst = max(worst, abs(ordered(a, wide) - ordered(b, wide)))
    if nan_payload is not None and worst == 0 and kind == "f64n":
        return "tolerance", "NaN payloads differ (%d words), the rest identical: with several NaN operands the " \
            "GPU returns the one that ptxas placed last" % ndiff
    if nan_payload is not None and worst == 0:
        i = nan_payload
        return "different", "DIFFERENT: NaN payloads at [%d] (%d words differ): gpu %s, emulator %s" % (
            i, ndiff, show(gw[i], kind), show(ew[i], kind))
    if g["tol"] < 0 and nan_payload is None and worst != float("inf"):
        bound = 2.0 ** g["tol"]
        value = lambda bits: struct.unpack("<d" if wide else "<f", struct.pack("<Q" if wide else "<I", bits))[0]
        gap = max(abs(value(a) - value(b)) if value(a) != value(b) else 0.0 for a, b in zip(gw, ew))
        if gap <= bound:
            return "tolerance", "within %.3g absolute (allowed 2^%d: approximate; %d words differ)" % (
                gap, g["tol"], ndiff)
        return "different", "DIFFERENT (up to %.3g absolute, allowed 2^%d) %s" % (gap, g["tol"], where)
    if g["tol"] > 0 and worst <= g["tol"] and nan_payload is None:
        return "tolerance", "within %d ulp (allowed %d: contraction or approximation; %d words differ)" % (
            worst, g["tol"], ndiff)
    ulps = "inf" if worst == float("inf") else "%d" % worst
    return "different", "DIFFERENT (up to %s ulp) %s" % (ulps, where)


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary":
        cases, order = parse(argv[2])
        bad = [n for n in order if cases[n]["kind"] in ("ERROR", "MISSING")]
        for n in bad:
            print("%-58s %s %s" % (n, cases[n]["kind"], cases[n]["why"]))
        print("%d cases recorded, %d of them errors or missing solutions" % (len(order), len(bad)))
        return 1 if any(cases[n]["kind"] == "ERROR" for n in order) else 0
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    gpu, gorder = parse(argv[1])
    emu, eorder = parse(argv[2])
    names = gorder + [n for n in eorder if n not in gpu]
    counts = {"identical": 0, "tolerance": 0, "different": 0, "missing": 0}
    width = min(max([len(n) for n in names] + [4]), 60)
    print("%-*s  %s" % (width, "case", "result"))
    print("%s  %s" % ("-" * width, "-" * 40))
    for n in names:
        if n not in gpu or n not in emu:
            cat, text = "different", "DIFFERENT: only the %s recorded this case" % ("gpu" if n in gpu else "emulator")
        else:
            cat, text = compare(gpu[n], emu[n])
        counts[cat] += 1
        print("%-*s  %s" % (width, n, text))
    print()
    summary = "%d identical, %d within tolerance, %d different" % (
        counts["identical"], counts["tolerance"], counts["different"])
    if counts["missing"]:
        summary += " (%d not compared: solutions missing)" % counts["missing"]
    print(summary)
    return 1 if counts["different"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
