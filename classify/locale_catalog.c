/* SPDX-License-Identifier: MIT */
/* glibc's catalog search for one language name (intl/finddomain.c,
 * intl/explodename.c, intl/l10nflist.c, intl/localealias.c):
 *   - a name listed in <dir>/locale.alias (compared case-insensitively) is
 *     replaced by its value;
 *   - it is split into language[_territory][.codeset][@modifier], and the
 *     codeset also normalised (lower-case letters and digits, "iso" before
 *     an all-digit one: "UTF-8" -> "utf8");
 *   - the variants are tried from the full mask down to the bare language,
 *     never with both spellings of the codeset: for de_DE.UTF-8 that is
 *     de_DE.UTF-8, de_DE.utf8, de_DE, de.UTF-8, de.utf8, de;
 *   - <dir>/<variant>/LC_MESSAGES/libc.mo; the first holding the message
 *     wins.
 * Pure: the files are read by the caller's reader (struct catalog_reader);
 * nothing here makes a system call. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "locale_catalog.h"

#define XPG_NORM_CODESET 1
#define XPG_CODESET 2
#define XPG_TERRITORY 4
#define XPG_MODIFIER 8
/* Bounds on what the reader is asked for. */
#define CATALOG_SIZE_MAX (16u << 20)
#define ALIAS_SIZE_MAX (256u << 10)

struct exploded {
	char buf[LOCALE_NAME_MAX];
	const char *language, *territory, *codeset, *modifier;
	char normalized[LOCALE_NAME_MAX];
	int mask;
};

void catalog_search_init(struct catalog_search *cs, const char *dir,
			 const struct catalog_reader *reader)
{
	memset(cs, 0, sizeof(*cs));
	cs->dir = dir ? dir : "/usr/share/locale";
	cs->reader = reader;
}

void catalog_search_done(struct catalog_search *cs)
{
	for (size_t i = 0; i < cs->n_files; i++) {
		free(cs->files[i].path);
		if (cs->files[i].data)
			cs->reader->unmap(cs->files[i].data, cs->files[i].size);
	}
	if (cs->aliases)
		cs->reader->free_text(cs->aliases);
	memset(cs, 0, sizeof(*cs));
}

/* The value locale.alias gives name, copied into out; false if none. */
static bool expand_alias(struct catalog_search *cs, const char *name, char *out, size_t size)
{
	char path[PATH_MAX];
	size_t nlen = strlen(name);

	if (!cs->aliases_read) {
		cs->aliases_read = true;
		if (snprintf(path, sizeof(path), "%s/locale.alias", cs->dir) < (int)sizeof(path))
			cs->aliases = cs->reader->read_text(path, ALIAS_SIZE_MAX, &cs->aliases_len);
	}
	for (char *line = cs->aliases; line && *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		size_t a = 0, v, vlen = 0;

		while (a < len && (line[a] == ' ' || line[a] == '\t'))
			a++;
		size_t alias = a;
		while (a < len && line[a] != ' ' && line[a] != '\t')
			a++;
		size_t alen = a - alias;
		while (a < len && (line[a] == ' ' || line[a] == '\t'))
			a++;
		v = a;
		while (v + vlen < len && line[v + vlen] != ' ' && line[v + vlen] != '\t' &&
		       line[v + vlen] != '\r')
			vlen++;
		if (alen == nlen && line[alias] != '#' && vlen > 0 && vlen < size &&
		    strncasecmp(line + alias, name, nlen) == 0) {
			memcpy(out, line + v, vlen);
			out[vlen] = '\0';
			return true;
		}
		line = end ? end + 1 : line + len;
	}
	return false;
}

static void normalize(const char *cs, size_t len, char *out, size_t size)
{
	size_t o = 0;
	bool only_digits = true;

	for (size_t i = 0; i < len; i++)
		if ((cs[i] >= 'a' && cs[i] <= 'z') || (cs[i] >= 'A' && cs[i] <= 'Z'))
			only_digits = false;
	if (only_digits && size > 3) {
		memcpy(out, "iso", 3);
		o = 3;
	}
	for (size_t i = 0; i < len && o + 1 < size; i++) {
		char c = cs[i];

		if (c >= 'A' && c <= 'Z')
			out[o++] = (char)(c - 'A' + 'a');
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			out[o++] = c;
	}
	out[o] = '\0';
}

/* _nl_explode_name */
static void explode(const char *name, struct exploded *e)
{
	char *cp;

	memset(e, 0, sizeof(*e));
	snprintf(e->buf, sizeof(e->buf), "%s", name);
	e->language = cp = e->buf;
	while (*cp && *cp != '_' && *cp != '@' && *cp != '.')
		cp++;
	if (cp == e->language) {
		/* no language: the entry is used as it is */
		cp = strchr(e->buf, '\0');
	} else {
		if (*cp == '_') {
			*cp++ = '\0';
			e->territory = cp;
			while (*cp && *cp != '.' && *cp != '@')
				cp++;
			e->mask |= XPG_TERRITORY;
		}
		if (*cp == '.') {
			*cp++ = '\0';
			e->codeset = cp;
			while (*cp && *cp != '@')
				cp++;
			e->mask |= XPG_CODESET;
			if (cp != e->codeset) {
				normalize(e->codeset, (size_t)(cp - e->codeset), e->normalized,
					  sizeof(e->normalized));
				if (strncmp(e->codeset, e->normalized, (size_t)(cp - e->codeset)) != 0 ||
				    e->normalized[cp - e->codeset] != '\0')
					e->mask |= XPG_NORM_CODESET;
			}
		}
	}
	if (*cp == '@') {
		*cp++ = '\0';
		e->modifier = cp;
		if (*cp)
			e->mask |= XPG_MODIFIER;
	}
	if (e->territory && !e->territory[0])
		e->mask &= ~XPG_TERRITORY;
	if (e->codeset && !e->codeset[0])
		e->mask &= ~XPG_CODESET;
}

/* The loaded file for path (mapped on first use), or NULL if unusable. */
static struct catalog_file *file_for(struct catalog_search *cs, const char *path)
{
	struct catalog_file *f;

	for (size_t i = 0; i < cs->n_files; i++)
		if (strcmp(cs->files[i].path, path) == 0)
			return cs->files[i].data ? &cs->files[i] : NULL;
	if (cs->n_files == CATALOG_FILES)
		return NULL;
	f = &cs->files[cs->n_files];
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	cs->n_files++;
	f->data = cs->reader->map(path, CATALOG_SIZE_MAX, &f->size);
	if (f->data && !mo_open(&f->mo, f->data, f->size)) {
		cs->reader->unmap(f->data, f->size);
		f->data = NULL;
	}
	if (!f->data)
		return NULL;
	if (!mo_charset(&f->mo, f->charset, sizeof(f->charset)))
		f->charset[0] = '\0';
	return f;
}

const char *catalog_search_lookup(struct catalog_search *cs, const char *language,
				  const char *msgid, size_t *len, const char **charset)
{
	char name[LOCALE_NAME_MAX], path[PATH_MAX];
	struct exploded e;

	/* why: the name becomes a directory we read from; one holding '/'
	 * could point anywhere (the C library refuses such names too). */
	if (strchr(language, '/') || language[0] == '.')
		return NULL;
	if (!expand_alias(cs, language, name, sizeof(name)))
		snprintf(name, sizeof(name), "%s", language);
	if (strchr(name, '/'))
		return NULL;
	explode(name, &e);
	for (int cnt = e.mask; cnt >= 0; cnt--) {
		struct catalog_file *f;
		const char *t;

		if ((cnt & ~e.mask) != 0 || ((cnt & XPG_CODESET) && (cnt & XPG_NORM_CODESET)))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s%s%s%s%s%s%s%s%s/LC_MESSAGES/libc.mo", cs->dir,
			     e.language, (cnt & XPG_TERRITORY) ? "_" : "",
			     (cnt & XPG_TERRITORY) ? e.territory : "", (cnt & XPG_CODESET) ? "." : "",
			     (cnt & XPG_CODESET) ? e.codeset : "", (cnt & XPG_NORM_CODESET) ? "." : "",
			     (cnt & XPG_NORM_CODESET) ? e.normalized : "",
			     (cnt & XPG_MODIFIER) ? "@" : "",
			     (cnt & XPG_MODIFIER) ? e.modifier : "") >= (int)sizeof(path))
			continue;
		f = file_for(cs, path);
		if (!f)
			continue;
		t = mo_lookup(&f->mo, msgid, len);
		if (t) {
			*charset = f->charset;
			return t;
		}
	}
	return NULL;
}
