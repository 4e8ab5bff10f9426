/* SPDX-License-Identifier: MIT */
/* One run's resource limits (docs/limits.md): sbx's defaults for this
 * machine, what each runner can enforce, the run's cgroup where the caller
 * has one to give, and what the result says about them. */
#ifndef SBX_RUN_LIMITS_H
#define SBX_RUN_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cgroup.h"
#include "child.h"
#include "sbx.h"

/* Defaults, for a host that runs up to `concurrent` runs at once (serve's
 * max_background + one foreground call). */
#define LIMITS_PROCESSES_MIN 256
#define LIMITS_PROCESSES_MAX 4096
#define LIMITS_TMP_MIN (64ULL << 20)
#define LIMITS_TMP_MAX (1ULL << 30)
#define LIMITS_TMP_BYTES_PER_INODE (16ULL << 10)
#define LIMITS_TMP_INODES_MIN 1024ULL

struct sbx_run;

/* What one run is held to; 0: not enforced in this run. */
struct limits_report {
	uint64_t processes;
	uint64_t memory;
	uint64_t file_size;
	uint64_t tmp_size;         /* the namespace runner's private tmpfs mounts */
	bool cgroup;               /* processes (and memory, on v2) by the run's cgroup */
	const char *hit;           /* "processes", "memory", "file_size", or NULL */
};

struct run_limits {
	uint64_t want_processes;   /* resolved: the asked or default number */
	uint64_t want_memory;      /* 0: none */
	uint64_t want_file_size;   /* 0: none */
	bool memory_by_cgroup;
	bool cgroup_active;
	struct cgroup_run cg;
	char tmpfs_opts[96];
	struct limits_report report;
};

/* Pure: the defaults. host_tasks = min(pid_max, threads-max); mem_total in
 * bytes; concurrent = how many runs may be alive at once. */
uint64_t limits_default_processes(uint64_t host_tasks, unsigned concurrent);
uint64_t limits_default_tmp_size(uint64_t mem_total, unsigned concurrent);
/* The inodes a private tmpfs of tmp_size bytes may hold (docs/limits.md). */
uint64_t limits_tmp_inodes(uint64_t tmp_size);
uint64_t limits_default_cgroup_memory(uint64_t mem_total);

/* Parent, before spawn: resolve the limits, make the run's cgroup where one
 * can be had, and fill spec->limits and spec->tmpfs_opts (RLIMIT_NPROC waits
 * for run_limits_for_clone). Never fails the run: a limit that cannot be
 * enforced is reported as such. */
void run_limits_prepare(struct run_limits *l, const struct sbx_run *cfg, struct child_spec *spec);
/* Parent, right before clone with these flags: RLIMIT_NPROC counts per user
 * namespace (5.14+), so in a new one it is the run's own count; outside one
 * it counts every process of the caller's uid, and uid 0 is exempt either
 * way (the kernel checks the user, not the namespace). */
void run_limits_for_clone(struct run_limits *l, struct child_spec *spec, int clone_flags);
/* Parent, after the run: which limit ended it (if any). */
void run_limits_finish(struct run_limits *l, bool exited, int exit_code, int sig,
		       const char *err_text, size_t err_len);
/* Removes the run's cgroup (unless it was handed to the reaper). */
void run_limits_discard(struct run_limits *l);
/* Remove a run's cgroup once its last member is gone (reap.c). */
void run_limits_destroy_cgroup(struct cgroup_run *cg);
/* For sbx probe: the run cgroup sbx would use (or why none), the defaults,
 * and whether RLIMIT_NPROC can hold this caller (not root). */
json_t *run_limits_probe_json(unsigned max_background);

/* limit_hit.c, pure: which enforced limit a failed run ran into, from the
 * cgroup's events, the signal and the command's stderr; NULL if none. */
const char *limit_hit(const struct limits_report *r, bool exited, int exit_code, int sig,
		      bool pids_event, bool oom_event, const char *err_text, size_t err_len);
/* The line the model is shown for a hit ("[sandbox: ...]"), into buf. */
void limit_hit_marker(const struct limits_report *r, char *buf, size_t size);

#endif
