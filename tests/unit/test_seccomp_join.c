/* SPDX-License-Identifier: MIT */
/* A supervised run attaches one filter: the errno rules, then, where they
 * allow, the supervisor's set (seccomp_filter_join). It must answer every
 * call exactly as the two filters attached one after the other would: the
 * kernel takes the verdict of highest precedence, the newer filter's on a
 * tie. Checked on a classic-BPF interpreter for every syscall number of
 * every ABI sbx filters, with the argument values the rules look at. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "bpf_run.h"
#include "seccomp_notify.h"
#include "syscall_filter.h"

#if defined(CONFIG_SECCOMP) && defined(CONFIG_SUPERVISOR) && defined(__x86_64__)

/* The kernel's choice between two filters' verdicts (the newer one last). */
static uint32_t both(uint32_t older, uint32_t newer)
{
	int32_t o = (int32_t)(older & SECCOMP_RET_ACTION_FULL);
	int32_t n = (int32_t)(newer & SECCOMP_RET_ACTION_FULL);

	return o < n ? older : newer;
}

static void same_as_two(enum seccomp_rules_for rules, enum notify_set set)
{
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386 };
	static const uint64_t values[] = { 0, 1, S_ISUID, S_ISGID, 0755, O_CREAT, O_CREAT | 04755,
					   020000000 | S_ISGID, 0x5412, 0x541C, 0x10000000ULL,
					   0xffffffff00000000ULL | S_ISUID,
					   0x5441 /* TIOCGPTPEER */, 0xffffffff00005441ULL };
	const size_t n_values = sizeof(values) / sizeof(values[0]);
	int err = 0;
	const struct sock_fprog *errno_rules = seccomp_filter_get(rules, &err);
	const struct sock_fprog *notify = notify_filter_get(set);
	const struct sock_fprog *joined = seccomp_filter_join(rules, notify);
	unsigned checked = 0;

	cr_assert(errno_rules && notify && joined);
	cr_assert_eq(joined->len, errno_rules->len + notify->len);
	for (size_t a = 0; a < 2; a++)
		for (uint32_t nr = 0; nr < 600; nr++)
			for (int x32 = 0; x32 < (a == 0 ? 2 : 1); x32++)
				for (size_t v = 0; v < n_values; v++) {
					struct seccomp_data d = { .arch = arches[a],
								  .nr = (int)(nr | (x32 ? 0x40000000U : 0)) };

					for (int i = 0; i < 6; i++)
						d.args[i] = values[(v + (size_t)i) % n_values];
					uint32_t said = bpf_run(errno_rules, &d);
					/* A refusal goes to the supervisor, to be
					 * answered and counted there. */
					uint32_t want = said == SECCOMP_RULES_REFUSED
								? SECCOMP_RET_USER_NOTIF
								: both(said, bpf_run(notify, &d));
					uint32_t got = bpf_run(joined, &d);

					cr_assert_eq(got, want, "arch %#x nr %u: joined %#x, two filters %#x",
						     d.arch, (unsigned)d.nr, got, want);
					checked++;
				}
	cr_assert_gt(checked, 10000);
}

Test(seccomp_join, namespace_rules_then_sockets)
{
	same_as_two(SECCOMP_RULES_NAMESPACE, NOTIFY_SOCKETS);
}

Test(seccomp_join, landlock_rules_then_metadata)
{
	same_as_two(SECCOMP_RULES_LANDLOCK, NOTIFY_METADATA);
}

Test(seccomp_join, root_caller_rules_then_sockets)
{
	same_as_two(SECCOMP_RULES_NAMESPACE_ROOT, NOTIFY_SOCKETS);
}

/* Every namespace flag is refused to the landlock runner's command and to a
 * root caller's (counted by the supervisor), none to the namespace runner's
 * other callers; clone's exit signal is not mistaken for CLONE_NEWTIME. */
Test(seccomp_join, new_namespaces)
{
	static const unsigned long flags[] = { CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS,
					       CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
					       CLONE_NEWNET };
	const enum seccomp_rules_for refusing[] = { SECCOMP_RULES_LANDLOCK,
						    SECCOMP_RULES_NAMESPACE_ROOT };
	struct seccomp_data d = { .arch = AUDIT_ARCH_X86_64 };
	int err = 0;

	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		for (int nr = 0; nr < 2; nr++) {
			d.nr = nr ? SYS_clone : SYS_unshare;
			d.args[0] = flags[i] | (nr ? SIGCHLD : 0);
			for (size_t r = 0; r < 2; r++)
				cr_assert_eq(bpf_run(seccomp_filter_get(refusing[r], &err), &d),
					     SECCOMP_RULES_REFUSED, "flag %#lx nr %d", flags[i], d.nr);
			cr_assert_eq(bpf_run(seccomp_filter_get(SECCOMP_RULES_NAMESPACE, &err), &d),
				     SECCOMP_RET_ALLOW, "flag %#lx nr %d", flags[i], d.nr);
		}
	d.nr = SYS_unshare;
	d.args[0] = 0x80; /* CLONE_NEWTIME */
	cr_assert_eq(bpf_run(seccomp_filter_get(SECCOMP_RULES_LANDLOCK, &err), &d),
		     SECCOMP_RULES_REFUSED);
	d.nr = SYS_clone;
	d.args[0] = SIGCHLD | 0x80; /* an exit signal with that bit: a plain fork */
	cr_assert_eq(bpf_run(seccomp_filter_get(SECCOMP_RULES_LANDLOCK, &err), &d),
		     SECCOMP_RET_ALLOW);
}

/* The same program for the same pair, built once per process. */
Test(seccomp_join, kept)
{
	const struct sock_fprog *n = notify_filter_get(NOTIFY_SOCKETS);

	cr_assert_eq(seccomp_filter_join(SECCOMP_RULES_NAMESPACE, n),
		     seccomp_filter_join(SECCOMP_RULES_NAMESPACE, n));
	cr_assert_null(seccomp_filter_join(SECCOMP_RULES_NAMESPACE, NULL));
}

/* The landlock runner's joined filter hands ioctl(TIOCGPTPEER) to the
 * supervisor, and the errno rules still refuse TIOCSTI before it. */
Test(seccomp_join, landlock_pty_peer_reaches_the_supervisor)
{
	const struct sock_fprog *j =
		seccomp_filter_join(SECCOMP_RULES_LANDLOCK, notify_filter_get(NOTIFY_METADATA));
	struct seccomp_data d = { .arch = AUDIT_ARCH_X86_64, .nr = SYS_ioctl };

	cr_assert_not_null(j);
	d.args[0] = 3;
	d.args[1] = 0x5441; /* TIOCGPTPEER */
	d.args[2] = O_RDWR | O_NOCTTY;
	cr_assert_eq(bpf_run(j, &d), SECCOMP_RET_USER_NOTIF);
	d.args[1] = 0x5412; /* TIOCSTI: refused, so counted by the supervisor */
	cr_assert_eq(bpf_run(j, &d), SECCOMP_RET_USER_NOTIF);
	cr_assert_eq(bpf_run(seccomp_filter_get(SECCOMP_RULES_LANDLOCK, &(int){ 0 }), &d),
		     SECCOMP_RULES_REFUSED);
	d.args[1] = 0x5401; /* TCGETS */
	cr_assert_eq(bpf_run(j, &d), SECCOMP_RET_ALLOW);
}

#endif
