/* SPDX-License-Identifier: MIT */
/* The event loop a run (or a whole `serve`) is driven by: io_uring where the
 * kernel allows it, poll(2) where it is compiled out or refused, with the same
 * callbacks either way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

static char uring_reason[128];

const char *loop_uring_unavailable_reason(void)
{
	return uring_reason;
}

struct loop *loop_new(bool prefer_poll)
{
#ifdef CONFIG_IO_URING
	if (!prefer_poll) {
		int err = 0;
		struct loop *l = loop_uring_new(&err);

		if (l)
			return l;
		/* EPERM/ENOSYS: container profiles and kernel.io_uring_disabled. */
		if (err == EOPNOTSUPP)
			snprintf(uring_reason, sizeof(uring_reason),
				 "io_uring lacks the operations sbx uses (read and the opcode "
				 "probe need a 5.6 kernel)");
		else
			snprintf(uring_reason, sizeof(uring_reason), "io_uring_setup: %s",
				 strerror(err));
	} else {
		snprintf(uring_reason, sizeof(uring_reason), "poll collector requested");
	}
#else
	(void)prefer_poll;
	snprintf(uring_reason, sizeof(uring_reason), "built without io_uring (CONFIG_IO_URING=n)");
#endif
	return loop_poll_new();
}

/* Which collector a run of this kind gets. Measured here (docs/performance.md):
 * for one command (sbx run, sbx_run_execute) poll(2) is cheaper to set up
 * and tear down (io_uring's ring costs ~0.05-0.2 ms) and no slower with
 * 256 MiB of output; a long-lived serve keeps one ring for all its runs.
 * SBX_COLLECTOR=io_uring|poll picks one for both (to compare them). */
bool loop_prefer_poll(bool one_shot)
{
	const char *want = getenv("SBX_COLLECTOR");

	if (want && strcmp(want, "io_uring") == 0)
		return false;
	if (want && strcmp(want, "poll") == 0)
		return true;
	return one_shot;
}

/* Why refuse: a comparison run with a misspelt collector measured the
 * default in silence. Unset or empty is the default. */
int loop_collector_check(struct sbx_error *err)
{
	const char *want = getenv("SBX_COLLECTOR");

	if (!want || !want[0] || strcmp(want, "io_uring") == 0 || strcmp(want, "poll") == 0)
		return 0;
	return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL,
			     "SBX_COLLECTOR: bad value '%.64s' (expected io_uring or poll, or unset "
			     "for the default)",
			     want);
}

enum loop_backend loop_backend_of(const struct loop *l)
{
	return l->ops->backend;
}

const char *loop_backend_name(const struct loop *l)
{
	return l->ops->name;
}

int loop_add(struct loop *l, struct loop_watch *w)
{
	return l->ops->add(l, w);
}

void loop_remove(struct loop *l, struct loop_watch *w)
{
	l->ops->remove(l, w);
}

int loop_wait(struct loop *l, int timeout_ms)
{
	return l->ops->wait(l, timeout_ms);
}

void loop_free(struct loop *l)
{
	if (l)
		l->ops->free(l);
}
