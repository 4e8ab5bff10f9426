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

int stream_init(struct stream *s, const char *name, size_t limit, int pass_fd, bool spill,
		const char *spill_dir)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->limit = limit;
	s->pass_fd = pass_fd;
	s->spill_enabled = spill;
	s->spill_dir = spill_dir;
	s->spill_fd = -1;
	s->tail_size = limit / 2;
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

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
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

/* The default spill place is a fresh private (0700) directory under $TMPDIR
 * or /tmp. The command may share that /tmp and our uid (landlock runner): it
 * could swap the directory for a symlink between its creation and our use,
 * to make this unconfined process write elsewhere. So the directory is opened
 * once, without following a symlink, checked (ours, 0700, a directory), and
 * the file is created relative to that handle. */
static int spill_dir_open(const char *given, char *dir, size_t dir_size)
{
	struct stat st;
	int dfd;

	if (given) {
		if (snprintf(dir, dir_size, "%s", given) >= (int)dir_size)
			return -ENAMETOOLONG;
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return dfd < 0 ? -errno : dfd;
	}
	const char *tmp = getenv("TMPDIR");

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (snprintf(dir, dir_size, "%s/sbx-spill-XXXXXX", tmp) >= (int)dir_size)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fstat(dfd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

static int spill_open(struct stream *s)
{
	char dir[PATH_MAX], name[64], prefix[32];
	int dfd, fd;

	snprintf(prefix, sizeof(prefix), "%s%s", s->spill_dir ? "sbx-" : "", s->name);
	dfd = spill_dir_open(s->spill_dir, dir, sizeof(dir));
	if (dfd < 0)
		return dfd;
	fd = create_unique_at(dfd, prefix, name, sizeof(name));
	close(dfd);
	if (fd < 0)
		return fd;
	if (asprintf(&s->spill_path, "%s/%s", dir, name) < 0) {
		s->spill_path = NULL;
		close(fd);
		return -ENOMEM;
	}
	s->spill_fd = fd;
	return write_all(fd, s->first, s->first_len);
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
		int rc = write_all(s->pass_fd, buf, len);

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
		int rc = write_all(s->spill_fd, buf, len);

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
	free(s->first);
	free(s->tail);
	s->first = s->tail = NULL;
}
