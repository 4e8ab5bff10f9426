/* SPDX-License-Identifier: MIT */
/* Finding a message in the C library's catalogs for one language name, the
 * way glibc's _nl_find_domain does (locale.alias, then the name's variants
 * from most to least specific). Files are read once per search, through
 * the caller's reader. */
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

/* How the search reads files: supplied by the caller (the engine's
 * catalog_files), so that classify/ makes no system call. */
struct catalog_reader {
	/* A whole regular file of at most max bytes, read-only, or NULL. */
	void *(*map)(const char *path, size_t max, size_t *size);
	void (*unmap)(void *data, size_t size);
	/* A whole regular file of at most max bytes, NUL-terminated, or NULL. */
	char *(*read_text)(const char *path, size_t max, size_t *size);
	void (*free_text)(void *text);
};

struct catalog_search {
	const char *dir;     /* e.g. /usr/share/locale */
	const struct catalog_reader *reader;
	struct catalog_file files[CATALOG_FILES];
	size_t n_files;
	char *aliases;       /* locale.alias, read on first use */
	size_t aliases_len;
	bool aliases_read;
};

void catalog_search_init(struct catalog_search *cs, const char *dir,
			 const struct catalog_reader *reader);
/* The translation of msgid in language's libc.mo catalogs, or NULL;
 * *charset gets the catalog's charset ("" if it names none). */
const char *catalog_search_lookup(struct catalog_search *cs, const char *language,
				  const char *msgid, size_t *len, const char **charset);
void catalog_search_done(struct catalog_search *cs);

#endif
