/* SPDX-License-Identifier: MIT */
/* The run owns its whole process tree. In a process that opted in
 * (sbx_process_opt_in: sbx run, serve, mcp) sbx is a child subreaper, and so
 * is the command's bash (set in the child, kept across execve): while bash
 * lives, every orphan of the run (double-forked, setsid'd) is re-parented to
 * bash; when bash exits they all become our children at once. So "our
 * children that are not a live run's bash" is exactly what the finished runs
 * left behind, and the tree below any pid is read from
 * /proc/PID/task/TID/children. Without the opt-in no walk of our children
 * is made: a run's keeper or init does it below itself (keeper.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

#define TREE_MAX 4096
#define TREE_KEEP_MAX 1024

struct pidset {
	pid_t *pids;
	size_t n, cap;
};

static bool pidset_has(const struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->pids[i] == pid)
			return true;
	return false;
}

static void pidset_add(struct pidset *s, pid_t pid)
{
	if (pidset_has(s, pid) || s->n >= TREE_MAX)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		pid_t *p = realloc(s->pids, cap * sizeof(*p));

		if (!p)
			return;
		s->pids = p;
		s->cap = cap;
	}
	s->pids[s->n++] = pid;
}

/* serve's spawner thread: its children are the runs' own first processes
 * (bash, or a PID namespace's init), each listed as live once its spawn is
 * over, never a leftover; orphans come to the main thread. */
static pid_t spawner_tid;

void tree_spawner_is(pid_t tid)
{
	__atomic_store_n(&spawner_tid, tid, __ATOMIC_RELEASE);
}

/* The scope threads spawning runs now (tree_spawner_add), under their lock. */
static pid_t *scope_tids;
static size_t n_scope_tids, cap_scope_tids;
static pthread_mutex_t scope_lock = PTHREAD_MUTEX_INITIALIZER;

void tree_spawner_add(pid_t tid)
{
	pthread_mutex_lock(&scope_lock);
	if (n_scope_tids == cap_scope_tids) {
		size_t cap = cap_scope_tids ? 2 * cap_scope_tids : 16;
		pid_t *grown = realloc(scope_tids, cap * sizeof(*grown));

		if (grown) {
			scope_tids = grown;
			cap_scope_tids = cap;
		}
	}
	/* No room: its children are walked as any thread's, and a run being
	 * started there is protected by the gate alone (tree_spawn_begin). */
	if (n_scope_tids < cap_scope_tids)
		scope_tids[n_scope_tids++] = tid;
	pthread_mutex_unlock(&scope_lock);
}

void tree_spawner_remove(pid_t tid)
{
	pthread_mutex_lock(&scope_lock);
	for (size_t i = 0; i < n_scope_tids; i++)
		if (scope_tids[i] == tid) {
			scope_tids[i] = scope_tids[--n_scope_tids];
			break;
		}
	pthread_mutex_unlock(&scope_lock);
}

static bool is_scope_tid(pid_t tid)
{
	bool found = false;

	pthread_mutex_lock(&scope_lock);
	for (size_t i = 0; i < n_scope_tids && !found; i++)
		found = scope_tids[i] == tid;
	pthread_mutex_unlock(&scope_lock);
	return found;
}

static bool on_spawner(void)
{
	pid_t t = __atomic_load_n(&spawner_tid, __ATOMIC_ACQUIRE);

	return t && t == (pid_t)syscall(SYS_gettid);
}

/* Runs started on any other thread (a library caller's, several at once):
 * from its first fork until its processes are listed live (run.c), a run
 * being started has children of ours that no list names, and a walk took
 * them for leftovers. It killed the command mid-setup (SIGKILL in about one
 * run in ten, two threads running `true`), or the helper that hands over
 * the supervisor's listener, and the run then waited for good for a status
 * pipe that helper still held (library::runs_on_several_threads_...). So
 * starts hold the gate shared, and a walk's look-and-kill holds it alone;
 * writers first, so a stream of starts cannot keep a walk out. */
static pthread_rwlock_t spawn_gate = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;

/* Why: a fork(2) of the caller (a harness's worker process) gets the gate as
 * it was, held by threads it does not have, and its first run's end waited
 * for them for good (library::a_fork_taken_while_runs_start_...). Its
 * children are none of the starts the gate stood for: it starts open. */
static void gate_open_in_fork(void)
{
	static const pthread_rwlock_t open_gate = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

	memcpy(&spawn_gate, &open_gate, sizeof(spawn_gate));
}

static void gate_once_init(void)
{
	(void)pthread_atfork(NULL, NULL, gate_open_in_fork);
}

bool tree_spawn_begin(void)
{
	/* Before any start can hold the gate (walks follow starts). */
	pthread_once(&gate_once, gate_once_init);
	/* serve's spawner's children are passed by already: its starts need
	 * not hold up the loop's walks. */
	if (on_spawner())
		return false;
	pthread_rwlock_rdlock(&spawn_gate);
	return true;
}

void tree_spawn_end(bool held)
{
	if (held)
		pthread_rwlock_unlock(&spawn_gate);
}

/* Append the direct children of every thread of pid. */
static void children_of(pid_t pid, struct pidset *out)
{
	pid_t skip = pid == getpid() ? __atomic_load_n(&spawner_tid, __ATOMIC_ACQUIRE) : 0;

	char path[64], buf[4096];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char cpath[320];
		int fd;
		ssize_t n;

		if (de->d_name[0] == '.' || (skip && atoi(de->d_name) == skip) ||
		    (pid == getpid() && is_scope_tid((pid_t)atoi(de->d_name))))
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		fd = open(cpath, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (char *p = buf, *end; *p; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			if (v > 0)
				pidset_add(out, (pid_t)v);
		}
	}
	closedir(d);
}

/* pid's descendants, breadth first, appended to out. */
static void descendants_of(pid_t pid, struct pidset *out)
{
	size_t start = out->n;

	children_of(pid, out);
	for (size_t i = start; i < out->n; i++)
		children_of(out->pids[i], out);
}

/* Signal pid and its process group. Every group a run's process can be in
 * was made inside the run (bash starts its own session, and a process can
 * join only groups of its own session), so the group is the run's too. A
 * group signal reaches members forked while it is sent, which a walk of
 * /proc cannot promise. */
static void signal_with_group(pid_t pid, int sig)
{
	pid_t pgid = getpgid(pid);

	if (pgid > 1 && pgid != getpgrp())
		kill(-pgid, sig);
	kill(pid, sig);
}

void tree_signal(pid_t root, int sig, bool below)
{
	struct pidset set = { 0 };

	if (!below)
		signal_with_group(root, sig);
	descendants_of(root, &set);
	for (size_t i = 0; i < set.n; i++)
		signal_with_group(set.pids[i], sig);
	free(set.pids);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool kept(pid_t pid, const pid_t *keep, size_t n_keep)
{
	for (size_t k = 0; k < n_keep; k++)
		if (keep[k] == pid)
			return true;
	return false;
}

/* Wait for a child we just sent SIGKILL to, woken by its pidfd the moment
 * it dies (a poll loop would add its period to every run's end). */
static void reap_killed(pid_t pid, uint64_t deadline)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	while (waitpid(pid, NULL, __WALL | WNOHANG) == 0) {
		uint64_t now = now_ms();

		if (now >= deadline)
			break;
		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, (int)(deadline - now));
		} else {
			usleep(200);
		}
	}
	if (fd >= 0)
		close(fd);
}

/* Under the gate: what a walk leaves alone is asked of keep_fn then, not
 * before. Taken before, it missed a run whose start the walk had waited for
 * at the gate, and the walk killed that run's bash. */
static size_t keep_now(tree_keep_fn keep_fn, pid_t *keep)
{
	return keep_fn ? keep_fn(keep, TREE_KEEP_MAX) : 0;
}

bool tree_has_orphans(tree_keep_fn keep_fn, pid_t also_keep)
{
	struct pidset mine = { 0 };
	pid_t keep[TREE_KEEP_MAX + 1];
	size_t n_keep;
	bool any = false;

	pthread_rwlock_wrlock(&spawn_gate);
	n_keep = keep_now(keep_fn, keep);
	if (also_keep > 0)
		keep[n_keep++] = also_keep;
	children_of(getpid(), &mine);
	for (size_t i = 0; i < mine.n && !any; i++)
		any = !kept(mine.pids[i], keep, n_keep);
	pthread_rwlock_unlock(&spawn_gate);
	free(mine.pids);
	return any;
}

/* Every process of a finished run is, at any instant, our child or below one
 * (we are the subreaper): when no child of ours is left but the kept ones,
 * none is left. A process that keeps forking and exiting moves faster than a
 * walk of /proc, so each round kills what it sees at once (with its group),
 * and rounds go on until nothing is seen, for up to TREE_KILL_MS. */
#define TREE_KILL_MS 5000

void tree_kill_orphans(tree_keep_fn keep_fn)
{
	uint64_t deadline = now_ms() + TREE_KILL_MS;

	while (now_ms() < deadline) {
		struct pidset mine = { 0 }, below = { 0 };
		pid_t keep[TREE_KEEP_MAX];
		size_t n = 0, n_keep;

		/* Held through the kills: a run started meanwhile would
		 * have children no list names yet. The keep list is asked
		 * again each round: runs start while we reap. */
		pthread_rwlock_wrlock(&spawn_gate);
		n_keep = keep_now(keep_fn, keep);
		children_of(getpid(), &mine);
		for (size_t i = 0; i < mine.n; i++) {
			if (kept(mine.pids[i], keep, n_keep))
				continue;
			signal_with_group(mine.pids[i], SIGKILL);
			mine.pids[n++] = mine.pids[i];
		}
		mine.n = n;
		for (size_t i = 0; i < n; i++)
			descendants_of(mine.pids[i], &below);
		for (size_t i = 0; i < below.n; i++)
			signal_with_group(below.pids[i], SIGKILL);
		pthread_rwlock_unlock(&spawn_gate);
		if (n == 0) {
			free(mine.pids);
			free(below.pids);
			return;
		}
		/* Reap our direct children; their descendants come back to us as
		 * children (we are their subreaper) in the next round. */
		for (size_t i = 0; i < n; i++)
			reap_killed(mine.pids[i], deadline);
		free(mine.pids);
		free(below.pids);
	}
}
