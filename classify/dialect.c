/* SPDX-License-Identifier: MIT */
/* Which stderr lines are denial evidence. Only the SHAPES real tools print
 * count, never the phrase anywhere in a line:
 *   A. the phrase is the last ": "-separated field (strerror style, as
 *      coreutils, bash, git, gcc, tar, Go print), optionally followed by "."
 *      (git) or " (os error N)" (Rust);
 *   B. Python's "[Errno N] <phrase>" optionally followed by ": 'path'" or
 *      ": 'a' -> 'b'", at the end of the line;
 *   C. node/npm's "CODE: <libuv message>, <syscall> 'path'" at the end.
 * Lines are bytes (NULs, invalid UTF-8): everything here works on (ptr, len)
 * and compares ASCII only. */
#include <string.h>

#include "classify.h"

struct phrase {
	unsigned dialect;
	const char *text;
};

/* strerror(3) texts: glibc first; "Cross-device link" is musl's and macOS's
 * EXDEV text. Compared ASCII case-insensitively because Go and node print
 * the same texts in lower case. */
static const struct phrase phrases[] = {
	{ DIALECT_EROFS, "Read-only file system" },
	{ DIALECT_EACCES, "Permission denied" },
	{ DIALECT_EXDEV, "Invalid cross-device link" },
	{ DIALECT_EXDEV, "Cross-device link" },
	{ DIALECT_SEATBELT, "Operation not permitted" },
};

/* node's error codes with libuv's message texts (uv_strerror). */
static const struct {
	const char *code;
	unsigned dialect;
	const char *msg;
} node_codes[] = {
	{ "EROFS", DIALECT_EROFS, "read-only file system" },
	{ "EACCES", DIALECT_EACCES, "permission denied" },
	{ "EXDEV", DIALECT_EXDEV, "cross-device link not permitted" },
	{ "EPERM", DIALECT_SEATBELT, "operation not permitted" },
};

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool ieq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lower(a[i]) != lower(b[i]))
			return false;
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool set_path(const char *p, size_t n, char *path, size_t path_size)
{
	/* why: a path with a NUL in it is not a path any tool could have
	 * opened; rather name none than a different file. */
	if (n >= path_size || memchr(p, '\0', n))
		return false;
	memcpy(path, p, n);
	path[n] = '\0';
	return true;
}

static void no_path(char *path, size_t path_size)
{
	if (path_size > 0)
		path[0] = '\0';
}

/* Trailing blanks are layout, not content. */
static size_t trim_end(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len;
}

/* The end of "... 'a' -> 'b'" or "... 'a'": the path the operation failed to
 * create is the last one (Python's and node's rename/link/symlink/copyfile
 * name the destination last). s[0..len) must be exactly the quoted list. */
static bool quoted_list_path(const char *s, size_t len, char *path, size_t path_size)
{
	char q;

	if (len < 2 || (s[0] != '\'' && s[0] != '"'))
		return false;
	for (size_t k = 1; k + 5 < len; k++) {
		/* "Q -> Q'" with Q closing the first and Q' opening the second */
		if (s[k] == s[0] && memcmp(s + k + 1, " -> ", 4) == 0 &&
		    (s[k + 5] == '\'' || s[k + 5] == '"')) {
			q = s[k + 5];
			if (s[len - 1] != q || len < k + 7)
				return false;
			return set_path(s + k + 6, len - 1 - (k + 6), path, path_size);
		}
	}
	if (s[len - 1] != s[0])
		return false;
	return set_path(s + 1, len - 2, path, path_size);
}

/* Shape B: "[Errno N] <phrase>" at the line start or after ": ". */
static unsigned match_python(const char *s, size_t len, unsigned mask, char *path, size_t path_size)
{
	static const char tag[] = "[Errno ";
	const size_t tlen = sizeof(tag) - 1;

	for (size_t i = 0; i + tlen < len; i++) {
		size_t j = i + tlen;

		if (memcmp(s + i, tag, tlen) != 0)
			continue;
		if (i != 0 && !(i >= 2 && s[i - 2] == ':' && s[i - 1] == ' '))
			continue;
		if (j >= len || !is_digit(s[j]))
			continue;
		while (j < len && is_digit(s[j]))
			j++;
		if (j + 2 > len || s[j] != ']' || s[j + 1] != ' ')
			continue;
		j += 2;
		for (size_t p = 0; p < N_ELEM(phrases); p++) {
			size_t plen = strlen(phrases[p].text);

			if (!(mask & phrases[p].dialect) || len - j < plen ||
			    !ieq(s + j, phrases[p].text, plen))
				continue;
			size_t k = j + plen;
			if (k == len) { /* OSError without a file name */
				no_path(path, path_size);
				return phrases[p].dialect;
			}
			if (len - k >= 2 && s[k] == ':' && s[k + 1] == ' ' &&
			    quoted_list_path(s + k + 2, len - k - 2, path, path_size))
				return phrases[p].dialect;
		}
	}
	return 0;
}

/* Shape C: node/npm "CODE: message, syscall 'path'" ending the line, the
 * code at the start or after ' ' or '[' ("Error: EROFS: ...", "npm ERR!
 * EROFS: ...", "[Error: EACCES: ...] {" from console.log). */
static unsigned match_node(const char *s, size_t len, unsigned mask, char *path, size_t path_size)
{
	/* console.log(err) wraps the message as "[Error: ...] {" */
	if (len >= 3 && memcmp(s + len - 3, "] {", 3) == 0)
		len -= 3;
	else if (len >= 1 && s[len - 1] == ']')
		len -= 1;
	for (size_t c = 0; c < N_ELEM(node_codes); c++) {
		size_t clen = strlen(node_codes[c].code), mlen = strlen(node_codes[c].msg);

		if (!(mask & node_codes[c].dialect))
			continue;
		for (size_t i = 0; i + clen + 2 + mlen + 2 < len; i++) {
			size_t j = i + clen;

			if (i != 0 && s[i - 1] != ' ' && s[i - 1] != '[')
				continue;
			if (memcmp(s + i, node_codes[c].code, clen) != 0 || s[j] != ':' ||
			    s[j + 1] != ' ' || !ieq(s + j + 2, node_codes[c].msg, mlen))
				continue;
			j += 2 + mlen;
			if (s[j] != ',' || s[j + 1] != ' ')
				continue;
			j += 2;
			size_t sys = j;
			while (j < len && ((s[j] >= 'a' && s[j] <= 'z') || s[j] == '_'))
				j++;
			if (j == sys)
				continue;
			if (j == len) {
				no_path(path, path_size);
				return node_codes[c].dialect;
			}
			if (s[j] == ' ' && quoted_list_path(s + j + 1, len - j - 1, path, path_size))
				return node_codes[c].dialect;
		}
	}
	return 0;
}

/* Drop Rust's " (os error N)" and git's final "." from the end. */
static size_t strip_suffix(const char *s, size_t len)
{
	static const char os[] = " (os error ";
	const size_t olen = sizeof(os) - 1;

	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len > 0 && s[len - 1] == ')') {
		size_t k = len - 1;

		while (k > 0 && is_digit(s[k - 1]))
			k--;
		if (k < len - 1 && k >= olen && memcmp(s + k - olen, os, olen) == 0)
			len = k - olen;
	}
	return len;
}

/* Shape A: "<prefix>: <phrase>" or a line that is only the phrase (Rust's
 * "Caused by:" block indents the bare message on its own line). */
static unsigned match_last_field(const char *s, size_t len, unsigned mask, char *path,
				 size_t path_size)
{
	size_t lead = 0;

	len = strip_suffix(s, len);
	while (lead < len && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	for (size_t p = 0; p < N_ELEM(phrases); p++) {
		size_t plen = strlen(phrases[p].text), start;

		if (!(mask & phrases[p].dialect) || len < plen)
			continue;
		start = len - plen;
		if (!ieq(s + start, phrases[p].text, plen))
			continue;
		if (start == lead) {
			no_path(path, path_size);
			return phrases[p].dialect;
		}
		/* why the ": " boundary: "... mounted a Read-only file system"
		 * mid-sentence, or "Invalid cross-device link" seen as the musl
		 * text, is not the strerror field of an error line. */
		if (start < 2 || s[start - 2] != ':' || s[start - 1] != ' ')
			continue;
		if (!dialect_extract_path(s, start - 2, path, path_size))
			no_path(path, path_size);
		return phrases[p].dialect;
	}
	return 0;
}

unsigned dialect_match_line(const char *line, size_t len, unsigned mask, char *path,
			    size_t path_size)
{
	unsigned d;

	no_path(path, path_size);
	if (!line || mask == 0)
		return 0;
	len = trim_end(line, len);
	d = match_python(line, len, mask, path, path_size);
	if (!d)
		d = match_node(line, len, mask, path, path_size);
	if (!d)
		d = match_last_field(line, len, mask, path, path_size);
	if (!d)
		no_path(path, path_size);
	return d;
}
