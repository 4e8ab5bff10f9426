/* SPDX-License-Identifier: MIT */
/* lingernproc PORT: as lingerpass, but with its user's processes used up
 * (RLIMIT_NPROC) at the moment sbx is left the last holder of the lingering
 * socket, so sbx cannot start a thread then. A send sbx performs blocks
 * holding a copy of a lingering TCP socket (connected to 127.0.0.1:PORT,
 * which takes no data; SO_LINGER a day); this forks until the kernel
 * refuses, keeps taking every process slot that frees for a while (sbx's
 * idle threads end: their slots too), then closes its own fd and the
 * receiving end: the send fails, and sbx's copy is the last reference.
 * Then it ends its children and prints "done". */
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
#include <sys/wait.h>
#include <unistd.h>

#include "linger.h"

/* A child that holds a process slot until killed, with none of our fds. */
static pid_t holder(void)
{
	pid_t p = fork();

	if (p == 0) {
		close(lingering[0]);
		close(pair[0]);
		close(pair[1]);
		pause();
		_exit(0);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	pid_t grabber;
	long kids = 0;
	pthread_t t;

	if (argc != 2)
		return 2;
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	setpgid(0, 0);
	if (linger_add(&a, 0) < 0 || linger_pass(&t) < 0)
		return 1;
	sleep(1); /* the send has reached sbx and blocks there */
	/* sbx's idle threads end after a few seconds (supervisor_release.c,
	 * supervisor_worker.c): their slots go to us, taken by this one */
	grabber = fork();
	if (grabber == 0) {
		close(lingering[0]);
		close(pair[0]);
		close(pair[1]);
		for (int i = 0; i < 80000; i++) {
			holder();
			usleep(100);
		}
		pause();
		_exit(0);
	}
	while (holder() > 0)
		kids++;
	fprintf(stderr, "%ld children, then %s\n", kids, strerror(errno));
	sleep(7);
	linger_let_go();
	pthread_join(t, NULL);
	fprintf(stderr, "send: %s\n", send_errno ? strerror(send_errno) : "ok");
	sleep(1); /* sbx releases its copies now */
	signal(SIGTERM, SIG_IGN);
	kill(0, SIGTERM);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	printf("done\n");
	return 0;
}
