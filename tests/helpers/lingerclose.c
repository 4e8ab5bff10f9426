/* SPDX-License-Identifier: MIT */
/* lingerclose PORT TRIES at|magic|watch|fchmod|empty: each try, a child
 * connects to a TCP peer on 127.0.0.1:PORT that takes no data, fills the
 * send buffer, sets SO_LINGER to a day, and exits while other threads keep
 * making a supervised call on the socket: mkdirat(s, "x") (at),
 * mkdir("/proc/self/fd/S/x") (magic), a watch on "/proc/self/fd/S" (watch),
 * fchmod(s) (fchmod) or fchownat(s, "", AT_EMPTY_PATH) (empty; the landlock
 * runner's supervisor performs these two). If the supervisor looks the
 * object up through a copy of the command's own open file, the exit can
 * leave that copy the last one, and its close waits out the linger. After
 * each try the parent makes a supervised call of its own (a mkdir that
 * fails), so a stuck supervisor stops it there. Prints "done TRIES" at the
 * end. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int sock, watcher = -1;
static bool magic, meta, empty;

static void *spin(void *arg)
{
	char path[64];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/fd/%d%s", sock, watcher >= 0 ? "" : "/x");
	for (;;) {
		if (meta)
			fchmod(sock, 0600);
		else if (empty)
			syscall(SYS_fchownat, sock, "", -1, -1, AT_EMPTY_PATH);
		else if (watcher >= 0)
			inotify_add_watch(watcher, path, IN_ALL_EVENTS);
		else if (magic)
			syscall(SYS_mkdir, path, 0755);
		else
			syscall(SYS_mkdirat, sock, "x", 0755);
	}
	return NULL;
}

static void child(int port, unsigned seed)
{
	static char buf[65536];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	struct linger l = { 1, 86400 };
	int small = 4096;
	pthread_t t[4];

	sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (sock < 0 || connect(sock, (struct sockaddr *)&a, sizeof(a)) < 0)
		_exit(2);
	fcntl(sock, F_SETFL, O_NONBLOCK);
	memset(buf, 'x', sizeof(buf));
	while (send(sock, buf, sizeof(buf), 0) > 0)
		;
	setsockopt(sock, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	/* Several callers keep the dispatcher busy with this socket, so the
	 * exit often finds it holding a copy. */
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0)
			_exit(3);
	usleep(100 + seed % 400);
	syscall(SYS_exit_group, 0); /* no linger on an exit's own close */
}

int main(int argc, char **argv)
{
	int port, tries;

	if (argc != 4) {
		fprintf(stderr, "usage: lingerclose PORT TRIES at|magic|watch|fchmod|empty\n");
		return 2;
	}
	port = atoi(argv[1]);
	tries = atoi(argv[2]);
	magic = strcmp(argv[3], "magic") == 0;
	meta = strcmp(argv[3], "fchmod") == 0;
	empty = strcmp(argv[3], "empty") == 0;
	if (strcmp(argv[3], "watch") == 0 && (watcher = inotify_init1(IN_CLOEXEC)) < 0)
		return 1;
	for (int i = 0; i < tries; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			child(port, (unsigned)rand());
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "lingerclose: try %d failed\n", i);
			return 1;
		}
		mkdir("/nonexistent/lingerclose", 0755);
	}
	printf("done %d\n", tries);
	return 0;
}
