/* SPDX-License-Identifier: MIT */
/* abstractd: abstract unix sockets for the e2e tests, exact to the byte.
 *
 *   abstractd serve stream|dgram NAME PAD WITNESS
 *       A host daemon (the user's X server, a session bus): listens, or is
 *       bound, on the abstract name NUL NAME followed by PAD NUL bytes, and
 *       appends to WITNESS "accept" for each connection it accepts and
 *       "data <bytes>" for each read or datagram. Ready when WITNESS.ready
 *       exists. Runs until killed.
 *   abstractd attack stream|dgram DECOY NAME PAD
 *       Inside sbx: first a decoy of the run's own that prints in
 *       /proc/net/unix as the daemon's name does, then a connect (stream)
 *       or a sendto (dgram) to the daemon's exact name, with a line sent
 *       after a connect. DECOY: none; space (NAME then a space); newline (a
 *       name holding a newline and a forged table line naming @NAME with the
 *       decoy's own inode); padding (NAME then PAD '@' bytes where the
 *       daemon has NUL bytes). Prints DECOY=errno and RESULT=errno (0: it
 *       got through).
 *   abstractd unshare stream|dgram NAME PAD
 *       A socket made first, then unshare(CLONE_NEWUSER|CLONE_NEWNET)
 *       (UNSHARE=errno; the attack goes on if it was refused), then the
 *       connect or sendto to the daemon's exact name: the kernel looks the
 *       name up in the socket's network namespace, not the thread's.
 *   abstractd own stream|dgram NAME
 *       The run's own server on NAME, reached from a second socket of the
 *       same process: OWN=errno (0: sent and received).
 *   abstractd listen stream|dgram NAME WITNESS
 *       As serve (PAD 0), inside a run: a server of the run's own. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
	fprintf(stderr, "abstractd: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* NUL, name (len bytes), pad bytes of fill: the address and its length. */
static socklen_t addr(struct sockaddr_un *a, const char *name, size_t len, size_t pad, char fill)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (1 + len + pad > sizeof(a->sun_path)) {
		errno = ENAMETOOLONG;
		die("name");
	}
	memcpy(a->sun_path + 1, name, len);
	memset(a->sun_path + 1 + len, fill, pad);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len + pad);
}

static void witness(const char *path, const char *what, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	char line[4200];
	int n;

	if (fd < 0)
		die("open witness");
	n = snprintf(line, sizeof(line), "%s%s%.*s\n", what, len ? " " : "", (int)len, buf);
	if (n > 0 && write(fd, line, (size_t)n) != n)
		die("write witness");
	close(fd);
}

static __attribute__((noreturn)) void serve(int type, const char *name, size_t pad, const char *wit)
{
	struct sockaddr_un a;
	socklen_t len = addr(&a, name, strlen(name), pad, '\0');
	char ready[4096], buf[4096];
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0)
		die("bind");
	if (type == SOCK_STREAM && listen(s, 16) < 0)
		die("listen");
	snprintf(ready, sizeof(ready), "%s.ready", wit);
	close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	for (;;) {
		ssize_t n;

		if (type == SOCK_DGRAM) {
			n = recv(s, buf, sizeof(buf), 0);
			if (n >= 0)
				witness(wit, "data", buf, (size_t)n);
			continue;
		}
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			continue;
		witness(wit, "accept", NULL, 0);
		while ((n = read(c, buf, sizeof(buf))) > 0)
			witness(wit, "data", buf, (size_t)n);
		close(c);
	}
}

/* The decoy, bound (and listening) in the run: 0 or errno. */
static int decoy(int type, const char *how, const char *name, size_t pad)
{
	struct sockaddr_un a;
	socklen_t len;
	struct stat st;
	char forged[128];
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	if (s < 0)
		return errno;
	if (strcmp(how, "none") == 0)
		return 0;
	if (strcmp(how, "space") == 0) {
		char spaced[108];

		snprintf(spaced, sizeof(spaced), "%s ", name);
		len = addr(&a, spaced, strlen(spaced), pad, '\0');
	} else if (strcmp(how, "padding") == 0) {
		len = addr(&a, name, strlen(name), pad, '@');
	} else if (strcmp(how, "newline") == 0) {
		/* "Num RefCount Protocol Flags Type St Inode Path": a listening
		 * socket named @NAME whose inode is our own. */
		if (fstat(s, &st) < 0)
			return errno;
		snprintf(forged, sizeof(forged), "x\n0000000000000000: 00000002 00000000 00010000 %04x "
			 "01 %lu @%s", type == SOCK_STREAM ? 1 : 2, (unsigned long)st.st_ino, name);
		len = addr(&a, forged, strlen(forged), 0, '\0');
	} else {
		fprintf(stderr, "abstractd: unknown decoy %s\n", how);
		exit(2);
	}
	if (bind(s, (struct sockaddr *)&a, len) < 0)
		return errno;
	if (type == SOCK_STREAM && listen(s, 4) < 0)
		return errno;
	return 0;
}

/* connect and send a line (stream), or sendto (dgram): 0 or errno. */
static int reach(int s, int type, const char *name, size_t pad)
{
	struct sockaddr_un a;
	socklen_t len = addr(&a, name, strlen(name), pad, '\0');
	static const char line[] = "reached";

	if (type == SOCK_DGRAM)
		return sendto(s, line, sizeof(line) - 1, 0, (struct sockaddr *)&a, len) < 0 ? errno : 0;
	if (connect(s, (struct sockaddr *)&a, len) < 0)
		return errno;
	return write(s, line, sizeof(line) - 1) < 0 ? errno : 0;
}

static int own(int type, const char *name)
{
	struct sockaddr_un a;
	socklen_t len = addr(&a, name, strlen(name), 0, '\0');
	int srv = socket(AF_UNIX, type | SOCK_CLOEXEC, 0), cli = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	char buf[16];
	int err = 0;

	if (srv < 0 || cli < 0 || bind(srv, (struct sockaddr *)&a, len) < 0 ||
	    (type == SOCK_STREAM && listen(srv, 4) < 0))
		err = errno;
	if (!err)
		err = reach(cli, type, name, 0);
	if (!err && type == SOCK_STREAM) {
		int c = accept4(srv, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			err = errno;
		else if (read(c, buf, sizeof(buf)) <= 0)
			err = EIO;
	} else if (!err && recv(srv, buf, sizeof(buf), 0) <= 0) {
		err = errno ? errno : EIO;
	}
	printf("OWN=%d\n", err);
	return 0;
}

int main(int argc, char **argv)
{
	int type;

	if (argc < 4)
		goto usage;
	type = strcmp(argv[2], "dgram") == 0 ? SOCK_DGRAM : SOCK_STREAM;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(argv[1], "serve") == 0 && argc == 6)
		serve(type, argv[3], (size_t)atoi(argv[4]), argv[5]);
	if (strcmp(argv[1], "listen") == 0 && argc == 5)
		serve(type, argv[3], 0, argv[4]);
	if (strcmp(argv[1], "own") == 0 && argc == 4)
		return own(type, argv[3]);
	if (strcmp(argv[1], "attack") == 0 && argc == 6) {
		size_t pad = (size_t)atoi(argv[5]);
		int s;

		printf("DECOY=%d\n", decoy(type, argv[3], argv[4], pad));
		s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		printf("RESULT=%d\n", s < 0 ? errno : reach(s, type, argv[4], pad));
		return 0;
	}
	if (strcmp(argv[1], "unshare") == 0 && argc == 5) {
		size_t pad = (size_t)atoi(argv[4]);
		int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

		if (s < 0)
			die("socket");
		printf("UNSHARE=%d\n", unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0 ? errno : 0);
		printf("RESULT=%d\n", reach(s, type, argv[3], pad));
		return 0;
	}
usage:
	fprintf(stderr, "usage: abstractd serve|attack|unshare|own|listen ...\n");
	return 2;
}
