/* SPDX-License-Identifier: MIT */
/* lingermany PORT N: passes N (at most 253) lingering TCP sockets in one
 * send that sbx performs, then leaves sbx the last holder of all of them.
 * Each is connected to a peer on 127.0.0.1:PORT that takes no data, its
 * send buffer filled, SO_LINGER set to a day. The send waits in sbx on a
 * unix socket whose buffer is full, holding copies; meanwhile this closes
 * its own fds and the receiving end, the send fails, and sbx's copies are
 * the last references: sbx's closer is caught in each close in turn, and
 * cancelled and replaced over and over. Prints the send's error and
 * "done". */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PER_MSG 253

static int socks[PER_MSG], n_socks, pair[2], send_errno;

static void fill(int fd)
{
	static char buf[65536];

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

static void *pass_all(void *arg)
{
	char byte = 'x', control[CMSG_SPACE(sizeof(int) * PER_MSG)];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_socks) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	(void)arg;
	memset(control, 0, sizeof(control));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_socks);
	memcpy(CMSG_DATA(cm), socks, sizeof(int) * (size_t)n_socks);
	send_errno = sendmsg(pair[0], &m, MSG_NOSIGNAL) < 0 ? errno : 0;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct linger day = { .l_onoff = 1, .l_linger = 86400 };
	int small = 4096;
	pthread_t t;

	if (argc < 3)
		return 2;
	n_socks = atoi(argv[2]);
	if (n_socks < 1 || n_socks > PER_MSG)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (int i = 0; i < n_socks; i++) {
		socks[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (socks[i] < 0 ||
		    setsockopt(socks[i], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) < 0 ||
		    connect(socks[i], (const struct sockaddr *)&a, sizeof(a)) < 0) {
			perror("connect");
			return 1;
		}
		fill(socks[i]);
		if (setsockopt(socks[i], SOL_SOCKET, SO_LINGER, &day, sizeof(day)) < 0) {
			perror("SO_LINGER");
			return 1;
		}
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) {
		perror("socketpair");
		return 1;
	}
	fill(pair[0]);
	if (pthread_create(&t, NULL, pass_all, NULL) != 0)
		return 1;
	/* The send has reached sbx and waits there, holding its copies. */
	sleep(1);
	for (int i = 0; i < n_socks; i++)
		close(socks[i]);
	close(pair[1]);
	pthread_join(t, NULL);
	close(pair[0]);
	printf("send: %s\ndone\n", send_errno ? strerror(send_errno) : "sent");
	return 0;
}
