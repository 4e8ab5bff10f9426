/* SPDX-License-Identifier: MIT */
/* ioctl(master, TIOCGPTPEER) under the landlock runner: the slave of a pty
 * the command made itself. Landlock checks that open like any open of
 * /dev/pts/N, and the rules do not grant /dev/pts (that would be the user's
 * other terminals too), so glibc's openpty, script(1) and python's pty fail.
 * We open the slave from the command's own master and hand it over: the
 * command gets the other end of a pty it already holds, nothing it could not
 * reach before (it can read and write the pty through the master anyway).
 * Opening /dev/pts/N by path stays refused by Landlock. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pty_pool.h"
#include "supervisor_int.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER 0x5441
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1) /* Linux 5.14 */
#endif
#define PTMX_MAJOR 5
#define PTMX_MINOR 2

bool sv_is_pty_peer_call(const struct seccomp_notif *n)
{
	return n->data.nr == SYS_ioctl && (uint32_t)n->data.args[1] == TIOCGPTPEER;
}

/* /dev/ptmx or a devpts instance's ptmx: a pty master. Which pty does not
 * matter: sbx hands the command only /dev/null and pipes, and opening ptmx
 * always makes a new pty, so any master the command holds it made itself
 * (or got from the run's pty pool, or from a process it can talk to: in
 * every case the other end of a pty it already reads and writes). */
bool sv_is_ptmx(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == PTMX_MAJOR &&
	       minor(st.st_rdev) == PTMX_MINOR;
}

void sv_pty_peer_call(struct sv_call *c, struct sv_answer *a)
{
	const unsigned long allowed = O_ACCMODE | O_NOCTTY | O_CLOEXEC | O_NONBLOCK;
	unsigned long flags = (unsigned long)c->n.data.args[2];
	struct seccomp_notif_addfd add = { .id = c->n.id, .flags = SECCOMP_ADDFD_FLAG_SEND };
	int master, slave, got;

	/* The kernel takes fd as an unsigned int. */
	master = sv_getfd(c, (int)(uint32_t)c->n.data.args[0]);
	if (master < 0) {
		a->err = -master;
		return;
	}
	if (!sv_is_ptmx(master)) {
		/* Not a master: the kernel's own ioctl answers (ENOTTY for
		 * anything but a pty master). Continuing is safe
		 * here: if another thread puts a master at that fd number
		 * meanwhile, the kernel opens its slave itself, and Landlock
		 * refuses that as it always did. */
		sv_release_fd(c->sv, master);
		a->cont = true;
		return;
	}
	/* Why still valid: the pidfd was opened by pid; had the caller died
	 * and its pid been reused, the fd would be another process's. */
	if (!sv_still_valid(c)) {
		sv_release_fd(c->sv, master);
		a->abandon = true;
		return;
	}
	/* Only what open(2) of a tty means; O_PATH, O_TRUNC and the rest
	 * are no business of a pty. */
	if ((flags & ~allowed) || (flags & O_ACCMODE) == O_ACCMODE) {
		sv_release_fd(c->sv, master);
		a->err = EINVAL;
		return;
	}
	/* Why O_NOCTTY always: opened without it, the slave would become
	 * the controlling terminal of our thread's session, not the
	 * command's (programs take theirs with TIOCSCTTY, as login_tty
	 * does). O_CLOEXEC: our copy never leaks into another child. */
	slave = ioctl(master, TIOCGPTPEER, (int)(flags | O_NOCTTY | O_CLOEXEC));
	got = slave < 0 ? errno : 0;
	/* A pty whose slave the command holds is never swapped for a pool
	 * pty later (it would hold a slave without its master). */
	if (slave >= 0 && c->sv->pty_pool)
		pty_pool_note_peer(c->sv->pty_pool, master);
	sv_release_fd(c->sv, master);
	if (slave < 0) {
		a->err = got;
		return;
	}
	add.srcfd = (uint32_t)slave;
	add.newfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0;
	/* ADDFD_FLAG_SEND installs the fd and answers the call in one step:
	 * the fd number is the call's return value. */
	got = ioctl(c->sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	if (got >= 0 || errno == ENOENT) {
		a->abandon = true; /* answered, or the caller is gone */
	} else {
		/* EINVAL: a kernel before 5.14 (no FLAG_SEND); the call is
		 * refused as Landlock refuses it there. */
		a->err = -sv_refuse(c->sv, EACCES);
	}
	close(slave);
}
