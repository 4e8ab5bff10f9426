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

/* Quotes in UTF-8: an opening quote and the quotes that may close it, as
 * the languages sbx reads print them: 'a' "a" `a' `a` (GNU's old style,
 * still in many catalogs), ‘a’ “a” „a“ „a” ‚a‘ ‚a’ «a» « a » »a« »a» ‹a›
 * ›a‹ ”a” 「a」 『a』. Guillemets and the like carry blanks inside in some
 * languages (French « a », with no-break spaces): trimmed from the body. */
static const struct quote {
	const char *open;
	const char *close[2];
	bool ascii;
} quotes[] = {
	{ "'", { "'", NULL }, true },
	{ "\"", { "\"", NULL }, true },
	{ "`", { "'", "`" }, true },
	{ "\xe2\x80\x98", { "\xe2\x80\x99", NULL }, false },                 /* ‘ ’ */
	{ "\xe2\x80\x9c", { "\xe2\x80\x9d", "\xe2\x80\x9c" }, false },     /* “ ” “ */
	{ "\xe2\x80\x9d", { "\xe2\x80\x9d", NULL }, false },                 /* ” ” */
	{ "\xe2\x80\x9e", { "\xe2\x80\x9c", "\xe2\x80\x9d" }, false },     /* „ “ ” */
	{ "\xe2\x80\x9a", { "\xe2\x80\x98", "\xe2\x80\x99" }, false },     /* ‚ ‘ ’ */
	{ "\xc2\xab", { "\xc2\xbb", NULL }, false },                           /* « » */
	{ "\xc2\xbb", { "\xc2\xab", "\xc2\xbb" }, false },                   /* » « » */
	{ "\xe2\x80\xb9", { "\xe2\x80\xba", NULL }, false },                 /* ‹ › */
	{ "\xe2\x80\xba", { "\xe2\x80\xb9", "\xe2\x80\xba" }, false },     /* › ‹ › */
	{ "\xe3\x80\x8c", { "\xe3\x80\x8d", NULL }, false },                 /* 「 」 */
	{ "\xe3\x80\x8e", { "\xe3\x80\x8f", NULL }, false },                 /* 『 』 */
};

/* The quote opening at s[i], or NULL. An ASCII quote opens only at the
 * start, after a blank or bracket, or after a non-ASCII character (CJK
 * text has no blanks), so the apostrophe in "couldn't" or "can't" is not
 * taken for one. */
static const struct quote *opener(const char *s, size_t len, size_t i)
{
	bool boundary = i == 0 || s[i - 1] == ' ' || s[i - 1] == '(' || s[i - 1] == '[' ||
			high(s[i - 1]);

	/* every quote starts with one of these bytes: most bytes stop here */
	if (!memchr("'\"`\xe2\xc2\xe3", s[i], 6) || s[i] == '\0')
		return NULL;
	for (size_t q = 0; q < sizeof(quotes) / sizeof(quotes[0]); q++) {
		if (quotes[q].ascii && !boundary)
			continue;
		if (starts(s, len, i, quotes[q].open))
			return &quotes[q];
	}
	return NULL;
}

/* A blank a typographic quote may hold inside: ' ', U+00A0, U+2009, U+202F. */
static size_t blank_at(const char *s, size_t len, size_t i)
{
	if (i < len && s[i] == ' ')
		return 1;
	if (starts(s, len, i, "\xc2\xa0"))
		return 2;
	if (starts(s, len, i, "\xe2\x80\x89") || starts(s, len, i, "\xe2\x80\xaf"))
		return 3;
	return 0;
}

static size_t blank_before(const char *s, size_t i)
{
	if (i >= 1 && s[i - 1] == ' ')
		return 1;
	if (i >= 2 && memcmp(s + i - 2, "\xc2\xa0", 2) == 0)
		return 2;
	if (i >= 3 && (memcmp(s + i - 3, "\xe2\x80\x89", 3) == 0 || memcmp(s + i - 3, "\xe2\x80\xaf", 3) == 0))
		return 3;
	return 0;
}

/* Find the quoted tokens in s[from..len). Returns their number, or -1 when a
 * quote opens but does not close where a token can end (e.g. coreutils'
 * shell escaping 'it'\''s'): then the quoting is not understood and no path
 * is better than a wrong one. */
static int find_tokens(const char *s, size_t len, size_t from, struct token *t, int max)
{
	int n = 0;

	for (size_t i = from; i < len && n < max; i++) {
		const struct quote *q = opener(s, len, i);
		size_t olen, clen = 0, j, b, e, k;

		if (!q)
			continue;
		olen = strlen(q->open);
		for (j = i + olen; j < len; j++) {
			for (int c = 0; c < 2 && q->close[c]; c++)
				if (starts(s, len, j, q->close[c])) {
					clen = strlen(q->close[c]);
					break;
				}
			if (clen)
				break;
		}
		if (!clen)
			return -1;
		size_t after = j + clen;
		if (after < len && !strchr(" :,;)].(", s[after]) && !high(s[after]))
			return -1;
		b = i + olen;
		e = j;
		if (!q->ascii) {
			while (b < e && (k = blank_at(s, e, b)) > 0)
				b += k;
			while (e > b && (k = blank_before(s, e)) > 0)
				e -= k;
		}
		t[n++] = (struct token){ .open = i, .body = b, .blen = e - b, .end = after };
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

/* Field [from, to) without the blanks around it: French puts one before
 * the colon ("tar: x : open impossible"), patch one after its file name. */
static void add_field(const char *s, size_t from, size_t to, struct fields *f)
{
	size_t k;

	while (from < to && (k = blank_at(s, to, from)) > 0)
		from += k;
	while (to > from && (k = blank_before(s, to)) > 0)
		to -= k;
	f->start[f->n] = from;
	f->len[f->n++] = to - from;
}

static void split_fields(const char *s, size_t len, struct fields *f)
{
	size_t from = 0, sep;

	f->n = 0;
	for (size_t i = 0; i < len && f->n + 1 < MAX_FIELDS; i++)
		if ((sep = separator_at(s, len, i)) > 0) {
			add_field(s, from, i, f);
			from = i + sep;
			i += sep - 1;
		}
	add_field(s, from, len, f);
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
	/* A last word that starts like a path is the file, whatever words
	 * come before it: Go's "rename /a /b" (the last one is the file it
	 * failed to create), patch's "**** Can't create temporary file ./x". */
	if (looks_like_path_start(sp + 1, wlen))
		return copy_out(sp + 1, wlen, path, path_size);
	for (const char *c = f; c < sp; c++)
		if (!plain_word_char(*c))
			return false;
	if (all_digits(sp + 1, wlen)) /* "line 1" is a position, not a file */
		return false;
	return copy_out(sp + 1, wlen, path, path_size);
}

/* The last blank-separated word of f that starts like a path, else the
 * last one that holds a '/' ("不能锁定配置文件 .git/config"). */
static bool path_word(const char *f, size_t n, int passes, char *path, size_t path_size)
{
	for (int pass = 0; pass < passes; pass++) {
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
		if (k == f->n - 1 && path_word(p, n, 2, path, path_size))
			return true;
	}
	return false;
}

bool dialect_extract_path(const char *s, size_t len, bool localized, char *path, size_t path_size)
{
	struct fields f;
	struct token t[MAX_TOKENS];
	size_t b;
	int nt;

	if (!s || !path || path_size == 0)
		return false;
	while (len > 0 && (b = blank_before(s, len)) > 0)
		len -= b;
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
	/* English words, or a program's own words in another language around
	 * an English message (Perl's die: "Kann /p nicht öffnen: ..."): a
	 * word that starts like a path. */
	return from_field(s + f.start[f.n - 1], f.len[f.n - 1], f.n == 1, path, path_size) ||
	       path_word(s + f.start[f.n - 1], f.len[f.n - 1], 1, path, path_size);
}

bool dialect_link_target(const char *s, size_t len, char *path, size_t path_size)
{
	struct token t[MAX_TOKENS];
	int nt;

	if (!s || !path || path_size == 0)
		return false;
	nt = find_tokens(s, len, 0, t, MAX_TOKENS);
	for (int k = 0; k + 1 < nt; k++)
		if (between_is(s, &t[k], &t[k + 1], " => "))
			return copy_out(s + t[k + 1].body, t[k + 1].blen, path, path_size);
	return false;
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
	return path_word(s + f.start[f.n - 1], f.len[f.n - 1], 2, path, path_size);
}
