/* SPDX-License-Identifier: MIT */
/* Compile a runner's errno rules (seccomp_rules.c) with libseccomp, at build
 * time (seccomp_gen.c) and in the unit tests that guard the embedded copy,
 * for this machine or another architecture (the cross build). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "seccomp_compile.h"

/* The ABIs a program for target covers, added to ctx (which holds only the
 * build machine's own). 0 or -errno. */
static int add_abis(scmp_filter_ctx ctx, uint32_t target)
{
	int rc = 0;

	if (target != seccomp_arch_native()) {
		rc = seccomp_arch_add(ctx, target);
		rc = rc ? rc : seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	}
	switch (target) {
	case SCMP_ARCH_X86_64:
		/* The same rules for i386 callers: a filter that knows only the
		 * native ABI would kill them, and one that allowed them
		 * unfiltered would be a way around it. x32 is refused whole
		 * before libseccomp's program (x86_prefix), so it has no rules
		 * of its own here (libseccomp would kill it, were it to get so
		 * far). */
		rc = rc ? rc : seccomp_arch_add(ctx, SCMP_ARCH_X86);
		break;
	case SCMP_ARCH_AARCH64:
		/* An arm64 kernel with CONFIG_COMPAT (Debian's) also runs 32-bit
		 * ARM programs, whose calls have numbers of their own
		 * (AUDIT_ARCH_ARM). Nothing sbx runs needs them: the process
		 * that makes one is killed, whatever the call, so no table
		 * we do not filter is a way around the rules. */
		rc = rc ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
		break;
	default:
		rc = rc ? rc : -EOPNOTSUPP;
	}
	return rc == -EEXIST ? 0 : rc;
}

#define UNNAMED_MAX 8
#define X32_BIT 0x40000000U
#define PREFIX_MAX (3 * (3 + 2 * UNNAMED_MAX) + 2)

/* One ABI's part of the prefix: on arch, the calls in nr refused (EPERM,
 * SECCOMP_RULES_REFUSED) and, with x32, every call with the x32 bit
 * answered ENOSYS; any other ABI jumps past it. */
static size_t arch_block(struct sock_filter *pre, uint32_t arch, bool x32, const unsigned *nr,
			 size_t n_nr)
{
	size_t n = 0, len = 3 + (x32 ? 2 : 0) + 2 * n_nr;

	if (!x32 && n_nr == 0)
		return 0;
	pre[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0,
						 (unsigned char)(len - 2));
	pre[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	/* x32: x86-64's audit arch and table, numbers with the x32 bit, 32-bit
	 * pointers. Refused whole, as a kernel built without it answers
	 * (CONFIG_X86_X32_ABI unset): nothing sbx runs is an x32 program, and
	 * the supervisor, which takes its calls for x86-64's, performed them
	 * where the kernel has none (seccomp_notify.c refuses it the same
	 * way). */
	if (x32) {
		pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, X32_BIT, 0, 1);
		pre[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
	}
	for (size_t i = 0; i < n_nr; i++) {
		pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr[i], 0, 1);
		pre[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RULES_REFUSED);
	}
	return n;
}

/* Before libseccomp's program, per ABI of target: x32 refused whole, and
 * the refusals of the calls libseccomp has no name for
 * (seccomp_rules_unnamed), by their number. Any other call goes on to
 * libseccomp's program, which loads what it compares itself. The
 * instructions into pre (PREFIX_MAX of them at most); their count. */
static size_t prefix(enum seccomp_rules_for runner, uint32_t target, struct sock_filter *pre)
{
	unsigned nr[UNNAMED_MAX];
	size_t n_nr = seccomp_rules_unnamed(runner, nr, UNNAMED_MAX), n = 0;

	if (target == SCMP_ARCH_AARCH64)
		return arch_block(pre, AUDIT_ARCH_AARCH64, false, nr, n_nr);
	n += arch_block(pre + n, AUDIT_ARCH_X86_64, true, nr, n_nr);
	n += arch_block(pre + n, AUDIT_ARCH_I386, false, nr, n_nr);
	return n;
}

int seccomp_compile(enum seccomp_rules_for runner, uint32_t target, struct sock_filter **insns,
		    size_t *n)
{
	struct sock_filter pre[PREFIX_MAX];
	size_t n_pre;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc, fd = -1;
	off_t size = 0;
	void *mem = NULL;

	if (!ctx)
		return -ENOMEM;
	if (target == SCMP_ARCH_NATIVE)
		target = seccomp_arch_native();
	rc = add_abis(ctx, target);
	/* A binary tree over the syscall numbers, not a list: each call walks
	 * a few compares instead of up to ~70, and so does the kernel when it
	 * attaches the filter (it runs the program for every syscall number of
	 * every ABI to build its cache, with interrupts off). */
	rc = rc ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc == 0)
		rc = seccomp_rules_add(ctx, runner);
	if (rc == 0) {
		fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
		rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	}
	n_pre = rc == 0 ? prefix(runner, target, pre) : 0;
	if (rc == 0) {
		size = lseek(fd, 0, SEEK_END);
		mem = size > 0 ? malloc(n_pre * sizeof(pre[0]) + (size_t)size) : NULL;
		if (!mem || pread(fd, (char *)mem + n_pre * sizeof(pre[0]), (size_t)size, 0) != size)
			rc = -EIO;
		else
			memcpy(mem, pre, n_pre * sizeof(pre[0]));
	}
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	if (rc < 0) {
		free(mem);
		return rc;
	}
	*insns = mem;
	*n = n_pre + (size_t)size / sizeof(struct sock_filter);
	return 0;
}
