/* SPDX-License-Identifier: MIT */
/* A seccomp filter of its own, stacked on sbx's: ENOSYS for every system
 * call the table says came after the release asked for, and for every number
 * above the table's base that it does not know (a call newer than the table).
 *
 * Why a filter of its own, and installed last: a filter stacks, and among
 * filters answering with an errno the one installed last wins, so "this call
 * does not exist yet" overrides sbx's own EPERM answers; and ENOSYS outranks
 * a user notification, so a call that does not exist yet is never supervised.
 * Only the native ABI is emulated: i386, x32 and arm32 callers pass as they
 * are (their numbers are other tables). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "syscall_table.h"
#include "syscalls_as_of.h"

#define X32_SYSCALL_BIT 0x40000000U

static unsigned native_audit_arch(int arch)
{
	return arch == SYSCALL_ARCH_X86_64 ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_AARCH64;
}

int syscalls_as_of_build(unsigned release, struct sock_fprog *out)
{
	int arch = syscall_arch_native();
	size_t allowed = 0, len, i = 0, allow_at;
	struct sock_filter *f;

	if (arch < 0)
		return -ENOSYS;
	if (release < syscall_table_oldest() || release > syscall_table_newest())
		return -EINVAL;
	for (size_t k = 0; k < syscall_table_size; k++)
		if (syscall_table[k].nr[arch] > syscall_table_base(arch) &&
		    syscall_table[k].since[arch] <= release)
			allowed++;
	/* arch, its check, nr, [x32 check], base check, the list, two returns */
	len = 3 + (arch == SYSCALL_ARCH_X86_64) + 1 + allowed + 2;
	/* Conditional jumps reach at most 255 instructions ahead. */
	if (len > 250)
		return -E2BIG;
	f = calloc(len, sizeof(*f));
	if (!f)
		return -ENOMEM;
	allow_at = len - 1;
#define TO_ALLOW(at) ((unsigned char)(allow_at - (at) - 1))
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, native_audit_arch(arch), 0,
					    TO_ALLOW(i));
	i++;
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	if (arch == SYSCALL_ARCH_X86_64) {
		f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT,
						    TO_ALLOW(i), 0);
		i++;
	}
	f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K,
					    (unsigned)syscall_table_base(arch), 0, TO_ALLOW(i));
	i++;
	for (size_t k = 0; k < syscall_table_size; k++) {
		const struct syscall_entry *e = &syscall_table[k];

		if (e->nr[arch] <= syscall_table_base(arch) || e->since[arch] > release)
			continue;
		f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)e->nr[arch],
						    TO_ALLOW(i), 0);
		i++;
	}
#undef TO_ALLOW
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	out->len = (unsigned short)len;
	out->filter = f;
	return 0;
}

int syscalls_as_of_install(const struct sock_fprog *prog, struct child_status *st)
{
	/* An unprivileged process may add a filter only under no_new_privs.
	 * Confined runs have it already; danger-full-access gets it here (a
	 * setuid program then runs without its privilege: said in sbx(1)). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_NO_NEW_PRIVS, errno, "prctl(PR_SET_NO_NEW_PRIVS)",
					NULL);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return child_status_set(st, STAGE_SECCOMP, errno, "--syscalls-as-of filter", NULL);
	return 0;
}
