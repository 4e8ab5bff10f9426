/* SPDX-License-Identifier: MIT */
/* The runs record's file format (protect_runs.c), one for the recent list
 * and for the archive's files (protect_runs_archive.c):
 *
 *   "SBXRN\0\1\n"  u32 count
 *   count * (u64 id, u64 from, u64 to (0: still live), u32 flags,
 *            u32 length, the root's path)
 *   u64 FNV-1a of all before it
 *
 * written whole under a new name and renamed over, read back with every
 * field checked. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "protect_runs_list.h"

#define RUNS_MAX_BYTES (sizeof(magic) + 4 + (size_t)RUNS_MAX * (32 + PATH_MAX) + 8)

static const char magic[8] = { 'S', 'B', 'X', 'R', 'N', 0, 1, '\n' };

uint64_t runs_hash(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static uint64_t get_u(const unsigned char *p, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_u(unsigned char *p, uint64_t v, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t runs_now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t runs_window_end(void)
{
	struct timespec res = { 0, 0 };

	clock_getres(CLOCK_REALTIME_COARSE, &res);
	return runs_now_ns(CLOCK_REALTIME) + (uint64_t)res.tv_nsec + (uint64_t)res.tv_sec * 1000000000u;
}

void runs_free(struct runs *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->r[i].root);
	free(l->r);
	memset(l, 0, sizeof(*l));
}

int runs_add(struct runs *l, const struct rec *r)
{
	char *root = strdup(r->root);

	if (!root)
		return -ENOMEM;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct rec *p = realloc(l->r, cap * sizeof(*p));

		if (!p) {
			free(root);
			return -ENOMEM;
		}
		l->r = p;
		l->cap = cap;
	}
	l->r[l->n] = *r;
	l->r[l->n++].root = root;
	return 0;
}

int runs_all_before_now(struct runs *l)
{
	runs_free(l);
	return runs_add(l, &(struct rec){ 0, 0, runs_window_end(), RUN_HOST_TMP, "/" });
}

int runs_read(int dir, const char *name, struct runs *l)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	unsigned char *buf;
	size_t len, at, count;
	struct stat st;

	memset(l, 0, sizeof(*l));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size > RUNS_MAX_BYTES || (size_t)st.st_size < sizeof(magic) + 12) {
		close(fd);
		return -EINVAL;
	}
	len = (size_t)st.st_size;
	buf = malloc(len);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (at = 0; at < len;) {
		ssize_t r = read(fd, buf + at, len - at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		at += (size_t)r;
	}
	close(fd);
	if (at != len || memcmp(buf, magic, sizeof(magic)) != 0 ||
	    get_u(buf + len - 8, 8) != runs_hash(buf, len - 8) ||
	    (count = (size_t)get_u(buf + sizeof(magic), 4)) > RUNS_MAX)
		goto bad;
	at = sizeof(magic) + 4;
	for (size_t i = 0; i < count; i++) {
		struct rec r;
		size_t rl;
		char *root;

		if (at + 32 > len - 8)
			goto bad;
		r.id = get_u(buf + at, 8);
		r.from = get_u(buf + at + 8, 8);
		r.to = get_u(buf + at + 16, 8);
		r.flags = (uint32_t)get_u(buf + at + 24, 4);
		rl = (size_t)get_u(buf + at + 28, 4);
		at += 32;
		if (rl == 0 || rl >= PATH_MAX || at + rl > len - 8 || buf[at] != '/' ||
		    memchr(buf + at, '\0', rl) || (r.to && r.to < r.from))
			goto bad;
		root = strndup((const char *)buf + at, rl);
		r.root = root;
		if (!root || runs_add(l, &r) < 0) {
			free(root);
			goto bad;
		}
		free(root);
		at += rl;
	}
	if (at != len - 8)
		goto bad;
	free(buf);
	return 0;
bad:
	free(buf);
	runs_free(l);
	return -EINVAL;
}

int runs_write(int dir, const char *name, const struct runs *l)
{
	size_t len = sizeof(magic) + 4 + 8, at;
	unsigned char *buf;
	char tmp[64];
	int fd, rc = 0;

	for (size_t i = 0; i < l->n; i++)
		len += 32 + strlen(l->r[i].root);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, magic, sizeof(magic));
	put_u(buf + sizeof(magic), l->n, 4);
	at = sizeof(magic) + 4;
	for (size_t i = 0; i < l->n; i++) {
		size_t rl = strlen(l->r[i].root);

		put_u(buf + at, l->r[i].id, 8);
		put_u(buf + at + 8, l->r[i].from, 8);
		put_u(buf + at + 16, l->r[i].to, 8);
		put_u(buf + at + 24, l->r[i].flags, 4);
		put_u(buf + at + 28, rl, 4);
		memcpy(buf + at + 32, l->r[i].root, rl);
		at += 32 + rl;
	}
	put_u(buf + at, runs_hash(buf, at), 8);
	if (snprintf(tmp, sizeof(tmp), "%s.new", name) >= (int)sizeof(tmp)) {
		free(buf);
		return -ENAMETOOLONG;
	}
	unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (size_t off = 0; rc == 0 && off < len;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w > 0)
			off += (size_t)w;
		else if (w < 0 && errno != EINTR)
			rc = -errno;
		else if (w == 0)
			rc = -EIO;
	}
	free(buf);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dir, tmp, dir, name) < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(dir, tmp, 0);
	return rc;
}

void runs_common_ancestor(const char *a, const char *b, char *out, size_t size)
{
	size_t n = 0, last = 0;

	while (a[n] && a[n] == b[n]) {
		if (a[n] == '/')
			last = n;
		n++;
	}
	if ((a[n] == '\0' || a[n] == '/') && (b[n] == '\0' || b[n] == '/'))
		last = n;
	if (last == 0)
		last = 1; /* "/" */
	if (last >= size)
		last = size - 1;
	memcpy(out, a, last);
	out[last] = '\0';
}
