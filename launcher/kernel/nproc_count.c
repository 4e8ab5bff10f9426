/* SPDX-License-Identifier: MIT */
/* How many tasks the calling user has, as RLIMIT_NPROC counts them, asked of
 * the kernel's own count. The kernel keeps that count per (user namespace,
 * uid) and shows it nowhere but in fork's check: copy_process() fails with
 * EAGAIN when the new task would take it above the forking task's soft
 * RLIMIT_NPROC, after the count is taken and before the task exists. So we
 * ask the check itself, with a clone that is refused just after it:
 *
 *  - CLONE_NEWPID by a task without CAP_SYS_ADMIN: copy_namespaces() says
 *    EPERM, after the check (16 us a probe here);
 *  - else CLONE_PIDFD with the pidfd's address in the kernel's half: the
 *    pidfd's put_user() says EFAULT, after the check (for a seccomp profile
 *    that refuses new namespaces at once, as container runtimes' do; 42 us).
 *
 * Neither makes a task. With the soft limit at L, EAGAIN means the count is
 * at least L; a binary search over L up to the host's task count finds it
 * in log2(tasks on the host) probes: no walk of /proc, whatever runs there.
 * A probe that passes at L = 0 is not the count's check (the seccomp profile
 * answered, or the caller holds CAP_SYS_RESOURCE or CAP_SYS_ADMIN, whom
 * the kernel exempts): then the host's task count stands in for the
 * caller's (an upper bound; see nproc_count's end).
 *
 * Runs in the child between clone and exec (rlimits.c): no allocation, no
 * stdio, no locks; stack buffers and system calls only. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_status.h"
#include "rlimits.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

enum probe { UNDER, OVER, UNUSABLE };

static int leave(void *arg)
{
	(void)arg;
	_exit(0);
}

/* Whether a fork would pass RLIMIT_NPROC at soft limit L. */
static enum probe probe_at(rlim_t limit, rlim_t hard, int how)
{
	/* Used only if the clone succeeds (a caller the check does not
	 * hold): the new task exits at once. CLONE_VFORK: we wait for that
	 * before the stack goes. */
	char stack[2048] __attribute__((aligned(16)));
	struct rlimit rl = { .rlim_cur = limit, .rlim_max = hard };
	int *kernel_half = (int *)(~(uintptr_t)0 - 4095);
	pid_t pid;

	if (setrlimit(RLIMIT_NPROC, &rl) < 0)
		return UNUSABLE;
	pid = clone(leave, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD | how, NULL,
		    kernel_half, NULL, NULL);
	if (pid > 0) {
		while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
			;
		return UNDER;
	}
	if (errno == EAGAIN)
		return OVER;
	/* The refusals that come after the count was checked. */
	if ((how == CLONE_NEWPID && (errno == EPERM || errno == ENOSPC)) ||
	    (how == CLONE_PIDFD && errno == EFAULT))
		return UNDER;
	return UNUSABLE;
}

/* Tasks on the host (all users): /proc/loadavg's "running/total". */
static rlim_t host_tasks(void)
{
	char buf[128];
	ssize_t n;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	rlim_t total = 0;
	char *p = buf;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	while (*p && *p != '/')
		p++;
	if (*p == '/')
		while (*++p >= '0' && *p <= '9')
			total = total * 10 + (rlim_t)(*p - '0');
	return total;
}

/* The smallest L a fork passes at, less one: the count (a fork passes when
 * the tasks it makes the user have, its own included, are at most L). */
static int search(rlim_t hard, int how, uint64_t *count)
{
	rlim_t lo = 0, hi = host_tasks();
	enum probe p;

	if (probe_at(0, hard, how) != OVER)
		return -1;
	/* Every task of ours is one of the host's; a few more for those made
	 * since, and look higher a few times if that was not enough. */
	hi = hi ? hi + 64 : 65536;
	if (hard != RLIM_INFINITY && hi > hard)
		hi = hard;
	for (int i = 0; (p = probe_at(hi, hard, how)) == OVER; i++) {
		if (i == 4 || hi == hard)
			return -1;
		lo = hi;
		hi = hard != RLIM_INFINITY && hi * 2 > hard ? hard : hi * 2;
	}
	if (p != UNDER)
		return -1;
	while (hi - lo > 1) {
		rlim_t mid = lo + (hi - lo) / 2;

		p = probe_at(mid, hard, how);
		if (p == UNUSABLE)
			return -1;
		if (p == UNDER)
			hi = mid;
		else
			lo = mid;
	}
	*count = hi - 1;
	return 0;
}

int nproc_count(uint64_t *count, struct child_status *st)
{
	struct rlimit saved;
	int rc;

	if (getrlimit(RLIMIT_NPROC, &saved) < 0)
		return child_status_set(st, STAGE_LIMITS, errno, "getrlimit", "RLIMIT_NPROC");
	rc = search(saved.rlim_max, CLONE_NEWPID, count);
	if (rc < 0)
		rc = search(saved.rlim_max, CLONE_PIDFD, count);
	/* The caller's soft limit back, before anything else is decided. */
	if (setrlimit(RLIMIT_NPROC, &saved) < 0)
		return child_status_set(st, STAGE_LIMITS, errno, "setrlimit", "RLIMIT_NPROC");
	if (rc == 0)
		return 0;
	/* Not countable here: the host's task count bounds the caller's. The
	 * run's share may then be larger by other users' tasks (limits.md);
	 * for a caller the kernel exempts, no value holds anything. */
	*count = host_tasks();
	if (!*count)
		return child_status_set(st, STAGE_LIMITS, ENOENT,
					"unable to count the caller's processes:", "/proc/loadavg");
	return 1;
}
