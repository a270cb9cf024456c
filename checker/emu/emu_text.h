/* emu_text.h - the emulator's messages in the learner's language. Every message is a named constant or a
 * literal marked for extraction (N_, emu_text, emu_ntext, or an argument of emu_finding, emu_diag_report or
 * emu_ptx_fail, which translate their format). They are translated through the course's catalog (GNU
 * gettext, domain "course": checker/i18n) when the program has bound it, as the harness does; any other
 * program (the emulator's own tests, a plain CUDA program) gets the English text. The kinds of finding
 * (emu_record.c) stay English in the records: the report translates them when it makes the words. */
#ifndef EMU_TEXT_H
#define EMU_TEXT_H

#include <libintl.h>

#define EMU_TEXT_DOMAIN "course"

/* Marks a string that is translated where it is used (a table, a named constant). */
#ifndef N_
#define N_(s) s
#endif

static inline __attribute__((format_arg(1))) const char *emu_text(const char *msgid)
{
    return msgid && *msgid ? dgettext(EMU_TEXT_DOMAIN, msgid) : msgid;
}

/* The form for a count n (element / elements). */
static inline __attribute__((format_arg(1), format_arg(2))) const char *
emu_ntext(const char *singular, const char *plural, unsigned long n)
{
    return dngettext(EMU_TEXT_DOMAIN, singular, plural, n);
}

#endif
