/* SPDX-License-Identifier: MIT */
/* Deriving the command's denial texts in its own language, exactly as its C
 * library would translate strerror(3): no translation tables of our own.
 *
 * glibc's rule (intl/dcigettext.c), followed step by step:
 *   1. the LC_MESSAGES locale is LC_ALL, else LC_MESSAGES, else LANG, else
 *      "C"; the program runs in it only if that locale is installed
 *      (newlocale tells; "POSIX" is "C");
 *   2. in the "C" locale nothing is translated, whatever LANGUAGE says;
 *   3. otherwise the languages to try are LANGUAGE (a ':' list) if set,
 *      else the locale's name; a "C" entry ends the search untranslated;
 *   4. each language is looked up through locale.alias, split into
 *      language_territory.codeset@modifier, and its catalogs
 *      <dir>/<variant>/LC_MESSAGES/libc.mo are tried from the most specific
 *      variant to the bare language; the first that holds the message wins;
 *   5. the translation is converted to the LC_CTYPE locale's codeset.
 * The English texts (the message ids) come from strerror_l in "C". */
#include <errno.h>
#include <iconv.h>
#include <langinfo.h>
#include <libintl.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "catalog_files.h"
#include "locale_dialect.h"

#define CACHE_SLOTS 8
#define KEY_MAX 1024

static const char *env_value(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return (*e)[n + 1] ? *e + n + 1 : NULL;
	return NULL;
}

static const char *first_set(const char *a, const char *b, const char *c)
{
	return a ? a : b ? b : c ? c : "C";
}

/* The codeset name as the C library compares them: "UTF-8" is "utf8". */
static void normalize_codeset(const char *cs, char *out, size_t size)
{
	size_t o = 0;

	for (; *cs && o + 1 < size; cs++)
		if ((*cs >= '0' && *cs <= '9') || (*cs >= 'a' && *cs <= 'z'))
			out[o++] = *cs;
		else if (*cs >= 'A' && *cs <= 'Z')
			out[o++] = (char)(*cs - 'A' + 'a');
	out[o] = '\0';
}

/* "ll_CC.CODESET@modifier" -> CODESET; false when the name has none. */
static bool codeset_of_name(const char *name, char *out, size_t size)
{
	const char *dot = strchr(name, '.');
	size_t n;

	if (!dot)
		return false;
	n = strcspn(dot + 1, "@");
	if (n == 0 || n >= size)
		return false;
	memcpy(out, dot + 1, n);
	out[n] = '\0';
	return true;
}

/* text (from the catalog's charset) in the locale's codeset, into out. */
static bool convert(const char *text, size_t len, const char *from, const char *to, char *out,
		    size_t size)
{
	char nf[64], nt[64], target[96];
	iconv_t cd;
	char *in = (char *)text, *o = out;
	size_t il = len, ol = size - 1;

	normalize_codeset(from, nf, sizeof(nf));
	normalize_codeset(to, nt, sizeof(nt));
	if (strcmp(nf, nt) == 0 || !from[0]) {
		if (len >= size)
			return false;
		memcpy(out, text, len);
		out[len] = '\0';
		return true;
	}
	/* glibc converts catalog texts with transliteration */
	snprintf(target, sizeof(target), "%s//TRANSLIT", to);
	cd = iconv_open(target, from);
	if (cd == (iconv_t)-1)
		return false;
	size_t r = iconv(cd, &in, &il, &o, &ol);
	iconv_close(cd);
	if (r == (size_t)-1 || il != 0)
		return false;
	*o = '\0';
	return true;
}

/* Step 3 and 4 for one message: its translation, or false for English. */
static bool translate(struct catalog_search *cs, const char *languages, const char *msgid,
		      const char *codeset, char *out, size_t size)
{
	const char *p = languages;

	while (*p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char lang[LOCALE_NAME_MAX];
		const char *t, *charset;
		size_t tlen;

		if (n > 0 && n < sizeof(lang)) {
			memcpy(lang, p, n);
			lang[n] = '\0';
			if (strcmp(lang, "C") == 0 || strcmp(lang, "POSIX") == 0)
				return false;
			t = catalog_search_lookup(cs, lang, msgid, &tlen, &charset);
			if (t)
				return convert(t, tlen, charset, codeset, out, size);
		}
		p += n + (colon ? 1 : 0);
	}
	return false;
}

/* The errno values of missing[] (locale_missing_for_env). */
static const int missing_errnos[LOCALE_MISSING] = { ENOENT, ENOTDIR };

static void derive(const struct locale_vars *v, const char *catalog_dir, struct dialect_texts *out,
		   char (*missing)[DIALECT_TEXT_MAX])
{
	const char *msg_name = first_set(v->lc_all, v->lc_messages, v->lang);
	const char *ctype_name = first_set(v->lc_all, v->lc_ctype, v->lang);
	locale_t ctype, loc, c_loc;
	struct catalog_search cs;

	memset(out, 0, sizeof(*out));
	if (missing)
		memset(missing, 0, LOCALE_MISSING * sizeof(*missing));
	/* Step 1: a locale the machine lacks leaves the program in "C". */
	ctype = newlocale(LC_CTYPE_MASK, ctype_name, (locale_t)0);
	if (!ctype)
		return;
	loc = newlocale(LC_MESSAGES_MASK, msg_name, ctype);
	if (!loc) {
		freelocale(ctype);
		return;
	}
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	/* Step 2: the name the C library itself goes by ("POSIX" is "C"). */
	const char *name = nl_langinfo_l(_NL_LOCALE_NAME(LC_MESSAGES), loc);
	if (c_loc && name && strcmp(name, "C") != 0 && strcmp(name, "POSIX") != 0) {
		const char *languages = v->language ? v->language : name;
		const char *codeset = nl_langinfo_l(CODESET, loc);
		char named[64];

		/* The codeset the locale's name gives ("zh_CN.UTF-8"), where it
		 * gives one: a static sbx's C library loads no character map
		 * and reports ASCII for every LC_CTYPE, though the command's
		 * own C library writes that codeset. */
		if (codeset_of_name(ctype_name, named, sizeof(named)))
			codeset = named;

		/* the C library's own catalog directory, as bound for "libc" */
		catalog_search_init(&cs, catalog_dir ? catalog_dir : bindtextdomain("libc", NULL),
				    &catalog_files);
		for (unsigned i = 0; i < DIALECT_KINDS; i++) {
			const char *msgid = strerror_l(dialect_errno(dialect_bit(i)), c_loc);

			if (!translate(&cs, languages, msgid, codeset, out->text[i], DIALECT_TEXT_MAX) ||
			    strcmp(out->text[i], msgid) == 0)
				out->text[i][0] = '\0';
		}
		for (unsigned i = 0; missing && i < LOCALE_MISSING; i++) {
			const char *msgid = strerror_l(missing_errnos[i], c_loc);

			if (!translate(&cs, languages, msgid, codeset, missing[i], DIALECT_TEXT_MAX) ||
			    strcmp(missing[i], msgid) == 0)
				missing[i][0] = '\0';
		}
		catalog_search_done(&cs);
	}
	if (c_loc)
		freelocale(c_loc);
	freelocale(loc);
}

void locale_dialect_derive(const struct locale_vars *v, const char *catalog_dir,
			   struct dialect_texts *out)
{
	derive(v, catalog_dir, out, NULL);
}

/* ---- the cache: serve runs many commands in few locales ---- */

struct cache_slot {
	bool used;
	char key[KEY_MAX];
	struct dialect_texts texts;
	char missing[LOCALE_MISSING][DIALECT_TEXT_MAX];
};

static struct cache_slot cache[CACHE_SLOTS];
static unsigned cache_next;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* The five values, NUL-separated, as one key; false if they do not fit. */
static bool make_key(const struct locale_vars *v, char *key)
{
	const char *parts[] = { v->lc_all, v->lc_messages, v->lc_ctype, v->lang, v->language };
	size_t o = 0;

	for (size_t i = 0; i < 5; i++) {
		const char *p = parts[i] ? parts[i] : "";
		size_t n = strlen(p);

		if (o + n + 2 > KEY_MAX)
			return false;
		memcpy(key + o, p, n);
		o += n;
		key[o++] = parts[i] ? '\x01' : '\x02';
	}
	key[o] = '\0';
	return true;
}

static void texts_for_env(char *const *envp, struct dialect_texts *out,
			  char (*missing)[DIALECT_TEXT_MAX])
{
	struct locale_vars v = {
		.lc_all = env_value(envp, "LC_ALL"),
		.lc_messages = env_value(envp, "LC_MESSAGES"),
		.lc_ctype = env_value(envp, "LC_CTYPE"),
		.lang = env_value(envp, "LANG"),
		.language = env_value(envp, "LANGUAGE"),
	};
	char key[KEY_MAX], also[LOCALE_MISSING][DIALECT_TEXT_MAX];
	bool keyed = make_key(&v, key);

	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; keyed && i < CACHE_SLOTS; i++)
		if (cache[i].used && strcmp(cache[i].key, key) == 0) {
			*out = cache[i].texts;
			memcpy(missing, cache[i].missing, sizeof(cache[i].missing));
			pthread_mutex_unlock(&cache_lock);
			return;
		}
	pthread_mutex_unlock(&cache_lock);
	derive(&v, NULL, out, also);
	memcpy(missing, also, sizeof(also));
	if (!keyed)
		return;
	pthread_mutex_lock(&cache_lock);
	struct cache_slot *s = &cache[cache_next++ % CACHE_SLOTS];
	s->used = true;
	memcpy(s->key, key, strlen(key) + 1);
	s->texts = *out;
	memcpy(s->missing, also, sizeof(also));
	pthread_mutex_unlock(&cache_lock);
}

void locale_dialect_for_env(char *const *envp, struct dialect_texts *out)
{
	char missing[LOCALE_MISSING][DIALECT_TEXT_MAX];

	texts_for_env(envp, out, missing);
}

void locale_texts_for_env(char *const *envp, struct dialect_texts *out,
			  char missing[LOCALE_MISSING][DIALECT_TEXT_MAX])
{
	texts_for_env(envp, out, missing);
}
