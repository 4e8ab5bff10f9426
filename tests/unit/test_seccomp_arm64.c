/* SPDX-License-Identifier: MIT */
/* The errno rules compiled for aarch64 (what the cross build embeds:
 * seccomp_gen aarch64, the same seccomp_compile) answer every call as the
 * x86-64 program answers the call of the same name, for arguments that hit
 * each rule's bits; and a 32-bit ARM caller (AUDIT_ARCH_ARM, an arm64
 * kernel's compat ABI) is killed whatever it calls. Run here on the
 * evaluator; the arm64 kernel runs the same program (make check-arm64). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "bpf_run.h"

#ifdef CONFIG_SECCOMP
#include <seccomp.h>

#include "seccomp_compile.h"

#define KILL SECCOMP_RET_KILL_PROCESS
#define ALLOW SECCOMP_RET_ALLOW
#define EPERM_V (SECCOMP_RET_ERRNO | EPERM)
#define ENOSYS_V (SECCOMP_RET_ERRNO | ENOSYS)

struct pair {
	struct sock_fprog x86, a64;
};

static struct pair compile(enum seccomp_rules_for rules)
{
	struct sock_filter *f;
	size_t n;
	struct pair p;

	cr_assert_eq(seccomp_compile(rules, SCMP_ARCH_X86_64, &f, &n), 0);
	p.x86 = (struct sock_fprog){ .len = (unsigned short)n, .filter = f };
	cr_assert_eq(seccomp_compile(rules, SCMP_ARCH_AARCH64, &f, &n), 0);
	p.a64 = (struct sock_fprog){ .len = (unsigned short)n, .filter = f };
	cr_assert_gt(p.a64.len, 10);
	return p;
}

static uint32_t on(const struct sock_fprog *prog, uint32_t arch, int nr, const uint64_t a[4])
{
	struct seccomp_data d = { .nr = nr, .arch = arch };

	memcpy(d.args, a, 4 * sizeof(a[0]));
	return bpf_run(prog, &d);
}

static int nr_of(uint32_t arch, const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(arch, name);

	cr_assert_geq(nr, 0, "%s: no number on %#x", name, arch);
	return nr;
}

/* Values that hit the rules' bits: special mode bits, O_CREAT and the
 * O_TMPFILE bit, the terminal ioctls (with high bits set too), namespace
 * and CLONE_PARENT flags, F_NOTIFY, PRIO_USER and PRIO_PGRP (and
 * IOPRIO_WHO_PGRP/USER: 2, 3), and a high half alone. */
static const uint64_t values[] = {
	0, 1, 0755, 04755, 02755, O_CREAT | 0644, O_CREAT | 04644, 020000000 | 02000,
	0x5412 /* TIOCSTI */, 0x100005412ULL, 0x541C /* TIOCLINUX */, CLONE_NEWUSER,
	CLONE_NEWNS | CLONE_NEWPID, CLONE_PARENT | 17, 1026 /* F_NOTIFY */, 2, 3,
	0xffffffff00000000ULL,
};
#define N_VALUES (sizeof(values) / sizeof(values[0]))

/* The calls the rules name (and their neighbours): every combination of
 * values in the first four arguments. */
static const char *const ruled[] = {
	"ioctl",    "fchmod",      "fchmodat",    "fchmodat2",  "mkdirat",  "mknodat",
	"openat",   "openat2",     "io_uring_setup", "add_key", "keyctl",   "request_key",
	"unshare",  "clone",       "clone3",      "setns",      "mount",    "umount2",
	"pivot_root", "fsopen",    "fsconfig",    "fsmount",    "fspick",   "open_tree",
	"move_mount", "mount_setattr", "prlimit64", "setpriority", "ioprio_set", "fcntl",
};

static size_t compare_all(enum seccomp_rules_for rules, const char *name, int a64_nr,
			  bool full, size_t *refused)
{
	struct pair p = compile(rules);
	int x86_nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
	size_t n = 0;
	uint64_t a[4];

	cr_assert_geq(x86_nr, 0, "%s on x86_64", name);
	for (size_t i = 0; i < (full ? N_VALUES * N_VALUES * N_VALUES * N_VALUES : 4 * N_VALUES);
	     i++) {
		if (full) {
			size_t k = i;

			for (int j = 0; j < 4; j++, k /= N_VALUES)
				a[j] = values[k % N_VALUES];
		} else {
			memset(a, 0, sizeof(a));
			a[i / N_VALUES] = values[i % N_VALUES];
		}
		uint32_t want = on(&p.x86, AUDIT_ARCH_X86_64, x86_nr, a);
		uint32_t got = on(&p.a64, AUDIT_ARCH_AARCH64, a64_nr, a);

		if (want != got)
			cr_assert_fail("%s (rules %d) args %#llx %#llx %#llx %#llx: x86_64 %#x, "
				       "aarch64 %#x", name, rules, (unsigned long long)a[0],
				       (unsigned long long)a[1], (unsigned long long)a[2],
				       (unsigned long long)a[3], want, got);
		*refused += want != ALLOW;
		n++;
	}
	free(p.x86.filter);
	free(p.a64.filter);
	return n;
}

/* Every call aarch64 has and x86-64 has by the same name. */
static void same_as_x86_64(enum seccomp_rules_for rules)
{
	size_t calls = 0, refused = 0;

	for (size_t i = 0; i < sizeof(ruled) / sizeof(ruled[0]); i++)
		compare_all(rules, ruled[i], nr_of(SCMP_ARCH_AARCH64, ruled[i]), true, &refused);
	for (int nr = 0; nr < 1024; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_AARCH64, nr);

		if (name && seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name) >= 0) {
			compare_all(rules, name, nr, false, &refused);
			calls++;
		}
		free(name);
	}
	cr_assert_gt(calls, 250, "only %zu calls compared", calls);
	/* not two programs that allow everything */
	cr_assert_gt(refused, 1000, "only %zu refusals", refused);
}

Test(seccomp_arm64, namespace_rules_as_on_x86_64)
{
	same_as_x86_64(SECCOMP_RULES_NAMESPACE);
}

Test(seccomp_arm64, landlock_rules_as_on_x86_64)
{
	same_as_x86_64(SECCOMP_RULES_LANDLOCK);
}

Test(seccomp_arm64, root_caller_rules_as_on_x86_64)
{
	same_as_x86_64(SECCOMP_RULES_NAMESPACE_ROOT);
}

/* A few verdicts by hand, so the comparison above cannot pass on two
 * programs wrong alike. */
Test(seccomp_arm64, verdicts)
{
	struct pair ns = compile(SECCOMP_RULES_NAMESPACE), ll = compile(SECCOMP_RULES_LANDLOCK);
	const uint32_t A = AUDIT_ARCH_AARCH64;
	const uint64_t suid_at[4] = { AT_FDCWD, 0x1000, 04755, 0 };
	const uint64_t plain_at[4] = { AT_FDCWD, 0x1000, 0755, 0 };
	const uint64_t creat_suid[4] = { AT_FDCWD, 0x1000, O_CREAT | O_WRONLY, 04755 };
	const uint64_t newuser[4] = { CLONE_NEWUSER, 0, 0, 0 };
	const uint64_t tiocsti[4] = { 0, 0x5412, 0, 0 };
	const uint64_t none[4] = { 0 };

	cr_assert_eq(on(&ns.a64, A, nr_of(A, "fchmodat"), suid_at), EPERM_V);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "fchmodat"), plain_at), ALLOW);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "mkdirat"), suid_at), EPERM_V);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "openat"), creat_suid), EPERM_V);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "openat2"), none), ENOSYS_V);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "io_uring_setup"), none), ENOSYS_V);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "ioctl"), tiocsti), EPERM_V);
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "keyctl"), none), EPERM_V);
	/* nested namespaces: the namespace runner's, not the landlock runner's */
	cr_assert_eq(on(&ns.a64, A, nr_of(A, "unshare"), newuser), ALLOW);
	cr_assert_eq(on(&ll.a64, A, nr_of(A, "unshare"), newuser), EPERM_V);
	cr_assert_eq(on(&ll.a64, A, nr_of(A, "clone"), newuser), EPERM_V);
	cr_assert_eq(on(&ll.a64, A, nr_of(A, "clone3"), none), ENOSYS_V);
	cr_assert_eq(on(&ll.a64, A, nr_of(A, "mount"), none), EPERM_V);
	cr_assert_eq(on(&ll.a64, A, nr_of(A, "write"), none), ALLOW);
	free(ns.x86.filter), free(ns.a64.filter), free(ll.x86.filter), free(ll.a64.filter);
}

/* open_tree_attr (Linux 6.15), which libseccomp 2.5 has no name for, by its
 * number (467 on x86-64, i386 and arm64): answered as open_tree (428) on
 * every ABI under every runner's rules, refused where mounts are. */
Test(seccomp_arm64, open_tree_attr_as_open_tree)
{
	const uint64_t none[4] = { 0 };
	const uint32_t arch[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64 };

	for (int r = 0; r < SECCOMP_RULES_COUNT; r++) {
		struct pair p = compile((enum seccomp_rules_for)r);
		uint32_t want = r == SECCOMP_RULES_NAMESPACE ? ALLOW : EPERM_V;

		for (size_t i = 0; i < sizeof(arch) / sizeof(arch[0]); i++) {
			const struct sock_fprog *prog = arch[i] == AUDIT_ARCH_AARCH64 ? &p.a64 : &p.x86;

			cr_assert_eq(on(prog, arch[i], 428, none), want, "open_tree, rules %d arch %#x",
				     r, arch[i]);
			cr_assert_eq(on(prog, arch[i], 467, none), want,
				     "open_tree_attr, rules %d arch %#x", r, arch[i]);
		}
		/* its neighbours are not caught by it */
		cr_assert_eq(on(&p.x86, AUDIT_ARCH_X86_64, 466, none), ALLOW);
		cr_assert_eq(on(&p.x86, AUDIT_ARCH_X86_64, 468, none), ALLOW);
		free(p.x86.filter);
		free(p.a64.filter);
	}
}

/* x32 is refused whole by every runner's rules on x86-64: "no such call"
 * (ENOSYS) for each of its numbers, as a kernel without x32 answers;
 * x86-64's and i386's own calls are not caught by it. */
Test(seccomp_arm64, x32_refused_whole)
{
	const uint64_t none[4] = { 0 };
	const unsigned nrs[] = { 0 /* read */, 1 /* write */, 2 /* open */, 257 /* openat */,
				 90 /* chmod */, 42 /* connect */, 514 /* ioctl */, 0x3fffffff };

	for (int r = 0; r < SECCOMP_RULES_COUNT; r++) {
		struct pair p = compile((enum seccomp_rules_for)r);

		for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
			cr_assert_eq(on(&p.x86, AUDIT_ARCH_X86_64, (int)(0x40000000U | nrs[i]), none),
				     ENOSYS_V, "rules %d, x32 call %u", r, nrs[i]);
		cr_assert_eq(on(&p.x86, AUDIT_ARCH_X86_64, 1, none), ALLOW);
		cr_assert_eq(on(&p.x86, AUDIT_ARCH_I386, 4 /* write */, none), ALLOW);
		cr_assert_eq(on(&p.x86, AUDIT_ARCH_I386, 0x40000001, none), ALLOW,
			     "the x32 bit means nothing to i386's table");
		free(p.x86.filter);
		free(p.a64.filter);
	}
}

/* The compat ABI of an arm64 kernel, and any other: killed, whatever the
 * call, under every runner's rules. */
Test(seccomp_arm64, compat_arm_killed)
{
	const uint64_t none[4] = { 0 };
	const int nrs[] = { 0, 1, 3 /* read */, 4 /* write */, 5 /* open */, 15 /* chmod */,
			    283 /* connect */, 0xf0005 /* ARM_set_tls */, 0x7fffffff };

	for (int r = 0; r < SECCOMP_RULES_COUNT; r++) {
		struct pair p = compile((enum seccomp_rules_for)r);

		for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
			cr_assert_eq(on(&p.a64, AUDIT_ARCH_ARM, nrs[i], none), KILL,
				     "rules %d, ARM call %d", r, nrs[i]);
			cr_assert_eq(on(&p.a64, AUDIT_ARCH_X86_64, nrs[i], none), KILL);
		}
		free(p.x86.filter);
		free(p.a64.filter);
	}
}

#endif
