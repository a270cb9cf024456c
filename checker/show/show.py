#!/usr/bin/env python3
"""show.py - `make show exNN`'s drawing (checker/scripts/show.sh runs the kernels and calls this): what the
learner's kernel did on a small launch, from the emulator's trace, in one terminal screen (40 lines of 100
columns), with the reference's numbers beside it, and the same as a page (page.py).

  show.py --exercise NN --file FILE --function FN --launch "N BLOCK COLS SHAPE" --view VIEW [--view-asked]
          --trace TRACE --findings FINDINGS [--ref-file F --ref-trace T] [--ref-picture] [--page OUT.html]
          [--lesson]
--view-asked: the learner chose VIEW (else exercise 16's block and cluster paths draw their stages); --lesson
prints the picture alone, as the lessons show it (checker/show/lessons.py compares them)."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import term  # noqa: E402
import trace as tracefile  # noqa: E402
import views  # noqa: E402
from lang import _, N_, pad, width, wrap  # noqa: E402

SCREEN = 40
# Exercise 16's paths, by the number its functions return (checker/contracts/ex16.h).
PATHS = {1: N_("a warp per row"), 2: N_("a block per row"),
         3: N_("a cluster of blocks per row"), 4: N_("a block per row that reads the row again")}


def launch_text(fn, run):
    """"reduce_v1(n = 64, block = 64)": the call make show made."""
    shape = run["shape"]
    if shape == "partials":
        return "%s(n=%d, block=%d)" % (fn, run["n"], run["block"])
    if shape in ("rows16", "softmax", "norm16", "rowmap"):
        return "%s(rows=%d, cols=%d)" % (fn, run["n"] // run["cols"], run["cols"])
    if shape == "library":
        return "%s, sum_cub(n=%d)" % (fn, run["n"])
    return "%s(n=%d)" % (fn, run["n"])


def legend_lines(pic, painter):
    out, line = [], ""
    for part in term.legend(pic, painter):
        if line and width(line) + 3 + width(part) > term.WIDTH:
            out.append(line)
            line = ""
        line = part if not line else line + "   " + part
    if line:
        out.append(line)
    return out


def numbers_table(view, mine, theirs, run, ref_file):
    """Yours and the reference's counts, one column per count: those of the first block, as make metrics
    counts them."""
    ours = views.numbers(view, mine, run)
    if not ours:
        return []
    ref = views.numbers(view, theirs, run) if theirs else []
    heads = [label for label, _v in ours]
    first = [_("yours")] + ([_("reference ({file})").format(file=os.path.basename(ref_file))] if ref else [])
    corner = views.numbers_scope(view, mine)
    w0 = max(width(t) for t in first + [corner]) + 2
    ws = [max(width(h), 6) for h in heads]
    out = [pad(corner, w0) + "  ".join(pad(h, w, right=True) for h, w in zip(heads, ws))]
    for name, row in zip(first, [ours, ref] if ref else [ours]):
        values = dict(row)
        out.append(pad(name, w0) + "  ".join(pad(values.get(h, "-"), w, right=True) for h, w in zip(heads, ws)))
    return out


def path_lines(mine, theirs, run):
    """Exercise 16: which path the picture shows, and why (the dispatch's choice for this shape)."""
    if run["shape"] != "rowmap":
        return []
    cols = run["cols"]
    if not mine.path:
        text = _("Your dispatch launched no path for rows of {cols} values (it returned 0).").format(cols=cols)
    else:
        text = _("Drawn: path {p}, {what}: the path the dispatch chose for rows of {cols} floats.").format(
            p=mine.path, what=_(PATHS.get(mine.path, "?")), cols=cols)
    if theirs and theirs.path and theirs.path != mine.path:
        text += " " + _("The reference's dispatch chooses path {p} here.").format(p=theirs.path)
    text += " " + _("The reference's dispatch: a warp per row up to 1024 columns, a block with the row in registers "
                    "up to 16384, in shared memory up to 25600, a cluster beyond (COLS=2000, COLS=20000, "
                    "COLS=32768 draw those; ROWS= sets the rows).")
    return wrap(text, term.WIDTH)


def places(where, other):
    """A finding's place and its other place, said once where they are the same, the file once where only
    the lines differ."""
    if not other or other == where:
        return where
    (file, _sep, line), (other_file, _sep2, other_line) = where.rpartition(":"), other.rpartition(":")
    if file and file == other_file:
        return _("{file}, lines {line} and {other}").format(file=file, line=line, other=other_line)
    return where + " " + _("and {other}").format(other=other)


def finding_lines(findings, marked, nn, limit=3):
    out = []
    for f in findings[:2]:
        where = places(f.where, f.other)
        # The sentence without the kernel's name, which the picture's title gives.
        sentence = re.split(r"(?<=\.) |(?<=[。？！])", f.text, maxsplit=1)[0]
        first = re.sub(r"^[^:]*?(block \()", r"\1", sentence)
        text = ("! " if f in marked else "- ") + "%s%s: %s" % (_(f.kind), " (" + where + ")" if where else "", first)
        out += wrap(text, term.WIDTH, 2)[:limit]
    if findings:
        if not marked:
            out.append(_("(The finding's line is not in this picture.)"))
        out.append(_("make ex{nn} says more about the finding.").format(nn=nn))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exercise", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--function", default="")
    ap.add_argument("--launch", required=True)
    ap.add_argument("--view", required=True)
    ap.add_argument("--view-asked", action="store_true")
    ap.add_argument("--trace", required=True)
    ap.add_argument("--findings")
    ap.add_argument("--ref-file")
    ap.add_argument("--ref-trace")
    ap.add_argument("--ref-picture", action="store_true")
    ap.add_argument("--page")
    ap.add_argument("--lesson", action="store_true")
    args = ap.parse_args()
    n, block, cols, shape = args.launch.split()
    run = {"n": int(n), "block": int(block), "cols": int(cols), "shape": shape}
    nn = args.exercise
    if args.view not in views.VIEWS:
        print(_("There is no picture called {view}; the pictures are: {views}.").format(
            view=args.view, views=", ".join(views.VIEWS)))
        return 2
    mine = tracefile.read(args.trace, args.findings)
    ref_findings = os.path.join(os.path.dirname(args.ref_trace or ""), "findings")
    theirs = (tracefile.read(args.ref_trace, ref_findings if os.path.exists(ref_findings) else None)
              if args.ref_trace and os.path.exists(args.ref_trace) else None)
    if theirs:
        theirs.findings = []   # the reference's path is what is wanted from its run, not its findings
    painter = term.Painter(sys.stdout.isatty() and not os.environ.get("NO_COLOR") and not args.lesson)
    if run["shape"] == "rowmap" and mine.path in (2, 3) and not args.view_asked and \
            not views.make("stages", mine, run).empty:
        args.view = "stages"   # what can go wrong where a row waits in shared memory is in its stages

    pic = views.make(args.view, mine, run)
    marked = pic.mark(mine.findings)
    if args.lesson:
        drawing = term.draw(pic, painter)
        print("\n".join((wrap(pic.title) if pic.title else []) + drawing + legend_lines(pic, painter)))
        return 0

    top = wrap(_("{file} on the emulator: {call}").format(
        nn=nn, file=args.file, call=launch_text(args.function, run)), term.WIDTH)
    top = [painter.paint(line, "1") for line in top] + path_lines(mine, theirs, run) + \
        (wrap(pic.title, term.WIDTH) if pic.title else [])
    notes = []
    for note in pic.notes:
        notes += wrap(note, term.WIDTH)
    table = numbers_table(args.view, mine, theirs, run, args.ref_file or "")
    refpic = []
    if args.ref_picture and theirs:
        ref = views.make(args.view, theirs, run)
        refpic = [painter.paint(_("The reference ({file}):").format(file=args.ref_file), "1")] + \
            ([ref.title] if ref.title else []) + term.draw(ref, painter, max_rows=12)
    found = finding_lines(mine.findings, marked, nn)
    if mine.wrong:
        found += wrap(_("Your function's result was not the sum of this input: make ex{nn} says how.").format(nn=nn),
                      term.WIDTH)
    left = [_("Not drawn: {what}.").format(what="; ".join(pic.left_out))] if pic.left_out else []
    tail = []
    if args.page:
        import page
        page.write(args.page, nn, args.file, launch_text(args.function, run), args.view, mine, run,
                   theirs if args.ref_picture else None, args.ref_file)
        tail.append(_("The page, with every step and warp (hover over a cell): {path}").format(path=args.page))
    others = [v for v in views.VIEWS if v != args.view]
    tail += wrap(_("Other pictures: VIEW={views}; another launch: N= BLOCK= (COLS= ROWS= for rows); the "
                   "reference's picture too: REF=1.").format(views="|".join(others)), term.WIDTH)
    # One screen: the rows of the picture take what the rest leaves (the page has them all); then the notes
    # go, then the reference's picture, when everything still does not fit.
    rest = len(top) + 1 + (1 + len(table) if table else 0) + len(found) + len(left) + len(tail) + 2
    drawing = term.draw(pic, painter, max_rows=max(8, SCREEN - rest - 3))
    body = drawing + legend_lines(pic, painter)
    left = [_("Not drawn: {what}.").format(what="; ".join(pic.left_out))] if pic.left_out else []
    parts = [top, [""], body, [""] if table else [], table, found, left, notes, refpic, tail]
    while sum(len(p) for p in parts) > SCREEN and (notes or refpic):
        if notes:
            notes[:] = []
        else:
            refpic[:] = refpic[:max(0, len(refpic) - (sum(len(p) for p in parts) - SCREEN))]
            if len(refpic) <= 2:
                refpic[:] = []
    for p in parts:
        for line in p:
            print(line)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:   # `make show ex02 | head`: the reader has seen enough
        sys.exit(0)
