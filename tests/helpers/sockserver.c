/* SPDX-License-Identifier: MIT */
/* sockserver: a stand-in for a host daemon on a unix socket (tmux,
 * docker.sock, the user's bus) for the supervisor's e2e tests. It writes a
 * witness file when it receives a line, so a test checks on disk whether a
 * confined command reached it.
 *
 *   sockserver stream|dgram PATH WITNESS
 *       PATH: a socket path, or @NAME for an abstract socket. The socket
 *       file is made 0777, so only the supervisor stands between it and any
 *       local user. Each line received is appended to WITNESS.
 *   sockserver stuck PATH
 *       listen with backlog 0 and never accept: the second connect blocks.
 *
 * Ready when PATH exists (abstract: when WITNESS.ready exists). Runs until
 * killed. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "sockserver: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void witness(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		die("open witness");
	if (write(fd, buf, len) != (ssize_t)len)
		die("write witness");
	close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len;
	const char *mode, *path, *wit;
	int type, s;
	char buf[4096];

	if (argc < 3 || (strcmp(argv[1], "stuck") != 0 && argc < 4)) {
		fprintf(stderr, "usage: sockserver stream|dgram PATH WITNESS | stuck PATH\n");
		return 2;
	}
	mode = argv[1];
	path = argv[2];
	wit = argc > 3 ? argv[3] : NULL;
	type = strcmp(mode, "dgram") == 0 ? SOCK_DGRAM : SOCK_STREAM;
	if (strlen(path) >= sizeof(a.sun_path))
		die("path too long");
	strcpy(a.sun_path, path);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	if (path[0] == '@')
		a.sun_path[0] = '\0';
	else
		len++, unlink(path);
	s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0)
		die("bind");
	if (path[0] != '@' && chmod(path, 0777) < 0)
		die("chmod");
	if (type == SOCK_STREAM && listen(s, strcmp(mode, "stuck") == 0 ? 0 : 16) < 0)
		die("listen");
	if (path[0] == '@' && wit) {
		char ready[4096];

		snprintf(ready, sizeof(ready), "%s.ready", wit);
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	}
	if (strcmp(mode, "stuck") == 0)
		for (;;)
			pause();
	for (;;) {
		ssize_t n;

		if (type == SOCK_DGRAM) {
			n = recv(s, buf, sizeof(buf), 0);
			if (n > 0)
				witness(wit, buf, (size_t)n);
			continue;
		}
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			continue;
		while ((n = read(c, buf, sizeof(buf))) > 0)
			witness(wit, buf, (size_t)n);
		close(c);
	}
}
