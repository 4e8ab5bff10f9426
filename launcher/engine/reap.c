/* SPDX-License-Identifier: MIT */
/* The end of a clean run without waiting for it: the run's last helper (the
 * init of its PID namespace, or the Landlock dead-man helper) has been told
 * to go and nothing else of the run is left, so its exit, and the namespace
 * teardown that comes with it (~0.3 ms here), need not hold up the answer.
 * Each such helper is kept here with the run's cgroup (it is a member until
 * it is reaped) and reaped later: from the event loop through its pidfd
 * (serve), or after the answer is out (sbx run). Nothing here outlives sbx:
 * reap_all() waits for every one of them, and SIGKILLs what is late. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

#define REAP_WAIT_MS 2000 /* a helper that has not exited by then is killed */

struct reap_entry {
	pid_t pid;
	int pidfd;
	bool has_cgroup;
	struct cgroup_run cg;
	struct loop *loop;         /* serve's loop, watching pidfd; NULL: none */
	struct loop_watch w;
	bool taken;                /* a reap_all() waits for it (still listed) */
	struct reap_entry *next;
};

/* Why a lock: runs of libsbx may end at once in several threads of one
 * process, each reaping every pending helper (reap_all); two took the same
 * entry and freed it twice. Whoever unlinks an entry finishes it. An entry
 * a reap_all() is waiting for stays listed (taken) until it is reaped: off
 * the list, another run's walk (end_tree: run_live_pids) took it for one of
 * its own orphans, killed it and reaped it, and the pid could be another
 * process's by the time reap_all() waited for it. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reap_entry *pending;

size_t reap_pending_pids(pid_t *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&pending_lock);
	for (struct reap_entry *e = pending; e && n < max; e = e->next)
		out[n++] = e->pid;
	pthread_mutex_unlock(&pending_lock);
	return n;
}

/* With pending_lock held: e taken off the list, or false if it was not on
 * it (another thread has it). */
static bool unlink_entry(struct reap_entry *e)
{
	for (struct reap_entry **p = &pending; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			return true;
		}
	return false;
}

static void wait_for(pid_t pid)
{
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

/* e is off the list and ours alone; reaped: its helper was waited for. */
static void finish(struct reap_entry *e, bool reaped)
{
	if (e->loop)
		loop_remove(e->loop, &e->w);
	if (!reaped)
		wait_for(e->pid);
	if (e->pidfd >= 0)
		close(e->pidfd);
	/* The helper was the cgroup's last member: it can go now. */
	if (e->has_cgroup)
		run_limits_destroy_cgroup(&e->cg);
	free(e);
}

static void on_exited(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct reap_entry *e = w->ctx;

	(void)buf;
	(void)n;
	/* ECHILD: not ours to wait for (any more); finished all the same, or
	 * its readable pidfd would wake the loop forever. */
	if (waitid(P_PID, (id_t)e->pid, &(siginfo_t){ 0 }, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 ||
	    errno == ECHILD) {
		bool mine;

		pthread_mutex_lock(&pending_lock);
		mine = !e->taken && unlink_entry(e);
		pthread_mutex_unlock(&pending_lock);
		if (mine)
			finish(e, false);
	}
}

void reap_defer(pid_t pid, int pidfd, struct run_limits *limits, struct loop *loop)
{
	struct reap_entry *e = calloc(1, sizeof(*e));

	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (!e || pidfd < 0) {
		/* Nothing to watch it with: wait for it here, as before. */
		free(e);
		if (pidfd >= 0)
			close(pidfd);
		while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
			;
		return;
	}
	e->pid = pid;
	e->pidfd = pidfd;
	if (limits && limits->cgroup_active) {
		e->cg = limits->cg;
		e->has_cgroup = true;
		limits->cgroup_active = false;
	}
	pthread_mutex_lock(&pending_lock);
	e->next = pending;
	pending = e;
	pthread_mutex_unlock(&pending_lock);
	if (loop) {
		e->w = (struct loop_watch){ .fd = pidfd, .readiness = true, .cb = on_exited, .ctx = e };
		if (loop_add(loop, &e->w) == 0)
			e->loop = loop;
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void reap_all(void)
{
	uint64_t deadline = now_ms() + REAP_WAIT_MS;

	for (;;) {
		struct reap_entry *e;

		pthread_mutex_lock(&pending_lock);
		for (e = pending; e && e->taken; e = e->next)
			;
		if (e)
			e->taken = true;
		pthread_mutex_unlock(&pending_lock);
		if (!e)
			break;

		struct pollfd p = { .fd = e->pidfd, .events = POLLIN };
		uint64_t now = now_ms();
		int rc = 0;

		while (now < deadline && (rc = poll(&p, 1, (int)(deadline - now))) < 0 &&
		       errno == EINTR)
			now = now_ms();
		if (rc <= 0)
			kill(e->pid, SIGKILL);
		/* reaped while still listed: until then it is ours */
		wait_for(e->pid);
		pthread_mutex_lock(&pending_lock);
		unlink_entry(e);
		pthread_mutex_unlock(&pending_lock);
		finish(e, true);
	}
}
