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

/* The path of Python's "'a'" or "'a' -> 'b'" (quotes ' or ") at s[0],
 * the last one: what follows its closing quote is the end of the line or
 * closing punctuation (str(e) inside a message: "... ([Errno 30] ...:
 * '/p'), giving up", or inside another quoted string: shutil.Error's
 * "[('a', 'b', \"[Errno 30] ...: 'b'\")]"), never more words. */
static bool python_path(const char *s, size_t len, char *path, size_t path_size)
{
	size_t k;

	for (;;) {
		char q = len > 0 ? s[0] : 0;

		if (q != '\'' && q != '"')
			return false;
		for (k = 1; k < len; k++)
			if (s[k] == q && (k + 1 == len || (s[k + 1] && strchr(")]},;.\"'", s[k + 1])) ||
					  (len - k - 1 >= 5 && memcmp(s + k + 1, " -> ", 4) == 0 &&
					   (s[k + 5] == '\'' || s[k + 5] == '"'))))
				break;
		if (k >= len)
			return false;
		if (k + 1 < len && s[k + 1] == ' ') { /* " -> ": the destination */
			s += k + 5;
			len -= k + 5;
			continue;
		}
		return path_set(s + 1, k - 1, path, path_size);
	}
}

/* Shape B: "[Errno N] <text>" after any prefix (str(e) of an OSError is
 * printed inside other messages, log lines, test summaries). */
static unsigned match_python(const char *s, size_t len, const struct phrase_set *ps,
			     unsigned mask, char *path, size_t path_size)
{
	static const char tag[] = "[Errno ";
	const size_t tlen = sizeof(tag) - 1;

	for (size_t i = 0; i + tlen < len; i++) {
		size_t j = i + tlen;
		long number = 0;

		if (s[i] != '[' || memcmp(s + i, tag, tlen) != 0)
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
			    python_path(s + k + 2, len - k - 2, path, path_size))
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
			    python_path(s + k + 2, len - k - 2, path, path_size))
				return d;
	}
	return 0;
}

/* Perl's die and warn add where they were: "... at -e line 1.", "... at
 * x.pl line 3, <STDIN> line 2." (or "chunk 2"). The length without it. */
static size_t strip_perl_where(const char *s, size_t len)
{
	if (len < 14 || s[len - 1] != '.')
		return len;
	for (size_t at = len - 1; at >= 4; at--) {
		size_t k, d;

		if (memcmp(s + at - 4, " at ", 4) != 0)
			continue;
		/* the file: one word */
		for (k = at; k < len && s[k] != ' '; k++)
			;
		if (k == at || len - k < 8 || memcmp(s + k, " line ", 6) != 0)
			continue;
		for (d = k += 6; k < len && is_digit(s[k]); k++)
			;
		if (k == d)
			continue;
		if (k + 4 < len && s[k] == ',' && s[k + 1] == ' ' && s[k + 2] == '<') {
			while (k < len && s[k] != '>')
				k++;
			if (k + 2 < len && memcmp(s + k, "> line ", 7) == 0)
				k += 7;
			else if (k + 2 < len && memcmp(s + k, "> chunk ", 8) == 0)
				k += 8;
			else
				continue;
			for (d = k; k < len && is_digit(s[k]); k++)
				;
			if (k == d)
				continue;
		}
		if (k + 1 == len)
			return at - 4;
	}
	return len;
}

/* Drop Perl's " at X line N.", git's final "." (or a CJK "。"), Rust's
 * " (os error N)" and rsync's " (N)" from the end; *os gets Rust's N,
 * *paren rsync's, each -1 when there was none. */
static size_t strip_suffix(const char *s, size_t len, long *os, long *paren)
{
	static const char tag[] = " (os error ";
	const size_t olen = sizeof(tag) - 1;

	*os = *paren = -1;
	len = strip_perl_where(s, len);
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
		} else if (k < len - 1 && k >= 2 && s[k - 1] == '(' && s[k - 2] == ' ') {
			*paren = n;
			len = k - 2;
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

	if (localized)
		d |= DIALECT_MATCH_LOCAL;
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
	/* No path in the line: the tool may have named it on the line before
	 * (a message with a line break in it) or names it on the next one
	 * (evidence.c asks them). */
	return dialect_extract_path(s, start - sep, localized, path, path_size) ? d
										  : d | DIALECT_MATCH_NOPATH;
}

/* Shape A: "<prefix>: <phrase>" or a line that is only the phrase (Rust's
 * "Caused by:" block indents the bare message on its own line). */
static unsigned match_last_field(const char *s, size_t len, const struct phrase_set *ps,
				 unsigned mask, char *path, size_t path_size)
{
	size_t lead = 0;
	long os, paren;

	len = strip_suffix(s, len, &os, &paren);
	while (lead < len && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	for (size_t p = 0; p < ps->n; p++) {
		size_t plen = ps->p[p].len;

		if (len < plen || !ascii_ieq(s + len - plen, ps->p[p].text, plen))
			continue;
		/* rsync's "(13)" must be the errno the text is of */
		if (paren >= 0 && paren != dialect_errno(ps->p[p].dialect))
			return 0;
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

/* "... (<phrase>):" at the end of a line: the reason first, the file on
 * the lines after it (CMake: "file failed to open for writing (Read-only
 * file system):", then the path alone). */
static unsigned match_reason_first(const char *s, size_t len, const struct phrase_set *ps)
{
	if (len < 4 || s[len - 1] != ':' || s[len - 2] != ')')
		return 0;
	len -= 2;
	for (size_t p = 0; p < ps->n; p++) {
		size_t plen = ps->p[p].len;

		if (len >= plen + 2 && s[len - plen - 1] == '(' && s[len - plen - 2] == ' ' &&
		    ascii_ieq(s + len - plen, ps->p[p].text, plen))
			return ps->p[p].dialect | DIALECT_MATCH_NOPATH;
	}
	return 0;
}

unsigned dialect_match(const char *line, size_t len, unsigned mask, const struct dialect_texts *local,
		       char *path, size_t path_size)
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
	if (!d)
		d = match_reason_first(line, len, &ps);
	if (!d || (d & (DIALECT_MATCH_BARE | DIALECT_MATCH_NOPATH)))
		path[0] = '\0';
	if (!(d & (DIALECT_MATCH_BARE | DIALECT_MATCH_NOPATH)))
		d &= ~DIALECT_MATCH_LOCAL;
	return d;
}

unsigned dialect_match_line(const char *line, size_t len, unsigned mask,
			    const struct dialect_texts *local, char *path, size_t path_size)
{
	unsigned d = dialect_match(line, len, mask, local, path, path_size);

	return (d & DIALECT_MATCH_NOPATH) ? 0 : d & ~DIALECT_MATCH_LOCAL;
}
