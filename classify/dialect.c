/* SPDX-License-Identifier: MIT */
/* Which lines are denial evidence. Only the SHAPES real tools print count,
 * never the phrase anywhere in a line:
 *   A. the phrase is the last ": "-separated field (strerror style, as
 *      coreutils, bash, git, gcc, tar, Go print), optionally followed by "."
 *      (git) or " (os error N)" (Rust, where N alone names the errno);
 *   B. Python's "[Errno N] <text>" followed by ": 'path'" at the end of the
 *      line, the text a phrase or N an errno of the dialect;
 *   C. node/npm, Java, Ruby (dialect_runtime.c).
 * A phrase is English or the command's own language (struct dialect_texts).
 * Lines are bytes (NULs, invalid UTF-8): everything here works on (ptr, len)
 * and folds ASCII case only. */
#include <errno.h>
#include <string.h>

#include "dialect_int.h"

/* Trailing blanks are layout, not content. */
static size_t trim_end(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len;
}

/* Shape B: "[Errno N] <text>" at the line start or after ": ". */
static unsigned match_python(const char *s, size_t len, const struct phrase_set *ps,
			     unsigned mask, char *path, size_t path_size)
{
	static const char tag[] = "[Errno ";
	const size_t tlen = sizeof(tag) - 1;

	for (size_t i = 0; i + tlen < len; i++) {
		size_t j = i + tlen;
		long number = 0;

		if (memcmp(s + i, tag, tlen) != 0)
			continue;
		if (i != 0 && !(i >= 2 && s[i - 2] == ':' && s[i - 1] == ' '))
			continue;
		if (!is_digit(s[j]))
			continue;
		while (j < len && is_digit(s[j]) && number < 100000)
			number = number * 10 + (s[j++] - '0');
		if (j + 2 > len || s[j] != ']' || s[j + 1] != ' ')
			continue;
		j += 2;
		for (size_t p = 0; p < ps->n; p++) {
			size_t k = j + ps->p[p].len;

			if (len < k || !ascii_ieq(s + j, ps->p[p].text, ps->p[p].len))
				continue;
			if (k == len) /* OSError without a file name */
				return ps->p[p].dialect | DIALECT_MATCH_BARE;
			if (len - k >= 2 && s[k] == ':' && s[k + 1] == ' ' &&
			    quoted_list_path(s + k + 2, len - k - 2, path, path_size))
				return ps->p[p].dialect;
		}
		/* why the number is enough: "[Errno N] text: 'path'" is exactly
		 * what OSError prints, with the text in whatever language the
		 * program's C library spoke (locale.setlocale(LC_ALL, "")). */
		unsigned d = dialect_of_errno(number) & mask;
		if (!d)
			continue;
		for (size_t k = j; k + 2 < len; k++)
			if (s[k] == ':' && s[k + 1] == ' ' &&
			    quoted_list_path(s + k + 2, len - k - 2, path, path_size))
				return d;
	}
	return 0;
}

/* Drop git's final "." (or a CJK "。") and Rust's " (os error N)" from the
 * end; *os gets N, or -1 when there was none. */
static size_t strip_suffix(const char *s, size_t len, long *os)
{
	static const char tag[] = " (os error ";
	const size_t olen = sizeof(tag) - 1;

	*os = -1;
	if (len > 0 && s[len - 1] == '.')
		len--;
	else if (len >= 3 && memcmp(s + len - 3, "\xe3\x80\x82", 3) == 0)
		len -= 3;
	if (len > 0 && s[len - 1] == ')') {
		size_t k = len - 1;
		long n = 0, scale = 1;

		while (k > 0 && is_digit(s[k - 1]) && scale < 100000) {
			n += (s[k - 1] - '0') * scale;
			scale *= 10;
			k--;
		}
		if (k < len - 1 && k >= olen && memcmp(s + k - olen, tag, olen) == 0) {
			*os = n;
			len = k - olen;
		}
	}
	return len;
}

/* The separator before s[start]: ": ", or the full-width "：" with or
 * without a blank after it. Its length, else 0. */
static size_t separator_before(const char *s, size_t start)
{
	if (start >= 2 && s[start - 2] == ':' && s[start - 1] == ' ')
		return 2;
	if (start >= 4 && memcmp(s + start - 4, "\xef\xbc\x9a ", 4) == 0)
		return 4;
	if (start >= 3 && memcmp(s + start - 3, "\xef\xbc\x9a", 3) == 0)
		return 3;
	return 0;
}

/* The prefix before a message is only blanks and a number: a numbered
 * cause in a Rust error chain ("    1: Read-only file system"). */
static bool only_a_position(const char *s, size_t n)
{
	bool digit = false;

	for (size_t i = 0; i < n; i++) {
		if (is_digit(s[i]))
			digit = true;
		else if (s[i] != ' ' && s[i] != '\t')
			return false;
	}
	return digit;
}

/* The message s[start..) is the last field: read the path before it. */
static unsigned last_field_path(const char *s, size_t start, size_t lead, unsigned d,
				bool localized, char *path, size_t path_size)
{
	size_t sep;

	if (start == lead)
		return d | DIALECT_MATCH_BARE;
	/* why the boundary: "... mounted a Read-only file system" mid-sentence,
	 * or "Invalid cross-device link" seen as the musl text, is not the
	 * strerror field of an error line. */
	sep = separator_before(s, start);
	if (sep == 0)
		return 0;
	if (only_a_position(s, start - sep))
		return d | DIALECT_MATCH_BARE;
	return dialect_extract_path(s, start - sep, localized, path, path_size) ? d : 0;
}

/* Shape A: "<prefix>: <phrase>" or a line that is only the phrase (Rust's
 * "Caused by:" block indents the bare message on its own line). */
static unsigned match_last_field(const char *s, size_t len, const struct phrase_set *ps,
				 unsigned mask, char *path, size_t path_size)
{
	size_t lead = 0;
	long os;

	len = strip_suffix(s, len, &os);
	while (lead < len && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	for (size_t p = 0; p < ps->n; p++) {
		size_t plen = ps->p[p].len;

		if (len < plen || !ascii_ieq(s + len - plen, ps->p[p].text, plen))
			continue;
		return last_field_path(s, len - plen, lead, ps->p[p].dialect, ps->p[p].localized, path,
				       path_size);
	}
	/* Rust's "(os error N)" names the errno whatever the text before it. */
	unsigned d = os >= 0 ? dialect_of_errno(os) & mask : 0;
	if (!d || len <= lead)
		return 0;
	size_t start = lead;
	for (size_t i = lead; i < len; i++) {
		size_t sep = 0;

		if (i + 1 < len && s[i] == ':' && s[i + 1] == ' ')
			sep = 2;
		else if (i + 3 <= len && memcmp(s + i, "\xef\xbc\x9a", 3) == 0)
			sep = i + 3 < len && s[i + 3] == ' ' ? 4 : 3;
		if (sep) {
			start = i + sep;
			i += sep - 1;
		}
	}
	return last_field_path(s, start, lead, d, true, path, path_size);
}

unsigned dialect_match_line(const char *line, size_t len, unsigned mask,
			    const struct dialect_texts *local, char *path, size_t path_size)
{
	struct phrase_set ps;
	unsigned d;

	if (path && path_size > 0)
		path[0] = '\0';
	if (!line || !path || path_size == 0 || mask == 0)
		return 0;
	phrase_set_build(&ps, mask, local);
	len = trim_end(line, len);
	d = match_python(line, len, &ps, mask, path, path_size);
	if (!d)
		d = match_node(line, len, mask, path, path_size);
	if (!d)
		d = match_java(line, len, &ps, mask, path, path_size);
	if (!d)
		d = match_ruby(line, len, mask, path, path_size);
	if (!d)
		d = match_last_field(line, len, &ps, mask, path, path_size);
	if (!d || (d & DIALECT_MATCH_BARE))
		path[0] = '\0';
	return d;
}
