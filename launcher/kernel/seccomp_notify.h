/* SPDX-License-Identifier: MIT */
/* The supervisor's seccomp filter: SECCOMP_RET_USER_NOTIF for exactly the
 * calls sbx decides itself (engine/supervisor*.c). The child installs it as
 * its very last step before execve and hands the listener to sbx. */
#ifndef SBX_SECCOMP_NOTIFY_H
#define SBX_SECCOMP_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "child_status.h"

struct sock_fprog;

enum notify_set {
	NOTIFY_SOCKETS = 0,   /* connect, sendto with an address, sendmsg, sendmmsg,
			       * inotify_add_watch, fanotify_mark, mkdir, mkdirat */
	NOTIFY_METADATA,      /* the same, chmod/chown/utimes/xattr calls,
			       * ioctl(TIOCGPTPEER), ioctl(TIOCGPTN), the file
			       * systems' ioctls, listen (landlock runner) */
	NOTIFY_SOCKETS_OPENS, /* each of the two with the opens for writing */
	NOTIFY_METADATA_OPENS, /* (open, openat, creat: workspace-write) */
	NOTIFY_SETS,
};

/* Syscall numbers Debian 12's headers (Linux 6.1) do not have yet; the same
 * on every architecture since the tables were unified. */
#define NOTIFY_NR_FCHMODAT2 452     /* Linux 6.6 */
#define NOTIFY_NR_SETXATTRAT 463    /* Linux 6.13 */
#define NOTIFY_NR_REMOVEXATTRAT 466 /* Linux 6.13 */

/* Parent: the filter for a set (built on first use, kept for the process), or
 * NULL where this architecture is not supported. */
const struct sock_fprog *notify_filter_get(enum notify_set set);

/* Parent: why this kernel cannot run the supervisor (cached per process).
 * 0: it can; -errno with a plain reason otherwise. */
int notify_kernel_probe(char *reason, size_t reason_size);

/* Child (no allocation, no locks): install prog with a new listener and send
 * the listener to sbx over the CLOEXEC socket sock. 0: installed and sent;
 * 1: the kernel refused the filter (a listener already exists in our chain,
 * as under an outer sbx): nothing installed, nothing sent, the run goes on
 * unsupervised; -1: installed but not handed over, st filled (the command
 * must not start: its first supervised call would wait forever). */
int notify_install_and_send(const struct sock_fprog *prog, int sock, struct child_status *st);

/* Parent: the listener the child sent over sock, or -1 if none came. */
int notify_receive_listener(int sock);

#endif
