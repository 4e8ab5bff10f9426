/* SPDX-License-Identifier: MIT */
/* The child's side of the per-run resource limits: join the run's cgroup,
 * lower the rlimits. Allocation-free (clone(CLONE_VM) child). */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include "child.h"

/* Move the calling process into the run's cgroup (lim->cgroup), first thing
 * after clone, so every process the run makes is counted there. 0, or -1
 * with st filled (STAGE_LIMITS). */
int child_cgroup_join(const struct child_limits *lim, struct child_status *st);

/* Lower RLIMIT_NPROC, RLIMIT_DATA and RLIMIT_FSIZE (soft and hard) to the
 * values asked for, never raising what the caller had, and put the caller's
 * soft RLIMIT_NOFILE back. 0, or -1 with st filled (STAGE_LIMITS). */
int child_rlimits_apply(const struct child_limits *lim, uint64_t nproc_base,
			struct child_status *st);

/* Child, first thing after the cgroup: where lim->nproc_above_count asks
 * for it, the caller's tasks other than this one (nproc_count), the base
 * child_rlimits_apply adds the run's share to; else 0. 0 or -1 with st. */
int child_nproc_base(const struct child_limits *lim, uint64_t *base, struct child_status *st);

/* nproc_count.c: how many tasks the calling user has, as RLIMIT_NPROC
 * counts them (in this user namespace), from fork's own check (no walk of
 * /proc). 0; 1 where the kernel does not let it be asked (then *count is the
 * host's task count, an upper bound); or -1 with st filled (STAGE_LIMITS).
 * Leaves the soft RLIMIT_NPROC as it found it. */
int nproc_count(uint64_t *count, struct child_status *st);

#endif
