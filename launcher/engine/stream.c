/* SPDX-License-Identifier: MIT */
/* One output stream: the first `limit` bytes, then a tail ring of the last
 * limit/2 bytes, and past the limit the whole stream in a spill file. Memory is
 * 1.5 x limit per stream whatever the stream's size. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"

static int spill_base_open(struct stream *s);

int stream_init(struct stream *s, const char *name, size_t limit, int pass_fd, bool spill,
		const char *spill_base, bool spill_private)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->limit = limit;
	s->pass_fd = pass_fd;
	s->spill_enabled = spill;
	s->spill_dir = spill_base;
	s->spill_private = spill_private;
	s->spill_fd = -1;
	s->spill_base_fd = -1;
	s->tail_size = limit / 2;
	if (spill) {
		int rc = spill_base_open(s);

		/* A base that cannot be opened is reported when (if) a spill is
		 * needed; the run itself goes on. */
		if (rc == -ENOMEM)
			return rc;
	}
	s->first = malloc(limit ? limit : 1);
	s->tail = malloc(s->tail_size ? s->tail_size : 1);
	if (!s->first || !s->tail) {
		free(s->first);
		free(s->tail);
		s->first = s->tail = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* O_EXCL|O_NOFOLLOW under dirfd with a random suffix: never follows or reuses
 * what someone else put there. */
static int create_unique_at(int dirfd, const char *prefix, char *name, size_t name_size)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char rnd[8];
		char suffix[sizeof(rnd) + 1];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		for (size_t i = 0; i < sizeof(rnd); i++)
			suffix[i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
		suffix[sizeof(rnd)] = '\0';
		if (snprintf(name, name_size, "%s-%s", prefix, suffix) >= (int)name_size)
			return -ENAMETOOLONG;
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Where spill files go is fixed when the run starts, before the command can
 * touch anything: a handle on the base directory (--spill-dir, else $TMPDIR or
 * /tmp). Everything later is created relative to that handle, so a command
 * that swaps a path component for a symlink (the base may lie in its
 * workspace, and it shares /tmp and our uid under the landlock runner) cannot
 * make this unconfined process write elsewhere. */
static int spill_base_open(struct stream *s)
{
	s->spill_base = strdup(s->spill_dir ? s->spill_dir : "/tmp");
	if (!s->spill_base)
		return -ENOMEM;
	s->spill_base_fd = open(s->spill_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->spill_base_fd < 0)
		s->spill_base_fd = -errno; /* reported if a spill is ever needed */
	return s->spill_base_fd < 0 ? s->spill_base_fd : 0;
}

/* The default: a fresh private directory under the base, made and opened
 * without following a symlink, checked to be ours and 0700. */
static int private_dir_at(int base_fd, char *name, size_t name_size)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char rnd[6];
		struct stat st;
		int dfd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		snprintf(name, name_size, "sbx-spill-%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2],
			 rnd[3], rnd[4], rnd[5]);
		if (mkdirat(base_fd, name, 0700) < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		dfd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			return -errno;
		if (fstat(dfd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 077) != 0) {
			close(dfd);
			return -EPERM;
		}
		return dfd;
	}
	return -EEXIST;
}

static int spill_open(struct stream *s)
{
	char dir[64] = "", name[64], prefix[32];
	int dfd, fd;

	if (s->spill_base_fd < 0)
		return s->spill_base_fd;
	if (!s->spill_private) {
		snprintf(prefix, sizeof(prefix), "sbx-%s", s->name);
		fd = create_unique_at(s->spill_base_fd, prefix, name, sizeof(name));
	} else {
		dfd = private_dir_at(s->spill_base_fd, dir, sizeof(dir));
		if (dfd < 0)
			return dfd;
		fd = create_unique_at(dfd, s->name, name, sizeof(name));
		close(dfd);
	}
	if (fd < 0)
		return fd;
	if (asprintf(&s->spill_path, "%s/%s%s%s", s->spill_base, dir, dir[0] ? "/" : "", name) < 0) {
		s->spill_path = NULL;
		close(fd);
		return -ENOMEM;
	}
	s->spill_fd = fd;
	return io_write_all(fd, s->first, s->first_len);
}

static void tail_push(struct stream *s, const char *buf, size_t len)
{
	if (s->tail_size == 0)
		return;
	if (len >= s->tail_size) {
		memcpy(s->tail, buf + len - s->tail_size, s->tail_size);
		s->tail_pos = 0;
		s->tail_full = true;
		return;
	}
	while (len > 0) {
		size_t room = s->tail_size - s->tail_pos;
		size_t n = len < room ? len : room;

		memcpy(s->tail + s->tail_pos, buf, n);
		s->tail_pos += n;
		if (s->tail_pos == s->tail_size) {
			s->tail_pos = 0;
			s->tail_full = true;
		}
		buf += n;
		len -= n;
	}
}

void stream_feed(struct stream *s, const char *buf, size_t len)
{
	if (len == 0)
		return;
	if (s->pass_fd >= 0 && s->error == 0) {
		int rc = io_write_all(s->pass_fd, buf, len);

		if (rc < 0)
			s->error = -rc;
	}
	s->total += len;
	if (s->first_len < s->limit) {
		size_t n = s->limit - s->first_len;

		if (n > len)
			n = len;
		memcpy(s->first + s->first_len, buf, n);
		s->first_len += n;
		buf += n;
		len -= n;
		if (len == 0)
			return;
	}
	/* Over the limit from here on. */
	if (s->spill_enabled && s->spill_fd < 0 && !s->spill_path && s->error == 0) {
		int rc = spill_open(s);

		if (rc < 0)
			s->error = -rc;
	}
	if (s->spill_fd >= 0) {
		int rc = io_write_all(s->spill_fd, buf, len);

		if (rc < 0) {
			s->error = -rc;
			close(s->spill_fd);
			s->spill_fd = -1;
		}
	}
	tail_push(s, buf, len);
}

bool stream_truncated(const struct stream *s)
{
	return s->total > s->limit;
}

char *stream_render(const struct stream *s, size_t *len)
{
	char *out;

	if (!stream_truncated(s)) {
		out = malloc(s->first_len + 1);
		if (!out)
			return NULL;
		memcpy(out, s->first, s->first_len);
		out[s->first_len] = '\0';
		*len = s->first_len;
		return out;
	}

	size_t tail_len = s->tail_size;
	size_t head_len = s->limit - tail_len;
	uint64_t omitted = s->total - head_len - tail_len;
	char mid[64];
	int mid_len = snprintf(mid, sizeof(mid), "\n[... %" PRIu64 " bytes omitted ...]\n", omitted);
	size_t total = head_len + (size_t)mid_len + tail_len;

	out = malloc(total + 1);
	if (!out)
		return NULL;
	memcpy(out, s->first, head_len);
	memcpy(out + head_len, mid, (size_t)mid_len);
	char *dst = out + head_len + mid_len;

	if (s->tail_full) {
		/* The ring's oldest byte is at tail_pos once it has wrapped. */
		size_t older = s->tail_size - s->tail_pos;

		memcpy(dst, s->tail + s->tail_pos, older);
		memcpy(dst + older, s->tail, s->tail_pos);
	} else {
		/* Fewer than tail_size bytes came past the limit: the tail starts
		 * inside the first buffer, after the head. */
		size_t from_first = tail_len - s->tail_pos;

		memcpy(dst, s->first + s->limit - from_first, from_first);
		memcpy(dst + from_first, s->tail, s->tail_pos);
	}
	out[total] = '\0';
	*len = total;
	return out;
}

void stream_close(struct stream *s)
{
	if (s->spill_fd >= 0)
		close(s->spill_fd);
	s->spill_fd = -1;
	if (s->spill_base_fd >= 0)
		close(s->spill_base_fd);
	s->spill_base_fd = -1;
	free(s->spill_base);
	s->spill_base = NULL;
	free(s->first);
	free(s->tail);
	s->first = s->tail = NULL;
}
