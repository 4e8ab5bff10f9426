/* SPDX-License-Identifier: MIT */
/* fdbatch leak | fdbatch burst ROUNDS: sendmmsg calls that pass fds, on a
 * socket pair of its own (sbx performs them, with copies of every fd).
 *  leak: a batch of two, the second passing an open fd and then one that is
 *    not open: the kernel (or sbx) sends the first message only;
 *  burst: ROUNDS batches of 64 messages, each passing one fd 253 times (the
 *    other end drops what it gets);
 *  lockstep ROUNDS: ROUNDS blocking sendmsg calls passing one fd 253 times,
 *    each received and closed before the next (never more than 253 in
 *    flight; unconfined, every one succeeds).
 * Prints how each call went, then "done". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PER_MSG 253
#define BATCH 64

static char controls[BATCH][CMSG_SPACE(PER_MSG * sizeof(int))];

static void put_fds(struct msghdr *h, char *control, const int *fds, int n)
{
	struct cmsghdr *c;

	memset(control, 0, CMSG_SPACE(n * sizeof(int)));
	h->msg_control = control;
	h->msg_controllen = CMSG_SPACE(n * sizeof(int));
	c = CMSG_FIRSTHDR(h);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
}

static void *drain(void *arg)
{
	int s = *(int *)arg;
	char buf[16], control[CMSG_SPACE(PER_MSG * sizeof(int))];

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
				    .msg_controllen = sizeof(control) };
		struct cmsghdr *c;

		if (recvmsg(s, &h, 0) < 0)
			return NULL;
		for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
			int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int *fds = (int *)CMSG_DATA(c);

			for (int i = 0; i < n; i++)
				close(fds[i]);
		}
	}
}

int main(int argc, char **argv)
{
	int pair[2], fd = open("/dev/null", O_RDONLY);
	char byte = 'x';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct mmsghdr v[BATCH];

	if (argc < 2 || fd < 0 || socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0)
		return 2;
	memset(v, 0, sizeof(v));
	for (int i = 0; i < BATCH; i++) {
		v[i].msg_hdr.msg_iov = &iov;
		v[i].msg_hdr.msg_iovlen = 1;
	}
	if (strcmp(argv[1], "leak") == 0) {
		int two[2] = { fd, 999 };

		close(999);
		put_fds(&v[1].msg_hdr, controls[1], two, 2);
		int n = sendmmsg(pair[0], v, 2, MSG_DONTWAIT);

		printf("sent %d%s%s\n", n, n < 0 ? " " : "", n < 0 ? strerror(errno) : "");
	} else if (strcmp(argv[1], "burst") == 0 && argc == 3) {
		int fds[PER_MSG], rounds = atoi(argv[2]), ok = 0;
		pthread_t t;

		pthread_create(&t, NULL, drain, &pair[1]);
		for (int i = 0; i < PER_MSG; i++)
			fds[i] = fd;
		for (int i = 0; i < BATCH; i++)
			put_fds(&v[i].msg_hdr, controls[i], fds, PER_MSG);
		int last = 0, err = 0;

		for (int r = 0; r < rounds; r++) {
			last = sendmmsg(pair[0], v, BATCH, 0);
			if (last > 0)
				ok++;
			else
				err = errno;
		}
		printf("%d of %d batches sent%s%s\n", ok, rounds, err ? ", else: " : "",
		       err ? strerror(err) : "");
	} else if (strcmp(argv[1], "lockstep") == 0 && argc == 3) {
		int fds[PER_MSG], rounds = atoi(argv[2]), ok = 0, err = 0;
		char buf[16], control[CMSG_SPACE(PER_MSG * sizeof(int))];

		for (int i = 0; i < PER_MSG; i++)
			fds[i] = fd;
		put_fds(&v[0].msg_hdr, controls[0], fds, PER_MSG);
		for (int r = 0; r < rounds && !err; r++) {
			struct iovec in = { .iov_base = buf, .iov_len = sizeof(buf) };
			struct msghdr h = { .msg_iov = &in, .msg_iovlen = 1, .msg_control = control,
					    .msg_controllen = sizeof(control) };

			if (sendmsg(pair[0], &v[0].msg_hdr, 0) < 0) {
				err = errno;
				break;
			}
			if (recvmsg(pair[1], &h, 0) < 0) {
				err = errno;
				break;
			}
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
				int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
				int *got = (int *)CMSG_DATA(c);

				for (int i = 0; i < n; i++)
					close(got[i]);
			}
			ok++;
		}
		printf("%d of %d sent%s%s\n", ok, rounds, err ? ", then: " : "",
		       err ? strerror(err) : "");
	} else {
		return 2;
	}
	printf("done\n");
	return 0;
}
