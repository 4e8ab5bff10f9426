/* SPDX-License-Identifier: MIT */
/* io_uring behind the loop: one read (or poll, for pidfds) in flight per
 * watch, submitted in batches, completions dispatched to the same callbacks
 * the poll backend uses. */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define URING_ENTRIES 256
#define CANCEL_TAG ((uint64_t)1)

struct deferred {
	struct loop_watch *w;
	int res;
};

struct loop_uring {
	struct loop base;
	struct io_uring ring;
	/* completions that arrived while loop_remove waited for another watch */
	struct deferred *deferred;
	size_t n_deferred, cap_deferred;
};

static struct io_uring_sqe *get_sqe(struct loop_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		/* The submission queue is full: hand it to the kernel and retry. */
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static int arm(struct loop_uring *u, struct loop_watch *w)
{
	struct io_uring_sqe *sqe = get_sqe(u);

	if (!sqe)
		return -EBUSY;
	if (w->readiness)
		io_uring_prep_poll_add(sqe, w->fd, POLLIN);
	else
		io_uring_prep_read(sqe, w->fd, w->buf, (unsigned)w->buf_size, (uint64_t)-1);
	io_uring_sqe_set_data(sqe, w);
	w->in_flight = true;
	return 0;
}

static int uring_add(struct loop *l, struct loop_watch *w)
{
	struct loop_uring *u = (struct loop_uring *)l;

	w->active = true;
	w->in_flight = false;
	return arm(u, w);
}

static void dispatch(struct loop_uring *u, struct loop_watch *w, int res)
{
	w->in_flight = false;
	if (!w->active)
		return;
	if (res == -EINTR || res == -EAGAIN) {
		arm(u, w);
		return;
	}
	if (w->readiness) {
		w->cb(w, NULL, res < 0 ? res : 1);
		if (w->active && res >= 0)
			arm(u, w);
		return;
	}
	if (res <= 0)
		w->active = false;
	w->cb(w, w->buf, res);
	/* The callback may have removed the watch. */
	if (w->active && res > 0 && !w->in_flight)
		arm(u, w);
}

static int defer(struct loop_uring *u, struct loop_watch *w, int res)
{
	if (u->n_deferred == u->cap_deferred) {
		size_t cap = u->cap_deferred ? u->cap_deferred * 2 : 16;
		struct deferred *d = realloc(u->deferred, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		u->deferred = d;
		u->cap_deferred = cap;
	}
	u->deferred[u->n_deferred++] = (struct deferred){ w, res };
	return 0;
}

/* Cancel w's operation and wait for its completion, so the caller may free
 * w and its buffer; other completions seen meanwhile are kept for later. */
static void uring_remove(struct loop *l, struct loop_watch *w)
{
	struct loop_uring *u = (struct loop_uring *)l;

	w->active = false;
	for (size_t i = 0; i < u->n_deferred; i++)
		if (u->deferred[i].w == w)
			u->deferred[i].w = NULL;
	if (!w->in_flight)
		return;
	struct io_uring_sqe *sqe = get_sqe(u);

	if (sqe) {
		io_uring_prep_cancel(sqe, w, 0);
		io_uring_sqe_set_data64(sqe, CANCEL_TAG);
	}
	io_uring_submit(&u->ring);
	while (w->in_flight) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(&u->ring, &cqe) < 0)
			break;
		uint64_t tag = io_uring_cqe_get_data64(cqe);
		struct loop_watch *other = io_uring_cqe_get_data(cqe);
		int res = cqe->res;

		io_uring_cqe_seen(&u->ring, cqe);
		if (tag == CANCEL_TAG)
			continue;
		if (other == w) {
			w->in_flight = false;
			continue;
		}
		other->in_flight = false;
		defer(u, other, res);
	}
}

static int uring_wait(struct loop *l, int timeout_ms)
{
	struct loop_uring *u = (struct loop_uring *)l;
	struct io_uring_cqe *cqe;
	int handled = 0, rc;

	/* First what loop_remove set aside. */
	while (u->n_deferred > 0) {
		struct deferred d = u->deferred[0];

		memmove(u->deferred, u->deferred + 1, (u->n_deferred - 1) * sizeof(*u->deferred));
		u->n_deferred--;
		if (d.w) {
			d.w->in_flight = true;
			dispatch(u, d.w, d.res);
			handled++;
		}
	}
	if (handled)
		return handled;

	if (timeout_ms < 0) {
		rc = io_uring_submit_and_wait(&u->ring, 1);
		if (rc < 0 && rc != -EINTR)
			return rc;
	} else {
		struct __kernel_timespec ts = {
			.tv_sec = timeout_ms / 1000,
			.tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
		};

		io_uring_submit(&u->ring);
		rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		if (rc == -ETIME || rc == -EINTR)
			return 0;
		if (rc < 0)
			return rc;
	}
	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		uint64_t tag = io_uring_cqe_get_data64(cqe);
		struct loop_watch *w = io_uring_cqe_get_data(cqe);
		int res = cqe->res;

		io_uring_cqe_seen(&u->ring, cqe);
		if (tag == CANCEL_TAG || !w)
			continue;
		dispatch(u, w, res);
		handled++;
	}
	io_uring_submit(&u->ring);
	return handled;
}

static void uring_free(struct loop *l)
{
	struct loop_uring *u = (struct loop_uring *)l;

	io_uring_queue_exit(&u->ring);
	free(u->deferred);
	free(u);
}

static const struct loop_ops uring_ops = {
	.add = uring_add,
	.remove = uring_remove,
	.wait = uring_wait,
	.free = uring_free,
	.name = "io_uring",
	.backend = LOOP_URING,
};

/* Every operation the loop submits, asked of the kernel: io_uring came in
 * 5.1, but IORING_OP_READ and the probe itself only in 5.6 (and a kernel
 * may be patched or restricted either way). Without them: poll. */
static bool has_our_opcodes(struct io_uring *ring)
{
	static const int ops[] = { IORING_OP_READ, IORING_OP_POLL_ADD, IORING_OP_ASYNC_CANCEL,
				   IORING_OP_TIMEOUT };
	size_t size = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
	struct io_uring_probe *p = calloc(1, size);
	bool ok = p && io_uring_register_probe(ring, p, 256) == 0;

	for (size_t i = 0; ok && i < sizeof(ops) / sizeof(ops[0]); i++)
		ok = io_uring_opcode_supported(p, ops[i]);
	free(p);
	return ok;
}

struct loop *loop_uring_new(int *err)
{
	struct loop_uring *u = calloc(1, sizeof(*u));
	int rc;

	if (!u) {
		*err = ENOMEM;
		return NULL;
	}
	rc = io_uring_queue_init(URING_ENTRIES, &u->ring, 0);
	if (rc < 0) {
		*err = -rc;
		free(u);
		return NULL;
	}
	if (!has_our_opcodes(&u->ring)) {
		io_uring_queue_exit(&u->ring);
		*err = EOPNOTSUPP;
		free(u);
		return NULL;
	}
	u->base.ops = &uring_ops;
	return &u->base;
}
