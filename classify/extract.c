/* SPDX-License-Identifier: MIT */
/* Reading the path out of the text before an error line's ": <phrase>"
 * field, in the forms real tools print it, in any language. Rules, in order:
 *   1. (English) tar names the member, then the operation: "tar: x: Cannot
 *      open";
 *   2. a quoted path, in the quotes of any language: '...', "...", `...`,
 *      ‘...’, “...”, „...“, ‚...‘, «...», »...«, 「...」, 『...』. Quotes in
 *      the first field are the program's ("Exception in thread "main"
 *      java...: /x"), not a path. Of several, the last one is the file the
 *      tool failed to create ("cannot move 'a' to 'b'", "von 'a' nach 'b'",
 *      "无法将 'a' 移动至 'b'"), except a hard link's "'link' => 'target'";
 *      (English) "...; unable to remove 'a'" names the file it could not
 *      delete;
 *   3. unquoted: a ": " (or full-width "：") field that is a path ("bash:
 *      line 1: /x", "tar: /x: Funktion open fehlgeschlagen"), or a word
 *      starting with '/' in the last field ("kann Verzeichnis /x nicht
 *      erstellen", "无法打开临时文件 /x/sedAbc"); (English only) the last
 *      word after plain words ("cannot mkdir x", "can't create x.o"). */
#include <string.h>

#include "classify.h"

#define MAX_TOKENS 8
#define MAX_FIELDS 32

struct token {
	size_t open;  /* index of the opening quote */
	size_t body;  /* index of the first byte inside */
	size_t blen;  /* body length */
	size_t end;   /* index just past the closing quote */
};

struct fields {
	size_t start[MAX_FIELDS], len[MAX_FIELDS];
	size_t n;
};

static bool copy_out(const char *p, size_t n, char *path, size_t path_size)
{
	/* why: a NUL cannot be in a real path; an empty one names nothing */
	if (n == 0 || n >= path_size || memchr(p, '\0', n))
		return false;
	memcpy(path, p, n);
	path[n] = '\0';
	return true;
}

static bool starts(const char *s, size_t len, size_t i, const char *lit)
{
	size_t n = strlen(lit);

	return i + n <= len && memcmp(s + i, lit, n) == 0;
}

static bool high(char c)
{
	return (unsigned char)c >= 0x80;
}

/* Quote pairs in UTF-8, opening then closing. */
static const char *const quote_pairs[][2] = {
	{ "\xe2\x80\x98", "\xe2\x80\x99" }, /* ‘ ’ */
	{ "\xe2\x80\x9c", "\xe2\x80\x9d" }, /* “ ” */
	{ "\xe2\x80\x9e", "\xe2\x80\x9c" }, /* „ “ (German) */
	{ "\xe2\x80\x9a", "\xe2\x80\x98" }, /* ‚ ‘ (German) */
	{ "\xc2\xab", "\xc2\xbb" },         /* « » */
	{ "\xc2\xbb", "\xc2\xab" },         /* » « */
	{ "\xe3\x80\x8c", "\xe3\x80\x8d" }, /* 「 」 */
	{ "\xe3\x80\x8e", "\xe3\x80\x8f" }, /* 『 』 */
};

/* The closing quote for an opening quote at s[i], or NULL if s[i] opens none.
 * An ASCII quote opens only at the start, after a blank or bracket, or after
 * a non-ASCII character (CJK text has no blanks), so the apostrophe in
 * "couldn't" or "can't" is not taken for one. */
static const char *opener(const char *s, size_t len, size_t i, size_t *olen)
{
	bool boundary = i == 0 || s[i - 1] == ' ' || s[i - 1] == '(' || s[i - 1] == '[' ||
			high(s[i - 1]);

	*olen = 1;
	/* every quote starts with one of these bytes: most bytes stop here */
	if (!memchr("'\"`\xe2\xc2\xe3", s[i], 6) || s[i] == '\0')
		return NULL;
	if (s[i] == '\'' && boundary)
		return "'";
	if (s[i] == '"' && boundary)
		return "\"";
	if (s[i] == '`' && boundary)
		return "`";
	for (size_t q = 0; q < sizeof(quote_pairs) / sizeof(quote_pairs[0]); q++) {
		*olen = strlen(quote_pairs[q][0]);
		if (starts(s, len, i, quote_pairs[q][0]))
			return quote_pairs[q][1];
	}
	return NULL;
}

/* Find the quoted tokens in s[from..len). Returns their number, or -1 when a
 * quote opens but does not close where a token can end (e.g. coreutils'
 * shell escaping 'it'\''s'): then the quoting is not understood and no path
 * is better than a wrong one. */
static int find_tokens(const char *s, size_t len, size_t from, struct token *t, int max)
{
	int n = 0;

	for (size_t i = from; i < len && n < max; i++) {
		size_t olen, clen, j;
		const char *close;

		close = opener(s, len, i, &olen);
		if (!close)
			continue;
		clen = strlen(close);
		for (j = i + olen; j + clen <= len; j++)
			if (memcmp(s + j, close, clen) == 0)
				break;
		if (j + clen > len)
			return -1;
		size_t after = j + clen;
		if (after < len && !strchr(" :,;)].", s[after]) && !high(s[after]))
			return -1;
		t[n++] = (struct token){ .open = i, .body = i + olen, .blen = j - i - olen, .end = after };
		i = after - 1;
	}
	return n;
}

static bool between_is(const char *s, const struct token *a, const struct token *b, const char *lit)
{
	size_t n = strlen(lit);

	return b->open - a->end == n && memcmp(s + a->end, lit, n) == 0;
}

static bool from_tokens(const char *s, const struct token *t, int n, bool localized, char *path,
			size_t path_size)
{
	/* mv's inter-device fallback fails removing the source: "...; unable
	 * to remove 'a'" names the file it could not delete. */
	for (int k = 0; k < n && !localized; k++)
		if (t[k].open >= 17 && memcmp(s + t[k].open - 17, "unable to remove ", 17) == 0)
			return copy_out(s + t[k].body, t[k].blen, path, path_size);
	/* why the last: every language names the source before the
	 * destination the tool failed to create; a hard link's "'b' => 'a'"
	 * (coreutils keeps "=>" untranslated) names the link first. */
	for (int k = 0; k + 1 < n; k++)
		if (between_is(s, &t[k], &t[k + 1], " => "))
			return copy_out(s + t[k].body, t[k].blen, path, path_size);
	return copy_out(s + t[n - 1].body, t[n - 1].blen, path, path_size);
}

/* ": " or the full-width colon (with or without a blank after it) at s[i]:
 * the separator's length, else 0. */
static size_t separator_at(const char *s, size_t len, size_t i)
{
	if (i + 1 < len && s[i] == ':' && s[i + 1] == ' ')
		return 2;
	if (starts(s, len, i, "\xef\xbc\x9a"))
		return starts(s, len, i + 3, " ") ? 4 : 3;
	return 0;
}

static void split_fields(const char *s, size_t len, struct fields *f)
{
	size_t from = 0, sep;

	f->n = 0;
	for (size_t i = 0; i < len && f->n + 1 < MAX_FIELDS; i++)
		if ((sep = separator_at(s, len, i)) > 0) {
			f->start[f->n] = from;
			f->len[f->n++] = i - from;
			from = i + sep;
			i += sep - 1;
		}
	f->start[f->n] = from;
	f->len[f->n++] = len - from;
}

static bool plain_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'' || c == '-' ||
	       c == ' ';
}

static bool looks_like_path_start(const char *f, size_t n)
{
	return (n > 0 && (f[0] == '/' || f[0] == '~')) || starts(f, n, 0, "./") ||
	       starts(f, n, 0, "../");
}

static bool all_digits(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] < '0' || w[i] > '9')
			return false;
	return n > 0;
}

/* An unquoted English field: the path itself, or "<plain words> <path>". */
static bool from_field(const char *f, size_t n, bool only_field, char *path, size_t path_size)
{
	const char *sp = NULL;

	/* Paths may hold spaces ("bash: /x/my file: ..."): a field that starts
	 * like a path is taken whole. */
	if (looks_like_path_start(f, n))
		return copy_out(f, n, path, path_size);
	for (size_t i = n; i > 0; i--)
		if (f[i - 1] == ' ') {
			sp = f + i - 1;
			break;
		}
	if (!sp) {
		/* why: a lone first field is usually the program's name
		 * ("cat: Permission denied"), a path only if it has a '/'. */
		if (only_field && !memchr(f, '/', n))
			return false;
		return copy_out(f, n, path, path_size);
	}
	size_t wlen = n - (size_t)(sp + 1 - f);
	for (const char *c = f; c < sp; c++) {
		if (plain_word_char(*c))
			continue;
		/* Go's "rename /a /b": an operation, then paths; the last one
		 * is the file it failed to create */
		if (c > f && c[-1] == ' ' && *c == '/' && looks_like_path_start(sp + 1, wlen))
			return copy_out(sp + 1, wlen, path, path_size);
		return false;
	}
	if (all_digits(sp + 1, wlen)) /* "line 1" is a position, not a file */
		return false;
	return copy_out(sp + 1, wlen, path, path_size);
}

/* The last blank-separated word of f that starts like a path, else the
 * last one that holds a '/' ("不能锁定配置文件 .git/config"). */
static bool path_word(const char *f, size_t n, char *path, size_t path_size)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t end = n;

		while (end > 0) {
			size_t b = end;

			while (b > 0 && f[b - 1] != ' ')
				b--;
			if (pass == 0 ? looks_like_path_start(f + b, end - b)
				      : memchr(f + b, '/', end - b) != NULL)
				return copy_out(f + b, end - b, path, path_size);
			end = b > 0 ? b - 1 : 0;
		}
	}
	return false;
}

/* Rule 3 without English words. A field is a path when it starts like one,
 * or is one word holding a '/' or '.' ("ro.txt"), or any one word after a
 * position ("Zeile 1: out", "行 1: out"). */
static bool from_fields_localized(const char *s, const struct fields *f, char *path,
				  size_t path_size)
{
	size_t first = f->n > 1 ? 1 : 0;

	for (size_t k = f->n; k-- > first;) {
		const char *p = s + f->start[k];
		size_t n = f->len[k];
		bool one_word = n > 0 && !memchr(p, ' ', n);
		bool after_position = k > 0 && f->len[k - 1] > 0 &&
				      s[f->start[k - 1] + f->len[k - 1] - 1] >= '0' &&
				      s[f->start[k - 1] + f->len[k - 1] - 1] <= '9';

		if (looks_like_path_start(p, n))
			return copy_out(p, n, path, path_size);
		if (one_word && !all_digits(p, n) && f->n > 1 &&
		    (memchr(p, '/', n) || memchr(p, '.', n) || after_position))
			return copy_out(p, n, path, path_size);
		if (k == f->n - 1 && path_word(p, n, path, path_size))
			return true;
	}
	return false;
}

bool dialect_extract_path(const char *s, size_t len, bool localized, char *path, size_t path_size)
{
	struct fields f;
	struct token t[MAX_TOKENS];
	int nt;

	if (!s || !path || path_size == 0)
		return false;
	split_fields(s, len, &f);

	/* Rule 1, before quotes: tar's "Cannot create symlink to 'target'"
	 * quotes the target, but the member is what tar failed to create. */
	for (size_t k = 2; k < f.n && !localized; k++)
		if (starts(s + f.start[k], f.len[k], 0, "Cannot "))
			return copy_out(s + f.start[k - 1], f.len[k - 1], path, path_size);

	nt = find_tokens(s, len, f.n > 1 ? f.start[1] : 0, t, MAX_TOKENS);
	if (nt < 0)
		return false;
	if (nt > 0)
		return from_tokens(s, t, nt, localized, path, path_size);
	if (localized)
		return from_fields_localized(s, &f, path, path_size);
	return from_field(s + f.start[f.n - 1], f.len[f.n - 1], f.n == 1, path, path_size);
}

bool dialect_context_path(const char *s, size_t len, char *path, size_t path_size)
{
	struct fields f;
	struct token t[MAX_TOKENS];
	int nt;

	if (!s || !path || path_size == 0)
		return false;
	split_fields(s, len, &f);
	if (f.n < 2)
		return false;
	nt = find_tokens(s, len, f.start[1], t, MAX_TOKENS);
	if (nt < 0)
		return false;
	/* why only a path-like token: the context is handed to a line that
	 * names nothing itself, so it must be a file, not any quoted text */
	for (int k = nt; k-- > 0;)
		if (looks_like_path_start(s + t[k].body, t[k].blen))
			return copy_out(s + t[k].body, t[k].blen, path, path_size);
	if (nt > 0)
		return false;
	return path_word(s + f.start[f.n - 1], f.len[f.n - 1], path, path_size);
}
