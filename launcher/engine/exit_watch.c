/* SPDX-License-Identifier: MIT */
/* How the loop learns that a child exited, without reaping it: its pidfd
 * (clone's CLONE_PIDFD, pollable from 5.3), or, on older kernels, the read
 * end of a pipe whose write end a small thread closes once waitid(WNOWAIT)
 * says the child is gone. Either fd turns readable at the exit; the run
 * reaps the child itself (waitpid) as before. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

bool exit_watch_pidfd_usable(void)
{
	static int usable = -1;

	/* Why pidfd_open and not CLONE_PIDFD itself: a kernel before 5.2
	 * ignores the unknown clone flag (no error, no pidfd), and 5.2's
	 * pidfds cannot be polled; pidfd_open came with polling, in 5.3. */
	if (usable < 0) {
		int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

		usable = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	return usable;
}

struct watch {
	pid_t pid;
	int fd;
};

static void *watch_main(void *arg)
{
	struct watch w = *(struct watch *)arg;
	siginfo_t si;

	free(arg);
	while (waitid(P_PID, (id_t)w.pid, &si, WEXITED | WNOWAIT | __WALL) < 0 && errno == EINTR)
		;
	close(w.fd);
	return NULL;
}

int exit_watch_thread(pid_t pid)
{
	int p[2], rc;
	struct watch *w = malloc(sizeof(*w));
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;

	if (!w)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) < 0) {
		rc = -errno;
		free(w);
		return rc;
	}
	*w = (struct watch){ .pid = pid, .fd = p[1] };
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	/* The thread takes no signal: the caller's handlers stay with the
	 * threads that expect them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&t, &attr, watch_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc < 0) {
		close(p[0]);
		close(p[1]);
		free(w);
		return rc;
	}
	return p[0];
}
