/* SPDX-License-Identifier: MIT */
/* blockedpass READY GO DONE STOP: sends passing fds that wait for room, then let go
 * together. It fills its user's count of fds in flight to the kernel's
 * refusal (253 copies of one fd a message, to sockets it never reads) and
 * takes one message back, so the count is just under the limit. Then 16
 * threads each send 253 fds on a datagram socket whose peer's queue is full
 * (the peer is not connected back, so the sender waits for room). The kernel
 * checks the count when a send starts and counts the fds when it is queued:
 * sends that wait in between all pass the check. It writes READY, waits
 * until GO exists, makes room for every send, writes how many went out to
 * DONE, and holds all it sent until STOP exists (two minutes at most for
 * each wait). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define PER_MSG 253
#define SENDERS 16

static int a_end, b_end, devnull, sent, failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int send_fds(int sock, int flags)
{
	int fds[PER_MSG];
	char byte = 'x', control[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	for (int i = 0; i < PER_MSG; i++)
		fds[i] = devnull;
	memset(control, 0, sizeof(control));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	return sendmsg(sock, &m, flags) == 1 ? 0 : errno;
}

static void *sender(void *arg)
{
	int err = send_fds(a_end, 0);

	(void)arg;
	pthread_mutex_lock(&lock);
	if (err)
		failed++;
	else
		sent++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* One message back from the fill, its fds closed. */
static void take_one(int sock)
{
	char buf[8], control[CMSG_SPACE(PER_MSG * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };

	if (recvmsg(sock, &m, MSG_DONTWAIT) > 0)
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++)
				close(((int *)CMSG_DATA(c))[i]);
}

int main(int argc, char **argv)
{
	struct sockaddr none = { .sa_family = AF_UNSPEC };
	pthread_t t[SENDERS];
	int fill[2] = { -1, -1 }, pair[2], err = 0, last = -1;
	long filled = 0;
	struct rlimit rl;
	FILE *f;

	if (argc != 5 || (devnull = open("/dev/null", O_RDONLY)) < 0)
		return 2;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	while (!err) {
		if (fill[0] < 0 && socketpair(AF_UNIX, SOCK_DGRAM, 0, fill) < 0)
			return 2;
		err = send_fds(fill[0], MSG_DONTWAIT);
		if (err == EAGAIN) {
			fill[0] = -1; /* full: keep it, take another */
			err = 0;
		} else if (!err) {
			filled += PER_MSG;
			last = fill[1];
		}
	}
	if (err != ETOOMANYREFS || last < 0) {
		printf("fill stopped at %ld: %s\n", filled, strerror(err));
		return 1;
	}
	take_one(last);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0 ||
	    connect(pair[1], &none, sizeof(none)) < 0)
		return 2;
	a_end = pair[0];
	b_end = pair[1];
	/* the peer's queue full of plain datagrams */
	while (send(a_end, "x", 1, MSG_DONTWAIT) == 1)
		;
	for (int i = 0; i < SENDERS; i++)
		pthread_create(&t[i], NULL, sender, NULL);
	usleep(500 * 1000);
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "filled %ld\n", filled);
	fclose(f);
	for (int i = 0; i < 1200 && access(argv[2], F_OK) != 0; i++)
		usleep(100000);
	/* room for every send, one at a time */
	for (int i = 0; i < SENDERS; i++) {
		char c;

		recv(b_end, &c, 1, MSG_DONTWAIT);
		usleep(20000);
	}
	for (int i = 0; i < SENDERS; i++)
		pthread_join(t[i], NULL);
	f = fopen(argv[3], "w");
	if (!f)
		return 2;
	fprintf(f, "filled %ld, sent %d, refused %d\n", filled, sent, failed);
	fclose(f);
	for (int i = 0; i < 1200 && access(argv[4], F_OK) != 0; i++)
		usleep(100000);
	return 0;
}
