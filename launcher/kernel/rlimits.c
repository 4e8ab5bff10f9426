/* SPDX-License-Identifier: MIT */
/* The child's side of the per-run resource limits (see rlimits.h). Runs
 * between clone and exec: no allocation, no stdio, no locks. */
#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "inflight.h"
#include "rlimits.h"

int child_cgroup_join(const struct child_limits *lim, struct child_status *st)
{
	/* "0" names the writer. The permission check uses the credentials the
	 * file was opened with (the caller's, in the parent), not ours: we may
	 * already be in a new user namespace. */
	if (!lim->cgroup)
		return 0;
	if (write(lim->cgroup_procs_fd, "0", 1) != 1)
		return child_status_set(st, STAGE_LIMITS, errno, "join the run's cgroup", NULL);
	return 0;
}

/* Why hard too: the soft limit alone could be raised back by the command.
 * Why never raise: a caller who runs sbx under a lower limit meant it. */
static int lower(int resource, uint64_t want, const char *what, struct child_status *st)
{
	struct rlimit rl;

	if (want == 0)
		return 0;
	if (getrlimit(resource, &rl) < 0)
		return child_status_set(st, STAGE_LIMITS, errno, "getrlimit", what);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		want = rl.rlim_max;
	rl.rlim_max = (rlim_t)want;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > want)
		rl.rlim_cur = (rlim_t)want;
	if (setrlimit(resource, &rl) < 0)
		return child_status_set(st, STAGE_LIMITS, errno, "setrlimit", what);
	return 0;
}

int child_nproc_base(const struct child_limits *lim, uint64_t *base, struct child_status *st)
{
	uint64_t count;

	*base = 0;
	if (!lim->nproc_above_count)
		return 0;
	if (nproc_count(&count, st) < 0)
		return -1;
	/* This process is the run's, in its share like the helpers it starts. */
	*base = count ? count - 1 : 0;
	return 0;
}

int child_rlimits_apply(const struct child_limits *lim, uint64_t nproc_base, struct child_status *st)
{
	uint64_t nproc = lim->nproc_above_count ? nproc_base + lim->nproc_above_count : lim->nproc;

	if (lower(RLIMIT_NPROC, nproc, "RLIMIT_NPROC", st) < 0 ||
	    lower(RLIMIT_DATA, lim->data, "RLIMIT_DATA", st) < 0 ||
	    lower(RLIMIT_FSIZE, lim->fsize, "RLIMIT_FSIZE", st) < 0)
		return -1;
	int rc = inflight_room_restore(lim->nofile_soft);

	if (rc < 0)
		return child_status_set(st, STAGE_LIMITS, -rc, "setrlimit", "RLIMIT_NOFILE");
	return 0;
}
