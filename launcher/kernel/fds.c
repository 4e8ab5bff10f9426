/* SPDX-License-Identifier: MIT */
/* close_range where the kernel has it (5.9; CLOSE_RANGE_CLOEXEC from 5.11),
 * else a walk of /proc/self/fd, else every number below RLIMIT_NOFILE. Child
 * side: no allocation, no stdio. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fds.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* How long a last close may wait inside fds_bound_begin/end. */
#define BOUND_TICK_US 20000

struct keep {
	const int *fds;
	int n;
};

static bool kept(const struct keep *k, int fd)
{
	for (int i = 0; k && i < k->n; i++)
		if (k->fds[i] == fd)
			return true;
	return false;
}

static void one(int fd, bool cloexec_only, const struct keep *k)
{
	if (kept(k, fd))
		return;
	if (!cloexec_only) {
		close(fd);
		return;
	}
	int flags = fcntl(fd, F_GETFD);

	if (flags >= 0 && !(flags & FD_CLOEXEC))
		fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static int fd_number(const char *name)
{
	int v = 0;

	if (!*name)
		return -1;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*name - '0');
	}
	return v;
}

/* Without /proc: every number up to the limit (fds above the soft limit
 * cannot exist unless it was lowered since; the hard limit covers that). */
static int every_number(int first, bool cloexec_only, const struct keep *k)
{
	struct rlimit rl;
	rlim_t last = 65536;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
		last = rl.rlim_max;
	for (rlim_t fd = (rlim_t)first; fd < last; fd++)
		one((int)fd, cloexec_only, k);
	return 0;
}

static int walk_proc(int first, bool cloexec_only, const struct keep *k)
{
	char buf[4096] __attribute__((aligned(8)));
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (dir < 0)
		return every_number(first, cloexec_only, k);
	/* /proc lists fds by number from the read position on: closing the
	 * ones already listed moves nothing. */
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			int fd = fd_number(d->d_name);

			off += d->d_reclen;
			if (fd >= first && fd != dir)
				one(fd, cloexec_only, k);
		}
	}
	close(dir);
	return n < 0 ? -errno : 0;
}

/* A fork of ours, holding a copy of every file we have, until we are done
 * closing ours. Why: without close_range each fd is a close of its own, and
 * the timer's signal is delivered between two of them: each last close of
 * a lingering socket waited for the next tick, 20 ms, 5 s for one send's
 * 253 copies and 80 s for the 4096 sbx may hold (runs of
 * `echo hi` took 7 s). None of our closes is the last while the holder
 * lives; its exit is, and at a process's exit no close waits out a linger.
 * A raw fork (our caller may share sbx's memory): the holder runs nothing
 * but a wait. -1 when no process is to be had: the timer bounds each close. */
static pid_t holder_start(void)
{
	pid_t parent = getpid();
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);

	if (pid == 0) {
		/* Never outlives its parent, killed before holder_end: it holds
		 * every file of ours, the run's pipes among them. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
			_exit(0);
		for (;;)
			syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
	}
	return pid;
}

static void holder_end(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

/* walk_proc with every fd closed (not only marked) under a holder. */
static int walk_closing(int first, const struct keep *k)
{
	pid_t holder = holder_start();
	int rc = walk_proc(first, false, k);

	holder_end(holder);
	return rc;
}

int fds_close_from(int first, bool cloexec_only)
{
	if (syscall(SYS_close_range, (unsigned)first, ~0U,
		    cloexec_only ? CLOSE_RANGE_CLOEXEC : 0) == 0)
		return 0;
	/* ENOSYS: a kernel before 5.9 (or a profile hiding the call); EINVAL:
	 * CLOSE_RANGE_CLOEXEC, which 5.9 and 5.10 do not know. */
	if (errno != ENOSYS && errno != EINVAL && errno != EPERM)
		return -errno;
	return cloexec_only ? walk_proc(first, true, NULL) : walk_closing(first, NULL);
}

int fds_close_from_except(int first, const int *keep, int n)
{
	struct keep k = { keep, n };
	int lo = first;

	/* close_range over the gaps between the kept ones, lowest first */
	for (;;) {
		int next = -1;

		for (int i = 0; i < n; i++)
			if (keep[i] >= lo && (next < 0 || keep[i] < next))
				next = keep[i];
		if (next < 0)
			break;
		if (next > lo && syscall(SYS_close_range, (unsigned)lo, (unsigned)next - 1, 0) < 0)
			goto walk;
		lo = next + 1;
	}
	if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0)
		return 0;
walk:
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	return walk_closing(first, &k);
}

static void bound_tick(int sig)
{
	(void)sig;
}

int fds_bound_begin(struct fds_bound *b)
{
	struct sigaction tick = { .sa_handler = bound_tick }; /* no SA_RESTART */
	struct itimerval every = { { 0, BOUND_TICK_US }, { 0, BOUND_TICK_US } };
	sigset_t alarm;

	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigemptyset(&tick.sa_mask);
	if (sigaction(SIGALRM, &tick, &b->act) < 0)
		return -errno;
	if (sigprocmask(SIG_UNBLOCK, &alarm, &b->mask) < 0 ||
	    setitimer(ITIMER_REAL, &every, NULL) < 0) {
		int e = errno;

		sigaction(SIGALRM, &b->act, NULL);
		return -e;
	}
	return 0;
}

void fds_bound_end(const struct fds_bound *b)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	/* A tick that fired before this is delivered (to bound_tick) as the
	 * call returns; none comes after it. */
	setitimer(ITIMER_REAL, &off, NULL);
	sigprocmask(SIG_SETMASK, &b->mask, NULL);
	sigaction(SIGALRM, &b->act, NULL);
}

int fds_close_from_bounded(int first)
{
	struct fds_bound b;
	int rc = fds_bound_begin(&b);

	if (rc < 0)
		return rc;
	rc = fds_close_from(first, false);
	fds_bound_end(&b);
	return rc;
}
