/* SPDX-License-Identifier: MIT */
/* abi32: try the supervised calls through the other x86 ABIs from a 64-bit
 * process (int $0x80 is i386's, the x32 bit x32's), so a test can check that
 * neither is a way around the supervisor.
 *
 *   abi32 chmod PATH        chmod PATH 0600 by i386's and by x32's numbers
 *   abi32 connect SOCKPATH  connect to a unix socket by i386's connect(2)
 *   abi32 open PATH         by x32's numbers: openat PATH for writing
 *                           (O_WRONLY|O_CREAT|O_TRUNC), open PATH.open,
 *                           creat PATH.creat, truncate PATH.trunc to 0
 *
 * Prints "NAME ERRNO" per attempt (0: it worked; ENOSYS: the ABI is off).
 * Where the kernel (or the hypervisor under it) has no int $0x80 gate for a
 * 64-bit process, the instruction faults (SIGSEGV): the call never ran, and
 * that is reported as ENOSYS too (seen on a PVM guest with
 * CONFIG_IA32_EMULATION=y). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#if defined(__x86_64__)

#define X32_BIT 0x40000000L

static sigjmp_buf no_gate;

static void gate_fault(int sig)
{
	(void)sig;
	siglongjmp(no_gate, 1);
}

static long int80(long nr, long a, long b, long c)
{
	struct sigaction sa = { .sa_handler = gate_fault }, old;
	volatile long ret = -ENOSYS;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(no_gate, 1) == 0) {
		long r;

		__asm__ volatile("int $0x80"
				 : "=a"(r)
				 : "a"(nr), "b"(a), "c"(b), "d"(c)
				 : "memory", "r8", "r9", "r10", "r11");
		ret = r;
	}
	sigaction(SIGSEGV, &old, NULL);
	return ret;
}

static void report(const char *name, long ret)
{
	printf("%s %ld\n", name, ret < 0 ? -ret : 0);
}

int main(int argc, char **argv)
{
	/* i386 and x32 pointers are 32 bits: memory below 4 GiB */
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
			 -1, 0);

	if (argc != 3 || low == MAP_FAILED || strlen(argv[2]) >= 1000) {
		fprintf(stderr, "usage: abi32 chmod PATH | connect SOCKPATH | open PATH\n");
		return 2;
	}
	strcpy(low, argv[2]);
	if (strcmp(argv[1], "open") == 0) {
		char *p = low + 1024;
		long r = syscall(X32_BIT | SYS_openat, AT_FDCWD, low, O_WRONLY | O_CREAT | O_TRUNC,
				 0644);

		report("x32_openat", r < 0 ? -errno : 0);
		snprintf(p, 1024, "%s.open", argv[2]);
		r = syscall(X32_BIT | SYS_open, p, O_WRONLY | O_CREAT, 0644);
		report("x32_open", r < 0 ? -errno : 0);
		snprintf(p, 1024, "%s.creat", argv[2]);
		r = syscall(X32_BIT | SYS_creat, p, 0644);
		report("x32_creat", r < 0 ? -errno : 0);
		snprintf(p, 1024, "%s.trunc", argv[2]);
		r = syscall(X32_BIT | SYS_truncate, p, 0L);
		report("x32_truncate", r < 0 ? -errno : 0);
		return 0;
	}
	if (strcmp(argv[1], "chmod") == 0) {
		report("i386_chmod", int80(15, (long)low, 0600, 0));
		long r = syscall(X32_BIT | SYS_chmod, low, 0600);

		report("x32_chmod", r < 0 ? -errno : r);
		return 0;
	}
	struct sockaddr_un *a = (struct sockaddr_un *)(low + 2048);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	strncpy(a->sun_path, argv[2], sizeof(a->sun_path) - 1);
	report("i386_connect", int80(362, fd, (long)a, sizeof(*a)));
	return 0;
}

#else

int main(void)
{
	fprintf(stderr, "abi32: x86-64 only\n");
	return 2;
}

#endif
