/* SPDX-License-Identifier: MIT */
/* close_range where the kernel has it (5.9; CLOSE_RANGE_CLOEXEC from 5.11),
 * else a walk of /proc/self/fd, else every number below RLIMIT_NOFILE. Child
 * side: no allocation, no stdio. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

static void one(int fd, bool cloexec_only)
{
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
static int every_number(int first, bool cloexec_only)
{
	struct rlimit rl;
	rlim_t last = 65536;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
		last = rl.rlim_max;
	for (rlim_t fd = (rlim_t)first; fd < last; fd++)
		one((int)fd, cloexec_only);
	return 0;
}

static int walk_proc(int first, bool cloexec_only)
{
	char buf[4096] __attribute__((aligned(8)));
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (dir < 0)
		return every_number(first, cloexec_only);
	/* /proc lists fds by number from the read position on: closing the
	 * ones already listed moves nothing. */
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			int fd = fd_number(d->d_name);

			off += d->d_reclen;
			if (fd >= first && fd != dir)
				one(fd, cloexec_only);
		}
	}
	close(dir);
	return n < 0 ? -errno : 0;
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
	return walk_proc(first, cloexec_only);
}
