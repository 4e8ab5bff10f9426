/* SPDX-License-Identifier: MIT */
/* Compile a runner's errno rules (seccomp_rules.c) with libseccomp, at build
 * time (seccomp_gen.c) and in the unit tests that guard the embedded copy,
 * for this machine or another architecture (the cross build). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
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
		/* The same rules for 32-bit (x86, x32) callers: a filter that
		 * knows only the native ABI would kill them, and one that
		 * allowed them unfiltered would be a way around it. */
		rc = rc ? rc : seccomp_arch_add(ctx, SCMP_ARCH_X86);
		rc = rc ? rc : seccomp_arch_add(ctx, SCMP_ARCH_X32);
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

/* Before libseccomp's program: the refusals of the calls it has no name for
 * (seccomp_rules_unnamed), on each ABI of target, by their number. The
 * program goes on to libseccomp's for any other call (which loads what it
 * compares itself). *pre holds the instructions; their count. */
static size_t unnamed_prefix(enum seccomp_rules_for runner, uint32_t target,
			     struct sock_filter *pre, size_t size)
{
	static const uint32_t x86[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386 };
	static const uint32_t a64[] = { AUDIT_ARCH_AARCH64 };
	const uint32_t *arch = target == SCMP_ARCH_AARCH64 ? a64 : x86;
	size_t n_arch = target == SCMP_ARCH_AARCH64 ? 1 : 2, n = 0;
	unsigned nr[UNNAMED_MAX];
	size_t n_nr = seccomp_rules_unnamed(runner, nr, UNNAMED_MAX);

	if (n_nr == 0 || 3 + n_arch + 2 * n_nr > size)
		return 0;
	pre[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	/* each arch jumps past the others and the skip, to the load of nr */
	for (size_t i = 0; i < n_arch; i++)
		pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch[i],
							 (unsigned char)(n_arch - i), 0);
	pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, (unsigned)(1 + 2 * n_nr), 0, 0);
	pre[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < n_nr; i++) {
		pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr[i], 0, 1);
		pre[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RULES_REFUSED);
	}
	return n;
}

int seccomp_compile(enum seccomp_rules_for runner, uint32_t target, struct sock_filter **insns,
		    size_t *n)
{
	struct sock_filter pre[3 + 2 + 2 * UNNAMED_MAX];
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
	n_pre = rc == 0 ? unnamed_prefix(runner, target, pre, sizeof(pre) / sizeof(pre[0])) : 0;
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
