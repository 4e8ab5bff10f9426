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

#include "linger.h"

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int n = argc < 3 ? 0 : atoi(argv[2]);
	pthread_t t;

	if (n < 1 || n > LINGER_MAX)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (int i = 0; i < n; i++)
		if (linger_add(&a, 4096) < 0)
			return 1;
	if (linger_pass(&t) < 0)
		return 1;
	/* The send has reached sbx and waits there, holding its copies. */
	sleep(1);
	linger_let_go();
	pthread_join(t, NULL);
	close(pair[0]);
	printf("send: %s\ndone\n", send_errno ? strerror(send_errno) : "sent");
	return 0;
}
