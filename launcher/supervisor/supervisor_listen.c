/* SPDX-License-Identifier: MIT */
/* Which listening sockets a run made, told apart from the host's by the
 * process that called listen(2). The kernel records that process in the
 * socket (SO_PEERPIDFD on a connection names it, also after it exited), but
 * a daemon that listens, forks and exits (ssh-agent, gpg-agent) leaves it
 * dead, and one that makes itself non-dumpable (ssh-agent again) keeps the
 * landlock runner's unprivileged supervisor from finding the socket among
 * its fds. So under the landlock runner listen(2) comes to us first: we note
 * the calling process by its pidfs inode, a 64-bit number the kernel never
 * gives to another process while it runs, and let the kernel go on. A
 * connection whose listener's pidfd has a noted inode reaches a socket a
 * run's process put to listen. A pid would not do: a command could cycle
 * pids until it had the one a host daemon's exited parent had. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "supervisor_int.h"
#include "syscall_abi.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
/* pidfs (Linux 6.9): one inode per process, never reused while the system
 * runs. Before it every pidfd shared one anonymous inode: nothing noted. */
#define PIDFS_MAGIC 0x50494446
/* A run that calls listen more often than this forgets its oldest. */
#define SV_MAX_LISTENERS 4096

bool sv_is_listen_call(const struct seccomp_notif *n)
{
	return syscall_abi_native_table(&n->data) && syscall_abi_nr(&n->data) == (int)SYS_listen;
}

/* The pidfs inode of a pidfd; 0 where pidfds have none of their own. */
static uint64_t pidfd_inode(int pidfd)
{
	struct statfs sf;
	struct stat st;

	if (fstatfs(pidfd, &sf) < 0 || sf.f_type != PIDFS_MAGIC || fstat(pidfd, &st) < 0)
		return 0;
	return (uint64_t)st.st_ino;
}

static void note(struct supervisor *sv, uint64_t ino)
{
	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < sv->n_listeners; i++)
		if (sv->listeners[i] == ino)
			goto out;
	if (sv->n_listeners == sv->cap_listeners && sv->cap_listeners < SV_MAX_LISTENERS) {
		size_t cap = sv->cap_listeners ? sv->cap_listeners * 2 : 16;
		uint64_t *grown = realloc(sv->listeners, cap * sizeof(*grown));

		if (grown) {
			sv->listeners = grown;
			sv->cap_listeners = cap;
		}
	}
	if (sv->n_listeners < sv->cap_listeners) {
		sv->listeners[sv->n_listeners++] = ino;
	} else if (sv->n_listeners) {
		/* full: the oldest goes */
		for (size_t i = 1; i < sv->n_listeners; i++)
			sv->listeners[i - 1] = sv->listeners[i];
		sv->listeners[sv->n_listeners - 1] = ino;
	}
out:
	pthread_mutex_unlock(&sv->lock);
}

void sv_listen_call(struct sv_call *c, struct sv_answer *a)
{
	/* listen's arguments are registers: nothing a second thread could
	 * swap, so the kernel performs it, as it would without us. */
	a->cont = true;
	pid_t tgid = sv_tgid(c);
	/* The socket records the thread group (task_tgid), not the thread. */
	int pidfd = tgid > 0 ? (int)syscall(SYS_pidfd_open, tgid, 0) : -1;
	uint64_t ino = pidfd >= 0 ? pidfd_inode(pidfd) : 0;

	/* Still in this call: tgid was this thread's group when we opened it. */
	if (ino && sv_still_valid(c))
		note(c->sv, ino);
	if (pidfd >= 0)
		close(pidfd);
}

bool sv_listener_recorded(struct supervisor *sv, int sock)
{
	int pidfd = -1;
	socklen_t len = sizeof(pidfd);
	uint64_t ino;
	bool found = false;

	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
		return false;
	ino = pidfd_inode(pidfd);
	close(pidfd);
	if (!ino)
		return false;
	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < sv->n_listeners && !found; i++)
		found = sv->listeners[i] == ino;
	pthread_mutex_unlock(&sv->lock);
	return found;
}
