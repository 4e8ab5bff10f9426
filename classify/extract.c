/* SPDX-License-Identifier: MIT */
/* Reading the path out of the text before an error line's ": <phrase>"
 * field, in the forms real tools print it. Rules, in order:
 *   1. tar names the member, then the operation: "tar: x: Cannot open";
 *   2. a quoted path: '...', "...", ‘...’ or “...” (coreutils, git);
 *      "'a' to 'b'" (mv) and "'a' -> 'b'" take the later one, the
 *      destination; "'b' => 'a'" (ln hard link) keeps the first, the link;
 *   3. unquoted, the last ": " field: a path itself ("bash: line 1: /x",
 *      "tee: /x") or the last word after plain words ("cannot mkdir /x",
 *      "opening output file /x.s", "couldn't open temporary file /x/sedA"). */
#include <string.h>

#include "classify.h"

#define MAX_TOKENS 8

struct token {
	size_t open;  /* index of the opening quote */
	size_t body;  /* index of the first byte inside */
	size_t blen;  /* body length */
	size_t end;   /* index just past the closing quote */
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

/* The closing quote for an opening quote at s[i], or NULL if s[i] opens none.
 * An ASCII quote opens only at the start or after a blank or bracket, so the
 * apostrophe in "couldn't" or "can't" is not taken for one. */
static const char *opener(const char *s, size_t len, size_t i, size_t *olen)
{
	bool boundary = i == 0 || s[i - 1] == ' ' || s[i - 1] == '(' || s[i - 1] == '[';

	*olen = 1;
	if (s[i] == '\'' && boundary)
		return "'";
	if (s[i] == '"' && boundary)
		return "\"";
	*olen = 3;
	if (i + 3 > len)
		return NULL;
	if (memcmp(s + i, "\xe2\x80\x98", 3) == 0)
		return "\xe2\x80\x99";
	if (memcmp(s + i, "\xe2\x80\x9c", 3) == 0)
		return "\xe2\x80\x9d";
	return NULL;
}

/* Find the quoted tokens in s[0..len). Returns their number, or -1 when a
 * quote opens but does not close where a token can end (e.g. coreutils'
 * shell escaping 'it'\''s'): then the quoting is not understood and no path
 * is better than a wrong one. */
static int find_tokens(const char *s, size_t len, struct token *t, int max)
{
	int n = 0;

	for (size_t i = 0; i < len && n < max; i++) {
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
		if (after < len && !strchr(" :,;)].", s[after]))
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

static bool from_tokens(const char *s, const struct token *t, int n, char *path, size_t path_size)
{
	int pick = 0;

	/* mv's inter-device fallback fails removing the source: "...; unable
	 * to remove 'a'" names the file it could not delete. */
	for (int k = 0; k < n; k++)
		if (t[k].open >= 17 && memcmp(s + t[k].open - 17, "unable to remove ", 17) == 0)
			return copy_out(s + t[k].body, t[k].blen, path, path_size);
	/* why the destination: "cannot move 'a' to 'b'" failed creating 'b';
	 * " => " (ln hard link 'link' => 'target') is not followed. */
	while (pick + 1 < n && (between_is(s, &t[pick], &t[pick + 1], " to ") ||
				between_is(s, &t[pick], &t[pick + 1], " -> ")))
		pick++;
	return copy_out(s + t[pick].body, t[pick].blen, path, path_size);
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

/* An unquoted field: the path itself, or "<plain words> <path>". */
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
	for (const char *c = f; c < sp; c++)
		if (!plain_word_char(*c))
			return false;
	size_t wlen = n - (size_t)(sp + 1 - f);
	const char *w = sp + 1;
	bool digits = wlen > 0;
	for (size_t i = 0; i < wlen; i++)
		if (w[i] < '0' || w[i] > '9')
			digits = false;
	if (digits) /* "line 1" is a position, not a file */
		return false;
	return copy_out(w, wlen, path, path_size);
}

bool dialect_extract_path(const char *s, size_t len, char *path, size_t path_size)
{
	size_t fstart[32], flen[32];
	size_t nf = 0, from = 0;
	struct token t[MAX_TOKENS];
	int nt;

	if (!s || !path || path_size == 0)
		return false;
	/* Split into ": " fields (at most 32; later ones join the last). */
	for (size_t i = 0; i + 1 < len && nf + 1 < 32; i++)
		if (s[i] == ':' && s[i + 1] == ' ') {
			fstart[nf] = from;
			flen[nf++] = i - from;
			from = i + 2;
			i++;
		}
	fstart[nf] = from;
	flen[nf++] = len - from;

	/* Rule 1, before quotes: tar's "Cannot create symlink to 'target'"
	 * quotes the target, but the member is what tar failed to create. */
	for (size_t k = 2; k < nf; k++)
		if (starts(s + fstart[k], flen[k], 0, "Cannot "))
			return copy_out(s + fstart[k - 1], flen[k - 1], path, path_size);

	nt = find_tokens(s, len, t, MAX_TOKENS);
	if (nt < 0)
		return false;
	if (nt > 0)
		return from_tokens(s, t, nt, path, path_size);
	return from_field(s + fstart[nf - 1], flen[nf - 1], nf == 1, path, path_size);
}
