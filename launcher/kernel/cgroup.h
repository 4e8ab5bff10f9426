/* SPDX-License-Identifier: MIT */
/* A cgroup of the run's own, where the caller may make one (docs/limits.md):
 *
 *   - cgroup v2, where the caller's cgroup is delegated to it (its directory,
 *     cgroup.procs and cgroup.subtree_control writable, with the pids and
 *     memory controllers available): pids.max and memory.max for the run;
 *   - else a cgroup v1 pids hierarchy whose cgroup of the caller is writable
 *     (a root caller on a v1 or hybrid host): pids.max only.
 *
 * Parent side: may allocate. The child only writes "0" to the fd it is
 * handed (rlimits.h). */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* v2 only: the leaf sbx moves itself into when it is alone in a delegated
 * cgroup (a cgroup with processes of its own cannot hand controllers down). */
#define CGROUP_SUPERVISOR_LEAF "sbx-supervisor"

/* How the v2 cgroup `dir` can hold run cgroups. */
enum cgroup_plan {
	CGROUP_PLAN_NONE = 0,
	CGROUP_PLAN_READY,   /* dir hands pids and memory down already */
	CGROUP_PLAN_ENABLE,  /* the hierarchy root: enable them in dir */
	CGROUP_PLAN_LEAF,    /* sbx is alone in dir: move into dir/sbx-supervisor, enable */
	CGROUP_PLAN_PARENT,  /* we sit in .../sbx-supervisor: runs go beside it */
};

struct cgroup_base {
	char dir[PATH_MAX];  /* where run cgroups are made */
	bool v2;             /* v2: pids.max and memory.max; v1: pids.max */
	bool memory;
};

struct cgroup_run {
	int dir_fd;          /* the run's cgroup directory, -1: none */
	int procs_fd;        /* its cgroup.procs (v2) or tasks (v1), O_WRONLY, for the child */
	char name[64];
	bool v2;
};

/* cgroup_parse.c, pure. Whether a list separated by blanks, commas or
 * newlines (cgroup.controllers, mount options) holds word. */
bool cgroup_has_word(const char *list, const char *word);
/* Pure: the cgroup path of this process from /proc/self/cgroup text, for
 * controller (v1) or the unified hierarchy (controller NULL: the "0::" line).
 * 0, or -ENOENT. */
int cgroup_parse_self(const char *proc_cgroup, const char *controller, char *out, size_t size);
/* Pure: the mount point of the cgroup2 file system (controller NULL) or of the
 * v1 hierarchy holding controller, from /proc/self/mountinfo text. 0, or
 * -ENOENT. */
int cgroup_parse_mount(const char *mountinfo, const char *controller, char *out, size_t size);

/* Reads only: can the v2 cgroup `dir` (our own; hierarchy_root when it is
 * the mount's root, where processes and controllers may mix) hold run
 * cgroups, and how? self: our pid, for "alone in it". Returns the plan, or
 * CGROUP_PLAN_NONE with the reason why not. */
enum cgroup_plan cgroup_v2_plan(const char *dir, bool hierarchy_root, pid_t self, char *reason,
				size_t reason_size);

/* Find and prepare where this process makes run cgroups (v2, else v1 pids).
 * Acts on the plan (may move this process into CGROUP_SUPERVISOR_LEAF). 0, or
 * -errno with the reason. */
int cgroup_base_find(struct cgroup_base *base, char *reason, size_t reason_size);
/* The same for a v2 cgroup given by path (tests, fake cgroupfs). */
int cgroup_base_from_v2(const char *dir, bool hierarchy_root, pid_t self, struct cgroup_base *base,
			char *reason, size_t reason_size);

/* A fresh cgroup for one run under base, with pids.max (0: none) and, on v2,
 * memory.max (0: none). Leftovers of runs whose sbx died are removed first. */
int cgroup_run_create(const struct cgroup_base *base, uint64_t pids_max, uint64_t memory_max,
		      struct cgroup_run *run, char *reason, size_t reason_size);
/* After the run: did a fork fail on pids.max, did the OOM killer act? */
void cgroup_run_events(const struct cgroup_run *run, bool *pids_hit, bool *oom_kill);
/* End whatever is left in it and remove it. */
void cgroup_run_destroy(struct cgroup_run *run, const struct cgroup_base *base);

#endif
