/* SPDX-License-Identifier: MIT */
/* ptinject: make another process of the run perform a system call for us,
 * the way a hostile command would use a process that sits outside its
 * seccomp filter (tests/e2e/test_host_objects.c).
 *
 *   ptinject chmod PID PATH MODE
 *       ptrace-attach PID, then have it run chmod(PATH, MODE) (MODE in
 *       octal) by planting a `syscall` instruction at its program counter.
 *
 * Prints "ATTACH=N" and, once attached, "CALL=N" (N = 0 or the errno), and
 * exits 0 once it tried (2 on usage errors). x86-64 only. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)

static int poke_string(pid_t pid, unsigned long addr, const char *s)
{
	size_t len = strlen(s) + 1;

	for (size_t off = 0; off < len; off += sizeof(long)) {
		long word = 0;

		memcpy(&word, s + off, len - off < sizeof(long) ? len - off : sizeof(long));
		if (ptrace(PTRACE_POKEDATA, pid, (void *)(addr + off), (void *)word) < 0)
			return -errno;
	}
	return 0;
}

static long inject(pid_t pid, long nr, const char *path, long arg)
{
	struct user_regs_struct saved, regs;
	unsigned long where;
	long code, planted;
	int ws;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &saved) < 0)
		return -errno;
	regs = saved;
	/* Well below the red zone of whatever the stack holds. */
	where = (saved.rsp - 8192) & ~15UL;
	if (poke_string(pid, where, path) < 0)
		return -errno;
	errno = 0;
	code = ptrace(PTRACE_PEEKTEXT, pid, (void *)saved.rip, NULL);
	if (errno)
		return -errno;
	planted = (code & ~0xffffL) | 0x050f; /* syscall */
	if (ptrace(PTRACE_POKETEXT, pid, (void *)saved.rip, (void *)planted) < 0)
		return -errno;
	regs.rax = (unsigned long)nr;
	regs.orig_rax = (unsigned long)-1; /* no restart of the call it sat in */
	regs.rdi = where;
	regs.rsi = (unsigned long)arg;
	if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0 ||
	    ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 || waitpid(pid, &ws, __WALL) < 0 ||
	    ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
		return -errno;
	ptrace(PTRACE_POKETEXT, pid, (void *)saved.rip, (void *)code);
	ptrace(PTRACE_SETREGS, pid, NULL, &saved);
	return (long)regs.rax;
}

int main(int argc, char **argv)
{
	pid_t pid;
	long rc;
	int ws;

	if (argc != 5 || strcmp(argv[1], "chmod") != 0) {
		fprintf(stderr, "usage: ptinject chmod PID PATH MODE\n");
		return 2;
	}
	pid = (pid_t)atoi(argv[2]);
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0) {
		printf("ATTACH=%d\n", errno);
		return 0;
	}
	printf("ATTACH=0\n");
	if (waitpid(pid, &ws, __WALL) < 0) {
		printf("CALL=%d\n", errno);
		return 0;
	}
	rc = inject(pid, SYS_chmod, argv[3], strtol(argv[4], NULL, 8));
	printf("CALL=%ld\n", rc < 0 ? -rc : 0);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return 0;
}

#else

int main(void)
{
	fprintf(stderr, "ptinject: x86-64 only\n");
	return 2;
}

#endif
