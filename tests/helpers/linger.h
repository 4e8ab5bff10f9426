/* SPDX-License-Identifier: MIT */
/* What lingerpass, lingernproc and lingermany share: lingering TCP sockets
 * (connected to a peer that takes no data, send buffer filled, SO_LINGER a
 * day) and a thread that passes them on pair[0] (SCM_RIGHTS, one message),
 * in a send sbx performs that blocks there (pair[0]'s buffer is full),
 * holding its copies. Closing them and pair[1] then fails the send and
 * leaves sbx's copies the last references. */
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

#define LINGER_MAX 253 /* fds in one SCM_RIGHTS message */

static int pair[2], send_errno;
static int lingering[LINGER_MAX], n_lingering;

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
	char byte = 'x', control[CMSG_SPACE(sizeof(int) * LINGER_MAX)];
	size_t size = sizeof(int) * (size_t)n_lingering;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = CMSG_SPACE(size) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	(void)arg;
	memset(control, 0, sizeof(control));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(size);
	memcpy(CMSG_DATA(cm), lingering, size);
	send_errno = sendmsg(pair[0], &m, MSG_NOSIGNAL) < 0 ? errno : 0;
	return NULL;
}

/* One more lingering socket, connected to a; sndbuf > 0 makes its send
 * buffer that small (quicker to fill, for many). */
static int linger_add(const struct sockaddr_in *a, int sndbuf)
{
	struct linger day = { .l_onoff = 1, .l_linger = 86400 };
	int s = n_lingering < LINGER_MAX ? socket(AF_INET, SOCK_STREAM, 0) : -1;

	if (s < 0 || (sndbuf > 0 && setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0) ||
	    connect(s, (const struct sockaddr *)a, sizeof(*a)) < 0) {
		perror("connect");
		return -1;
	}
	fill(s);
	if (setsockopt(s, SOL_SOCKET, SO_LINGER, &day, sizeof(day)) < 0) {
		perror("SO_LINGER");
		return -1;
	}
	lingering[n_lingering++] = s;
	return 0;
}

/* Fills pair[0] and starts pass() on *t. */
static int linger_pass(pthread_t *t)
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) {
		perror("socketpair");
		return -1;
	}
	fill(pair[0]);
	return pthread_create(t, NULL, pass, NULL) == 0 ? 0 : -1;
}

/* Closes our lingering sockets and the receiving end: the send fails. */
static void linger_let_go(void)
{
	for (int i = 0; i < n_lingering; i++)
		close(lingering[i]);
	n_lingering = 0;
	close(pair[1]);
}

#endif
