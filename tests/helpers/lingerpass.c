/* SPDX-License-Identifier: MIT */
/* lingerpass PORT [TIMES [PAUSE_MS [FILL]]]: passes a lingering TCP socket in a send that sbx
 * performs, then leaves sbx the last holder of it. The socket is connected
 * to a peer on 127.0.0.1:PORT that takes no data, its send buffer filled,
 * SO_LINGER set to a day. A thread sends it (SCM_RIGHTS) on a unix socket
 * whose buffer is full, so the supervised sendmsg blocks in sbx holding a
 * copy of it; meanwhile this closes its own fd and the receiving end, the
 * send fails, and sbx's copy is the last reference: its close waits out
 * the linger wherever sbx makes it. TIMES times (1), waiting PAUSE_MS
 * (1000) for each send to reach sbx. With FILL, first puts up to FILL fds
 * in flight on unix sockets it never reads (the same fd, 253 times a
 * message, until a send fails): past the user's limit (RLIMIT_NOFILE),
 * every send with SCM_RIGHTS of that user fails with ETOOMANYREFS, sbx's
 * own too. Prints how many it put in flight, the last send's error and
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

#include "linger.h"

static int one(const struct sockaddr_in *a, unsigned pause_ms)
{
	pthread_t t;

	if (linger_add(a, 0) < 0 || linger_pass(&t) < 0)
		return 1;
	/* The send has reached sbx and blocks there, holding its copy. */
	usleep(pause_ms * 1000);
	linger_let_go();
	pthread_join(t, NULL);
	close(pair[0]);
	return 0;
}

#define PER_MSG 253

static int send_fds(int sock, const int *fds, int n)
{
	char byte = 'x', control[CMSG_SPACE(sizeof(int) * PER_MSG)];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	memset(control, 0, sizeof(control));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
	return sendmsg(sock, &m, MSG_DONTWAIT) < 0 ? errno : 0;
}

static void fill_in_flight(long want)
{
	long inflight = 0;
	int fds[PER_MSG] = { 0 }, err = 0;

	while (inflight < want) {
		int sp[2];

		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) < 0) {
			err = errno;
			break;
		}
		/* the receiving end stays open, never read */
		for (int k = 0; k < 8 && inflight < want; k++) {
			err = send_fds(sp[0], fds, PER_MSG);
			if (err)
				break;
			inflight += PER_MSG;
		}
		if (err && err != EAGAIN)
			break;
		err = 0;
	}
	printf("in flight: %ld (%s)\n", inflight, err ? strerror(err) : "stopped");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int times = argc > 2 ? atoi(argv[2]) : 1;
	unsigned pause_ms = argc > 3 ? (unsigned)atoi(argv[3]) : 1000;

	if (argc < 2)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (argc > 4)
		fill_in_flight(atol(argv[4]));
	for (int i = 0; i < times; i++)
		if (one(&a, pause_ms) != 0)
			return 1;
	printf("send: %s\ndone\n", send_errno ? strerror(send_errno) : "sent");
	return 0;
}
