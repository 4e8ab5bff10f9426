/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "output.h"

/* 1 MiB pipes triple cross-CPU throughput here. An unprivileged user's pipe
 * budget (fs.pipe-user-pages-soft) runs out after ~64 of them: then the
 * kernel refuses with EPERM and the default size is kept, quietly. */

int pipe_open_collect(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	(void)fcntl(fds[0], F_SETPIPE_SZ, COLLECT_PIPE_SIZE);
	return 0;
}

int io_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}
