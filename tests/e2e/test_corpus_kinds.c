/* SPDX-License-Identifier: MIT */
/* The labelled corpus of issue 31 (corpus_kinds.h): the kinds of miss sbx
 * had where corpora moved away from what it was shown (a locale's own
 * quotes, the file and the reason on two lines, a path relative to a
 * directory the tool was told, a program's own words around the message,
 * Python's str(e) after any prefix, tools that print no system error at
 * all), each with its bait, run as root and as nobody, under both runners,
 * in fr_FR.UTF-8, ja_JP.UTF-8 and pl_PL.UTF-8, by the machinery of
 * corpus_run.h (test_corpus_families.c runs issue 14's corpus with it).
 * A suite of its own, so that it runs beside the families. */
#include "corpus_run.h"
#include "corpus_kinds.h"

#define N_KINDS (sizeof kinds / sizeof kinds[0])

static const char *const locales[] = { "fr_FR.UTF-8", "ja_JP.UTF-8", "pl_PL.UTF-8", NULL };

#define CONFIG(name, locale, who)                                                         \
	Test(kinds, name, .timeout = 1800)                                                 \
	{                                                                                  \
		run_corpus("kinds", kinds, N_KINDS, 20, locales, locale, who);            \
	}

CONFIG(fr_fr_root, "fr_FR.UTF-8", AS_CALLER)
CONFIG(fr_fr_nobody, "fr_FR.UTF-8", AS_NOBODY)
CONFIG(ja_jp_root, "ja_JP.UTF-8", AS_CALLER)
CONFIG(ja_jp_nobody, "ja_JP.UTF-8", AS_NOBODY)
CONFIG(pl_pl_root, "pl_PL.UTF-8", AS_CALLER)
CONFIG(pl_pl_nobody, "pl_PL.UTF-8", AS_NOBODY)
