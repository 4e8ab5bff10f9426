/* SPDX-License-Identifier: MIT */
/* What lingerpass and lingernproc share: a socket's send buffer filled, and
 * a thread that passes the lingering socket on pair[0] (SCM_RIGHTS), in a
 * send sbx performs and that blocks there, holding its copy. */
#ifndef SBX_TEST_LINGER_H
#define SBX_TEST_LINGER_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int pair[2], lingering, send_errno;

static void fill(int fd)
{
	static char buf[65536];

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

static void *pass(void *arg)
{
	char byte = 'x', control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	(void)arg;
	memset(control, 0, sizeof(control));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &lingering, sizeof(int));
	send_errno = sendmsg(pair[0], &m, MSG_NOSIGNAL) < 0 ? errno : 0;
	return NULL;
}

#endif
