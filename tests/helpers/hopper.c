/* SPDX-License-Identifier: MIT */
/* A process that will not stay put: for SECONDS it forks and lets the parent
 * exit, again and again (with "setsid": each child also starts a new session,
 * leaving every process group), so its pid keeps changing faster than anyone
 * can walk /proc; then the last one renames itself NAME and sleeps. Used to
 * check that nothing a run started outlives it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: hopper SECONDS NAME [setsid]\n");
		return 2;
	}
	double until = now() + atof(argv[1]);
	int new_session = argc == 4;

	while (now() < until) {
		pid_t pid = fork();

		if (pid > 0)
			_exit(0);
		if (pid == 0 && new_session)
			setsid();
	}
	prctl(PR_SET_NAME, argv[2]);
	sleep(300);
	return 0;
}
