/* SPDX-License-Identifier: MIT */
/* A cgroup of the run's own (see cgroup.h). Parent side. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

#define RUN_PREFIX "sbx-run-"
#define RMDIR_TRIES 50 /* 2 ms apart: the run's last processes are being reaped */

/* ---- small file helpers ---- */

static ssize_t read_at(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total + 1 < size) {
		n = read(fd, buf + total, size - 1 - (size_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static int write_at(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

static ssize_t read_path(const char *path, char *buf, size_t size)
{
	return read_at(AT_FDCWD, path, buf, size);
}

/* The number after "key " in a flat-keyed file (pids.events, memory.events). */
static unsigned long long keyed_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p;) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static bool writable(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "") >=
	    (int)sizeof(path))
		return false;
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

/* ---- where run cgroups can be made ---- */

static bool hands_down_pids_and_memory(const char *dir)
{
	char buf[512];
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read_at(fd, "cgroup.subtree_control", buf, sizeof(buf));
	close(fd);
	return n >= 0 && cgroup_has_word(buf, "pids") && cgroup_has_word(buf, "memory");
}

static bool delegated(const char *dir)
{
	return writable(dir, NULL) && writable(dir, "cgroup.procs") &&
	       writable(dir, "cgroup.subtree_control");
}

/* Every pid in cgroup.procs is ours. */
static bool alone_in(int dirfd, pid_t self)
{
	char buf[4096];
	ssize_t n = read_at(dirfd, "cgroup.procs", buf, sizeof(buf));

	if (n < 0 || (size_t)n + 1 >= sizeof(buf))
		return false;
	for (char *p = buf; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			return false;
		if (pid != self)
			return false;
		p = end;
		while (*p == '\n' || *p == ' ')
			p++;
	}
	return true;
}

static void parent_of(const char *dir, char *out, size_t size)
{
	const char *slash = strrchr(dir, '/');
	size_t len = slash && slash != dir ? (size_t)(slash - dir) : 1;

	if (len >= size)
		len = size - 1;
	memcpy(out, dir, len);
	out[len] = '\0';
}

enum cgroup_plan cgroup_v2_plan(const char *dir, bool hierarchy_root, pid_t self, char *reason,
				size_t reason_size)
{
	const char *base = strrchr(dir, '/');
	char buf[512], parent[PATH_MAX];
	int fd;
	ssize_t n;
	enum cgroup_plan plan = CGROUP_PLAN_NONE;

	reason[0] = '\0';
	/* An sbx before us (or this one) moved into its leaf: runs go beside it. */
	if (base && strcmp(base + 1, CGROUP_SUPERVISOR_LEAF) == 0) {
		parent_of(dir, parent, sizeof(parent));
		if (hands_down_pids_and_memory(parent) && delegated(parent))
			return CGROUP_PLAN_PARENT;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(reason, reason_size, "%s: %s", dir, strerror(errno));
		return CGROUP_PLAN_NONE;
	}
	n = read_at(fd, "cgroup.controllers", buf, sizeof(buf));
	if (n < 0 || !cgroup_has_word(buf, "pids") || !cgroup_has_word(buf, "memory")) {
		if (n > 0 && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		snprintf(reason, reason_size,
			 "the pids and memory controllers are not available in %s (it has: %s)", dir,
			 n < 0 ? strerror((int)-n) : buf[0] ? buf : "none");
	} else if (!delegated(dir)) {
		snprintf(reason, reason_size,
			 "%s is not delegated to this user (its cgroup.procs and "
			 "cgroup.subtree_control are not writable)", dir);
	} else if (hands_down_pids_and_memory(dir)) {
		plan = CGROUP_PLAN_READY;
	} else if (hierarchy_root) {
		plan = CGROUP_PLAN_ENABLE;
	} else if (alone_in(fd, self)) {
		plan = CGROUP_PLAN_LEAF;
	} else {
		/* cgroup v2: a cgroup with processes of its own cannot hand
		 * pids and memory down, and moving the caller's other
		 * processes is not ours to do. */
		snprintf(reason, reason_size,
			 "other processes share the delegated cgroup %s; start sbx in a cgroup of its "
			 "own (e.g. systemd-run --user --scope -p Delegate=yes sbx ...)", dir);
	}
	close(fd);
	return plan;
}

/* Move ourselves into dir/CGROUP_SUPERVISOR_LEAF, then hand the controllers
 * down; undo the move if that fails. */
static int enter_leaf(int dirfd, char *reason, size_t reason_size, const char *dir)
{
	int rc;

	if (mkdirat(dirfd, CGROUP_SUPERVISOR_LEAF, 0755) < 0 && errno != EEXIST)
		rc = -errno;
	else
		rc = write_at(dirfd, CGROUP_SUPERVISOR_LEAF "/cgroup.procs", "0");
	if (rc == 0) {
		rc = write_at(dirfd, "cgroup.subtree_control", "+pids +memory");
		if (rc < 0) {
			write_at(dirfd, "cgroup.procs", "0");
			unlinkat(dirfd, CGROUP_SUPERVISOR_LEAF, AT_REMOVEDIR);
		}
	}
	if (rc < 0)
		snprintf(reason, reason_size, "unable to move into %s/%s: %s", dir,
			 CGROUP_SUPERVISOR_LEAF, strerror(-rc));
	return rc;
}

/* Runs of an sbx that died (SIGKILL) left their empty cgroups behind. */
static void remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;

		if (strncmp(e->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(RUN_PREFIX), NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

int cgroup_base_from_v2(const char *dir, bool hierarchy_root, pid_t self, struct cgroup_base *base,
			char *reason, size_t reason_size)
{
	enum cgroup_plan plan = cgroup_v2_plan(dir, hierarchy_root, self, reason, reason_size);
	int fd, rc = 0;

	memset(base, 0, sizeof(*base));
	if (plan == CGROUP_PLAN_NONE)
		return -EPERM;
	if (plan == CGROUP_PLAN_PARENT) {
		parent_of(dir, base->dir, sizeof(base->dir));
	} else {
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (plan == CGROUP_PLAN_ENABLE) {
			rc = write_at(fd, "cgroup.subtree_control", "+pids +memory");
			if (rc < 0)
				snprintf(reason, reason_size, "unable to enable pids and memory in %s: %s",
					 dir, strerror(-rc));
		} else if (plan == CGROUP_PLAN_LEAF) {
			rc = enter_leaf(fd, reason, reason_size, dir);
		}
		close(fd);
		if (rc < 0)
			return rc;
		snprintf(base->dir, sizeof(base->dir), "%s", dir);
	}
	base->v2 = true;
	base->memory = true;
	remove_stale(base->dir);
	return 0;
}

static int join_path(char *out, size_t size, const char *mnt, const char *path)
{
	return snprintf(out, size, "%s%s", mnt, strcmp(path, "/") == 0 ? "" : path) < (int)size
		       ? 0 : -ENAMETOOLONG;
}

static int base_v1_pids(const char *mountinfo, const char *self, struct cgroup_base *base,
			char *reason, size_t reason_size)
{
	char mnt[PATH_MAX], path[PATH_MAX];

	if (cgroup_parse_mount(mountinfo, "pids", mnt, sizeof(mnt)) < 0 ||
	    cgroup_parse_self(self, "pids", path, sizeof(path)) < 0) {
		snprintf(reason, reason_size, "no cgroup v1 pids hierarchy");
		return -ENOENT;
	}
	if (join_path(base->dir, sizeof(base->dir), mnt, path) < 0)
		return -ENAMETOOLONG;
	if (!writable(base->dir, NULL) || !writable(base->dir, "cgroup.procs")) {
		snprintf(reason, reason_size, "cgroup v1 pids: %s is not writable", base->dir);
		return -EPERM;
	}
	base->v2 = false;
	base->memory = false;
	remove_stale(base->dir);
	return 0;
}

int cgroup_base_find(struct cgroup_base *base, char *reason, size_t reason_size)
{
	static char mountinfo[65536];
	char self[4096], mnt[PATH_MAX], path[PATH_MAX], dir[PATH_MAX], why2[PATH_MAX + 64];
	int rc = -ENOENT;

	memset(base, 0, sizeof(*base));
	reason[0] = '\0';
	if (read_path("/proc/self/mountinfo", mountinfo, sizeof(mountinfo)) < 0 ||
	    read_path("/proc/self/cgroup", self, sizeof(self)) < 0) {
		snprintf(reason, reason_size, "cannot read /proc/self/mountinfo or /proc/self/cgroup");
		return -ENOENT;
	}
	if (cgroup_parse_mount(mountinfo, NULL, mnt, sizeof(mnt)) == 0 &&
	    cgroup_parse_self(self, NULL, path, sizeof(path)) == 0 &&
	    join_path(dir, sizeof(dir), mnt, path) == 0) {
		rc = cgroup_base_from_v2(dir, strcmp(path, "/") == 0, getpid(), base, reason,
					 reason_size);
		if (rc == 0)
			return 0;
	} else {
		snprintf(reason, reason_size, "no cgroup v2 hierarchy");
	}
	rc = base_v1_pids(mountinfo, self, base, why2, sizeof(why2));
	if (rc == 0)
		return 0;
	size_t len = strlen(reason);
	snprintf(reason + len, reason_size - len, "; %s", why2);
	return rc;
}

/* ---- one run's cgroup ---- */

static int write_number(int dirfd, const char *name, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	return write_at(dirfd, name, num);
}

int cgroup_run_create(const struct cgroup_base *base, uint64_t pids_max, uint64_t memory_max,
		      struct cgroup_run *run, char *reason, size_t reason_size)
{
	static unsigned seq;
	int basefd, rc = 0;

	run->dir_fd = run->procs_fd = -1;
	run->v2 = base->v2;
	snprintf(run->name, sizeof(run->name), RUN_PREFIX "%ld-%u", (long)getpid(),
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	basefd = open(base->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0 || mkdirat(basefd, run->name, 0755) < 0) {
		rc = -errno;
		snprintf(reason, reason_size, "mkdir %s/%s: %s", base->dir, run->name, strerror(errno));
		if (basefd >= 0)
			close(basefd);
		return rc;
	}
	run->dir_fd = openat(basefd, run->name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	close(basefd);
	if (run->dir_fd < 0)
		rc = -errno;
	if (rc == 0 && pids_max)
		rc = write_number(run->dir_fd, "pids.max", pids_max);
	if (rc == 0 && memory_max && base->v2 && base->memory)
		rc = write_number(run->dir_fd, "memory.max", memory_max);
	if (rc == 0) {
		/* v1: the joiner (a fresh, single-threaded child) writes itself
		 * into `tasks`, which moves one thread without taking the
		 * threadgroup lock for writing; cgroup.procs does, and that
		 * waits an RCU grace period (milliseconds on a loaded host),
		 * on every run's critical path. One thread is the whole
		 * process here. v2 has no such file outside threaded mode. */
		run->procs_fd = openat(run->dir_fd, run->v2 ? "cgroup.procs" : "tasks",
				       O_WRONLY | O_CLOEXEC);
		if (run->procs_fd < 0)
			rc = -errno;
	}
	if (rc < 0) {
		snprintf(reason, reason_size, "set up %s/%s: %s", base->dir, run->name, strerror(-rc));
		cgroup_run_destroy(run, base);
	}
	return rc;
}

void cgroup_run_events(const struct cgroup_run *run, bool *pids_hit, bool *oom_kill)
{
	char buf[1024];

	*pids_hit = *oom_kill = false;
	if (run->dir_fd < 0)
		return;
	if (read_at(run->dir_fd, "pids.events", buf, sizeof(buf)) > 0)
		*pids_hit = keyed_value(buf, "max") > 0;
	if (run->v2 && read_at(run->dir_fd, "memory.events", buf, sizeof(buf)) > 0)
		*oom_kill = keyed_value(buf, "oom_kill") > 0;
}

/* Anything still in it (the tree walk and the dead-man switch came first,
 * so usually nothing) is killed: cgroup.kill (5.14+) at once, else each pid. */
static void kill_members(int dirfd)
{
	char buf[8192];

	if (write_at(dirfd, "cgroup.kill", "1") == 0)
		return;
	if (read_at(dirfd, "cgroup.procs", buf, sizeof(buf)) <= 0)
		return;
	for (char *p = buf; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		p = end;
		while (*p == '\n')
			p++;
	}
}

void cgroup_run_destroy(struct cgroup_run *run, const struct cgroup_base *base)
{
	struct timespec pause = { .tv_nsec = 2 * 1000 * 1000 };
	int basefd;

	if (run->procs_fd >= 0)
		close(run->procs_fd);
	run->procs_fd = -1;
	if (run->dir_fd < 0)
		return;
	kill_members(run->dir_fd);
	close(run->dir_fd);
	run->dir_fd = -1;
	basefd = open(base->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0)
		return;
	for (int i = 0; i < RMDIR_TRIES; i++) {
		if (unlinkat(basefd, run->name, AT_REMOVEDIR) == 0 || errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	close(basefd);
}
