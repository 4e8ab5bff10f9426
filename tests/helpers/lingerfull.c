/* SPDX-License-Identifier: MIT */
/* lingerfull PORT [FILL]: first puts many fds in flight on unix sockets it
 * never reads (the same fd, 253 times a message, until a send fails or
 * FILL fds are in flight; FILL 0: none), so the user's count of fds in
 * flight (the kernel's unix_inflight, limited by RLIMIT_NOFILE: sends with
 * SCM_RIGHTS fail with ETOOMANYREFS beyond it) is past the limit for every
 * process of that user, sbx's too. Then, as lingerpass, passes a lingering
 * TCP socket (connected to 127.0.0.1:PORT, which takes no data; SO_LINGER
 * a day) in a send sbx performs and leaves sbx the last holder of it.
 * Prints how many fds it put in flight, the error that stopped it, and
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

static int pair[2], lingering;
static int send_errno;

static void fill(int fd)
{
	char buf[4096];

	memset(buf, 'x', sizeof(buf));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

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

static void *pass(void *arg)
{
	(void)arg;
	send_errno = send_fds(pair[0], &lingering, 1);
	if (send_errno == EAGAIN) {
		/* blocking, as lingerpass */
		fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) & ~O_NONBLOCK);
	}
	return NULL;
}

static void *pass_blocking(void *arg)
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
	send_errno = sendmsg(pair[0], &m, 0) < 0 ? errno : 0;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct linger day = { .l_onoff = 1, .l_linger = 86400 };
	long want = argc > 2 ? atol(argv[2]) : 1L << 30;
	long inflight = 0;
	int fds[PER_MSG], err = 0;
	pthread_t t;

	(void)pass;
	if (argc < 2)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (int i = 0; i < PER_MSG; i++)
		fds[i] = 0;
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

	lingering = socket(AF_INET, SOCK_STREAM, 0);
	if (lingering < 0 || connect(lingering, (const struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("connect");
		return 1;
	}
	fill(lingering);
	if (setsockopt(lingering, SOL_SOCKET, SO_LINGER, &day, sizeof(day)) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) {
		perror("setup");
		return 1;
	}
	fill(pair[0]);
	if (pthread_create(&t, NULL, pass_blocking, NULL) != 0)
		return 1;
	usleep(1000 * 1000);
	close(lingering);
	close(pair[1]);
	pthread_join(t, NULL);
	close(pair[0]);
	printf("send: %s\ndone\n", send_errno ? strerror(send_errno) : "sent");
	/* a supervised call after it: does the run's supervisor still answer? */
	{
		int s = socket(AF_INET, SOCK_STREAM, 0);
		int r = connect(s, (const struct sockaddr *)&a, sizeof(a));

		printf("later connect: %d\n", r);
	}
	return 0;
}
