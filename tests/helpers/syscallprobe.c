/* SPDX-License-Identifier: MIT */
/* syscallprobe: call every system call in sbx's table (syscall_table.def)
 * with arguments no call accepts (-1 everywhere) and print, one per line,
 * "NAME ERRNO" (the errno's name, or "ok"), so a test can tell "this call
 * does not exist here" (ENOSYS) from any other answer. For the
 * --syscalls-as-of tests.
 *
 *   syscallprobe           every call this architecture has in the table
 *
 * uretprobe is left out: called from anywhere but the kernel's own
 * trampoline it raises SIGILL. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscall_table.h"

int main(void)
{
	int arch = syscall_arch_native();

	if (arch < 0) {
		fprintf(stderr, "syscallprobe: no table for this architecture\n");
		return 125;
	}
	for (size_t i = 0; i < syscall_table_size; i++) {
		const struct syscall_entry *e = &syscall_table[i];
		long rc;

		if (e->nr[arch] < 0 || strcmp(e->name, "uretprobe") == 0)
			continue;
		errno = 0;
		rc = syscall(e->nr[arch], -1L, -1L, -1L, -1L, -1L, -1L);
		printf("%s %s\n", e->name, rc < 0 ? strerrorname_np(errno) : "ok");
	}
	return 0;
}
