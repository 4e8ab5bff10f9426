/* SPDX-License-Identifier: MIT */
/* The labelled corpus of issue 14 (corpus_families.h): localized messages,
 * other runtimes' formats, colour, JSON logs, test runners on stdout, each
 * command run as root and as nobody, under both runners, in C.UTF-8,
 * de_DE.UTF-8 and zh_CN.UTF-8, by the machinery of corpus_run.h. Each of
 * the twelve configurations prints one line with its precision and recall,
 * and asserts precision == 1 and recall >= 0.95. */
#include "corpus_run.h"

#define N_FAMILIES (sizeof families / sizeof families[0])

static const char *const locales[] = { "de_DE.UTF-8", "zh_CN.UTF-8", NULL };

#define CONFIG(name, locale, who)                                                         \
	Test(families, name, .timeout = 1800)                                              \
	{                                                                                  \
		run_corpus("families", families, N_FAMILIES, 60, locales, locale, who);   \
	}

CONFIG(c_utf8_root, "C.UTF-8", AS_CALLER)
CONFIG(c_utf8_nobody, "C.UTF-8", AS_NOBODY)
CONFIG(de_de_root, "de_DE.UTF-8", AS_CALLER)
CONFIG(de_de_nobody, "de_DE.UTF-8", AS_NOBODY)
CONFIG(zh_cn_root, "zh_CN.UTF-8", AS_CALLER)
CONFIG(zh_cn_nobody, "zh_CN.UTF-8", AS_NOBODY)
