/* SPDX-License-Identifier: MIT */
/* cloneparent SECONDS: clone(CLONE_PARENT), so the new process is a sibling
 * of the caller, a child of the caller's parent. Run as `exec cloneparent`
 * from a run's bash, the sibling is a child of whatever spawned bash (serve's
 * spawner thread). The sibling sleeps SECONDS (a marker for the process
 * table); the caller prints "child PID", or "refused ERRNO". */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pid;

	if (argc != 2)
		return 2;
	pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0) {
		printf("refused %d\n", errno);
		return 0;
	}
	if (pid == 0) {
		close(0);
		close(1);
		close(2);
		setsid();
		execl("/bin/sleep", "sleep", argv[1], (char *)NULL);
		_exit(127);
	}
	printf("child %ld\n", pid);
	return 0;
}
