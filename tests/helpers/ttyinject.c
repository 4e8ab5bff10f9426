/* SPDX-License-Identifier: MIT */
/* ttyinject: try to push bytes into a terminal's input queue, the way
 * CVE-2017-5226 (TIOCSTI) and CVE-2019-10063 (TIOCSTI with high bits set in
 * the request: the kernel drops them, a 64-bit seccomp compare does not)
 * escaped sandboxes, and try TIOCLINUX (the console's paste-selection, the
 * same class). For the e2e hardening tests.
 *
 *   ttyinject SLAVE_PATH
 *
 * Opens SLAVE_PATH (a pseudo-terminal slave whose master the test holds):
 * read-write, or read-only if writing is refused (TIOCSTI needs no write
 * access, so a sandbox that only stops writes does not stop it). It tries to
 * make the terminal its controlling terminal (setsid + TIOCSCTTY): the kernel
 * lets a process without CAP_SYS_ADMIN use TIOCSTI only on its own
 * controlling terminal, so without that an EPERM would prove nothing about a
 * seccomp filter. If the path cannot be opened at all (a sandbox without the
 * host's /dev/pts), the ioctls go to fd 0 instead: not a terminal, so the
 * kernel answers ENOTTY, and only a seccomp filter answers EPERM.
 *
 * Prints one "NAME=N" line per step on stdout, N = 0 for success or the errno:
 *   OPEN          0 read-write, 0 with RO=1 read-only, else the open errno
 *   RO            1 if the terminal was opened read-only
 *   CTTY          TIOCSCTTY
 *   TIOCSTI       request TIOCSTI, byte 'x'
 *   TIOCSTI_HI    request TIOCSTI | 0xFFFFFFFF00000000, byte 'y'
 *   TIOCLINUX     request TIOCLINUX, subcode 12 (TIOCL_GETSHIFTSTATE: reads only)
 *   TIOCLINUX_HI  request TIOCLINUX | 0xFFFFFFFF00000000, subcode 12
 * Exit status 0 once every attempt was made, 2 on usage errors.
 * Only open/ioctl: no libutil. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

#define HIGH_BITS 0xFFFFFFFF00000000UL

static void report(const char *name, int err)
{
	printf("%s=%d\n", name, err);
	fflush(stdout);
}

/* The raw system call: the request travels as a full unsigned long, high
 * bits included, exactly as a seccomp filter sees it. */
static int try_ioctl(int fd, unsigned long request, void *arg)
{
	errno = 0;
	long rc = syscall(SYS_ioctl, fd, request, arg);
	return rc == 0 ? 0 : errno;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ttyinject SLAVE_PATH\n");
		return 2;
	}
	/* Become a session leader (fails harmlessly if we already lead one). */
	(void)setsid();
	int ro = 0;
	int fd = open(argv[1], O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno != ENOENT && errno != ENOTDIR) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC | O_NOCTTY);
		ro = fd >= 0;
	}
	report("OPEN", fd >= 0 ? 0 : errno);
	report("RO", ro);
	if (fd < 0)
		fd = 0;
	report("CTTY", try_ioctl(fd, TIOCSCTTY, NULL));

	char x = 'x', y = 'y';
	report("TIOCSTI", try_ioctl(fd, (unsigned long)TIOCSTI, &x));
	report("TIOCSTI_HI", try_ioctl(fd, (unsigned long)TIOCSTI | HIGH_BITS, &y));
	char sub = 12;
	report("TIOCLINUX", try_ioctl(fd, (unsigned long)TIOCLINUX, &sub));
	sub = 12;
	report("TIOCLINUX_HI", try_ioctl(fd, (unsigned long)TIOCLINUX | HIGH_BITS, &sub));
	if (fd != 0)
		close(fd);
	return 0;
}
