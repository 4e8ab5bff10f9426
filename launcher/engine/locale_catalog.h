/* SPDX-License-Identifier: MIT */
/* Finding a message in the C library's catalogs for one language name, the
 * way glibc's _nl_find_domain does (locale.alias, then the name's variants
 * from most to least specific). Files are read once per search. */
#ifndef SBX_LOCALE_CATALOG_H
#define SBX_LOCALE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "mo_catalog.h"

#define LOCALE_NAME_MAX 256
#define CATALOG_FILES 24

struct catalog_file {
	char *path;          /* malloc'd */
	unsigned char *data; /* NULL: missing or not a catalog */
	size_t size;
	struct mo_catalog mo;
	char charset[64];
};

struct catalog_search {
	const char *dir;     /* e.g. /usr/share/locale */
	struct catalog_file files[CATALOG_FILES];
	size_t n_files;
	char *aliases;       /* locale.alias, read on first use */
	size_t aliases_len;
	bool aliases_read;
};

void catalog_search_init(struct catalog_search *cs, const char *dir);
/* The translation of msgid in language's libc.mo catalogs, or NULL;
 * *charset gets the catalog's charset ("" if it names none). */
const char *catalog_search_lookup(struct catalog_search *cs, const char *language,
				  const char *msgid, size_t *len, const char **charset);
void catalog_search_done(struct catalog_search *cs);

#endif
