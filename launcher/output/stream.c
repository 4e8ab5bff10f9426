/* SPDX-License-Identifier: MIT */
/* One output stream: the first `limit` bytes, then a tail ring of the last
 * limit/2 bytes, and past the limit the whole stream in a spill file (up to
 * the cap and the free-space floor; where it goes: spill.c). Memory is
 * 1.5 x limit per stream whatever the stream's size. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

int stream_init(struct stream *s, const char *name, size_t limit, int pass_fd,
		struct spill_place *spill)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->limit = limit;
	s->pass_fd = pass_fd;
	s->spill = spill;
	s->spill_fd = -1;
	s->dup_r = s->dup_w = s->null_fd = -1;
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

static void tail_push(struct stream *s, const char *buf, size_t len);

/* The spill stops for good: the file keeps what it has, the run goes on. */
static void spill_stop(struct stream *s, enum spill_stop why, int errnum)
{
	if (s->spill_fd >= 0)
		close(s->spill_fd);
	s->spill_fd = -1;
	s->spill_stop = why;
	s->spill_errno = errnum;
}

/* Write to the spill file, within the cap and above the free-space floor. */
static void spill_write(struct stream *s, const char *buf, size_t len)
{
	uint64_t cap = s->spill->max_bytes;
	size_t n = len;
	int rc;

	bool no_room = false;

	if (s->spilled + n > cap)
		n = (size_t)(cap - s->spilled);
	/* The room above the floor is asked again every SPILL_ROOM_CHECK
	 * bytes; no write goes past what was found (the floor holds to the
	 * byte, whatever the chunk sizes). */
	if (n > 0 && s->spilled + n > s->next_room_check) {
		uint64_t room = spill_headroom(s->spill_fd);

		s->next_room_check = s->spilled + (room < SPILL_ROOM_CHECK ? room : SPILL_ROOM_CHECK);
		if (s->spilled + n > s->next_room_check) {
			n = (size_t)(s->next_room_check - s->spilled);
			no_room = room < SPILL_ROOM_CHECK;
		}
	}
	rc = n ? io_write_all(s->spill_fd, buf, n) : 0;
	if (rc < 0) {
		spill_stop(s, SPILL_STOP_ERROR, -rc);
		return;
	}
	s->spilled += n;
	if (no_room)
		spill_stop(s, SPILL_STOP_SPACE, 0);
	else if (n < len && s->spilled >= cap)
		spill_stop(s, SPILL_STOP_CAP, 0);
}

/* The first byte past the limit: the spill starts with everything so far. */
static void spill_start(struct stream *s)
{
	int fd;

	s->spill_started = true;
	if (s->spill->max_bytes == 0) {
		spill_stop(s, SPILL_STOP_CAP, 0);
		return;
	}
	if (s->spill->base_fd >= 0 && !spill_has_room(s->spill->base_fd, SPILL_ROOM_CHECK)) {
		spill_stop(s, SPILL_STOP_SPACE, 0);
		return;
	}
	fd = spill_place_create(s->spill, s->name, &s->spill_path);
	if (fd < 0) {
		spill_stop(s, SPILL_STOP_ERROR, -fd);
		return;
	}
	s->spill_fd = fd;
	s->next_room_check = SPILL_ROOM_CHECK;
	spill_write(s, s->first, s->first_len);
}

void stream_set_tail(struct stream *s, const char *buf, size_t len)
{
	tail_push(s, buf, len);
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
	if (s->spill && !s->spill_started)
		spill_start(s);
	if (s->spill_fd >= 0)
		spill_write(s, buf, len);
	tail_push(s, buf, len);
}

bool stream_truncated(const struct stream *s)
{
	return s->total > s->limit;
}

/* sbx's line between the head and the tail, as stream_render writes it. */
static int omitted_line(const struct stream *s, char *mid, size_t size)
{
	uint64_t omitted = s->total - s->limit;

	return snprintf(mid, size, "\n[... %" PRIu64 " bytes omitted ...]\n", omitted);
}

bool stream_render_omitted(const struct stream *s, size_t *at, size_t *len)
{
	char mid[64];

	*at = *len = 0;
	if (!stream_truncated(s))
		return false;
	*at = s->limit - s->tail_size;
	*len = (size_t)omitted_line(s, mid, sizeof(mid));
	return true;
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
	char mid[64];
	int mid_len = omitted_line(s, mid, sizeof(mid));
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
	/* The splice pipes, only if stream_splice_open made them (a stream
	 * that was never initialized is all zeros: fd 0 is not ours). */
	if (s->dup_cap) {
		close(s->dup_r);
		close(s->dup_w);
		close(s->null_fd);
		s->dup_cap = 0;
	}
	if (s->spill_fd >= 0)
		close(s->spill_fd);
	s->spill_fd = -1;
	free(s->first);
	free(s->tail);
	s->first = s->tail = NULL;
}
