/* SPDX-License-Identifier: MIT */
/* What every dialect matcher (dialect.c, dialect_runtime.c) stands on: the
 * dialects' errno values and names, their English phrases and the command's
 * own, and the small text helpers for paths and quotes. Calls nothing else
 * in classify/. */
#include <errno.h>
#include <string.h>

#include "dialect_int.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* By dialect index: the bit and the errno value it is the text of. */
static const struct {
	unsigned bit;
	int err;
	const char *name;
} kinds[DIALECT_KINDS] = {
	{ DIALECT_EROFS, EROFS, "EROFS" },
	{ DIALECT_EACCES, EACCES, "EACCES" },
	{ DIALECT_EXDEV, EXDEV, "EXDEV" },
	{ DIALECT_SEATBELT, EPERM, "EPERM" },
	{ DIALECT_EBUSY, EBUSY, "EBUSY" },
};

/* strerror(3) texts: glibc first; "Cross-device link" is musl's and macOS's
 * EXDEV text. Compared ASCII case-insensitively because Go and node print
 * the same texts in lower case. */
static const struct {
	unsigned dialect;
	const char *text;
} english[] = {
	{ DIALECT_EROFS, "Read-only file system" },
	{ DIALECT_EACCES, "Permission denied" },
	{ DIALECT_EXDEV, "Invalid cross-device link" },
	{ DIALECT_EXDEV, "Cross-device link" },
	{ DIALECT_SEATBELT, "Operation not permitted" },
	{ DIALECT_EBUSY, "Device or resource busy" },
};

unsigned dialect_bit(unsigned index)
{
	return index < DIALECT_KINDS ? kinds[index].bit : 0;
}

int dialect_errno(unsigned bit)
{
	for (size_t i = 0; i < DIALECT_KINDS; i++)
		if (kinds[i].bit == bit)
			return kinds[i].err;
	return 0;
}

unsigned dialect_of_errno(long number)
{
	/* libuv and npm print errno negated ("errno -30") */
	if (number < 0)
		number = -number;
	for (size_t i = 0; i < DIALECT_KINDS; i++)
		if (kinds[i].err == number)
			return kinds[i].bit;
	return 0;
}

unsigned dialect_of_errno_name(const char *name, size_t len)
{
	for (size_t i = 0; i < DIALECT_KINDS; i++)
		if (strlen(kinds[i].name) == len && memcmp(kinds[i].name, name, len) == 0)
			return kinds[i].bit;
	return 0;
}

void phrase_set_build(struct phrase_set *ps, unsigned mask, const struct dialect_texts *local)
{
	ps->n = 0;
	for (size_t i = 0; i < N_ELEM(english); i++)
		if (mask & english[i].dialect)
			ps->p[ps->n++] = (struct phrase_ref){ english[i].dialect, english[i].text,
							      strlen(english[i].text), false };
	for (size_t i = 0; local && i < DIALECT_KINDS && ps->n < PHRASES_MAX; i++) {
		size_t n = strnlen(local->text[i], DIALECT_TEXT_MAX);

		if (n == 0 || n == DIALECT_TEXT_MAX || !(mask & kinds[i].bit))
			continue;
		ps->p[ps->n++] = (struct phrase_ref){ kinds[i].bit, local->text[i], n, true };
	}
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

bool ascii_ieq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lower(a[i]) != lower(b[i]))
			return false;
	return true;
}

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool path_set(const char *p, size_t n, char *path, size_t path_size)
{
	/* why: a path with a NUL in it is not a path any tool could have
	 * opened; rather name none than a different file. */
	if (n == 0 || n >= path_size || memchr(p, '\0', n))
		return false;
	memcpy(path, p, n);
	path[n] = '\0';
	return true;
}

bool quoted_list_path(const char *s, size_t len, char *path, size_t path_size)
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
			return path_set(s + k + 6, len - 1 - (k + 6), path, path_size);
		}
	}
	if (s[len - 1] != s[0])
		return false;
	return path_set(s + 1, len - 2, path, path_size);
}
