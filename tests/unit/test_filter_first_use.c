/* SPDX-License-Identifier: MIT */
/* The supervisor's filters are built on first use and kept for the process;
 * the library's caller may start its first runs on several threads at once.
 * Each thread must get the same, whole program as a lone first use does.
 * On the old code the threads built into one buffer together, and children
 * installed the mix (supervisor::one_run_cannot_take_every_runs_room_...:
 * both commands died of SIGSEGV at their start). Each round is a fresh
 * process (a fork), where nothing is built yet. */
#include <criterion/criterion.h>
#include <linux/filter.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp_notify.h"
#include "syscall_filter.h"

#if defined(CONFIG_SUPERVISOR) && defined(__x86_64__)

#define THREADS 8
#define ROUNDS 100
#define MAX_INSNS 4096

struct copy {
	unsigned short len;
	struct sock_filter insns[MAX_INSNS];
};

static pthread_barrier_t start;

/* What a thread got, copied at once (the buffer may change after). */
static void take(const struct sock_fprog *p, struct copy *out)
{
	out->len = 0;
	if (p && p->len <= MAX_INSNS) {
		out->len = p->len;
		memcpy(out->insns, p->filter, p->len * sizeof(*p->filter));
	}
}

struct got {
	struct copy meta, sockets;
#ifdef CONFIG_SECCOMP
	struct copy joined;
#endif
};

static void get_all(struct got *g)
{
	take(notify_filter_get(NOTIFY_METADATA), &g->meta);
	take(notify_filter_get(NOTIFY_SOCKETS), &g->sockets);
#ifdef CONFIG_SECCOMP
	take(seccomp_filter_join(SECCOMP_RULES_LANDLOCK, notify_filter_get(NOTIFY_METADATA)),
	     &g->joined);
#endif
}

static void *racer(void *arg)
{
	pthread_barrier_wait(&start);
	get_all(arg);
	return NULL;
}

static bool same(const struct copy *a, const struct copy *b)
{
	return a->len && a->len == b->len &&
	       memcmp(a->insns, b->insns, a->len * sizeof(a->insns[0])) == 0;
}

/* In a fresh fork: THREADS first uses at once, each compared with want.
 * 0: all the same; 1: a thread got another program. */
static int round_in_fork(const struct got *want)
{
	static struct got got[THREADS];
	pthread_t t[THREADS];

	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, racer, &got[i]) != 0)
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++)
		if (!same(&got[i].meta, &want->meta) || !same(&got[i].sockets, &want->sockets)
#ifdef CONFIG_SECCOMP
		    || !same(&got[i].joined, &want->joined)
#endif
		)
			return 1;
	return 0;
}

Test(filter_first_use, threads_at_once_get_the_whole_program, .timeout = 120)
{
	static struct got want;
	int bad = 0, status;

	/* The reference: a lone first use, in a fresh fork too. */
	int pipefd[2];

	cr_assert(pipe(pipefd) == 0);
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		static struct got g;

		get_all(&g);
		_exit(write(pipefd[1], &g, sizeof(g)) == (ssize_t)sizeof(g) ? 0 : 1);
	}
	close(pipefd[1]);
	for (size_t done = 0; done < sizeof(want);) {
		ssize_t n = read(pipefd[0], (char *)&want + done, sizeof(want) - done);

		cr_assert(n > 0, "no reference program");
		done += (size_t)n;
	}
	close(pipefd[0]);
	cr_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert(want.meta.len && want.sockets.len, "no reference program");

	for (int r = 0; r < ROUNDS; r++) {
		pid = fork();
		cr_assert(pid >= 0);
		if (pid == 0)
			_exit(round_in_fork(&want));
		cr_assert(waitpid(pid, &status, 0) == pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) != 2, "no threads");
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	cr_assert(bad == 0, "%d of %d rounds of %d threads' first use gave a thread another "
		  "program than a lone first use", bad, ROUNDS, THREADS);
}

#endif
