#!/usr/bin/env python3
"""report-editions.py - the report's Chinese edition is kept in step with the English one.

    make editions                 editions.py (the pages), then this (the report)
    report-editions.py            every rule below; exit 1 when one is broken (run from the repository's
                                  root, under make, which exports what a grade needs)
    report-editions.py --catalog  the catalog's rules only (1-4: no build, no grade)

The report speaks the learner's language through GNU gettext: checker/po/zh_CN/*.po, one part per area of
the sources, joined and compiled at build time, translate the msgids marked in the sources (the keywords
are in checker/i18n/extract.sh). The rules, each a way the Chinese report drifts from the English one:
  1. Complete: every entry translated, none fuzzy, none obsolete; printf directives as in the msgid
     (msgfmt --check).
  2. Current: the catalog holds exactly what the sources mark (extracted again and compared).
  3. Phrases: hint.sh finds a failure's hint by a phrase of it (checker/suites/hints.txt), the runner
     finds "poison" (context "phrase"): a translation of a message that contains the phrase contains the
     phrase's translation (a hints.txt line counts for its exercise's suite, the harness and the emulator).
     The test names' prefixes are translated as one set (core: 基本：, sizes: 规模：, ...).
  4. Lessons: a path to a page that has a Chinese twin names the twin (lesson.zh-CN.md); a Chinese lesson
     that quotes a test ("“概念：线程块减半”") quotes the name the report gives it, and the table of
     reading-the-report.zh-CN.md names each kind of finding as the report does.
     An exercise has one title: its suite's (the report's first line) is its lesson's first heading
     as make hint shows it (lib.sh's exercise_title), in English and in the catalog's Chinese.
  5. Grades: exercise 02 with a __syncthreads() missing (checker/corpus/ex02/forgot_sync_in_loop.patch),
     graded as `make ex02` does: under COURSE_LANG=zh in Chinese, every line within 100 columns, and with
     no language set, no Chinese at all.
Plain python3; msgfmt, msgattrib and xgettext from gettext.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PO_DIR = os.path.join(ROOT, "checker", "po", "zh_CN")
PREFIXES = {"core: ": "基本：", "sizes: ": "规模：", "edges: ": "边界：", "concept: ": "概念：", "paths: ": "路径："}
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
GRADED = ("02", "checker/corpus/ex02/forgot_sync_in_loop.patch")


def read_po(path):
    """A .po or .pot file's entries: dicts with ctx, id, plural, strs (list), refs, flags, obsolete."""
    entries, field = [], None

    def current():   # the entry being read, or a new one once the last has its msgid
        if not entries or entries[-1]["id"] is not None:
            new_entry(entries)
        return entries[-1]

    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].lstrip()
        if not line.strip() or (line.startswith("#") and not line.startswith(("#:", "#,"))):
            continue
        if line.startswith("#:"):
            current()["refs"] += line[2:].split()
        elif line.startswith("#,"):
            current()["flags"] += [f.strip() for f in line[2:].split(",")]
        elif line.startswith('"'):
            append(entries[-1], field, unquote(line))
        else:
            field, _, value = line.partition(" ")
            e = current() if field in ("msgctxt", "msgid") else entries[-1]
            e["obsolete"] |= obsolete
            append(e, field, unquote(value), start=True)
    return [e for e in entries if e["id"] is not None]


def new_entry(entries):
    entries.append({"ctx": None, "id": None, "plural": None, "strs": [], "refs": [], "flags": [], "obsolete": False})
    return entries[-1]


def append(e, field, text, start=False):
    if field == "msgctxt":
        e["ctx"] = (e["ctx"] or "") + text
    elif field == "msgid":
        e["id"] = (e["id"] or "") + text
    elif field == "msgid_plural":
        e["plural"] = (e["plural"] or "") + text
    else:  # msgstr, msgstr[n]
        if start:
            e["strs"].append("")
        e["strs"][-1] += text


def unquote(s):
    s = s.strip()[1:-1]
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


def key(e):
    return (e["ctx"], e["id"])


class Report:
    def __init__(self):
        self.problems = 0

    def fail(self, text):
        self.problems += 1
        print("  ✗ " + text)


def width(text):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
               for c in text)


def parts():
    return sorted(glob.glob(os.path.join(PO_DIR, "*.po")))


def rule_complete(r, catalog):
    for path in parts():
        name = os.path.relpath(path, ROOT)
        check = subprocess.run(["msgfmt", "--check", "-o", os.devnull, path], capture_output=True, text=True)
        if check.returncode:
            r.fail("%s: msgfmt --check: %s" % (name, check.stderr.strip().splitlines()[0]))
    for name, e in catalog:
        if e["obsolete"]:
            r.fail("%s: obsolete entry %r (make po-update drops it)" % (name, e["id"][:60]))
        elif "fuzzy" in e["flags"] and e["id"]:
            r.fail("%s: fuzzy entry %r: check the translation, then remove the fuzzy flag" % (name, e["id"][:60]))
        elif e["id"] and not all(e["strs"]):
            r.fail("%s: untranslated entry %r" % (name, e["id"][:60]))


def rule_current(r, catalog):
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([os.path.join(ROOT, "checker", "i18n", "extract.sh"), out], cwd=ROOT,
                             capture_output=True, text=True)
        if run.returncode:
            r.fail("checker/i18n/extract.sh failed: " + run.stderr.strip()[:200])
            return
        for pot in sorted(glob.glob(os.path.join(out, "*.pot"))):
            part = os.path.basename(pot)[:-4] + ".po"
            marked = {key(e) for e in read_po(pot) if e["id"]}
            held = {key(e) for name, e in catalog if name.endswith("/" + part) and e["id"] and not e["obsolete"]}
            if not os.path.exists(os.path.join(PO_DIR, part)):
                r.fail("checker/po/zh_CN/%s is missing: run make po-update" % part)
                continue
            for ctx, msgid in sorted(marked - held, key=str):
                r.fail("%s lacks %r, marked in the sources: run make po-update, then translate it" % (part, msgid[:60]))
            for ctx, msgid in sorted(held - marked, key=str):
                r.fail("%s holds %r, which no source marks any more: run make po-update" % (part, msgid[:60]))


def bounded(phrase):
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(phrase) + r"(?![A-Za-z0-9_])")


def rule_phrases(r, catalog):
    # Messages of the C sources, translated (an untranslated one is rule 1's).
    from_c = [(n, e) for n, e in catalog if e["id"] and all(e["strs"]) and
              any(re.match(r"checker/(harness|emu|suites)/", f) for f in e["refs"])]
    phrases = {e["id"]: e["strs"][0] for n, e in catalog if e["ctx"] == "phrase" and e["strs"]}
    # Which suites each phrase is looked for in: hints.txt's lines name their exercise; P_ phrases, any.
    scope = {}
    for line in open(os.path.join(ROOT, "checker", "suites", "hints.txt"), encoding="utf-8"):
        if line.strip().startswith("#") or "|" not in line:
            continue
        nn, text = (f.strip() for f in line.split("|")[:2])
        if text:
            scope.setdefault(text, set()).add("checker/suites/ex%s.c" % nn)
    for phrase, translation in sorted(phrases.items()):
        suites = scope.get(phrase)   # None: a phrase of the code (P_), looked for in every message
        for name, e in from_c:
            if e["ctx"] == "phrase" or not bounded(phrase).search(e["id"] + "\n" + (e["plural"] or "")):
                continue
            files = {f.split(":")[0] for f in e["refs"]}
            if suites is not None and not any(f in suites or not f.startswith("checker/suites/") for f in files):
                continue
            if not all(translation in s for s in e["strs"]):
                r.fail('%s: the translation of %r lacks %r, the translation of the phrase "%s"' %
                       (os.path.basename(name), e["id"][:50], translation, phrase))
    for name, e in from_c:
        for english, chinese in PREFIXES.items():
            if e["id"].startswith(english) and not all(s.startswith(chinese) for s in e["strs"]):
                r.fail('%s: the test name %r should start with "%s"' % (os.path.basename(name), e["id"][:50], chinese))


def rule_lessons(r, catalog):
    page = re.compile(r"(?:exercises/[\w.-]+/lesson|lessons/[\w.-]+|README)\.md")
    for name, e in catalog:
        for text in e["strs"]:
            for path in page.findall(text):
                if os.path.exists(os.path.join(ROOT, path[:-3] + ".zh-CN.md")):
                    r.fail("%s: the translation of %r names %s, whose twin is %s" %
                           (os.path.basename(name), e["id"][:50], path, path[:-3] + ".zh-CN.md"))
    # A Chinese lesson that quotes a test ("概念：线程块减半") quotes (the start of) its name in the report.
    names = [s for _, e in catalog for s in e["strs"] if s.startswith(tuple(PREFIXES.values()))]
    quoted = re.compile("“((?:%s)[^”]+)”" % "|".join(PREFIXES.values()))
    for twin in sorted(glob.glob(os.path.join(ROOT, "exercises", "*", "lesson.zh-CN.md")) +
                       glob.glob(os.path.join(ROOT, "lessons", "*.zh-CN.md"))):
        for test in quoted.findall(open(twin, encoding="utf-8").read()):
            if not any(n.startswith(test) for n in names):
                r.fail("%s quotes the test “%s”, which the report does not name so" % (os.path.relpath(twin, ROOT), test))


def lesson_title(page):
    """A lesson's title as checker/scripts/lib.sh's exercise_title gives it: its first "# " heading without
    "Exercise NN: " (练习 NN：), starting with a capital unless it starts with a version name (v1)."""
    heading = next((line[2:].strip() for line in open(page, encoding="utf-8") if line.startswith("# ")), "")
    title = re.sub(r"^练习 *[0-9]*[：:] *", "", re.sub(r"^Exercise [0-9]*: *", "", heading))
    return title if re.match(r"v[0-9]", title) else title[:1].upper() + title[1:]


def rule_titles(r, catalog):
    """Each suite's title (the report's "Exercise NN: TITLE") is its lesson's, in both languages."""
    words = {e["id"]: e["strs"][0] for _, e in catalog if e["id"] and e["strs"] and e["ctx"] is None}
    for suite in sorted(glob.glob(os.path.join(ROOT, "checker", "suites", "ex*.c"))):
        found = re.search(r'harness_exercise ex = \{"(\d+)", N_\("([^"]*)"\)', open(suite, encoding="utf-8").read())
        folder = found and glob.glob(os.path.join(ROOT, "exercises", found.group(1) + "-*", "lesson.md"))
        if not folder:
            continue
        english, chinese = lesson_title(folder[0]), lesson_title(folder[0][:-3] + ".zh-CN.md")
        name = os.path.relpath(suite, ROOT)
        if found.group(2) != english:
            r.fail('%s titles the exercise "%s", its lesson "%s" (make hint says the lesson\'s)' % (name, found.group(2), english))
        elif words.get(english) not in (None, chinese):
            r.fail('the catalog translates the title of %s "%s", its Chinese lesson "%s"' % (name, words[english], chinese))


def rule_kinds(r, catalog):
    """reading-the-report.zh-CN.md names each kind of finding as the report does: a table row that starts
    "| 中文（english kind） |" has, for an English kind the catalog translates, the catalog's words."""
    words = {e["id"]: e["strs"][0] for _, e in catalog if e["id"] and e["strs"] and e["strs"][0]}
    page = os.path.join(ROOT, "lessons", "reading-the-report.zh-CN.md")
    for zh, en in re.findall(r"^\| ([^|（]+)（([^）|]+)） \|", open(page, encoding="utf-8").read(), re.M):
        if en in words and words[en] != zh:
            r.fail("%s calls the finding “%s” %s, the report %s" % (os.path.relpath(page, ROOT), en, zh, words[en]))


def grade(env_language):
    """The report of GRADED, graded by grade.sh in a scratch copy as `make exNN` does; env_language: the
    language variables to set (all others unset)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env.update({"LANG": "C.UTF-8", "NO_COLOR": "1"}, **env_language)
    with tempfile.TemporaryDirectory() as scratch:
        script = ('. checker/scripts/lib.sh; rel=$(scratch_copy "$1" "$2") && corpus_apply "$3" "$1/$rel" && '
                  'cd "$1" && checker/scripts/grade.sh "$2"')
        run = subprocess.run(["bash", "-c", script, "_", scratch + "/course", GRADED[0], GRADED[1]], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=600)
    return run.stdout + run.stderr


def rule_grades(r):
    chinese = grade({"COURSE_LANG": "zh"})
    if len(CJK.findall(chinese)) < 100:
        r.fail("a grade under COURSE_LANG=zh prints little or no Chinese:\n" + chinese[:600])
    for line in chinese.splitlines():
        if width(line) > 100:
            r.fail("a line of the Chinese report is %d columns wide: %s" % (width(line), line))
    english = grade({})
    if CJK.search(english):
        r.fail("a grade with no language set prints Chinese: " + CJK.search(english).group(0))
    return chinese


def main():
    r = Report()
    catalog = [(path, e) for path in parts() for e in read_po(path)]
    rule_complete(r, catalog)
    rule_current(r, catalog)
    rule_phrases(r, catalog)
    rule_lessons(r, catalog)
    rule_kinds(r, catalog)
    rule_titles(r, catalog)
    graded = ""
    if "--catalog" not in sys.argv[1:]:
        graded = ", and exercise %s graded in both languages" % GRADED[0]
        rule_grades(r)
    entries = sum(1 for _, e in catalog if e["id"])
    print("report editions: %d catalog entries in %d parts%s, %d problems" % (entries, len(parts()), graded, r.problems))
    return 1 if r.problems else 0


if __name__ == "__main__":
    sys.exit(main())
