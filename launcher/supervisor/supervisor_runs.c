/* SPDX-License-Identifier: MIT */
/* The confined runs of this process, by their first process (bash, a
 * subreaper, or the namespace runner's PID namespace init): a listener below
 * one of them, while it lives, is a run's (supervisor_peer.c). Not whatever
 * is below sbx: serve also runs danger-full-access commands, and a daemon
 * one of those started (a tmux server, after an approved escalation) runs
 * outside any sandbox; a confined command that reached it would have it run
 * commands there. A run is listed while its supervisor runs. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor_int.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct run_root {
	pid_t pid;
	int pidfd; /* so that a pid reused after the run's end is not taken for it */
};

static struct run_root *roots;
static size_t n_roots, cap_roots;
static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;

void sv_runs_add(pid_t pid)
{
	int pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;

	if (pidfd < 0)
		return;
	pthread_mutex_lock(&roots_lock);
	if (n_roots == cap_roots) {
		size_t cap = cap_roots ? cap_roots * 2 : 8;
		struct run_root *grown = realloc(roots, cap * sizeof(*grown));

		if (grown) {
			roots = grown;
			cap_roots = cap;
		}
	}
	if (n_roots < cap_roots)
		roots[n_roots++] = (struct run_root){ pid, pidfd };
	else
		close(pidfd);
	pthread_mutex_unlock(&roots_lock);
}

void sv_runs_remove(pid_t pid)
{
	pthread_mutex_lock(&roots_lock);
	for (size_t i = 0; i < n_roots; i++)
		if (roots[i].pid == pid) {
			close(roots[i].pidfd);
			roots[i] = roots[--n_roots];
			break;
		}
	pthread_mutex_unlock(&roots_lock);
}

size_t sv_runs_list(pid_t *out, size_t max, pid_t skip)
{
	size_t n = 0;

	pthread_mutex_lock(&roots_lock);
	for (size_t i = 0; i < n_roots && n < max; i++)
		if (roots[i].pid != skip)
			out[n++] = roots[i].pid;
	pthread_mutex_unlock(&roots_lock);
	return n;
}

bool sv_runs_root(pid_t pid)
{
	bool found = false;

	pthread_mutex_lock(&roots_lock);
	for (size_t i = 0; i < n_roots && !found; i++)
		if (roots[i].pid == pid) {
			/* Still running: its pid is not free to be reused. */
			struct pollfd p = { .fd = roots[i].pidfd, .events = POLLIN };

			found = poll(&p, 1, 0) == 0;
		}
	pthread_mutex_unlock(&roots_lock);
	return found;
}
