/* SPDX-License-Identifier: MIT */
/* Shapes of language runtimes that do not print strerror's last field:
 *   node/npm  "EROFS: read-only file system, mkdir '/p'" (libuv's English
 *             texts, the code naming the errno), at the end of the line,
 *             the code at the start or after ' ' or '['; and the ENOENT a
 *             recursive mkdir reports for EROFS;
 *   Java      "java.io.FileNotFoundException: /p (<phrase>)" (strerror in the
 *             JVM's locale) and "java.nio.file.AccessDeniedException: /p"
 *             (EACCES by its class, no text at all);
 *   Ruby      "Read-only file system @ rb_sysopen - /p (Errno::EROFS)".
 * npm's multi-line error block is read in evidence.c. */
#include <string.h>

#include "dialect_int.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* node's error codes with libuv's message texts (uv_strerror). */
static const struct {
	const char *code;
	unsigned dialect;
	const char *msg;
	const char *only_syscall; /* NULL: any */
} node_codes[] = {
	{ "EROFS", DIALECT_EROFS, "read-only file system", NULL },
	{ "EACCES", DIALECT_EACCES, "permission denied", NULL },
	{ "EXDEV", DIALECT_EXDEV, "cross-device link not permitted", NULL },
	{ "EPERM", DIALECT_SEATBELT, "operation not permitted", NULL },
	/* why: node's recursive mkdir (npm, fs.mkdir {recursive}) answers an
	 * EROFS with a stat of the directory it could not make, and reports
	 * that stat's ENOENT instead. For a directory whose parent exists (the
	 * classifier checks that from outside, like every path) a mkdir cannot
	 * fail with ENOENT any other way. */
	{ "ENOENT", DIALECT_EROFS, "no such file or directory", "mkdir" },
};

unsigned match_node(const char *s, size_t len, unsigned mask, char *path, size_t path_size)
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
			    s[j + 1] != ' ' || !ascii_ieq(s + j + 2, node_codes[c].msg, mlen))
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
			if (node_codes[c].only_syscall &&
			    (j - sys != strlen(node_codes[c].only_syscall) ||
			     memcmp(s + sys, node_codes[c].only_syscall, j - sys) != 0))
				continue;
			if (j == len) /* "write" on a descriptor names no file */
				return node_codes[c].dialect | DIALECT_MATCH_BARE;
			if (s[j] == ' ' && quoted_list_path(s + j + 1, len - j - 1, path, path_size))
				return node_codes[c].dialect;
		}
	}
	return 0;
}

/* The last ": " in s[0..end), or end when there is none. */
static size_t last_separator(const char *s, size_t end)
{
	for (size_t i = end; i >= 2; i--)
		if (s[i - 2] == ':' && s[i - 1] == ' ')
			return i;
	return end;
}

/* A Java path field: an absolute path (blanks allowed) or one relative word. */
static bool java_path(const char *p, size_t n, char *path, size_t path_size)
{
	if (n == 0 || (p[0] != '/' && memchr(p, ' ', n)))
		return false;
	return path_set(p, n, path, path_size);
}

unsigned match_java(const char *s, size_t len, const struct phrase_set *ps, unsigned mask,
		    char *path, size_t path_size)
{
	static const char denied[] = "java.nio.file.AccessDeniedException: ";
	const size_t dlen = sizeof(denied) - 1;

	if (len > 0 && s[len - 1] == ')') {
		for (size_t p = 0; p < ps->n; p++) {
			size_t plen = ps->p[p].len, k;

			if (len < plen + 3)
				continue;
			k = len - 1 - plen;
			if (s[k - 2] != ' ' || s[k - 1] != '(' || !ascii_ieq(s + k, ps->p[p].text, plen))
				continue;
			size_t start = last_separator(s, k - 2);
			if (start == k - 2)
				return 0;
			return java_path(s + start, k - 2 - start, path, path_size) ? ps->p[p].dialect : 0;
		}
	}
	if (!(mask & DIALECT_EACCES) || len <= dlen)
		return 0;
	for (size_t i = 0; i + dlen < len; i++) {
		if (memcmp(s + i, denied, dlen) != 0 ||
		    !(i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t'))
			continue;
		const char *p = s + i + dlen;
		size_t n = len - i - dlen;

		/* "a -> b" (a move): the destination is what it failed to make */
		for (size_t k = n; k >= 4; k--)
			if (memcmp(p + k - 4, " -> ", 4) == 0) {
				p += k;
				n -= k;
				break;
			}
		return java_path(p, n, path, path_size) ? DIALECT_EACCES : 0;
	}
	return 0;
}

unsigned match_ruby(const char *s, size_t len, unsigned mask, char *path, size_t path_size)
{
	static const char tag[] = " (Errno::";
	const size_t tlen = sizeof(tag) - 1;
	size_t at;

	if (len < tlen + 2 || s[len - 1] != ')')
		return 0;
	for (at = len - 1 - tlen; at > 0; at--)
		if (memcmp(s + at, tag, tlen) == 0)
			break;
	if (at == 0)
		return 0;
	unsigned d = dialect_of_errno_name(s + at + tlen, len - 1 - at - tlen) & mask;
	if (!d)
		return 0;
	/* "<message> @ <function> - <path>": the path after the last " - " */
	for (size_t i = at; i >= 3; i--)
		if (memcmp(s + i - 3, " - ", 3) == 0)
			return path_set(s + i, at - i, path, path_size) ? d : 0;
	return 0;
}
