/* SPDX-License-Identifier: MIT */
/* Lexical path arithmetic for the classifier. No file system access: the
 * classifier compares the path an error line names with the policy's writable
 * directories, both as plain strings. Symlinks are not resolved (that would
 * need system calls); callers pass canonical writable directories. */
#include <string.h>

#include "classify.h"

struct pbuf {
	char *out;
	size_t size;
	size_t len; /* out[0..len) is "" (root) or "/a/b" */
	bool overflow;
};

/* Apply one component: "." and "" change nothing, ".." drops the last one
 * (and stays at the root: "/.." is "/", as the kernel resolves it). */
static void push_component(struct pbuf *b, const char *c, size_t n)
{
	if (n == 0 || (n == 1 && c[0] == '.'))
		return;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		while (b->len > 0 && b->out[b->len - 1] != '/')
			b->len--;
		if (b->len > 0)
			b->len--; /* the '/' before the dropped name */
		return;
	}
	/* room for "/name" plus the final NUL */
	if (b->len + 1 + n + 1 > b->size) {
		b->overflow = true;
		return;
	}
	b->out[b->len++] = '/';
	memcpy(b->out + b->len, c, n);
	b->len += n;
}

static void walk(struct pbuf *b, const char *s)
{
	while (*s && !b->overflow) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);

		push_component(b, s, n);
		s += n;
		if (*s == '/')
			s++;
	}
}

bool path_normalize(const char *cwd, const char *path, char *out, size_t out_size)
{
	struct pbuf b = { .out = out, .size = out_size };

	if (!path || !out || out_size < 2)
		return false;
	if (path[0] != '/') {
		/* why: a relative path means nothing without the command's cwd;
		 * guessing one could turn a harmless line into a denial. */
		if (!cwd || cwd[0] != '/')
			return false;
		walk(&b, cwd);
	}
	walk(&b, path);
	if (b.overflow)
		return false;
	if (b.len == 0)
		out[b.len++] = '/';
	out[b.len] = '\0';
	return true;
}

bool path_is_within(const char *abs_path, const char *dir)
{
	size_t dlen;

	if (!abs_path || !dir || abs_path[0] != '/' || dir[0] != '/')
		return false;
	dlen = strlen(dir);
	while (dlen > 0 && dir[dlen - 1] == '/')
		dlen--;
	if (dlen == 0)
		return true; /* dir is "/" */
	/* why component-wise: "/ws-sibling" shares the bytes of "/ws" but is a
	 * different directory, outside the workspace. */
	return strncmp(abs_path, dir, dlen) == 0 && (abs_path[dlen] == '\0' || abs_path[dlen] == '/');
}
