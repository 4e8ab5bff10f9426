/* SPDX-License-Identifier: MIT */
/* The git directories under a root that the last run's end found (its git
 * pass), kept in the root's state directory as "repos" between runs: the
 * next run records their configs when it starts, so a config its command
 * changes is put back as it was, not only cut down to the allow-list. An
 * optimisation of fidelity, never of safety: a repository missing here is
 * still held to the rules after the run.
 *
 *   "SBXPR\0\1\n"  u32 count  count * (u32 length, bytes)  u64 FNV-1a
 *
 * Read back as hostile (what it names drives unconfined reads): plain
 * relative paths, bounded count and sizes, the checksum. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protect_int.h"

static const char magic[8] = { 'S', 'B', 'X', 'P', 'R', 0, 1, '\n' };
#define INDEX_MAX_BYTES (sizeof(magic) + 4 + PROTECT_INDEX_MAX * (4 + PATH_MAX) + 8)

static uint64_t fnv1a(const unsigned char *p, size_t n)
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

void protect_index_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int protect_index_read(int dir_fd, char ***paths, size_t *n)
{
	int fd = openat(dir_fd, "repos", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	unsigned char *buf;
	size_t len, at, count;
	struct stat st;
	char **out;

	*paths = NULL;
	*n = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size > INDEX_MAX_BYTES || (size_t)st.st_size < sizeof(magic) + 12) {
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
	    get_u(buf + len - 8, 8) != fnv1a(buf, len - 8)) {
		free(buf);
		return -EINVAL;
	}
	count = (size_t)get_u(buf + sizeof(magic), 4);
	out = calloc(count ? count : 1, sizeof(*out));
	if (count > PROTECT_INDEX_MAX || !out) {
		free(out);
		free(buf);
		return -EINVAL;
	}
	at = sizeof(magic) + 4;
	for (size_t i = 0; i < count; i++) {
		size_t l;

		if (at + 4 > len - 8)
			goto bad;
		l = (size_t)get_u(buf + at, 4);
		at += 4;
		if (l >= PATH_MAX || at + l > len - 8 ||
		    !protect_path_plain((const char *)buf + at, l) || !(out[i] = strndup((const char *)buf + at, l)))
			goto bad;
		at += l;
	}
	if (at != len - 8)
		goto bad;
	free(buf);
	*paths = out;
	*n = count;
	return 0;
bad:
	protect_index_free(out, count);
	free(buf);
	return -EINVAL;
}

/* Whole under a new name, then renamed over (as the baseline file). */
int protect_index_write(int dir_fd, char *const *paths, size_t n)
{
	size_t len = sizeof(magic) + 4 + 8, at;
	unsigned char *buf;
	int fd, rc = 0;

	if (n > PROTECT_INDEX_MAX)
		n = PROTECT_INDEX_MAX;
	for (size_t i = 0; i < n; i++)
		len += 4 + strlen(paths[i]);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, magic, sizeof(magic));
	put_u(buf + sizeof(magic), n, 4);
	at = sizeof(magic) + 4;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(paths[i]);

		put_u(buf + at, l, 4);
		memcpy(buf + at + 4, paths[i], l);
		at += 4 + l;
	}
	put_u(buf + at, fnv1a(buf, at), 8);
	unlinkat(dir_fd, "repos.new", 0);
	fd = openat(dir_fd, "repos.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
	}
	free(buf);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dir_fd, "repos.new", dir_fd, "repos") < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(dir_fd, "repos.new", 0);
	return rc;
}
