/* SPDX-License-Identifier: MIT */
/* The passthrough of a stream whose bytes sbx need not read (human mode,
 * nothing listening for a denial: danger-full-access): the head is read as
 * usual; past it, each chunk is duplicated into a pipe of our own with
 * tee(2) and moved out with splice(2), page references only, no copy
 * through our memory. The duplicate pipe keeps the newest bytes (older ones
 * are spliced to /dev/null), so at the end the tail is read from it. Where
 * the output takes no splice (a terminal), stream_splice_open says no and
 * the stream is read and written as before. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "output.h"

#define DUP_PIPE_SIZE (1 << 20)

/* Whether out takes splice(2): a pipe, a regular file, /dev/null. */
static bool spliceable(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	if (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode))
		return true;
	return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

bool stream_splice_open(struct stream *s, int src)
{
	int p[2];

	s->dup_r = s->dup_w = s->null_fd = -1;
	if (s->pass_fd < 0 || !spliceable(s->pass_fd) || s->tail_size > DUP_PIPE_SIZE / 2)
		return false;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	/* Room for the tail and a chunk beside it; quietly smaller where the
	 * user's pipe budget is spent (then chunks are smaller). */
	(void)fcntl(p[0], F_SETPIPE_SZ, DUP_PIPE_SIZE);
	s->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (s->null_fd < 0 || fcntl(src, F_SETFL, O_NONBLOCK) < 0) {
		close(p[0]);
		close(p[1]);
		if (s->null_fd >= 0)
			close(s->null_fd);
		s->null_fd = -1;
		return false;
	}
	s->dup_r = p[0];
	s->dup_w = p[1];
	s->dup_cap = (size_t)fcntl(p[0], F_GETPIPE_SZ);
	s->spliced = true;
	return true;
}

/* Keep at most keep bytes in the duplicate pipe: the oldest go. */
static int trim(struct stream *s, size_t keep)
{
	while (s->dup_len > keep) {
		ssize_t n = splice(s->dup_r, NULL, s->null_fd, NULL, s->dup_len - keep,
				   SPLICE_F_NONBLOCK);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		s->dup_len -= (size_t)n;
	}
	return 0;
}

/* Move n bytes from src to the output (or drop them once it failed). */
static int move_out(struct stream *s, int src, size_t n)
{
	while (n > 0) {
		int to = s->error ? s->null_fd : s->pass_fd;
		ssize_t m = splice(src, NULL, to, NULL, n, 0);

		if (m < 0 && errno == EINTR)
			continue;
		/* Our end of the pipe is non-blocking, which makes a splice
		 * into a full output pipe say EAGAIN: wait for room, as a
		 * blocking write would. */
		if (m < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = to, .events = POLLOUT };

			poll(&p, 1, -1);
			continue;
		}
		if (m < 0 && to == s->pass_fd) {
			s->error = errno; /* the reader went away: keep draining */
			continue;
		}
		if (m <= 0)
			return m < 0 ? -errno : -EIO;
		n -= (size_t)m;
	}
	return 0;
}

ssize_t stream_pump(struct stream *s, int src, char *buf, size_t buf_size)
{
	ssize_t n;

	/* The head, read as always (and written out from our copy). */
	if (s->first_len < s->limit) {
		size_t want = s->limit - s->first_len;

		n = read(src, buf, want < buf_size ? want : buf_size);
		if (n > 0)
			stream_feed(s, buf, (size_t)n);
		return n < 0 ? -errno : n;
	}
	/* Room for a chunk beside the tail, made only when it runs short. */
	if (s->dup_cap - s->dup_len < s->dup_cap / 2 && trim(s, s->tail_size) < 0)
		return -EIO;
	/* 0: the writers are gone and the pipe is empty (the end). */
	n = tee(src, s->dup_w, s->dup_cap - s->dup_len, SPLICE_F_NONBLOCK);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	s->dup_len += (size_t)n;
	if (move_out(s, src, (size_t)n) < 0)
		return -EIO;
	s->total += (uint64_t)n;
	return n;
}

void stream_splice_finish(struct stream *s)
{
	size_t keep = s->dup_len;
	char *buf;

	if (!s->spliced)
		return;
	s->spliced = false;
	/* Past the head: the newest tail_size bytes are the tail. */
	buf = keep ? malloc(keep) : NULL;
	if (buf) {
		size_t got = 0;

		while (got < keep) {
			ssize_t n = read(s->dup_r, buf + got, keep - got);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
		stream_set_tail(s, buf, got);
		free(buf);
	}
	close(s->dup_r);
	close(s->dup_w);
	close(s->null_fd);
	s->dup_r = s->dup_w = s->null_fd = -1;
	s->dup_cap = 0;
}
