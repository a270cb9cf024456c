#!/usr/bin/env python3
"""editions.py - the English and Chinese editions of the course's text are kept in step.

    editions.py            check every pair; exit 1 when any rule is broken
    editions.py FILE.md    check one English file (or its .zh-CN.md twin) against its twin

Every English page (README.md, lessons/*.md, exercises/*/lesson.md) has a twin beside it, NAME.zh-CN.md.
The rules, each a way an edition drifts from the other:
  1. Links: the first line of each file links to its twin ("English | [简体中文](lesson.zh-CN.md)" and
     "[English](lesson.md) | 简体中文"); the page's title is its first "# " heading.
  2. Headings: the same sequence of heading levels (#, ##, ###...); their words are translated.
  3. Code: every code block, fenced or indented (diagrams included), byte for byte the same, in order;
     but a picture of `make show` ("$ make show ..." and what it prints) is drawn in each edition's
     language: its command only is compared here (checker/show/lessons.py compares the drawings).
  4. Tables: per section, the same tables with the same number of rows and of columns in each row.
  5. Numbers: per section, every number of the English prose (one with a decimal point, one of three
     digits or more, a power such as 2^20) appears in the Chinese prose at least as often.
  6. Hints: the "Hints" section has the same number of items, in the same order (make hint counts them).
Plain python3, no packages.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6}) \S")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+\.) ")
NUMBER = re.compile(r"\d+\^\d+|\d[\d,]*\.\d+|\d[\d,]{2,}\d|\d{3,}")
HINT_ITEM = re.compile(r"^([-*]|\d+\.) ")
TABLE_RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")


def english_pages():
    pages = [os.path.join(ROOT, "README.md")]
    pages += sorted(glob.glob(os.path.join(ROOT, "lessons", "*.md")))
    pages += sorted(glob.glob(os.path.join(ROOT, "exercises", "*", "lesson.md")))
    return [p for p in pages if not p.endswith(".zh-CN.md") and os.path.exists(p)]


def twin_of(path):
    return path[:-3] + ".zh-CN.md"


class Page:
    """A markdown file cut into what the rules compare: headings, code blocks, and per-section prose."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.headings = []          # (level, text)
        self.code = []              # each block's text
        self.sections = [[]]        # prose lines per section (section 0: before the first heading)
        self._cut()

    def _cut(self):
        lines, i = self.lines, 0
        prev_blank, in_list = True, False
        while i < len(lines):
            line = lines[i]
            if FENCE.match(line):
                j = i + 1
                while j < len(lines) and not FENCE.match(lines[j]):
                    j += 1
                block = lines[i:j + 1]
                if len(block) > 1 and block[1].startswith("$ make show "):
                    block = block[:2]   # a picture in the page's language: its command
                self.code.append("\n".join(block))
                i, prev_blank = j + 1, False
                continue
            # An indented block: after a blank line, not inside a list item's continuation.
            if prev_blank and not in_list and (line.startswith("    ") or line.startswith("\t")):
                j = i
                while j < len(lines) and (lines[j].startswith("    ") or lines[j].startswith("\t") or
                                          (not lines[j].strip() and j + 1 < len(lines) and
                                           lines[j + 1].startswith("    "))):
                    j += 1
                self.code.append("\n".join(lines[i:j]).rstrip("\n"))
                i, prev_blank = j, False
                continue
            m = HEADING.match(line)
            if m:
                self.headings.append((len(m.group(1)), line))
                self.sections.append([])
                in_list = False
            elif line.strip():
                if LIST_ITEM.match(line):
                    in_list = True
                elif not line.startswith(" "):
                    in_list = False
                self.sections[-1].append(line)
            prev_blank = not line.strip()
            i += 1

    def title(self):
        return next((text for level, text in self.headings if level == 1), None)

    def tables(self, k):
        """Section k's tables as lists of column counts, one per row. A table is a run of lines that start
        with "|" whose second line is its "| --- |" separator (a prose line may start with "|x|")."""
        tables, run = [], []
        for line in self.sections[k] + [""]:
            if line.lstrip().startswith("|"):
                run.append(line.strip())
                continue
            if len(run) >= 2 and TABLE_RULE.match(run[1]):
                tables.append([row.strip("|").count("|") + 1 for row in run])
            run = []
        return tables

    def numbers(self, k):
        counts = {}
        for line in self.sections[k]:
            line = re.sub(r"`[^`]*`", "", line)       # inline code: names, not quantities
            line = re.sub(r"\]\([^)]*\)", "]", line)   # link targets
            for n in NUMBER.findall(line):
                n = n.replace(",", "")
                counts[n] = counts.get(n, 0) + 1
        return counts

    def hint_items(self, k):
        return sum(1 for line in self.sections[k] if HINT_ITEM.match(line))


def check_pair(english_path):
    """The broken rules of one pair, as sentences (none when the editions are in step)."""
    rel = os.path.relpath(english_path, ROOT)
    chinese_path = twin_of(english_path)
    if not os.path.exists(chinese_path):
        return [f"{rel} has no Chinese twin {os.path.basename(chinese_path)}"]
    en, zh = Page(english_path), Page(chinese_path)
    problems = []
    say = problems.append
    zh_rel = os.path.relpath(chinese_path, ROOT)
    if f"]({os.path.basename(chinese_path)})" not in en.lines[0]:
        say(f"{rel}: its first line does not link to {os.path.basename(chinese_path)}")
    if f"]({os.path.basename(english_path)})" not in zh.lines[0]:
        say(f"{zh_rel}: its first line does not link to {os.path.basename(english_path)}")
    en_levels = [level for level, _ in en.headings]
    zh_levels = [level for level, _ in zh.headings]
    if en_levels != zh_levels:
        for k, (a, b) in enumerate(zip(en.headings + [(0, "(none)")] * 99, zh.headings + [(0, "(none)")] * 99)):
            if a[0] != b[0]:
                say(f"{zh_rel}: heading {k + 1} is \"{b[1]}\" where the English has \"{a[1]}\"")
                break
        return problems   # sections cannot be paired; the rest would only repeat this
    if en.code != zh.code:
        for k in range(max(len(en.code), len(zh.code))):
            a = en.code[k] if k < len(en.code) else None
            b = zh.code[k] if k < len(zh.code) else None
            if a != b:
                first = next((line for line in (a or b).split("\n") if not FENCE.match(line)), "")[:60]
                say(f"{zh_rel}: code block {k + 1} (\"{first}\") differs from the English one "
                    f"({len(en.code)} blocks in English, {len(zh.code)} in Chinese)")
                break
    for k in range(len(en.sections)):
        where = en.headings[k - 1][1] if k else "(before the first heading)"
        if en.tables(k) != zh.tables(k):
            say(f"{zh_rel}: the tables under \"{where}\" do not have the English rows and columns")
        en_numbers, zh_numbers = en.numbers(k), zh.numbers(k)
        missing = [n for n, c in en_numbers.items() if zh_numbers.get(n, 0) < c]
        if missing:
            say(f"{zh_rel}: under \"{where}\", the English numbers {', '.join(sorted(missing)[:6])} "
                f"are missing from the Chinese text")
        if k and en.headings[k - 1][1] == "## Hints" and en.hint_items(k) != zh.hint_items(k):
            say(f"{zh_rel}: {zh.hint_items(k)} hints where the English has {en.hint_items(k)}")
    return problems


def main(argv):
    if len(argv) > 1:
        path = os.path.abspath(argv[1])
        pages = [path[:-len(".zh-CN.md")] + ".md" if path.endswith(".zh-CN.md") else path]
    else:
        pages = english_pages()
    problems, in_step = [], 0
    for page in pages:
        found = check_pair(page)
        in_step += not found
        problems += found
    for p in problems:
        print(f"  ✗ {p}")
    print(f"editions: {len(pages)} English pages, {in_step} in step with their Chinese twins, "
          f"{len(problems)} problem{'' if len(problems) == 1 else 's'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
