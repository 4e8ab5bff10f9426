/* SPDX-License-Identifier: MIT */
/* The helpers left to reap (reap.c): one that a reap_all() is waiting for
 * is still listed (reap_pending_pids), so another run's walk of our
 * children (end_tree: run_live_pids) leaves it alone. Off the list, that
 * walk killed and reaped it as one of its own orphans, and reap_all() then
 * waited for a pid that could be another process's. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run.h"

static pid_t reaper_tid;
static int reaper_done;

static void *reaper(void *arg)
{
	(void)arg;
	__atomic_store_n(&reaper_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	reap_all();
	__atomic_store_n(&reaper_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The system call thread tid is in, or -1. */
static long in_syscall(pid_t tid)
{
	char path[64], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] >= '0' && buf[0] <= '9' ? strtol(buf, NULL, 10) : -1;
}

static bool waiting(long nr)
{
#ifdef SYS_poll
	if (nr == SYS_poll)
		return true;
#endif
	return nr == SYS_ppoll;
}

/* Still running (not a zombie, not gone). */
static bool alive(pid_t pid)
{
	char path[64], buf[256] = "", *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

Test(reap, a_helper_being_waited_for_stays_listed)
{
	bool decided = false, listed = false;

	/* Each try is decided unless reap_all() gave up on the helper (2 s)
	 * before we looked: then another try. */
	for (int attempt = 0; attempt < 20 && !decided; attempt++) {
		pid_t child = fork(), pids[64];
		pthread_t t;

		cr_assert(child >= 0);
		if (child == 0) {
			for (;;)
				pause();
		}
		reap_defer(child, -1, NULL, NULL);
		__atomic_store_n(&reaper_tid, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&reaper_done, 0, __ATOMIC_SEQ_CST);
		cr_assert_eq(pthread_create(&t, NULL, reaper, NULL), 0);
		/* until reap_all() waits for it (the helper is then taken) */
		while (!__atomic_load_n(&reaper_done, __ATOMIC_SEQ_CST) &&
		       !(__atomic_load_n(&reaper_tid, __ATOMIC_SEQ_CST) &&
			 waiting(in_syscall(__atomic_load_n(&reaper_tid, __ATOMIC_SEQ_CST)))))
			usleep(1000);
		if (!__atomic_load_n(&reaper_done, __ATOMIC_SEQ_CST)) {
			size_t n = reap_pending_pids(pids, 64);

			listed = false;
			for (size_t i = 0; i < n; i++)
				listed = listed || pids[i] == child;
			/* alive after the look: reap_all() had not reaped it yet */
			decided = alive(child);
		}
		kill(child, SIGKILL);
		pthread_join(t, NULL);
	}
	cr_assert(decided, "reap_all() never waited for the helper long enough to look");
	cr_assert(listed, "a helper reap_all() was waiting for was not listed: another run's "
			  "walk of its orphans would kill and reap it");
	cr_assert_eq(reap_pending_pids((pid_t[1]){ 0 }, 1), 0);
}
