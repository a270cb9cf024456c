#!/usr/bin/env python3
"""classroom-results.py OUT NN... - the files of `make classroom` from what classroom.sh left in OUT/work/:
OUT/grades.csv (a row per submission, a column per exercise NN), and per submission NAME.tap (TAP 13),
NAME.xml (JUnit, for CI's test views) and NAME.md (the grade as a page: the workflow's job summary).

OUT/work/NAME/folder names the submission's folder; OUT/work/NAME/results.tsv has one line per exercise: NN, state (done, failing, not-started), the first
failure, and the TAP files of its backends (the harness's: "ok N - name", "not ok N - name" with the
message in a YAML block, "# SKIP why"); OUT/work/NAME/exNN.BACKEND.report is the report a learner reads.
"""
import csv
import os
import sys
from xml.sax.saxutils import escape, quoteattr


def read_tap(path):
    """The tests of one TAP file: (ok, name, message, skip reason or None)."""
    tests = []
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return tests
    message = None
    for line in lines:
        if line.startswith("ok ") or line.startswith("not ok "):
            ok = line.startswith("ok ")
            name = line.split(" - ", 1)[1] if " - " in line else line
            skip = None
            if " # SKIP " in name:
                name, skip = name.split(" # SKIP ", 1)
            tests.append([ok, name, "", skip])
            message = None
        elif line.strip() == "message: |":
            message = []
        elif line.strip() in ("---", "..."):
            if message is not None and tests:
                tests[-1][2] = "\n".join(message)
            message = None
        elif message is not None:
            message.append(line[4:])
    return tests


def read_submission(work, name):
    """(note, {NN: (state, first failure, [tests], report text)})."""
    rows, note = {}, ""
    with open(os.path.join(work, name, "results.tsv"), encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (4 - len(parts))
            nn, state, first, taps = parts[:4]
            if nn == "none":
                note = first
                continue
            tests = []
            for tap in taps.split():
                backend = tap.rsplit(".", 2)[-2] if tap.count(".") >= 2 else ""
                for t in read_tap(tap):
                    if len(taps.split()) > 1:
                        t[1] = "%s (%s)" % (t[1], backend)
                    tests.append(t)
            report = ""
            for backend in ("gpu", "emu"):
                path = os.path.join(work, name, "ex%s.%s.report" % (nn, backend))
                if os.path.exists(path):
                    report += open(path, encoding="utf-8", errors="replace").read()
            rows[nn] = (state, first, tests, report)
    return note, rows


def cell(state, first):
    if state == "failing":
        return "failing: " + first if first else "failing"
    return state.replace("-", " ")


def junit(name, exercises, rows, note):
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    suites = []
    total = failures = skipped = 0
    if note:
        total, failures = 1, 1
        suites.append('  <testsuite name="checkout" tests="1" failures="1" errors="0" skipped="0">\n'
                      '    <testcase classname="checkout" name="is a checkout of the course"><failure message=%s/>'
                      '</testcase>\n  </testsuite>' % quoteattr(note))
    for nn in exercises if not note else []:
        state, first, tests, _ = rows.get(nn, ("not-started", "", [], ""))
        cases = []
        if state == "not-started":
            cases.append('    <testcase classname="ex%s" name="not started"><skipped message=%s/></testcase>'
                         % (nn, quoteattr("the starting file, unchanged")))
        elif not tests:   # it did not compile, or its tests never reported
            cases.append('    <testcase classname="ex%s" name="builds and runs"><failure message=%s/></testcase>'
                         % (nn, quoteattr(first)))
        for ok, test, message, skip in tests:
            body = ""
            if skip is not None:
                body = "<skipped message=%s/>" % quoteattr(skip)
            elif not ok:
                body = "<failure message=%s>%s</failure>" % (quoteattr(message.split("\n")[0]), escape(message))
            cases.append('    <testcase classname="ex%s" name=%s>%s</testcase>' % (nn, quoteattr(test), body))
        n_fail = sum(1 for c in cases if "<failure" in c)
        n_skip = sum(1 for c in cases if "<skipped" in c)
        total, failures, skipped = total + len(cases), failures + n_fail, skipped + n_skip
        suites.append('  <testsuite name="ex%s" tests="%d" failures="%d" errors="0" skipped="%d">\n%s\n  </testsuite>'
                      % (nn, len(cases), n_fail, n_skip, "\n".join(cases)))
    out.append('<testsuites name=%s tests="%d" failures="%d" errors="0" skipped="%d">'
               % (quoteattr(name), total, failures, skipped))
    out += suites
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def tap(exercises, rows, note):
    """One TAP stream: every graded test as "exNN: name", an exercise not started as a TODO."""
    tests = []   # (ok, description, directive, message)
    if note:
        tests.append((False, note, "", ""))
    for nn in exercises if not note else []:
        state, first, results, _ = rows.get(nn, ("not-started", "", [], ""))
        if state == "not-started":
            tests.append((False, "ex%s: not started" % nn, " # TODO the starting file, unchanged", ""))
        elif not results:
            tests.append((False, "ex%s: %s" % (nn, first), "", ""))
        for ok, test, message, skip in results:
            tests.append((ok, "ex%s: %s" % (nn, test), " # SKIP " + skip if skip is not None else "", message))
    lines = ["TAP version 13", "1..%d" % len(tests)]
    for k, (ok, description, directive, message) in enumerate(tests, 1):
        lines.append("%s %d - %s%s" % ("ok" if ok else "not ok", k, description.replace("#", "\\#"), directive))
        if not ok and message:
            lines += ["  ---", "  message: |"] + ["    " + m for m in message.split("\n")] + ["  ..."]
    return "\n".join(lines) + "\n"


def page(name, exercises, rows, note):
    done = sum(1 for nn in exercises if rows.get(nn, ("",))[0] == "done")
    out = ["## %s: %d of %d exercises done" % (name, done, len(exercises)), ""]
    if note:
        return "\n".join(out + [note, ""])
    out += ["| exercise | state |", "| --- | --- |"]
    for nn in exercises:
        state, first = rows.get(nn, ("not-started", ""))[:2]
        out.append("| ex%s | %s |" % (nn, cell(state, first).replace("|", "\\|")))
    for nn in exercises:
        state, _, _, report = rows.get(nn, ("not-started", "", [], ""))
        if state == "failing" and report.strip():
            out += ["", "### ex%s" % nn, "", "```", report.rstrip().replace("```", "'''"), "```"]
    return "\n".join(out) + "\n"


def main():
    out, exercises = sys.argv[1], sys.argv[2:]
    work = os.path.join(out, "work")
    names = sorted(d for d in os.listdir(work) if os.path.isdir(os.path.join(work, d)))
    with open(os.path.join(out, "grades.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["submission"] + ["ex" + nn for nn in exercises] + ["done", "note"])
        for name in names:
            note, rows = read_submission(work, name)
            done = sum(1 for nn in exercises if rows.get(nn, ("",))[0] == "done")
            cells = [cell(*rows[nn][:2]) if nn in rows else "" for nn in exercises]
            try:   # the folder's own name; NAME is the one file names use
                folder = open(os.path.join(work, name, "folder"), encoding="utf-8").read().strip() or name
            except OSError:
                folder = name
            w.writerow([folder] + cells + ["%d/%d" % (done, len(exercises)), note])
            for ext, text in (("tap", tap(exercises, rows, note)), ("xml", junit(name, exercises, rows, note)),
                              ("md", page(name, exercises, rows, note))):
                with open(os.path.join(out, "%s.%s" % (name, ext)), "w", encoding="utf-8") as g:
                    g.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
