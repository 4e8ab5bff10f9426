/* SPDX-License-Identifier: MIT */
/* The command's own language for the classifier: the strerror(3) texts of
 * the runner's errno values (EROFS, EACCES, EXDEV, EPERM) as the command's C
 * library prints them under its LC_ALL / LC_MESSAGES / LANG / LANGUAGE. */
#ifndef SBX_LOCALE_DIALECT_H
#define SBX_LOCALE_DIALECT_H

#include "classify.h"

/* The locale variables of one environment (NULL: unset or empty). */
struct locale_vars {
	const char *lc_all, *lc_messages, *lc_ctype, *lang, *language;
};

/* For the environment envp ("K=V" strings, NULL-terminated). Cached per
 * locale for the life of the process, so `sbx serve` derives each locale
 * once. Every text is "" when the command prints English. */
void locale_dialect_for_env(char *const *envp, struct dialect_texts *out);

/* The same, and the texts of ENOENT and ENOTDIR ("" each: English): the
 * errors a program reports after a refused mkdir, which the supervisor's
 * noted refusals are named with (run_named.c). Cached together. */
#define LOCALE_MISSING 2
void locale_texts_for_env(char *const *envp, struct dialect_texts *out,
			  char missing[LOCALE_MISSING][DIALECT_TEXT_MAX]);

/* The derivation itself, uncached, with the catalogs' directory given (NULL:
 * the C library's own). Exposed for the tests. */
void locale_dialect_derive(const struct locale_vars *v, const char *catalog_dir,
			   struct dialect_texts *out);

#endif
