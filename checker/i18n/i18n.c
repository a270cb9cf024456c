/* i18n.c - which language the learner reads, and the catalog that speaks it.
 *
 * The catalog is GNU gettext's (build/locale/zh_CN/LC_MESSAGES/course.mo, compiled from checker/po/).
 * glibc's gettext reads LANGUAGE only when the locale of LC_MESSAGES is not "C", and a fresh Debian
 * machine has no zh_CN locale: setlocale(LC_MESSAGES, "") then fails with LANG=zh_CN.UTF-8 and leaves
 * "C". So the language is decided here, from the same variables, and the catalog is then asked for
 * through LANGUAGE=zh_CN under whatever locale works: the learner's own, else C.UTF-8, which every
 * glibc since 2.35 (and Debian's since long before) has built in. The text comes out as UTF-8 whatever
 * LC_CTYPE says (bind_textdomain_codeset). LC_NUMERIC and the rest stay "C": numbers print as always. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* setenv, realpath */
#endif
#include "i18n.h"

#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 1 when a language name (a locale name such as zh_CN.UTF-8, or an entry of LANGUAGE) is one the
 * course has a catalog for: Chinese in simplified characters. */
static int is_chinese(const char *name)
{
    if (strncmp(name, "zh", 2) != 0) return 0;
    name += 2;
    if (!*name || *name == '.' || *name == '@' || *name == ':') return 1;
    return !strncmp(name, "_CN", 3) || !strncmp(name, "-CN", 3) || !strncmp(name, "_SG", 3) ||
           !strncmp(name, "-Hans", 5) || !strncmp(name, "_Hans", 5);
}

/* en, en_US.UTF-8, en-GB: English, the msgids. */
static int is_english(const char *name)
{
    return name[0] == 'e' && name[1] == 'n' && !(name[2] >= 'a' && name[2] <= 'z');
}

static const char *nonempty(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

const char *course_language_wanted(void)
{
    /* COURSE_LANG=zh or =en decides alone. */
    const char *forced = nonempty("COURSE_LANG");
    if (forced && is_chinese(forced)) return "zh_CN";
    if (forced && is_english(forced)) return NULL;
    /* Otherwise as gettext: the locale of messages is LC_ALL, else LC_MESSAGES, else LANG; LANGUAGE, a list
     * of languages in order of preference, counts unless that locale is C (or POSIX). */
    const char *locale = nonempty("LC_ALL");
    if (!locale) locale = nonempty("LC_MESSAGES");
    if (!locale) locale = nonempty("LANG");
    int plain_c = !locale || !strcmp(locale, "C") || !strcmp(locale, "POSIX");
    const char *list = nonempty("LANGUAGE");
    if (list && !plain_c) {
        for (const char *entry = list; *entry; entry += strcspn(entry, ":"), entry += *entry == ':') {
            if (is_chinese(entry)) return "zh_CN";
            if (is_english(entry)) return NULL;
        }
    }
    return locale && is_chinese(locale) ? "zh_CN" : NULL;
}

static int decided;
static const char *language;   /* NULL: English */

/* The folder that holds <lang>/LC_MESSAGES/course.mo: COURSE_LOCALEDIR, else $BUILD/locale (BUILD
 * defaults to build, as in the Makefile), made absolute so that a change of directory cannot lose it. */
static const char *locale_dir(char *buf, size_t len)
{
    const char *dir = nonempty("COURSE_LOCALEDIR");
    char joined[PATH_MAX];
    if (!dir) {
        const char *build = nonempty("BUILD");
        snprintf(joined, sizeof joined, "%s/locale", build ? build : "build");
        dir = joined;
    }
    if (!realpath(dir, buf)) snprintf(buf, len, "%s", dir);
    return buf;
}

const char *course_i18n_init(void)
{
    if (decided) return language;
    decided = 1;
    const char *wanted = course_language_wanted();
    if (!wanted) return NULL;
    char dir[PATH_MAX], mo[PATH_MAX + 64];
    struct stat st;
    locale_dir(dir, sizeof dir);
    snprintf(mo, sizeof mo, "%s/%s/LC_MESSAGES/%s.mo", dir, wanted, COURSE_DOMAIN);
    if (stat(mo, &st) != 0) return NULL;   /* not compiled (no msgfmt here): English, as without a catalog */
    const char *now = setlocale(LC_MESSAGES, "");
    if (!now || !strcmp(now, "C") || !strcmp(now, "POSIX"))
        if (!setlocale(LC_MESSAGES, "C.UTF-8") && !setlocale(LC_MESSAGES, "C.utf8")) return NULL;
    setenv("LANGUAGE", wanted, 1);
    bindtextdomain(COURSE_DOMAIN, dir);
    bind_textdomain_codeset(COURSE_DOMAIN, "UTF-8");
    language = wanted;
    return language;
}

const char *course_text(const char *msgid)
{
    if (!msgid || !*msgid) return msgid;   /* gettext("") is the catalog's header */
    return course_i18n_init() ? dgettext(COURSE_DOMAIN, msgid) : msgid;
}

const char *course_phrase(const char *phrase)
{
    if (!course_i18n_init()) return phrase;
    char key[512];
    snprintf(key, sizeof key, "phrase\004%s", phrase);
    const char *found = dgettext(COURSE_DOMAIN, key);
    return found == key ? phrase : found;
}

const char *course_ntext(const char *singular, const char *plural, unsigned long n)
{
    return course_i18n_init() ? dngettext(COURSE_DOMAIN, singular, plural, n) : n == 1 ? singular : plural;
}

const char *course_lesson_path(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    struct stat st;
    if (course_i18n_init() && n > 3 && !strcmp(path + n - 3, ".md") &&
        (size_t)snprintf(buf, len, "%.*s.zh-CN.md", (int)(n - 3), path) < len && stat(buf, &st) == 0)
        return buf;
    snprintf(buf, len, "%s", path);
    return buf;
}
