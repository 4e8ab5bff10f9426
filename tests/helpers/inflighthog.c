/* SPDX-License-Identifier: MIT */
/* inflighthog REPORT STOP: fills its user's count of files in flight. It
 * sends 253 copies of one fd per datagram to sockets that never read, until
 * the kernel refuses (ETOOMANYREFS) or the count is past its hard
 * RLIMIT_NOFILE by 4096 (past any soft limit of its user). Then it writes
 * "full N ERRNO-NAME" to REPORT and holds them until STOP exists (at most
 * two minutes). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define PER_SEND 253

static int send_copies(int sock, int fd)
{
	int fds[PER_SEND];
	char byte = 'x', control[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	for (int i = 0; i < PER_SEND; i++)
		fds[i] = fd;
	memset(control, 0, sizeof(control));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	return sendmsg(sock, &m, MSG_DONTWAIT) == 1 ? 0 : errno;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	long sent = 0, enough;
	int fd = open("/dev/null", O_RDONLY), pair[2] = { -1, -1 }, err = 0;
	FILE *f;

	if (argc != 3 || fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 2;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	enough = (long)rl.rlim_max + 4096;
	while (sent < enough) {
		if (pair[0] < 0 && socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0) {
			err = errno;
			break;
		}
		err = send_copies(pair[0], fd);
		if (err == EAGAIN) {
			/* this socket's queue is full: keep it, take another */
			pair[0] = -1;
			continue;
		}
		if (err)
			break;
		sent += PER_SEND;
	}
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "full %ld %s\n", sent, err == ETOOMANYREFS ? "ETOOMANYREFS" : err ? strerror(err) : "none");
	fclose(f);
	for (int i = 0; i < 1200 && access(argv[2], F_OK) != 0; i++)
		usleep(100000);
	return 0;
}
