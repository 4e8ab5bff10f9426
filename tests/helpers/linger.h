/* SPDX-License-Identifier: MIT */
/* What lingerpass and lingernproc share: a socket's send buffer filled, and
 * a thread that passes the lingering socket on pair[0] (SCM_RIGHTS), in a
 * send sbx performs and that blocks there, holding its copy. */
#ifndef SBX_TEST_LINGER_H
#define SBX_TEST_LINGER_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
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

/* Connects `lingering` to a (the peer takes no data), fills its send buffer,
 * sets SO_LINGER to a day, fills pair[0] and starts pass() on *t: its send
 * blocks in sbx, holding a copy of `lingering`. */
static int linger_start(const struct sockaddr_in *a, pthread_t *t)
{
	struct linger day = { .l_onoff = 1, .l_linger = 86400 };

	lingering = socket(AF_INET, SOCK_STREAM, 0);
	if (lingering < 0 || connect(lingering, (const struct sockaddr *)a, sizeof(*a)) < 0) {
		perror("connect");
		return -1;
	}
	fill(lingering);
	if (setsockopt(lingering, SOL_SOCKET, SO_LINGER, &day, sizeof(day)) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) {
		perror("setup");
		return -1;
	}
	fill(pair[0]);
	return pthread_create(t, NULL, pass, NULL) == 0 ? 0 : -1;
}

#endif
