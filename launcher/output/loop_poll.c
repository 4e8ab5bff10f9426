/* SPDX-License-Identifier: MIT */
/* poll(2) behind the loop: the fallback where io_uring is compiled out or
 * refused. Watches are kept in a small array; the same bytes reach the same
 * callbacks as with io_uring. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

struct loop_poll {
	struct loop base;
	struct loop_watch **watches;
	size_t n, cap;
	struct pollfd *pfds;
};

static int poll_add(struct loop *l, struct loop_watch *w)
{
	struct loop_poll *p = (struct loop_poll *)l;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct loop_watch **nw = realloc(p->watches, cap * sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		p->watches = nw;
		struct pollfd *np = realloc(p->pfds, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		p->pfds = np;
		p->cap = cap;
	}
	w->active = true;
	w->slot = p->n;
	p->watches[p->n++] = w;
	return 0;
}

static void poll_remove(struct loop *l, struct loop_watch *w)
{
	struct loop_poll *p = (struct loop_poll *)l;

	if (!w->active)
		return;
	w->active = false;
	for (size_t i = 0; i < p->n; i++) {
		if (p->watches[i] == w) {
			p->watches[i] = p->watches[--p->n];
			p->watches[i]->slot = i;
			break;
		}
	}
}

static void poll_dispatch(struct loop *l, struct loop_watch *w)
{
	ssize_t n;

	if (w->readiness) {
		w->cb(w, NULL, 1);
		return;
	}
	do {
		n = read(w->fd, w->buf, w->buf_size);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0)
		poll_remove(l, w);
	w->cb(w, w->buf, n < 0 ? -errno : n);
}

static int poll_wait(struct loop *l, int timeout_ms)
{
	struct loop_poll *p = (struct loop_poll *)l;
	size_t n = p->n;
	int rc, handled = 0;
	struct loop_watch **snap;

	if (n == 0) {
		if (timeout_ms > 0)
			poll(NULL, 0, timeout_ms);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		p->pfds[i].fd = p->watches[i]->fd;
		p->pfds[i].events = POLLIN;
		p->pfds[i].revents = 0;
	}
	rc = poll(p->pfds, n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	/* Callbacks may add or remove watches: work on a snapshot. */
	snap = malloc(n * sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	memcpy(snap, p->watches, n * sizeof(*snap));
	for (size_t i = 0; i < n; i++) {
		struct loop_watch *w = snap[i];

		if (!p->pfds[i].revents)
			continue;
		/* Still watched, and still the same watch in this slot? */
		if (!w->active || w->slot >= p->n || p->watches[w->slot] != w)
			continue;
		poll_dispatch(l, w);
		handled++;
	}
	free(snap);
	return handled;
}

static void poll_free(struct loop *l)
{
	struct loop_poll *p = (struct loop_poll *)l;

	free(p->watches);
	free(p->pfds);
	free(p);
}

static const struct loop_ops poll_ops = {
	.add = poll_add,
	.remove = poll_remove,
	.wait = poll_wait,
	.free = poll_free,
	.name = "poll",
	.backend = LOOP_POLL,
};

struct loop *loop_poll_new(void)
{
	struct loop_poll *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base.ops = &poll_ops;
	return &p->base;
}
