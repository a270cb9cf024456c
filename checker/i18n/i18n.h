/* i18n.h - the learner's language and the course's text in it: English by default (the msgids), Chinese
 * through GNU gettext when asked for (COURSE_LANG=zh, or LANGUAGE / LC_ALL / LC_MESSAGES / LANG as gettext
 * reads them). Also the display width of text, for wrapping a report that mixes English and Chinese.
 * Shared by the harness (harness.h includes it) and by course-text, the scripts' tool (course_text.c). */
#ifndef COURSE_I18N_H
#define COURSE_I18N_H

#include <stddef.h>

/* The catalog's text domain: build/locale/<lang>/LC_MESSAGES/course.mo (i18n.mk compiles it). The
 * emulator uses the same name (checker/emu/emu_text.h), so that its findings speak the same language. */
#define COURSE_DOMAIN "course"

/* Marks a string for extraction where it cannot be translated yet (a static initialiser): whoever uses
 * it later passes it through _(). */
#define N_(s) s
/* A string in the learner's language (the msgid itself when it has no translation). */
#define _(s) course_text(s)
/* The same for a msgid that is also a printf format: gcc then checks the arguments against the msgid. */
const char *course_text(const char *msgid) __attribute__((format_arg(1)));
/* A phrase that other messages contain, looked up in context "phrase" (hint.sh's symptoms are such phrases
 * too): the code finds it in a message whatever its language, so every translation that contains the
 * English phrase contains the phrase's translation (report-editions.py checks it). */
#define P_(phrase) course_phrase(phrase)
const char *course_phrase(const char *phrase) __attribute__((format_arg(1)));
/* The form for a count n: singular or plural in English, the catalog's form for n in the language. */
#define _n(singular, plural, n) course_ntext(singular, plural, n)
const char *course_ntext(const char *singular, const char *plural, unsigned long n)
    __attribute__((format_arg(1), format_arg(2)));

/* Decides the language once, from the environment, and binds the catalog when it is not English.
 * Returns the language's catalog name ("zh_CN"), or NULL for English. Safe to call more than once. */
const char *course_i18n_init(void);

/* The language's catalog name the environment asks for ("zh_CN"), or NULL for English; does not bind. */
const char *course_language_wanted(void);

/* A lesson's path as the learner should open it: its Chinese twin (lesson.zh-CN.md beside lesson.md)
 * when the language is Chinese and the twin exists, else path itself. buf receives it. */
const char *course_lesson_path(const char *path, char *buf, size_t len);

/* ---- Display width (width.c) ------------------------------------------------------------------------- */

/* The columns a terminal gives the len bytes of UTF-8 text s: a Chinese (wide) character takes 2, an
 * escape sequence (colour) none, a byte that is not UTF-8 one. */
int text_width(const char *s, size_t len);

/* The first line of s (len bytes, no newline in it) that fits width columns: returns its length in
 * bytes, trailing spaces left out, and sets *next to where the rest starts (spaces skipped). A line
 * breaks at a space, or between two characters of which one is wide (never before a closing mark such
 * as ，。） or after an opening one such as （), or, when a word alone is wider than the line, inside it. */
size_t text_fit(const char *s, size_t len, int width, size_t *next);

/* Removes, in place, a single space between two wide (Chinese) characters, which Chinese does not set and
 * a sentence joined from fragments may contain (two or more are a table's columns: kept); returns the text's
 * new length. */
size_t text_tidy(char *s, size_t len);

/* A tidied copy of the len bytes at s, to free(); *len becomes its length. NULL (and *len unchanged) when
 * there is no memory for it: the caller then goes on with s as it is. */
char *text_tidy_copy(const char *s, size_t *len);

#endif
