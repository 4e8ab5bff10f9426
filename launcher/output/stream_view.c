/* SPDX-License-Identifier: MIT */
/* A copy of what a stream keeps (head, tail, total), read by byte offset:
 * serve's task/output answers "the bytes after since" from it, for a live run
 * and after the run is over. Only reads struct stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

int stream_view_take(const struct stream *s, struct stream_view *v)
{
	size_t tail_len = 0, head_len = s->first_len;

	memset(v, 0, sizeof(*v));
	v->total = s->total;
	if (stream_truncated(s)) {
		tail_len = s->tail_size;
		head_len = s->limit - tail_len;
	}
	v->head = malloc(head_len + 1);
	v->tail = malloc(tail_len + 1);
	if (!v->head || !v->tail) {
		stream_view_free(v);
		return -ENOMEM;
	}
	memcpy(v->head, s->first, head_len);
	v->head_len = head_len;
	if (tail_len && s->tail_full) {
		size_t older = s->tail_size - s->tail_pos;

		memcpy(v->tail, s->tail + s->tail_pos, older);
		memcpy(v->tail + older, s->tail, s->tail_pos);
	} else if (tail_len) {
		size_t from_first = tail_len - s->tail_pos;

		memcpy(v->tail, s->first + s->limit - from_first, from_first);
		memcpy(v->tail + from_first, s->tail, s->tail_pos);
	}
	v->tail_len = tail_len;
	return 0;
}

void stream_view_free(struct stream_view *v)
{
	if (!v)
		return;
	free(v->head);
	free(v->tail);
	v->head = v->tail = NULL;
}

static void put(char *out, size_t *n, size_t max, const char *src, size_t len, uint64_t *from)
{
	size_t k;

	if (*n >= max)
		return;
	k = len < max - *n ? len : max - *n;

	memcpy(out + *n, src, k);
	*n += k;
	*from += k;
}

char *stream_view_since(const struct stream_view *v, uint64_t since, size_t max, size_t *len,
			uint64_t *next, size_t *mid_at, size_t *mid_len)
{
	uint64_t tail_start = v->total - v->tail_len, at = since < v->total ? since : v->total;
	char *out = malloc(max + 64), mid[64];
	size_t n = 0;

	if (!out)
		return NULL;
	*mid_at = *mid_len = 0;
	if (at < v->head_len)
		put(out, &n, max, v->head + at, v->head_len - (size_t)at, &at);
	if (n < max && at < tail_start) {
		/* Not kept: say how much, once, and go on with the tail. On a
		 * line of its own: glued to the end of the command's last line,
		 * that line's start could make it read as the command's. */
		int m = snprintf(mid, sizeof(mid), "%s[... %" PRIu64 " bytes omitted ...]\n",
				 n > 0 && out[n - 1] != '\n' ? "\n" : "", tail_start - at);

		memcpy(out + n, mid, (size_t)m);
		*mid_at = n;
		*mid_len = (size_t)m;
		n += (size_t)m;
		at = tail_start;
	}
	if (n < max && at >= tail_start && at < v->total)
		put(out, &n, max, v->tail + (at - tail_start),
		    (size_t)(v->total - at), &at);
	out[n] = '\0';
	*len = n;
	*next = at;
	return out;
}
