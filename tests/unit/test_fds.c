/* SPDX-License-Identifier: MIT */
/* fds.c's closes without close_range (a kernel before 5.9, a container
 * profile older than the call: it walks /proc/self/fd, one close per fd),
 * in a forked child whose seccomp filter refuses close_range (EPERM), as
 * such a profile does. The child holds lingering TCP sockets (connected to
 * a peer here that takes no data, send buffer filled, SO_LINGER a day),
 * each its last reference, as a fork of sbx holds another run's after sbx
 * dropped its own copies (docs/supervisor.md).
 *
 * The child reports through its exit status: 0, or the number of the step
 * that did not behave (with a line on stderr). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fds.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define LINGERING 100

/* close_range -> EPERM, everything else allowed. */
static int refuse_close_range(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	errno = 0;
	return syscall(SYS_close_range, 100000, 100000, 0) < 0 && errno == EPERM ? 0 : -1;
}

/* A peer that takes connections and never reads a byte. */
static int silent_peer(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int small = 4096, s = socket(AF_INET, SOCK_STREAM, 0);

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) < 0 ||
	    bind(s, (struct sockaddr *)a, sizeof(*a)) < 0 || listen(s, 4 * LINGERING) < 0 ||
	    getsockname(s, (struct sockaddr *)a, &len) < 0)
		return -1;
	return s;
}

static int lingering(const struct sockaddr_in *a)
{
	static char buf[65536];
	struct linger day = { .l_onoff = 1, .l_linger = 86400 };
	int small = 4096, s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) < 0 ||
	    connect(s, (const struct sockaddr *)a, sizeof(*a)) < 0)
		return -1;
	fcntl(s, F_SETFL, O_NONBLOCK);
	while (write(s, buf, sizeof(buf)) > 0)
		;
	fcntl(s, F_SETFL, 0);
	return setsockopt(s, SOL_SOCKET, SO_LINGER, &day, sizeof(day)) < 0 ? -1 : s;
}

static long voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child: LINGERING lingering sockets from fd `first` on, a pipe kept
 * (with `except`), then the walk. */
static int child(bool except)
{
	struct sockaddr_in a;
	int peer = silent_peer(&a), kept[2], first = -1, rc;
	long before;
	double t0;

	if (peer < 0 || pipe(kept) < 0) {
		perror("setup");
		return 1;
	}
	if (refuse_close_range() < 0) {
		perror("seccomp filter refusing close_range");
		return 2;
	}
	for (int i = 0; i < LINGERING; i++) {
		int s = lingering(&a);

		if (s < 0) {
			perror("lingering socket");
			return 3;
		}
		if (first < 0)
			first = s;
	}
	/* the kept pipe above them, as sbx's status pipe may be */
	if (dup2(kept[0], first + LINGERING + 5) < 0 || dup2(kept[1], first + LINGERING + 6) < 0) {
		perror("dup2");
		return 1;
	}
	close(kept[0]);
	close(kept[1]);
	kept[0] = first + LINGERING + 5;
	kept[1] = first + LINGERING + 6;
	before = voluntary_switches();
	t0 = now();
	if (except) {
		struct fds_bound b;

		rc = fds_bound_begin(&b);
		if (rc == 0) {
			rc = fds_close_from_except(first, kept, 2);
			fds_bound_end(&b);
		}
	} else {
		rc = fds_close_from_bounded(first);
	}
	long waits = voluntary_switches() - before;

	fprintf(stderr, "%d lingering last closes: %.3f s, %ld voluntary context switches\n",
		LINGERING, now() - t0, waits);
	if (rc < 0) {
		fprintf(stderr, "the close failed: %s\n", strerror(-rc));
		return 4;
	}
	for (int fd = first; fd < first + LINGERING; fd++)
		if (fcntl(fd, F_GETFD) >= 0) {
			fprintf(stderr, "fd %d is still open\n", fd);
			return 5;
		}
	/* One wait per lingering close (for the timer's next tick) is what a
	 * run of sbx's paid, 20 ms each; a few are ours (a child reaped). */
	if (waits >= LINGERING / 2) {
		fprintf(stderr, "the closes waited, one by one (%ld waits)\n", waits);
		return 6;
	}
	if (waitpid(-1, NULL, WNOHANG | __WALL) != -1 || errno != ECHILD) {
		fprintf(stderr, "a child of the close is left\n");
		return 7;
	}
	if (except) {
		char c = 0;

		if (write(kept[1], "k", 1) != 1 || read(kept[0], &c, 1) != 1 || c != 'k') {
			fprintf(stderr, "the kept pipe does not work\n");
			return 8;
		}
	} else if (fcntl(kept[0], F_GETFD) >= 0) {
		fprintf(stderr, "fd %d above the lingering ones is still open\n", kept[0]);
		return 9;
	}
	close(peer);
	return 0;
}

static int run_child(bool except)
{
	int ws;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(child(except));
	cr_assert(waitpid(pid, &ws, 0) == pid);
	cr_assert(WIFEXITED(ws), "the child died (wait status %#x)", ws);
	return WEXITSTATUS(ws);
}

/* fds_close_from_bounded with no close_range (the dead-man helper's and
 * sbx-init's walk): each last close of a lingering socket waited for the
 * timer's next tick, one by one, 20 ms each (2 s for these 100; 80 s for
 * the 4096 copies sbx may hold; runs of `echo hi` were seen taking 7 s).
 * On the old code: status 6. */
Test(fds, walk_does_not_wait_out_lingering_sockets_one_by_one, .timeout = 60)
{
	int st = run_child(false);

	cr_assert(st != 6, "without close_range each lingering last close waited for the "
		  "next tick, one by one");
	cr_assert(st == 0, "status %d (see stderr)", st);
}

/* The same through fds_close_from_except (the run's child before exec),
 * whose kept fds (the status pipe, the listener's socket) stay and work. */
Test(fds, walk_except_keeps_its_fds_and_does_not_wait, .timeout = 60)
{
	int st = run_child(true);

	cr_assert(st != 6, "without close_range each lingering last close waited for the "
		  "next tick, one by one");
	cr_assert(st == 0, "status %d (see stderr)", st);
}
