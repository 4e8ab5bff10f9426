/* SPDX-License-Identifier: MIT */
/* A run's keeper: what a PID namespace's init is to the namespace runner, for
 * a run that has no PID namespace (the landlock runner, danger-full-access)
 * in a process that has not made itself sbx's subreaper (sbx_process_opt_in).
 * It is a fork of the caller, between the caller and the command's bash, and
 * a child subreaper: whatever the command leaves behind, double-forked or
 * setsid'd, comes to it, never to the caller, so the caller's own children
 * stay its own. It reports how bash ended as init does (pidns_init.c), and
 * when the trigger pipe turns readable (sbx ended the run, or died) it kills
 * and reaps every process below it, then exits.
 *
 * It is made by clone(2) from a caller that may have threads: no allocation,
 * no stdio, no locks; stack buffers and system calls only. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include "keeper.h"

#define KEEPER_END_MS 4000     /* below sbx's own wait for us (RUN_END_WAIT_MS) */
#define KEEPER_DEADMAN_MS 500  /* the dead-man helper's own kill goes first */
#define KEEPER_PIDS 1024

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* "/proc/PID/task/PID/children" without snprintf. */
static void children_path(pid_t pid, char *out)
{
	static const char head[] = "/proc/", mid[] = "/task/", tail[] = "/children";
	char digits[16];
	size_t n = 0, len = 0;

	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	for (size_t i = 0; head[i]; i++)
		out[len++] = head[i];
	for (size_t i = n; i-- > 0;)
		out[len++] = digits[i];
	for (size_t i = 0; mid[i]; i++)
		out[len++] = mid[i];
	for (size_t i = n; i-- > 0;)
		out[len++] = digits[i];
	for (size_t i = 0; tail[i]; i++)
		out[len++] = tail[i];
	out[len] = '\0';
}

/* Append the pids listed in a /proc children file; returns the new count. */
static size_t read_pids(const char *path, pid_t *out, size_t n, size_t max)
{
	char buf[8192];
	size_t have = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return n;
	while (have < sizeof(buf) - 1 &&
	       ((got = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0 ||
		(got < 0 && errno == EINTR)))
		if (got > 0)
			have += (size_t)got;
	close(fd);
	for (size_t i = 0; i < have && n < max;) {
		pid_t v = 0;

		while (i < have && (buf[i] < '0' || buf[i] > '9'))
			i++;
		if (i >= have)
			break;
		while (i < have && buf[i] >= '0' && buf[i] <= '9')
			v = v * 10 + (buf[i++] - '0');
		if (v > 0)
			out[n++] = v;
	}
	return n;
}

/* Our own children: we are one thread, so they are that thread's. */
static size_t own_children(pid_t *out, size_t max)
{
	return read_pids("/proc/thread-self/children", out, 0, max);
}

bool keeper_only_child_is(pid_t pid)
{
	pid_t kids[2];

	return own_children(kids, 2) == 1 && kids[0] == pid;
}

/* pid and its process group. Every group a run's process can be in was made
 * inside the run (bash starts its own session; a process joins only groups
 * of its own session), and ours is the caller's: never signalled. */
static void kill_with_group(pid_t pid)
{
	pid_t pgid = getpgid(pid);

	if (pgid > 1 && pgid != getpgrp())
		kill(-pgid, SIGKILL);
	kill(pid, SIGKILL);
}

void keeper_end(pid_t deadman, int sigfd)
{
	uint64_t start = now_ms(), deadline = start + KEEPER_END_MS;

	for (;;) {
		pid_t pids[KEEPER_PIDS];
		size_t n;
		uint64_t now;
		pid_t got;
		int ws;

		while ((got = waitpid(-1, &ws, WNOHANG | __WALL)) > 0)
			if (got == deadman)
				deadman = 0;
		if (got < 0 && errno == ECHILD)
			return;
		now = now_ms();
		if (now >= deadline)
			return;
		/* The dead-man helper (landlock runner, ABI 6+) kills the
		 * whole run at once, scoped to it, on the same trigger: it
		 * is left to do so for a moment, then ended like the rest. */
		n = own_children(pids, KEEPER_PIDS);
		/* Breadth first: each round kills what it sees at once, with
		 * its group; a process that keeps forking comes back to us
		 * (we are the subreaper) and is caught by a later round. */
		for (size_t i = 0; i < n; i++) {
			if (pids[i] == deadman && now < start + KEEPER_DEADMAN_MS)
				continue;
			kill_with_group(pids[i]);
			if (pids[i] != deadman) {
				char path[64];

				children_path(pids[i], path);
				n = read_pids(path, pids, n, KEEPER_PIDS);
			}
		}
		struct pollfd p = { .fd = sigfd, .events = POLLIN };
		struct signalfd_drain {
			char buf[128];
		} drain;

		if (poll(&p, 1, 20) > 0)
			while (read(sigfd, &drain, sizeof(drain)) > 0)
				;
	}
}

/* Whether this process may signal any uid: a root caller's danger-full-access
 * command may change its uid, and its leftovers must still be ended. */
int keeper_caps_to_keep(uint64_t *keep)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { 0 };

	*keep = 0;
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	if (d[CAP_KILL / 32].effective & (1U << (CAP_KILL % 32)))
		*keep = 1ULL << CAP_KILL;
	return 0;
}
