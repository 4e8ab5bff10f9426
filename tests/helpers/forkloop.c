/* SPDX-License-Identifier: MIT */
/* forkloop NAME ATTEMPTS RELEASE: fork up to ATTEMPTS children that sleep
 * under the name NAME (comm); say on stderr when a fork is refused; then
 * take the name NAME"d" (done) and wait until the file RELEASE exists. Exits
 * 1 if a fork was refused, 0 if not, and leaves its children behind either
 * way: ending them is sbx's job, and the test checks that it did. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char done[32];
	int made = 0, refused = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: forkloop NAME ATTEMPTS RELEASE\n");
		return 2;
	}
	/* Named before the forks: each child has the name from birth, however
	 * late it is scheduled (a loaded machine), when the test counts. */
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	for (long i = 0; i < atol(argv[2]); i++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			refused = errno;
			break;
		}
		made++;
	}
	if (refused)
		fprintf(stderr, "forkloop: fork: %s\n", strerror(refused));
	printf("made %d\n", made);
	fflush(stdout);
	snprintf(done, sizeof(done), "%.14sd", argv[1]);
	prctl(PR_SET_NAME, done, 0, 0, 0);
	while (access(argv[3], F_OK) != 0)
		usleep(20 * 1000);
	return refused ? 1 : 0;
}
