#!/usr/bin/env python3
"""editions.py - the English and Chinese editions of the course's text are kept in step.

    editions.py            check every pair; exit 1 when any rule is broken
    editions.py FILE.md    check one English file (or its .zh-CN.md twin) against its twin
    editions.py --terms    write checker/i18n/glossary_terms.h again from the glossary (a full check
                           fails when it is not what the glossary gives)

Every English page (README.md, lessons/*.md, exercises/*/lesson.md) has a twin beside it, NAME.zh-CN.md.
The rules, each a way an edition drifts from the other:
  1. Links: the first line of each file links to its twin ("English | [简体中文](lesson.zh-CN.md)" and
     "[English](lesson.md) | 简体中文"); the page's title is its first "# " heading.
  2. Headings: the same sequence of heading levels (#, ##, ###...); their words are translated.
  3. Code: every code block, fenced or indented (diagrams included), the same code in the same order.
     Comments (//, /* */, "# " after a space) and whitespace are set aside, and so is the prose of
     diagrams: where the two blocks' tokens differ, the English side must be prose (words, numbers,
     punctuation; no identifier, operator or bracket) and the Chinese side Chinese text or the kept terms.
     A picture of `make show` ("$ make show ..." and what it prints) is drawn in each edition's language
     by the tool itself: its command only is compared here (checker/show/lessons.py compares the drawings).
  4. Tables: per section, the same tables with the same number of rows and of columns in each row.
  5. Numbers: per section, every number of the English prose (one with a decimal point, one of three
     digits or more, a power such as 2^20) appears in the Chinese prose at least as often.
  6. Hints: the "Hints" section has the same number of items, in the same order (make hint counts them).
And three of the Chinese prose alone (inline code, link targets and quoted English output set aside):
  7. Ratios said as a Chinese engineer says them ("少约 45%", "是 v3 的 1.3 倍"), never "1/1.8".
  8. No English word but the terms the glossary keeps (the Latin words of its 中文 column, and its list of
     names kept as they are), proper names (capitalised), acronyms, identifiers, and a gloss.
  9. A gloss, an English term in parentheses after the Chinese one ("归约（reduction）"), once per page.
And four of every Chinese page (the glossary included) and of the catalogs (checker/po/zh_CN/*.po), whose
counts the last line gives:
 10. No line break between two Chinese characters in a page's prose: a renderer (a browser, most Markdown
     viewers) shows a space there, inside a word ("显 存"). Join the lines, or break after a full-width
     mark or beside a space. Code blocks and diagrams are set aside (no renderer joins their lines).
 11. One term for one thing: no form the glossary's column 不用的写法 rejects ("讲义" where 课文 is the
     term), in a page or a catalog's translation; and one Chinese heading for one English heading
     ("## What to change" is "## 要改的地方" in every lesson).
 12. A ratio said as the English means it: never "快 N 倍", "高 N 倍", "慢 N 倍", "超出 N 倍" (many read
     them as N + 1 times) nor "1.05x", but "是…的 N 倍" or a percentage; never "每隔 N 列" / "每隔三个值"
     (every (N + 1)-th, which readers take for every N-th), but "每 N 列", "每 4 个值一个".
Plain python3, no packages. checker/scripts/editions_test.py shows each rule failing on a bad example;
a full check runs it first.
"""
import difflib
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GLOSSARY = os.path.join(ROOT, "lessons", "glossary.zh-CN.md")
CATALOGS = os.path.join(ROOT, "checker", "po", "zh_CN", "*.po")
TERMS_HEADER = os.path.join(ROOT, "checker", "i18n", "glossary_terms.h")
REJECTED_HEAD = "不用的写法"   # the glossary's column of rejected forms: the Chinese edition's alone
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6}) \S")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+\.) ")
NUMBER = re.compile(r"\d+\^\d+|\d[\d,]*\.\d+|\d[\d,]{2,}\d|\d{3,}")
HINT_ITEM = re.compile(r"^([-*]|\d+\.) ")
TABLE_RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")

# Chinese characters, CJK and full-width punctuation, and the curly quotes Chinese text uses.
CJK_CHARS = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef\u2018\u2019\u201c\u201d\u2026\u2014"
CJK = re.compile(f"[{CJK_CHARS}]")
# Rule 3: comments, then tokens (a run of Chinese, a word or identifier, a number, one other character).
COMMENTS = re.compile(r"/\*.*?\*/|//.*$|(?:^|(?<=\s))#(?= |$).*$")
CODE_TOKEN = re.compile(f"[{CJK_CHARS}]+|[A-Za-z_][A-Za-z0-9_]*|\\d+(?:\\.\\d+)?|\\S")
PROSE_PUNCT = set(",.:;()'\"!?-/")
# Rules 7-9 read the Chinese prose with these set aside: inline code, link targets, URLs, and a quoted
# text with no Chinese in it (the English output of a tool, quoted so the learner can find it).
SET_ASIDE = [re.compile(r"`[^`]*`"), re.compile(r"\]\([^)]*\)"), re.compile(r"https?://\S+"),
             re.compile("\"[^\"\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]*\"|“[^”\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]*”|"
                        "《[^》\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]*》")]
RATIO = re.compile(r"(?<![\d.])\d+\s*/\s*\d+\.\d+")
GLOSS = re.compile(f"(?:(?<=[{CJK_CHARS}*])\\s*[（(]|(?<=\\S)（)([A-Za-z][A-Za-z'’-]+(?:(?:,? | / )[A-Za-z][A-Za-z'’-]*)*)[）)]")
LATIN_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+^/'’-]*")
# Rule 10: a Han character ends a prose line and a Han character or a full-width mark starts the next one.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
BROKEN_WORD = (re.compile(f"[{HAN}]$"), re.compile(f"^\\s*[{HAN}\u3000-\u303f\uff00-\uffef]"))
# Rule 12: N, or a range of them, after a comparative (an ambiguous ratio), and "every other N".
NUM = r"\d+(?:\.\d+)?"
# A count of times may be written in Chinese numerals too ("超出约五倍", "大出几百倍").
TIMES = f"(?:{NUM}|[一两二三四五六七八九十百千几]+)"
AMBIGUOUS_RATIO = re.compile(f"(?<!最)(?:快|慢|高|低|超出|多出|大出)了?\\s*(?:约|近|大约|将近)?\\s*{TIMES}"
                             f"(?:\\s*(?:到|至|-|~|–)\\s*{TIMES})?\\s*倍"
                             f"|(?<![A-Za-z0-9_.%]){NUM}x(?![A-Za-z0-9_%])"
                             f"|每隔\\s*(?:\\d+|[二三四五六七八九十]+)\\s*个?\\s*(?:列|行|值|元素|字|线程|lane|bank)")


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
        self.prose_at = set()       # the numbers (from 0) of the prose lines
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
                self.prose_at.add(i)
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
                own = sum(cell.strip() == REJECTED_HEAD for cell in run[0].strip("|").split("|"))
                tables.append([row.strip("|").count("|") + 1 - own for row in run])
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

    def prose(self):
        """Every prose line after the first (the links), with what rules 7-9 set aside removed."""
        for line in (line for section in self.sections for line in section):
            if line is self.lines[0]:
                continue
            yield set_aside(line)

    def broken_words(self):
        """Rule 10: the numbers (from 1) of the prose lines that end between two Chinese characters."""
        ends, starts = BROKEN_WORD
        return [i + 1 for i in sorted(self.prose_at) if i + 1 in self.prose_at and ends.search(self.lines[i])
                and starts.match(self.lines[i + 1]) and not LIST_ITEM.match(self.lines[i + 1])]


def set_aside(line):
    for pattern in SET_ASIDE:
        line = pattern.sub(" ", line)
    return line


# ---- Rule 3: code blocks, comments and annotations set aside ---------------------------------------------

def code_tokens(block):
    return [t for line in block.split("\n") if not FENCE.match(line)
            for t in CODE_TOKEN.findall(COMMENTS.sub("", line))]


def is_prose_token(token):
    """A word, a number or light punctuation: what an English annotation is made of (an identifier with
    a digit or an underscore, an operator or a bracket is code)."""
    return bool(re.fullmatch(r"[A-Za-z]+|\d+(\.\d+)?", token)) or token in PROSE_PUNCT


def is_translation(tokens, kept):
    """The Chinese side of a difference: Chinese text (with words, numbers and punctuation), or only kept
    terms and punctuation (a number changed alone is code changed)."""
    if any(CJK.match(t) for t in tokens):
        return all(CJK.match(t) or is_prose_token(t) for t in tokens)
    return all(t in PROSE_PUNCT or t.lower() in kept for t in tokens)


def code_difference(en_block, zh_block, kept):
    """None when the blocks hold the same code; else the first difference, as (English, Chinese) text."""
    a, b = code_tokens(en_block), code_tokens(zh_block)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        en, zh = a[i1:i2], b[j1:j2]
        if all(is_prose_token(t) for t in en) and is_translation(zh, kept):
            continue
        return " ".join(en) or "(nothing)", " ".join(zh) or "(nothing)"
    return None


# ---- Rules 7-9: the Chinese prose ----------------------------------------------------------------------

def kept_terms(glossary=GLOSSARY):
    """The English words the Chinese edition keeps: every Latin word of the glossary's 中文 column outside
    its parentheses, and the names its paragraph "保留英文的名称：..." lists."""
    kept = set()
    if not os.path.exists(glossary):
        return kept
    in_names = False
    with open(glossary, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            in_names = line.startswith("保留英文的名称：") or (in_names and line.strip() != "")
            if line.startswith("|") and len(cells) >= 3 and not TABLE_RULE.match(line.strip()):
                chinese = re.sub(r"（[^）]*）|\([^)]*\)", "", cells[1])
            elif in_names:
                chinese = re.sub(r"`[^`]*`", "", line)
            else:
                continue
            for word in LATIN_WORD.findall(chinese):
                kept.add(word.lower())
    return kept


def foreign_word(word, kept):
    """Whether a Latin word in Chinese prose is English left untranslated (not a kept term, a name, an
    acronym, an identifier, a number or a variable)."""
    word = re.sub(r"['’]s$", "", word.strip(".-'’"))
    if (not re.search(r"[a-z]", word) or re.search(r"[\d_.+^/]", word) or len(word) == 1
            or re.search(r"[a-z][A-Z]", word) or word.lower() in kept):
        return False
    if word[0].isupper():
        return False           # a proper name: Volta, Harris, Debian, CLion
    parts = [p for p in word.split("-") if p]
    if len(parts) > 1:
        return any(foreign_word(p, kept) for p in parts)
    return True


def chinese_prose_problems(page, rel, kept):
    problems, glosses, foreign = [], {}, []
    for line in page.prose():
        for ratio in RATIO.findall(line):
            problems.append(f"{rel}: the ratio \"{ratio}\" (say it as a Chinese engineer would: "
                            f"\"少约 45%\", \"是 v3 的 1.3 倍\")")
        for gloss in GLOSS.findall(line):
            glosses[gloss.lower()] = glosses.get(gloss.lower(), 0) + 1
        for word in LATIN_WORD.findall(GLOSS.sub(" ", line)):
            if foreign_word(word, kept) and word not in foreign:
                foreign.append(word)
    if foreign:
        more = f" and {len(foreign) - 8} more" if len(foreign) > 8 else ""
        problems.append(f"{rel}: English words in the Chinese prose: {', '.join(foreign[:8])}{more} "
                        f"(translate them, or keep the term in lessons/glossary.zh-CN.md)")
    for gloss, count in glosses.items():
        if count > 1:
            problems.append(f"{rel}: the gloss \"（{gloss}）\" appears {count} times "
                            f"(once at most, at the term's first use)")
    return problems


# ---- Rules 10-12: every Chinese page and the catalogs ----------------------------------------------------

class Problem(str):
    """A broken rule's sentence, with the rule's kind ("break", "rejected", "ratio") and how many times."""

    def __new__(cls, text, kind=None, count=1):
        problem = super().__new__(cls, text)
        problem.kind, problem.count = kind, count
        return problem


def rejected_forms(glossary=GLOSSARY):
    """Rule 11: {rejected form: the term chosen instead}, from the glossary's column 不用的写法 (forms
    separated by "、"; the term is the 中文 column's, without its parentheses, or the k-th of its terms
    for the k-th form where both list as many)."""
    forms, column = {}, None
    if not os.path.exists(glossary):
        return forms
    with open(glossary, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|"):
                column = None
            elif column is None:
                column = cells.index(REJECTED_HEAD) if REJECTED_HEAD in cells else -1
            elif column > 0 and not TABLE_RULE.match(line.strip()) and len(cells) > column:
                term = re.sub(r"（[^）]*）|\([^)]*\)", "", cells[1]).strip()
                rejected = [f.strip().strip("“”") for f in cells[column].split("、") if f.strip()]
                terms = term.split("、")   # "当前最大值、当前均值" beside "运行最大值、运行均值": one each
                for k, form in enumerate(rejected):
                    forms[form] = terms[k] if len(terms) == len(rejected) else term
    return forms


def form_pattern(forms):
    """One pattern for every rejected form; a form that starts or ends with a Latin letter or a digit is
    matched only as a whole word there (FP16, not CUDA_FP16_TYPES)."""
    def bounded(form):
        left = r"(?<![A-Za-z0-9_])" if re.match(r"\w", form[0], re.A) else ""
        right = r"(?![A-Za-z0-9_])" if re.match(r"\w", form[-1], re.A) else ""
        return left + re.escape(form) + right
    return re.compile("|".join(bounded(f) for f in sorted(forms, key=len, reverse=True))) if forms else None


def text_problems(text, where, forms, pattern, limit=None):
    """Rules 11 and 12 in one piece of Chinese text (a line, a translation), where: how to name its place;
    only what starts before limit counts (a page's line is given with the next one, for what a break cuts)."""
    def found_in(regex):
        return [m.group(0).replace("\n", "") for m in (regex.finditer(text) if regex else [])
                if limit is None or m.start() < limit]
    problems = []
    for found in found_in(pattern):
        problems.append(Problem(f"{where}: \"{found}\", a form the glossary rejects: say \"{forms[found]}\"",
                                "rejected"))
    for found in found_in(AMBIGUOUS_RATIO):
        if found.startswith("每隔"):
            problems.append(Problem(f"{where}: \"{found}\" reads as every (N + 1)-th: every N-th is \"每 N 列\"",
                                    "ratio"))
        else:
            problems.append(Problem(f"{where}: \"{found}\" (many read \"快 N 倍\" as N + 1 times, and \"Nx\" is "
                                    f"English): say \"是…的 N 倍\", or a percentage", "ratio"))
    return problems


def chinese_page_problems(page, rel, forms, pattern):
    """Rules 10-12 in one Chinese page (the glossary: rule 10 only, since it lists the rejected forms)."""
    problems = []
    broken = page.broken_words()
    if broken:
        lines = ", ".join(map(str, broken[:8])) + (" ..." if len(broken) > 8 else "")
        problems.append(Problem(f"{rel}: {len(broken)} line break{'s' if len(broken) > 1 else ''} between two "
                                f"Chinese characters, after line {lines} (a renderer shows a space there: join the "
                                f"lines, or break after a full-width mark or beside a space)", "break", len(broken)))
    if os.path.abspath(page.path) == os.path.abspath(GLOSSARY):
        return problems
    def plain(k):   # line k without inline code and link targets; "" past the end
        return re.sub(r"`[^`]*`|\]\([^)]*\)", " ", page.lines[k]) if k < len(page.lines) else ""
    for k in range(len(page.lines)):
        if not CJK.search(page.lines[k]):
            continue   # English quoted in a code block (a report as it prints in English)
        line, after = plain(k), plain(k + 1).lstrip() if k + 1 in page.prose_at and k in page.prose_at else ""
        problems += text_problems(line + "\n" + after, f"{rel}:{k + 1}", forms, pattern, len(line))
    return problems


def glossary_words(glossary=GLOSSARY):
    """The Chinese words of the glossary's 中文 column (each run of two Chinese characters or more, in
    parentheses too): a wrapped line of the report never breaks inside one (checker/i18n/width.c)."""
    words = set()
    with open(glossary, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("|") and len(cells) >= 3 and not TABLE_RULE.match(line.strip()) and cells[1] != "中文":
                words.update(re.findall(f"[{HAN}]{{2,}}", cells[1]))
    return sorted(words, key=lambda w: (-len(w), w))


def terms_header(glossary=GLOSSARY):
    """checker/i18n/glossary_terms.h's text, from the glossary."""
    words, lines, line = glossary_words(glossary), [], "   "
    for word in words:
        if len(line) + len(re.findall(f"[{HAN}]", line)) + len(word) * 2 + 4 > 100:   # a Chinese character: 2 columns
            lines.append(line)
            line = "   "
        line += f' "{word}",'
    lines.append(line)
    return ("/* glossary_terms.h - the Chinese words of lessons/glossary.zh-CN.md's 中文 column, longest first: a\n"
            " * wrapped line of the report never breaks inside one (width.c). Written by checker/scripts/editions.py\n"
            " * --terms from the glossary; editions.py fails when it is not current. */\n"
            "static const char *const glossary_terms[] = {\n" + "\n".join(lines) + "\n};\n")


def terms_problems():
    current = open(TERMS_HEADER, encoding="utf-8").read() if os.path.exists(TERMS_HEADER) else ""
    if current != terms_header():
        return [Problem("checker/i18n/glossary_terms.h is not what lessons/glossary.zh-CN.md gives (the report "
                        "would break a line inside a new term): run checker/scripts/editions.py --terms")]
    return []


def catalog_translations(paths=None):
    """Every translation of the catalogs, as (part, msgid, msgstr)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("report_editions", os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "report-editions.py"))
    report_editions = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report_editions)
    return [(os.path.basename(path), e["id"], text) for path in (paths or sorted(glob.glob(CATALOGS)))
            for e in report_editions.read_po(path) if e["id"] and not e["obsolete"] for text in e["strs"]]


def catalog_problems(forms, pattern, paths=None):
    problems = []
    for part, msgid, text in catalog_translations(paths):
        problems += text_problems(text, f"{part}, the translation of \"{msgid[:40]}\"", forms, pattern)
    return problems


def heading_problems(pairs):
    """Rule 11's headings: an English heading translated one way in every page. pairs: (English Page,
    Chinese Page, the Chinese page's name)."""
    seen, problems = {}, []
    for en, zh, zh_rel in pairs:
        for (level, english), (_, chinese) in zip(en.headings, zh.headings):
            first = seen.setdefault(english, (chinese, zh_rel))
            if first[0] != chinese:
                problems.append(Problem(f"{zh_rel}: \"{english}\" is \"{chinese}\" here and \"{first[0]}\" in "
                                        f"{first[1]} (one heading, one translation)", "rejected"))
    return problems


def check_pair(english_path, kept=None, forms=None, paired=None):
    """The broken rules of one pair, as sentences (none when the editions are in step). forms: rule 11's
    rejected forms (the glossary's when None); paired, a list: gets (English Page, Chinese Page, name)."""
    kept = kept_terms() if kept is None else kept
    forms = rejected_forms() if forms is None else forms
    rel = os.path.relpath(english_path, ROOT)
    chinese_path = twin_of(english_path)
    if not os.path.exists(chinese_path):
        return [f"{rel} has no Chinese twin {os.path.basename(chinese_path)}"]
    en, zh = Page(english_path), Page(chinese_path)
    problems = []
    say = problems.append
    zh_rel = os.path.relpath(chinese_path, ROOT)
    if paired is not None:
        paired.append((en, zh, zh_rel))
    problems += chinese_page_problems(zh, zh_rel, forms, form_pattern(forms))
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
    for k in range(max(len(en.code), len(zh.code))):
        a = en.code[k] if k < len(en.code) else None
        b = zh.code[k] if k < len(zh.code) else None
        first = next((line for line in (a or b).split("\n") if not FENCE.match(line)), "")[:60]
        if a is None or b is None:
            say(f"{zh_rel}: code block {k + 1} (\"{first}\") is in one edition only "
                f"({len(en.code)} blocks in English, {len(zh.code)} in Chinese)")
            break
        found = code_difference(a, b, kept)
        if found:
            say(f"{zh_rel}: code block {k + 1} (\"{first}\") differs from the English one outside comments "
                f"and annotations: \"{found[0][:50]}\" in English, \"{found[1][:50]}\" in Chinese")
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
    if os.path.abspath(chinese_path) != os.path.abspath(GLOSSARY):
        problems += chinese_prose_problems(zh, zh_rel, kept)
    return problems


def rules_hold():
    """editions_test.py's bad examples, each caught (run before every full check): True when they are."""
    import io
    import unittest
    import editions_test
    stream = io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=0).run(
        unittest.defaultTestLoader.loadTestsFromModule(editions_test))
    if not result.wasSuccessful():
        print(stream.getvalue().rstrip())
        print(f"editions: {len(result.failures) + len(result.errors)} of the rules' own tests fail "
              f"(checker/scripts/editions_test.py)")
    return result.wasSuccessful()


def main(argv):
    if argv[1:] == ["--terms"]:
        with open(TERMS_HEADER, "w", encoding="utf-8") as f:
            f.write(terms_header())
        print(f"editions: wrote {os.path.relpath(TERMS_HEADER, ROOT)}, {len(glossary_words())} terms")
        return 0
    if len(argv) == 1 and not rules_hold():
        return 1
    if len(argv) > 1:
        path = os.path.abspath(argv[1])
        pages = [path[:-len(".zh-CN.md")] + ".md" if path.endswith(".zh-CN.md") else path]
    else:
        pages = english_pages()
    kept, forms = kept_terms(), rejected_forms()
    problems, in_step, paired = [], 0, []
    for page in pages:
        found = check_pair(page, kept, forms, paired)
        in_step += not found
        problems += found
    problems += heading_problems(paired)
    catalogs = sorted(glob.glob(CATALOGS)) if len(argv) == 1 else []
    problems += catalog_problems(forms, form_pattern(forms), catalogs) + terms_problems() if catalogs else []
    for p in problems:
        print(f"  ✗ {p}")
    counts = {kind: sum(p.count for p in problems if getattr(p, "kind", None) == kind)
              for kind in ("break", "rejected", "ratio")}
    print(f"editions: {len(pages)} English pages, {in_step} in step with their Chinese twins, "
          f"{len(problems)} problem{'' if len(problems) == 1 else 's'}; in the Chinese pages"
          f"{f' and {len(catalogs)} catalogs' if catalogs else ''}: {counts['break']} line breaks inside a word, "
          f"{counts['rejected']} rejected forms of a term, {counts['ratio']} ambiguous ratios")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
