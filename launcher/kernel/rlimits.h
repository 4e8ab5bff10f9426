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
int child_rlimits_apply(const struct child_limits *lim, struct child_status *st);

#endif
