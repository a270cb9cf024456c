#!/usr/bin/env python3
"""lessons.py - the lessons' pictures of threads, banks and sectors are `make show`'s drawings of the
reference solutions, and stay so.

    lessons.py --check    every picture in lessons/ and exercises/, both editions, against what `make show`
                          draws now; exit 1 when one differs (make test runs this)
    lessons.py --list     the pictures, one a line
    lessons.py --update   write what `make show` draws now into every picture (after changing a view:
                          read the diff, and the lesson's prose about the picture, before committing)

A picture is a fenced code block whose first line is a command, "$ make show exNN VAR=value ...", and whose
other lines are what that command prints: PICTURE=1 prints the picture alone. The Chinese edition shows
the same command and its Chinese drawing (COURSE_LANG=zh): editions.py compares the commands, this the
drawings (where the Chinese catalog is not built, for want of gettext's msgfmt, they are not compared, and
the last line says so). Run from the repository's root under make, which exports what a build needs
(EMU_LIB, NVCC)."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = re.compile(r"^\$ make show ex(\d\d)((?: [A-Z]+=\S+)*)$")


def pictures():
    """(page, line number, command, the lines under it) for every picture in the lessons."""
    pages = sorted(glob.glob(os.path.join(ROOT, "lessons", "*.md")) +
                   glob.glob(os.path.join(ROOT, "exercises", "*", "lesson*.md")))
    found = []
    for page in pages:
        lines = open(page, encoding="utf-8").read().split("\n")
        for k, line in enumerate(lines):
            if not line.startswith("```") or k + 1 >= len(lines) or not COMMAND.match(lines[k + 1]):
                continue
            end = k + 2
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            found.append((os.path.relpath(page, ROOT), k + 2, lines[k + 1], lines[k + 2:end]))
    return found


def draw(command, chinese, cache):
    """What the command prints now, in English or in Chinese (each made once)."""
    key = (command, chinese)
    if key not in cache:
        m = COMMAND.match(command)
        env = dict(os.environ, COURSE_LANG="zh" if chinese else "en", NO_COLOR="1")
        for setting in m.group(2).split():
            name, value = setting.split("=", 1)
            env[name] = value
        done = subprocess.run(["checker/scripts/show.sh", m.group(1)], cwd=ROOT, env=env, capture_output=True,
                              text=True)
        cache[key] = done.stdout.rstrip("\n").split("\n") if done.returncode == 0 else None
    return cache[key]


def chinese_catalog_built():
    """Whether the course speaks Chinese here: course-text's own answer for COURSE_LANG=zh, which is English
    where make compiled no catalog (gettext's msgfmt does), as every drawing then is."""
    course_text = os.environ.get("COURSE_TEXT", os.path.join(os.environ.get("BUILD", "build"), "bin", "course-text"))
    try:
        done = subprocess.run([course_text, "lang"], cwd=ROOT, env=dict(os.environ, COURSE_LANG="zh"),
                              capture_output=True, text=True)
    except OSError:
        return False
    return done.stdout.startswith("zh")


def check():
    cache, failed, not_compared = {}, 0, 0
    found = pictures()
    chinese = chinese_catalog_built()
    for page, line, command, shown in found:
        if page.endswith(".zh-CN.md") and not chinese:
            not_compared += 1
            continue
        now = draw(command, page.endswith(".zh-CN.md"), cache)
        if now == shown:
            print("  ✓ %s:%d: %s" % (page, line, command[2:]))
            continue
        failed += 1
        print("  ✗ %s:%d: %s %s" % (page, line, command[2:],
                                     "did not run" if now is None else "draws something else now:"))
        for k in range(max(len(shown), len(now or []))):
            a = shown[k] if k < len(shown) else ""
            b = (now or [""])[k] if now and k < len(now) else ""
            if a != b:
                print("      lesson: %s\n      now:    %s" % (a, b))
                break
    if not_compared:
        print("  the %d Chinese pictures were not compared: the Chinese catalog is not built here (gettext's "
              "msgfmt builds it)" % not_compared)
    print("make show's pictures in the lessons: %d compared, %d different%s" %
          (len(found) - not_compared, failed, ", %d Chinese not compared" % not_compared if not_compared else ""))
    return 1 if failed else 0


def update():
    """Writes what each picture's command draws now under it; returns how many changed."""
    cache, changed = {}, 0
    # From the last picture of the last page up, so that a picture that changes length moves no other.
    for page, line, command, shown in reversed(pictures()):
        now = draw(command, page.endswith(".zh-CN.md"), cache)
        if now is None:
            print("  %s:%d: %s did not run" % (page, line, command[2:]))
            continue
        if now == shown:
            continue
        path = os.path.join(ROOT, page)
        lines = open(path, encoding="utf-8").read().split("\n")
        lines[line:line + len(shown)] = now   # line: the command's, from 1; the picture follows it
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        changed += 1
        print("  updated %s:%d: %s" % (page, line, command[2:]))
    return changed


def main():
    if sys.argv[1:] == ["--update"]:
        print("%d pictures updated" % update())
        return 0
    if sys.argv[1:] == ["--list"]:
        for page, line, command, _shown in pictures():
            print("%s:%d: %s" % (page, line, command[2:]))
        return 0
    if sys.argv[1:] == ["--check"]:
        return check()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
