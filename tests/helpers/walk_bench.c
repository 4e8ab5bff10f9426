/* SPDX-License-Identifier: MIT */
/* The git pass's walk alone (launcher/protect/protect_walk.c), for
 * scripts/bench-git-walk.sh: protect_git_pass over ROOT, RUNS times, with
 * everything counting as changed (the worst case; on a tree whose
 * repositories hold only what git init and commit write, nothing is
 * rewritten); prints the fastest run and the directories it walked. Built
 * by the script against a tree's own headers and libsbx.a (the same source
 * builds against sbx before and after issue 29's findings).
 *
 *   walk_bench ROOT [RUNS]  ->  "ns N\ndirs N\npartial 0|1\n" */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "protect_int.h"

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 5, fd;
	long long best = -1;
	size_t dirs = 0;
	bool partial = false;
	char *root;

	if (argc < 2 || !(root = realpath(argv[1], NULL)) ||
	    (fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "usage: walk_bench ROOT [RUNS]\n");
		return 2;
	}
	for (int i = 0; i < runs; i++) {
		struct git_pass gp = { .root_fd = fd, .root = root };
		struct timespec a, b;
		long long ns;

		clock_gettime(CLOCK_MONOTONIC, &a);
		protect_git_pass(&gp);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		if (best < 0 || ns < best)
			best = ns;
		dirs = gp.dirs;
		partial = gp.partial;
		protect_git_pass_free(&gp);
	}
	printf("ns %lld\ndirs %zu\npartial %d\n", best, dirs, partial);
	return 0;
}
