/* SPDX-License-Identifier: MIT */
/* One run's resource limits: defaults, the run's cgroup, RLIMIT_NPROC per
 * runner, and the report (see run_limits.h, docs/limits.md). */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "launcher.h"
#include "policy.h"
#include "inflight.h"
#include "run_limits.h"

/* ---- defaults ---- */

/* Half of the host's task space, shared by the runs that may be alive at
 * once, within [256, 4096]: a fork bomb in every one of serve's runs still
 * leaves the host half its pids, and no build or test suite we measured
 * comes near 256 tasks on a small machine (threads count: RLIMIT_NPROC and
 * pids.max count tasks). */
uint64_t limits_default_processes(uint64_t host_tasks, unsigned concurrent)
{
	uint64_t n = host_tasks / (2 * (uint64_t)(concurrent ? concurrent : 1));

	if (n < LIMITS_PROCESSES_MIN)
		n = LIMITS_PROCESSES_MIN;
	if (n > LIMITS_PROCESSES_MAX)
		n = LIMITS_PROCESSES_MAX;
	return n;
}

/* The private /tmp (and /dev/shm) live in memory until the run's mount
 * namespace goes: half of RAM shared by the runs alive at once, within
 * [64 MiB, 1 GiB] (1 GiB was the fixed size before). */
uint64_t limits_default_tmp_size(uint64_t mem_total, unsigned concurrent)
{
	uint64_t n = mem_total / (2 * (uint64_t)(concurrent ? concurrent : 1));

	if (n < LIMITS_TMP_MIN)
		n = LIMITS_TMP_MIN;
	if (n > LIMITS_TMP_MAX)
		n = LIMITS_TMP_MAX;
	return n;
}

/* A tmpfs file pins kernel memory its size= does not count: its inode and
 * dentry, about 1.1 KiB of slab (measured here: 100,000 empty files, +105
 * MiB, 81 MiB of it unreclaimable), for as long as the mount lives. Without
 * a bound, a read-only run made 700,000 empty files in its /dev/shm of 64
 * MiB and pinned about 0.5 GiB. One inode per 16 KiB of tmp_size keeps that
 * memory under a tenth of tmp_size (64 MiB: 4,096 files; 1 GiB: 65,536),
 * never fewer than 1,024. */
uint64_t limits_tmp_inodes(uint64_t tmp_size)
{
	uint64_t n = tmp_size / LIMITS_TMP_BYTES_PER_INODE;

	return n < LIMITS_TMP_INODES_MIN ? LIMITS_TMP_INODES_MIN : n;
}

/* Three quarters of RAM: a run that needs more would drive the whole host
 * into reclaim and the OOM killer anyway; with this cap the kill lands in the
 * run, not in the agent or the user's editor. */
uint64_t limits_default_cgroup_memory(uint64_t mem_total)
{
	return mem_total / 4 * 3;
}

/* ---- the machine, read once per process ---- */

static uint64_t read_number(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

static uint64_t host_tasks(void)
{
	static uint64_t cached;

	if (!cached) {
		uint64_t pid_max = read_number("/proc/sys/kernel/pid_max");
		uint64_t threads_max = read_number("/proc/sys/kernel/threads-max");

		cached = pid_max ? pid_max : 32768;
		if (threads_max && threads_max < cached)
			cached = threads_max;
	}
	return cached;
}

static uint64_t mem_total(void)
{
	static uint64_t cached;
	struct sysinfo si;

	if (!cached && sysinfo(&si) == 0)
		cached = (uint64_t)si.totalram * si.mem_unit;
	return cached ? cached : 1ULL << 30;
}

/* Where this process makes run cgroups, found once: the answer (and the
 * reason there is none) does not change while sbx lives. */
static struct {
	struct cgroup_base base;
	int state; /* 0: not looked, 1: found, -1: none */
	char reason[512];
} cg;

static const struct cgroup_base *cgroup_base(void)
{
	if (cg.state == 0)
		cg.state = cgroup_base_find(&cg.base, cg.reason, sizeof(cg.reason)) == 0 ? 1 : -1;
	return cg.state > 0 ? &cg.base : NULL;
}

json_t *run_limits_probe_json(unsigned max_background)
{
	const struct cgroup_base *base = cgroup_base();
	unsigned concurrent = (max_background ? max_background : POLICY_DEFAULT_MAX_BACKGROUND) + 1;
	json_t *c = base ? json_pack("{s:s, s:s, s:b}", "dir", base->dir, "version",
				     base->v2 ? "v2" : "v1", "memory", base->memory)
			 : json_null();

	/* Why not v2 (also when v1 pids stands in). */
	return json_pack("{s:o, s:s*, s:I, s:I, s:b}", "cgroup", c, "cgroup_reason",
			 base && base->v2 ? NULL : cg.reason, "default_max_processes",
			 (json_int_t)limits_default_processes(host_tasks(), concurrent),
			 "default_tmp_size", (json_int_t)limits_default_tmp_size(mem_total(), concurrent),
			 "rlimit_nproc_holds_caller", getuid() != 0);
}

/* Tasks (threads included, as RLIMIT_NPROC counts them) whose real uid is
 * uid, from /proc/PID/status. A stat of /proc/PID (its owner) skips the
 * others first, at a tenth of the cost; what that misses (a setuid or
 * non-dumpable process of the caller's, shown as another owner) only makes
 * the run's share smaller, never larger. */
static uint64_t count_user_tasks(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint64_t total = 0;
	char buf[4096], name[300];
	struct stat st;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *u, *t;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) < 0 || st.st_uid != uid)
			continue;
		snprintf(name, sizeof(name), "%s/status", e->d_name);
		fd = openat(dirfd(d), name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		u = strstr(buf, "\nUid:\t");
		t = strstr(buf, "\nThreads:\t");
		if (u && t && strtoul(u + 6, NULL, 10) == uid)
			total += strtoull(t + 10, NULL, 10);
	}
	closedir(d);
	return total;
}

/* ---- one run ---- */

static uint64_t asked(uint64_t v)
{
	return v == SBX_LIMIT_OFF ? 0 : v;
}

void run_limits_prepare(struct run_limits *l, const struct sbx_run *cfg, struct child_spec *spec)
{
	unsigned concurrent = (cfg->concurrent_runs ? cfg->concurrent_runs : POLICY_DEFAULT_MAX_BACKGROUND) + 1;
	const struct cgroup_base *base = cgroup_base();
	uint64_t tmp = cfg->tmp_size ? cfg->tmp_size : limits_default_tmp_size(mem_total(), concurrent);
	char reason[256];

	memset(l, 0, sizeof(*l));
	l->cg.dir_fd = l->cg.procs_fd = -1;
	l->want_processes = cfg->max_processes ? cfg->max_processes
					       : limits_default_processes(host_tasks(), concurrent);
	l->want_memory = asked(cfg->memory_limit);
	l->want_file_size = asked(cfg->file_size_limit);

	if (base) {
		uint64_t mem = 0;

		if (base->memory)
			mem = cfg->memory_limit == SBX_LIMIT_DEFAULT ? limits_default_cgroup_memory(mem_total())
								     : l->want_memory;
		if (cgroup_run_create(base, l->want_processes, mem, &l->cg, reason, sizeof(reason)) == 0) {
			l->cgroup_active = true;
			l->memory_by_cgroup = base->memory;
			l->report.cgroup = true;
			l->report.memory = mem;
			spec->limits.cgroup = true;
			spec->limits.cgroup_procs_fd = l->cg.procs_fd;
		}
	}
	/* Without a v2 cgroup, memory is per process: RLIMIT_DATA (private
	 * writable mappings). Not RLIMIT_AS: address space that runtimes only
	 * reserve (V8, the JVM, sanitizers) counts there, and they fail to
	 * start under any useful value. Only when asked: no default is safe
	 * for every tool (docs/limits.md). */
	if (!l->memory_by_cgroup && l->want_memory) {
		spec->limits.data = l->want_memory;
		l->report.memory = l->want_memory;
	}
	spec->limits.fsize = l->want_file_size;
	l->report.file_size = l->want_file_size;
	snprintf(l->tmpfs_opts, sizeof(l->tmpfs_opts), "mode=1777,size=%llu,nr_inodes=%llu",
		 (unsigned long long)tmp, (unsigned long long)limits_tmp_inodes(tmp));
	spec->tmpfs_opts = l->tmpfs_opts;
	l->report.tmp_size = tmp;
}

void run_limits_for_clone(struct run_limits *l, struct child_spec *spec, int clone_flags)
{
	bool new_userns = (clone_flags & CLONE_NEWUSER) != 0;

	spec->limits.nproc = 0;
	spec->limits.nofile_soft = inflight_room_caller_soft();
	l->report.processes = l->cgroup_active ? l->want_processes : 0;
	/* uid 0 is exempt from RLIMIT_NPROC in every user namespace (fork.c
	 * checks real_cred->user != INIT_USER, and a root caller's user stays
	 * the init namespace's root): only a cgroup holds it. */
	if (spec->uid == 0)
		return;
	if (new_userns) {
		spec->limits.nproc = l->want_processes;
	} else if (!l->cgroup_active) {
		/* Counted over every task of the caller's uid on the host: the
		 * run gets what is left of its count now plus the limit. The
		 * caller's other processes are not held by it (the rlimit
		 * is checked against the forking task's own limit), but their
		 * growth during the run eats into the run's share. */
		spec->limits.nproc = count_user_tasks(spec->uid) + l->want_processes;
	}
	if (spec->limits.nproc)
		l->report.processes = l->want_processes;
}

void run_limits_finish(struct run_limits *l, bool exited, int exit_code, int sig,
		       const char *err_text, size_t err_len)
{
	bool pids_event = false, oom_event = false;

	if (l->cgroup_active)
		cgroup_run_events(&l->cg, &pids_event, &oom_event);
	l->report.hit = limit_hit(&l->report, exited, exit_code, sig, pids_event, oom_event, err_text,
				  err_len);
}

void run_limits_destroy_cgroup(struct cgroup_run *run_cg)
{
	const struct cgroup_base *base = cgroup_base();

	if (base)
		cgroup_run_destroy(run_cg, base);
}

void run_limits_discard(struct run_limits *l)
{
	const struct cgroup_base *base = cgroup_base();

	if (l->cgroup_active && base)
		cgroup_run_destroy(&l->cg, base);
	l->cgroup_active = false;
}
