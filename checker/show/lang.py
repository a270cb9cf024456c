"""lang.py - the words of `make show` in the learner's language, and text measured by display width.

The language is the one course-text chooses (COURSE_LANG, else LANGUAGE / LC_ALL / LC_MESSAGES / LANG);
the words come from the course's GNU gettext catalog (build/locale, compiled from checker/po/zh_CN/*.po:
show.po holds this folder's msgids). A Chinese character takes two columns of a terminal."""
import gettext
import os
import re
import subprocess
import textwrap
import unicodedata

BUILD = os.environ.get("BUILD", "build")
COURSE_TEXT = os.environ.get("COURSE_TEXT", os.path.join(BUILD, "bin", "course-text"))
ESCAPE = re.compile(r"\033\[[0-9;]*m")


def _language():
    try:
        return subprocess.run([COURSE_TEXT, "lang"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "en"


LANGUAGE = _language()
_catalog = (gettext.translation("course", os.path.join(BUILD, "locale"), ["zh_CN"], fallback=True)
            if LANGUAGE.startswith("zh") else gettext.NullTranslations())


def _(msgid):
    """msgid in the learner's language."""
    return _catalog.gettext(msgid)


def _c(context, msgid):
    """msgid in the learner's language, in context (a column's name where the same word is a verb elsewhere)."""
    return _catalog.pgettext(context, msgid)


def N_(msgid):
    """msgid marked for the catalog where it is only stored (a table); _() translates it where it is used."""
    return msgid


def _n(singular, plural, count):
    """The form of a message for count."""
    return _catalog.ngettext(singular, plural, count)


def width(text):
    """The columns text takes in a terminal (escape sequences take none)."""
    cols = 0
    for ch in ESCAPE.sub("", text):
        if unicodedata.combining(ch):
            continue
        cols += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return cols


def pad(text, cols, right=False):
    """text padded with spaces to cols columns (on the left when right is set)."""
    fill = " " * max(0, cols - width(text))
    return fill + text if right else text + fill


def cut(text, cols):
    """text cut to at most cols columns, with … where it was cut."""
    if width(text) <= cols:
        return text
    out = ""
    for ch in text:
        if width(out + ch) > cols - 1:
            break
        out += ch
    return out + "…"


def wrap(text, cols=100, hang=0):
    """text as lines of at most cols columns, broken between words (or between two Chinese characters, as
    course-text breaks them), the later lines indented by hang columns."""
    try:
        done = subprocess.run([COURSE_TEXT, "wrap", str(cols), str(hang)], input=text + "\n", capture_output=True,
                              text=True, check=True).stdout
        return done.rstrip("\n").split("\n")
    except (OSError, subprocess.CalledProcessError):
        return textwrap.wrap(text, cols, subsequent_indent=" " * hang) or [""]
