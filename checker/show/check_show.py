#!/usr/bin/env python3
"""check_show.py - `make show`'s own checks (make test runs them): the pictures of v1, v2' (strided index)
and v2 differ where the lessons say they do, a broken kernel still draws with its finding marked, a run
too long or too wide says what it left out, every exercise's reference draws within one screen in both
languages, and the page is a self-contained page that shows the tree: in a real browser where one is
installed (Chromium, headless: a screenshot that is not blank and has the tree's cells), else by its
structure. The last line says which.

Run from the repository's root under make (it runs checker/scripts/show.sh, which builds with what make
exports). Plain python3."""
import glob
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import png  # noqa: E402
import trace as tracefile  # noqa: E402
import views  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
RUN = {"n": 64, "block": 64, "cols": 1024, "shape": "partials"}


def show(nn, lang="en", **settings):
    """checker/scripts/show.sh NN with settings (FILE=, VIEW=...) as the environment: (status, output)."""
    env = dict(os.environ, COURSE_LANG=lang, NO_COLOR="1")
    env.update({k: str(v) for k, v in settings.items()})
    done = subprocess.run(["checker/scripts/show.sh", nn], cwd=ROOT, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def run_of(nn, file, **settings):
    """The trace of FILE run as `make show exNN` runs it (with N= BLOCK= in settings)."""
    return run_and_numbers(nn, file, **settings)[0]


def run_and_numbers(nn, file, **settings):
    """(trace, make metrics' numbers of the same run as a dict, the launch make show drew as a dict)."""
    status, out = show(nn, FILE=file, SHOW_RUNS=1, **settings)
    folder = out.split("\n")[0]
    if status or not os.path.exists(os.path.join(ROOT, folder, "trace")):
        raise AssertionError("%s did not run: %s" % (file, out.strip()[-300:]))
    numbers = {}
    try:
        for field in open(os.path.join(ROOT, folder, "numbers")).read().split():
            key, _sep, value = field.partition("=")
            numbers[key] = float(value)
    except (OSError, ValueError):
        pass
    run = dict(RUN, n=int(numbers.get("n", 0)), cols=int(numbers.get("cols", RUN["cols"])))
    return tracefile.read(os.path.join(ROOT, folder, "trace"), os.path.join(ROOT, folder, "findings")), numbers, run


def divergent_warps(pic):
    """Per warp: the steps in which some of its lanes worked and others waited."""
    found = {}
    for k, row in enumerate(pic.rows):
        for w, cells in enumerate(row.groups):
            kinds = {c.kind for c in cells}
            if "work" in kinds and "idle" in kinds:
                found.setdefault(w, []).append(k + 1)
    return found


def worst_bank(pic):
    return max((int(c.char) for r in pic.rows for c in r.groups[0] if c.kind in ("bank1", "bankN") and
                c.char.isdigit()), default=0)


# ---- The checks: each a sentence, raising AssertionError with what it saw ----------------------------------

def v1_divergent_v2_and_strided_not_while_warps_are_full():
    v1 = views.make("lanes", run_of("02", "solutions/v1_interleaved.cu"), RUN)
    v2 = views.make("lanes", run_of("03", "solutions/v2_sequential.cu", N=64, BLOCK=64), RUN)
    st = views.make("lanes", run_of("03", "solutions/v2_strided_index.cu", N=64, BLOCK=64), RUN)
    d1, d2, ds = divergent_warps(v1), divergent_warps(v2), divergent_warps(st)
    # v1: both warps have steps where a few lanes add while the rest of the warp waits.
    assert 0 in d1 and 1 in d1, "v1's lanes picture shows no divergent step in each warp: %s" % d1
    # v2 and v2': a warp works whole or skips the step, until fewer than 32 threads have work (warp 0 alone).
    for name, d in (("v2", d2), ("v2'", ds)):
        assert 1 not in d, "%s: warp 1 is divergent in steps %s" % (name, d.get(1))
    assert sum(map(len, d1.values())) > sum(map(len, d2.values())), "v1 is not more divergent than v2: %s %s" % (d1, d2)


def strided_conflicts_v1_and_v2_none():
    for nn, file, want in (("02", "solutions/v1_interleaved.cu", 1), ("03", "solutions/v2_sequential.cu", 1),
                           ("03", "solutions/v2_strided_index.cu", 8)):
        pic = views.make("banks", run_of(nn, file, N=256, BLOCK=256), RUN)
        got = worst_bank(pic)
        assert got == want, "%s: its worst bank holds %d words in one access, expected %d" % (file, got, want)


def broken_kernel_draws_with_its_finding_marked():
    status, out = show("02", FILE="checker/corpus/ex02/no_sync_in_tree.patch")
    assert status == 0, "make show failed on a kernel with a race: %s" % out[-300:]
    marked = [line for line in out.split("\n") if line.startswith("! ")]
    assert len(marked) >= 2, "no row and finding marked with '!':\n%s" % out
    assert "race" in out, "the race is not named:\n%s" % out


def banks_red_where_the_metric_counts_conflicts():
    """A banks row has a cell of 2 or more words exactly where its accesses have conflicts, for 4-byte (v1, v2')
    and 16-byte accesses (exercise 16's stages, a quarter-warp a pass: 4 words a bank, no conflict)."""
    bad = []
    for nn, file, settings in (("02", "solutions/v1_interleaved.cu", {}),
                               ("03", "solutions/v2_strided_index.cu", {"N": 256, "BLOCK": 256}),
                               ("16", "solutions/ex16_row_mapping.cu", {"COLS": 20000})):
        pic = views.make("banks", run_of(nn, file, **settings), RUN)
        for r in pic.rows:
            red = any(c.kind == "bankN" for c in r.groups[0])
            if red != (int(r.costs[1]) > 0):
                bad.append("%s line %s: %s cells beside conflicts %s" % (file, r.labels[1], "red" if red else "no red",
                                                                      r.costs[1]))
    assert not bad, "; ".join(bad)


def numbers_agree_with_make_metrics():
    """The table beside the picture counts the first block as make metrics counts each block (for launches
    whose blocks do the same work): warp instructions, barriers (a whole number), shared accesses and
    conflicts, cp.async's sectors, the cluster's loads."""
    bad = []
    cases = (("02", "solutions/v1_interleaved.cu", {}, (("lanes", "warp instr.", "warp_instructions", 1),
                                                        ("lanes", "barriers", "barriers_per_block", 0),
                                                        ("banks", "shared accesses", "shared_loads+shared_stores", 1),
                                                        ("banks", "conflicts", "bank_conflicts", 1))),
             ("03", "solutions/v2_strided_index.cu", {"N": 256, "BLOCK": 256}, (("banks", "conflicts", "bank_conflicts", 1),)),
             ("16", "solutions/ex16_row_mapping.cu", {}, (("rows", "load requests", "load_requests", 1),
                                                          ("rows", "sectors", "load_sectors", 1))),
             ("16", "solutions/ex16_row_mapping.cu", {"COLS": 20000}, (("stages", "async sectors", "async_sectors", 1),
                                                                      ("stages", "barriers", "barriers_per_block", 0))),
             ("16", "solutions/ex16_row_mapping.cu", {"COLS": 32768}, (("stages", "cluster loads", "dsmem_loads", 1),)))
    for nn, file, settings, pairs in cases:
        trace, metrics, run = run_and_numbers(nn, file, **settings)
        assert metrics, "%s %s: make metrics printed no numbers for the run" % (file, settings)
        blocks = metrics["blocks"]
        for view, label, metric, per_block in pairs:
            ours = dict(views.numbers(view, trace, run)).get(label)
            want = sum(metrics[m] for m in metric.split("+")) / (blocks if per_block else 1)
            if ours is None or not re.match(r"^\d+$", ours) or int(ours) != want:
                bad.append("%s %s: %s says %s %s, make metrics %g a block" % (file, settings, view, label, ours, want))
    assert not bad, "; ".join(bad)


def barriers_are_counted_whole():
    """A barrier in divergent code: the warps passed different numbers of barriers, said as a range, not 1.5
    (or_barrier_in_branch.patch's block, built here: warp 0 passes 2 barriers, warp 1 one)."""
    launch = tracefile.Launch(1, (1, 1, 1), (64, 1, 1), 0, "reduce_v1_kernel")
    block = tracefile.Block((0, 0, 0))
    block.insns = [tracefile.Insn(w, 0, "v1.cu:20", 0xffffffff, 0xffffffff, "bar") for w in (0, 1, 0)]
    launch.blocks = [block]
    trace = tracefile.Trace()
    trace.launches = [launch]
    got = dict(views.numbers("lanes", trace, RUN)).get("barriers", "")
    assert got == "1-2", "the barriers of a block whose warps passed 2 and 1: %r" % got


def every_index_form_is_explained():
    """Each way the accesses' elements are written ([a..b], [a..b:s], [a..b, k]) is explained in the picture's
    notes, on one of its own labels."""
    bad = []
    for nn, file, view, settings in (("02", "solutions/v1_interleaved.cu", "banks", {}),
                                     ("03", "solutions/v2_strided_index.cu", "banks", {"N": 256, "BLOCK": 256}),
                                     ("16", "solutions/ex16_row_mapping.cu", "banks", {"COLS": 20000}),
                                     ("04", "solutions/v3_first_add.cu", "sectors", {})):
        pic = views.make(view, run_of(nn, file, **settings), RUN)
        notes = " ".join(pic.notes)
        used = {m.group(0): m for r in pic.rows for label in r.labels for m in views.INDEX_FORM.finditer(label)}
        forms = {form_of(m) for m in used.values()}
        explained = {form_of(m) for m in views.INDEX_FORM.finditer(notes) if m.group(0) in used}
        if forms - explained:
            bad.append("%s %s: %s used, not explained: %s" % (file, view, sorted(used), sorted(forms - explained)))
    # the form none of those launches draws: elements not evenly spaced (the sdata[0..29, 16])
    notes = " ".join(views.notation_notes(["ld sdata[0..29, 16]", "st sdata[4]"]))
    if "sdata[0..29, 16]" not in notes or "16" not in notes.replace("sdata[0..29, 16]", ""):
        bad.append("sdata[0..29, 16] is explained as: %r" % notes)
    assert not bad, "; ".join(bad)


def form_of(m):
    return "step" if m.group(4) else "count" if m.group(5) else "range"


def stages_show_what_comes_too_early():
    """Exercise 16: the reference's dispatch draws its warp, block and cluster paths (COLS=64, 2000, 20000,
    32768), the block path in shared memory and the cluster path as stages with nothing too early (the block
    that holds a row of 2000 in registers has none); a stage read before its wait and a cluster's slot read
    before the barrier that publishes it are painted red."""
    for cols, path in ((64, 1), (2000, 2), (20000, 2), (32768, 3)):
        trace = run_of("16", "solutions/ex16_row_mapping.cu", COLS=cols)
        assert trace.path == path, "COLS=%d: the reference's dispatch said path %d, expected %d" % (cols, trace.path, path)
        if cols == 2000:
            pic = views.make("stages", trace, dict(RUN, cols=cols))
            assert pic.empty, "COLS=2000: the row in registers drew stages"
        elif path > 1:
            pic = views.make("stages", trace, dict(RUN, cols=cols))
            kinds = {c.kind for r in pic.rows for g in r.groups for c in g}
            assert "stage_copy" in kinds and "stage_read" in kinds and "stage_early" not in kinds, \
                "COLS=%d: the reference's stages hold %s" % (cols, sorted(kinds))
            rows = views.make("rows", trace, dict(RUN, cols=cols))
            assert not rows.empty, "COLS=%d: the rows picture says %r" % (cols, rows.empty)
    # (cluster_no_final_barrier.patch, a slot read as its block exits, is red too: each patch costs a compile)
    for patch, cols, what in (("stage_read_before_wait", 20000, "ld smem"), ("cluster_no_barrier_before_reads", 32768,
                                                                          "ranks")):
        pic = views.make("stages", run_of("16", "checker/corpus/ex16/%s.patch" % patch, COLS=cols), dict(RUN, cols=cols))
        red = [r.labels[2] for r in pic.rows if any(c.kind == "stage_early" for g in r.groups for c in g)]
        assert any(what in label for label in red), "%s: the rows painted red: %s" % (patch, red)


# A kernel that waits for a value no one writes: it runs until the emulator gives up.
WAITS_FOREVER = """
__global__ void reduce_v1_kernel(const int *d_in, int *d_out, unsigned int n)
{
    while (((volatile int *)d_out)[0] != 1) { }
}
extern "C" int reduce_v1(const int *d_in, int *d_out, int n, int block)
{
    reduce_v1_kernel<<<1, block>>>(d_in, d_out, n);
    return 1;
}
"""


def a_race_record_marks_both_of_its_lines():
    """A finding with two places (a record: the write and the read of a race) marks the rows of both."""
    folder = os.path.join(ROOT, os.environ.get("BUILD", "build"), "show", "tests")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "race.findings")
    with open(path, "w") as f:
        f.write("finding: kind=\"race between warps\" at=solutions/v1_interleaved.cu:26 "
                "other=solutions/v1_interleaved.cu:20 array=sdata count=3\n")
    run = run_of("02", "solutions/v1_interleaved.cu")
    run.findings = tracefile.read_findings(path)
    pic = views.make("lanes", run, RUN)
    marked = pic.mark(run.findings)
    rows = [k + 1 for k, r in enumerate(pic.rows) if r.marked]
    assert marked and rows[0] == 1 and len(rows) == 7, "the rows marked: %s (want the load, 1, and the tree)" % rows


def long_and_wide_runs_say_what_they_left_out():
    status, out = show("03", FILE="solutions/v2_sequential.cu", N=1024, BLOCK=1024, VIEW="lanes")
    assert status == 0 and "Not drawn:" in out and "groups drawn" in out, "a block of 1024:\n%s" % out
    folder = os.path.join(ROOT, os.environ.get("BUILD", "build"), "show", "tests")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "waits_forever.cu")
    with open(path, "w") as f:
        f.write(WAITS_FOREVER)
    status, out = show("02", FILE=os.path.relpath(path, ROOT))
    assert status == 0, "make show failed on a kernel that never ends: %s" % out[-300:]
    assert "did not finish" in out, "the endless kernel's finding is not said:\n%s" % out
    assert "past the trace's limit" in out, "what was left out is not said:\n%s" % out


def every_exercise_draws_its_reference_in_one_screen():
    bad = []
    launches = []
    for lesson in sorted(glob.glob(os.path.join(ROOT, "exercises", "[0-9][0-9]-*"))):
        nn = os.path.basename(lesson)[:2]
        files = [f for f in glob.glob(os.path.join(lesson, "*.cu"))]
        if files:
            launches.append((nn, "solutions/" + os.path.basename(files[0]), {}))
    # exercise 16's block and cluster paths too
    launches += [("16", "solutions/ex16_row_mapping.cu", {"COLS": 20000}),
                 ("16", "solutions/ex16_row_mapping.cu", {"COLS": 32768})]
    for nn, ref, settings in launches:
        for lang in ("en", "zh"):
            status, out = show(nn, lang, FILE=ref, **settings)
            lines = out.rstrip("\n").split("\n")
            wide = [l for l in lines if display_width(l) > 100]
            if status or len(lines) > 40 or wide:
                bad.append("ex%s %s(%s): status %d, %d lines, %d wider than 100 columns%s" % (
                    nn, " ".join("%s=%s " % kv for kv in settings.items()), lang, status, len(lines), len(wide),
                    (": " + out.strip()[-200:]) if status else ""))
    assert not bad, "; ".join(bad)


def display_width(text):
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


class PageParser(html.parser.HTMLParser):
    """What the page holds: its tags, the kinds of its cells, and anything that would fetch or run."""

    def __init__(self):
        super().__init__()
        self.tags, self.cells, self.fetches, self.views = [], {}, [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        for key in ("src", "href"):
            if key in a and not (a[key] or "").startswith("#"):
                self.fetches.append("%s=%s" % (key, a[key]))
        if "url(" in (a.get("style") or "") and "url(#" not in a.get("style"):
            self.fetches.append(a["style"])
        if tag == "svg":
            self.views.append(a.get("data-view"))
        cls = a.get("class") or ""
        if tag == "rect" and cls.startswith("cell "):
            kind = cls.split()[1][2:]
            self.cells[kind] = self.cells.get(kind, 0) + 1


def page_structure(path, pic):
    """The page at path is self-contained and holds the lanes picture pic, cell for cell."""
    text = open(path, encoding="utf-8").read()
    p = PageParser()
    p.feed(text)
    assert text.startswith("<!DOCTYPE html>"), "no doctype"
    assert "script" not in p.tags, "the page has a script"
    assert not p.fetches and "@import" not in text and "http:" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") \
        and "https:" not in text, "the page fetches something: %s" % p.fetches
    assert p.views and p.views[0] == "lanes", "the lanes picture is not the page's first: %s" % p.views
    want = sum(1 for r in pic.rows for g in r.groups for c in g if c.kind == "work")
    first = text.split("</svg>")[0]
    got = first.count('class="cell k-work"')
    assert got == want, "the page's lanes picture has %d working cells, the trace %d" % (got, want)
    return want


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    return None


def page_shows_the_tree():
    """Returns how the page was checked, for the last line."""
    status, out = show("02", FILE="solutions/v1_interleaved.cu")
    assert status == 0, out[-300:]
    path = os.path.join(ROOT, os.environ.get("BUILD", "build"), "show", "ex02.html")
    pic = views.make("lanes", run_of("02", "solutions/v1_interleaved.cu"), RUN)
    work = page_structure(path, pic)
    name = browser()
    if not name:
        return "by its structure (no Chromium here: .ci/run installs it)"
    with tempfile.TemporaryDirectory() as tmp:
        shot = os.path.join(tmp, "page.png")
        subprocess.run([name, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--user-data-dir=" + tmp, "--window-size=1000,700", "--screenshot=" + shot,
                        "file://" + os.path.abspath(path)], capture_output=True, timeout=120)
        assert os.path.exists(shot), "%s wrote no screenshot" % name
        ink = png.count(shot, lambda r, g, b: r + g + b < 700)
        green = png.count(shot, lambda r, g, b: abs(r - 0x2a) < 24 and abs(g - 0x9d) < 24 and abs(b - 0x3c) < 24)
    assert ink > 5000, "the screenshot is blank (%d pixels not white)" % ink
    # Each working cell is about 9 x 15 pixels of the tree's green.
    assert green > work * 60, "the screenshot has %d pixels of the tree's green for %d working cells" % (green, work)
    return "in %s (a screenshot: %d pixels not white, %d of the tree's cells)" % (name, ink, green)


CHECKS = [
    ("v1 is divergent in every warp; v2 and v2' are not while whole warps work",
     v1_divergent_v2_and_strided_not_while_warps_are_full),
    ("v2' has bank conflicts (8 words in a bank), v1 and v2 none", strided_conflicts_v1_and_v2_none),
    ("a kernel with a race still draws, its finding marked", broken_kernel_draws_with_its_finding_marked),
    ("a race's record marks the rows of both its accesses", a_race_record_marks_both_of_its_lines),
    ("a block too wide and a loop too long say what they left out", long_and_wide_runs_say_what_they_left_out),
    ("every exercise's reference draws in one screen, English and Chinese",
     every_exercise_draws_its_reference_in_one_screen),
    ("a banks row is red exactly where the metric counts conflicts", banks_red_where_the_metric_counts_conflicts),
    ("the numbers beside a picture are make metrics' for its block", numbers_agree_with_make_metrics),
    ("a barrier in divergent code is counted in whole barriers", barriers_are_counted_whole),
    ("every way of writing an access's elements is explained", every_index_form_is_explained),
    ("exercise 16's paths draw, and what comes too early is red", stages_show_what_comes_too_early),
]


def main():
    failed = 0
    for name, check in CHECKS:
        try:
            check()
            print("  ✓ " + name)
        except AssertionError as e:
            failed += 1
            print("  ✗ %s: %s" % (name, e))
    how = None
    try:
        how = page_shows_the_tree()
        print("  ✓ the page shows the tree, checked " + how)
    except (AssertionError, subprocess.TimeoutExpired, ValueError) as e:
        failed += 1
        print("  ✗ the page: %s" % e)
    total = len(CHECKS) + 1
    print("make show: %d of %d checks passed; the page checked %s" % (total - failed, total,
                                                                      how or "(failed, see above)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
