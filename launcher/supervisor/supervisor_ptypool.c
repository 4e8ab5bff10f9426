/* SPDX-License-Identifier: MIT */
/* ioctl(fd, TIOCGPTN) under the landlock runner. glibc's grantpt and
 * ptsname, musl's ptsname, Go's pty package ask it before a program opens
 * its new pty's slave by name (expect, screen, tmux's name, musl's openpty),
 * and Landlock refuses that open: /dev/pts is not granted (the caller's
 * terminal lives there). So when the command asks the number of a pty it
 * made, we give it one of the run's pool instead (kernel/pty_pool.h: made by
 * sbx before the domain, each slave granted by a rule of its own): the
 * pool's master takes the place of the command's at the same fd number,
 * with its file flags, lock state, termios and window size, and the kernel
 * then answers with the pool pty's number, whose slave the command may open.
 * The command's own pty ends with its master (we keep no copy).
 *
 * What a swap can change: the fd table of the calling process alone, at the
 * fd number it named alone, from a pty master (checked on our copy of it)
 * to a pty nobody else ever held. A second thread of the command that puts
 * another file at that number meanwhile loses that file, as with dup2: its
 * own doing, nobody else's. Never swapped: a pty of the pool already
 * (ptsname after grantpt asks twice), a pty whose slave the command holds
 * (the supervisor opened it, TIOCGPTPEER), a master not open read-write,
 * and anything once the pool is empty or the run is over: then the kernel
 * answers as it always did, and opening the slave by name is refused
 * (EACCES) as it always was. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "pty_pool.h"
#include "supervisor_int.h"

#ifndef TIOCGPTLCK
#define TIOCGPTLCK _IOR('T', 0x39, int) /* Linux 3.8 */
#endif

bool sv_is_pty_number_call(const struct seccomp_notif *n)
{
	return n->data.nr == SYS_ioctl && (uint32_t)n->data.args[1] == (uint32_t)TIOCGPTN;
}

/* The close-on-exec flag of the command's fd, from the "flags:" line (octal)
 * of its fdinfo: 1, 0, or -1 if it cannot be read. */
static int fd_cloexec(struct sv_call *c, int fd)
{
	char path[32], buf[256];
	int proc = sv_proc_dir(c);
	long long flags;

	snprintf(path, sizeof(path), "fdinfo/%d", fd);
	if (proc < 0 || sv_read_small(proc, path, buf, sizeof(buf)) < 0)
		return -1;
	flags = sv_field(buf, "\nflags:", 8);
	if (flags < 0)
		return -1;
	return (flags & O_CLOEXEC) ? 1 : 0;
}

/* What the command may have set on its master before asking: the pool pty
 * takes it over, so the swap is not seen. Best effort: where one fails, the
 * pool pty keeps what a new pty has. */
static void copy_state(int from, int to)
{
	struct termios t;
	struct winsize ws;
	int locked = 1, unlock = 0, fl = fcntl(from, F_GETFL);

	if (fl >= 0)
		fcntl(to, F_SETFL, fl & O_NONBLOCK);
	/* musl's openpty unlocks before it asks the number. */
	if (ioctl(from, TIOCGPTLCK, &locked) == 0 && !locked)
		ioctl(to, TIOCSPTLCK, &unlock);
	if (tcgetattr(from, &t) == 0)
		tcsetattr(to, TCSANOW, &t);
	if (ioctl(from, TIOCGWINSZ, &ws) == 0)
		ioctl(to, TIOCSWINSZ, &ws);
}

/* Our copy of the command's fd is a master to give up for a pool pty. */
static bool swappable(struct pty_pool *pool, int mine)
{
	int fl = fcntl(mine, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) == O_RDWR && sv_is_ptmx(mine) &&
	       !pty_pool_keeps(pool, mine);
}

void sv_pty_number_call(struct sv_call *c, struct sv_answer *a)
{
	struct pty_pool *pool = c->sv->pty_pool;
	/* The kernel takes fd as an unsigned int. */
	int fd = (int)(uint32_t)c->n.data.args[0];
	struct seccomp_notif_addfd add = { .id = c->n.id, .flags = SV_ADDFD_FLAG_SETFD };
	int mine, pooled, cloexec = -1;

	/* Why CONTINUE, where supervisor.h says a decided call never
	 * continues: TIOCGPTN decides nothing and reaches nothing. Its fd is a
	 * register and its only pointer is the buffer the kernel writes the
	 * number to. Whatever file sits at that fd number when the kernel
	 * performs it (the pool pty we put there, or what another thread of
	 * the command put there since) is one the command holds, and a pty's
	 * number is all it learns, which /dev/pts lists anyway. */
	a->cont = true;
	if (!pool)
		return;
	mine = sv_getfd(c, fd);
	if (mine < 0)
		return;
	/* Why still valid: the fdinfo is read by the caller's pid, which a
	 * dead caller's successor could hold. */
	if (!swappable(pool, mine) || (cloexec = fd_cloexec(c, fd)) < 0 || !sv_still_valid(c)) {
		sv_release_fd(c->sv, mine);
		return;
	}
	pooled = pty_pool_take(pool);
	if (pooled < 0) {
		sv_release_fd(c->sv, mine);
		return;
	}
	copy_state(mine, pooled);
	sv_release_fd(c->sv, mine);
	add.srcfd = (uint32_t)pooled;
	add.newfd = (uint32_t)fd;
	add.newfd_flags = cloexec ? O_CLOEXEC : 0;
	/* SETFD replaces the fd as dup2 would, atomically in the caller's
	 * table, in the caller's own thread (which drops what was there, not
	 * we). Failed, the kernel answers for the command's own pty: before
	 * Linux 5.9 (no ADDFD) the pool is never used. */
	if (ioctl(c->sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 && errno == ENOENT)
		a->abandon = true; /* the caller is gone */
	close(pooled);
}
