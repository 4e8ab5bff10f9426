/* SPDX-License-Identifier: MIT */
/* nofeature: run a program as if the kernel (or the container around it)
 * lacked some features, the way container runtimes' default seccomp profiles
 * make them fail. For the e2e tests' fault injection.
 *
 *   nofeature FEATURE[,FEATURE...] -- PROGRAM ARGS...
 *
 * Features:
 *   userns         clone/unshare with CLONE_NEWUSER -> EPERM, clone3 -> ENOSYS
 *   netns          clone/unshare with CLONE_NEWNET -> EPERM, clone3 -> ENOSYS
 *   userns_nocaps  user namespaces are made but hold no capabilities, as on
 *                  Ubuntu 23.10+ (AppArmor moves an unprivileged process's
 *                  new user namespace into its unprivileged_userns profile):
 *                  every mount call (mount, umount2, pivot_root, fsopen,
 *                  fsconfig, fsmount, fspick, move_mount, mount_setattr,
 *                  open_tree with OPEN_TREE_CLONE) -> EPERM, and opening
 *                  /proc/PID/setgroups for writing -> EACCES. What a filter
 *                  cannot see, and what was chosen:
 *                  - which namespace a call comes from: the mount calls are
 *                    refused everywhere. Outside a user namespace of its own
 *                    an unprivileged process gets the same EPERM from the
 *                    kernel (they need CAP_SYS_ADMIN); a root caller, whom
 *                    Ubuntu spares, is refused too (sbx mounts nothing
 *                    outside its namespaces, so it sees the restricted
 *                    shape);
 *                  - the path of an open: the open is matched by sbx's own
 *                    exact flags for the identity-map files,
 *                    USERNS_MAP_OPEN_FLAGS (userns.h), which nothing else in
 *                    sbx uses; sbx writes setgroups before uid_map and
 *                    gid_map, so what it sees is the EACCES Ubuntu gives
 *                    (there, a uid_map write fails later with EPERM). Other
 *                    programs' opens are not touched.
 *   landlock       landlock_create_ruleset/add_rule/restrict_self -> ENOSYS
 *   io_uring       io_uring_setup/enter/register -> EPERM
 *   mount_setattr  mount_setattr -> ENOSYS (a kernel before 5.12)
 *   user_notif     seccomp user notification unknown (a kernel before 5.0):
 *                  SECCOMP_GET_ACTION_AVAIL -> EOPNOTSUPP, a filter with
 *                  SECCOMP_FILTER_FLAG_NEW_LISTENER -> EINVAL
 *   pidfd_getfd    pidfd_getfd -> ENOSYS (a kernel before 5.6)
 *   close_range    close_range -> EPERM (a container profile older than the
 *                  call, on any kernel: fds.c walks /proc/self/fd instead)
 *   kernel=X.Y     a kernel X.Y as sbx's system call table knows it
 *                  (launcher/kernel/syscall_table.def): every call introduced
 *                  after X.Y -> ENOSYS, the same filter as `sbx run
 *                  --syscalls-as-of X.Y`; and the newer flags and operations
 *                  of old calls that sbx and its supervisor depend on, as the
 *                  old kernel answers them: close_range's CLOSE_RANGE_CLOEXEC
 *                  (5.11) and io_uring's opcode probe (5.6) -> EINVAL,
 *                  seccomp's WAIT_KILLABLE_RECV (5.19) -> EINVAL, user
 *                  notification (5.0) as user_notif above.
 *                  Not emulated: what an old kernel silently ignores (clone's
 *                  CLONE_PIDFD before 5.2), changed semantics, /proc, /sys.
 *
 * Everything else is allowed. Exit status: 125 for nofeature's own errors,
 * 126/127 if PROGRAM cannot be executed or found (as env(1) and timeout(1)). */
#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/filter.h>

#include "syscall_table.h"
#include "syscalls_as_of.h"
#include "userns.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#define IORING_REGISTER_PROBE_OP 8
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

#define EXIT_OWN 125

static void die(const char *msg, const char *arg)
{
	if (arg)
		fprintf(stderr, "nofeature: %s '%s'\n", msg, arg);
	else
		fprintf(stderr, "nofeature: %s\n", msg);
	exit(EXIT_OWN);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nofeature FEATURE[,FEATURE...] -- PROGRAM [ARGS...]\n"
		"features: userns netns userns_nocaps landlock io_uring mount_setattr user_notif pidfd_getfd close_range "
		"kernel=X.Y\n");
	exit(EXIT_OWN);
}

/* A libseccomp that does not know the name would otherwise leave the call
 * allowed: refuse to run instead. */
static int resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		die("this libseccomp does not know the system call", name);
	return nr;
}

static void add_rule(scmp_filter_ctx ctx, int err, const char *name)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), resolve(name), 0);
	if (rc < 0) {
		fprintf(stderr, "nofeature: unable to add a rule for %s: %s\n",
			name, strerror(-rc));
		exit(EXIT_OWN);
	}
}

/* Fail clone/unshare when their flags hold `flag`. The flags are clone's
 * first argument on x86_64 (and most architectures; s390 swaps the first
 * two). clone3 passes them in memory a filter cannot read: fail it with
 * ENOSYS, so glibc falls back to clone, which we can inspect. */
static void deny_ns_flag(scmp_filter_ctx ctx, unsigned long flag)
{
	const char *names[] = {"clone", "unshare"};
	for (size_t i = 0; i < 2; i++) {
		unsigned arg = 0;
#if defined(__s390__) || defined(__s390x__)
		if (i == 0)
			arg = 1;
#endif
		struct scmp_arg_cmp cmp = {
			.arg = arg,
			.op = SCMP_CMP_MASKED_EQ,
			.datum_a = flag,
			.datum_b = flag,
		};
		int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
					  resolve(names[i]), 1, cmp);
		if (rc < 0) {
			fprintf(stderr, "nofeature: unable to add a rule for %s: %s\n",
				names[i], strerror(-rc));
			exit(EXIT_OWN);
		}
	}
}

/* seccomp(2) as a kernel without user notification answers it: the action
 * is unknown, and so is the flag that asks for a listener. */
static void deny_user_notif(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp avail = { .arg = 0, .op = SCMP_CMP_EQ, .datum_a = SECCOMP_GET_ACTION_AVAIL };
	struct scmp_arg_cmp listener = { .arg = 1, .op = SCMP_CMP_MASKED_EQ,
					 .datum_a = SECCOMP_FILTER_FLAG_NEW_LISTENER,
					 .datum_b = SECCOMP_FILTER_FLAG_NEW_LISTENER };

	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), resolve("seccomp"), 1, avail) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), resolve("seccomp"), 1, listener) < 0) {
		fprintf(stderr, "nofeature: unable to add the user_notif rules\n");
		exit(EXIT_OWN);
	}
}

/* errno for `name` when argument arg, masked, equals value. */
static void deny_masked(scmp_filter_ctx ctx, int err, const char *name, unsigned arg,
			unsigned long mask, unsigned long value)
{
	struct scmp_arg_cmp cmp = { .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask,
				    .datum_b = value };

	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), resolve(name), 1, cmp) < 0)
		die("unable to add a rule for", name);
}

/* Ubuntu 23.10+'s shape (see the feature list above). */
static void deny_userns_caps(scmp_filter_ctx ctx)
{
	static const char *const mounts[] = { "mount", "umount2", "pivot_root", "fsopen",
					      "fsconfig", "fsmount", "fspick", "move_mount",
					      "mount_setattr" };
	/* The flags are an int: the upper half of the register is not its. */
	unsigned long mask = 0xffffffffUL;

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++)
		add_rule(ctx, EPERM, mounts[i]);
	/* open_tree without OPEN_TREE_CLONE only opens a path, which any
	 * process may. */
	deny_masked(ctx, EPERM, "open_tree", 2, OPEN_TREE_CLONE, OPEN_TREE_CLONE);
	deny_masked(ctx, EACCES, "openat", 2, mask, USERNS_MAP_OPEN_FLAGS);
	deny_masked(ctx, EACCES, "open", 1, mask, USERNS_MAP_OPEN_FLAGS);
}

/* EINVAL when argument arg has every bit of mask (or equals it, exact). */
static void deny_arg(scmp_filter_ctx ctx, const char *name, unsigned arg, unsigned long mask,
		     bool exact)
{
	struct scmp_arg_cmp cmp = {
		.arg = arg,
		.op = exact ? SCMP_CMP_EQ : SCMP_CMP_MASKED_EQ,
		.datum_a = mask,
		.datum_b = mask,
	};

	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), resolve(name), 1, cmp) < 0)
		die("unable to add a rule for", name);
}

/* The new flags and operations of old calls that sbx relies on, refused as
 * the kernel before them refuses them. */
static void deny_new_flags(scmp_filter_ctx ctx, unsigned release, bool *user_notif_denied)
{
	if (release < KERNEL_RELEASE(5, 11))
		deny_arg(ctx, "close_range", 2, CLOSE_RANGE_CLOEXEC, false);
	if (release < KERNEL_RELEASE(5, 6))
		deny_arg(ctx, "io_uring_register", 1, IORING_REGISTER_PROBE_OP, true);
	if (release < KERNEL_RELEASE(5, 0) && !*user_notif_denied) {
		deny_user_notif(ctx);
		*user_notif_denied = true;
	} else if (release < KERNEL_RELEASE(5, 19)) {
		deny_arg(ctx, "seccomp", 1, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, false);
	}
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[2], "--") != 0)
		usage();

	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		die("seccomp_init failed", NULL);

	bool clone3_denied = false, user_notif_denied = false;
	unsigned release = 0;
	char list[256];
	if (strlen(argv[1]) >= sizeof(list))
		die("feature list too long", NULL);
	strcpy(list, argv[1]);
	char *save = NULL;
	int n = 0;
	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		n++;
		if (strcmp(f, "userns") == 0 || strcmp(f, "netns") == 0) {
			deny_ns_flag(ctx, strcmp(f, "userns") == 0 ? CLONE_NEWUSER
								   : CLONE_NEWNET);
			if (!clone3_denied)
				add_rule(ctx, ENOSYS, "clone3");
			clone3_denied = true;
		} else if (strcmp(f, "userns_nocaps") == 0) {
			deny_userns_caps(ctx);
		} else if (strcmp(f, "landlock") == 0) {
			add_rule(ctx, ENOSYS, "landlock_create_ruleset");
			add_rule(ctx, ENOSYS, "landlock_add_rule");
			add_rule(ctx, ENOSYS, "landlock_restrict_self");
		} else if (strcmp(f, "io_uring") == 0) {
			add_rule(ctx, EPERM, "io_uring_setup");
			add_rule(ctx, EPERM, "io_uring_enter");
			add_rule(ctx, EPERM, "io_uring_register");
		} else if (strcmp(f, "mount_setattr") == 0) {
			add_rule(ctx, ENOSYS, "mount_setattr");
		} else if (strcmp(f, "user_notif") == 0) {
			if (!user_notif_denied)
				deny_user_notif(ctx);
			user_notif_denied = true;
		} else if (strcmp(f, "pidfd_getfd") == 0) {
			add_rule(ctx, ENOSYS, "pidfd_getfd");
		} else if (strcmp(f, "close_range") == 0) {
			add_rule(ctx, EPERM, "close_range");
		} else if (strncmp(f, "kernel=", 7) == 0) {
			if (kernel_release_parse(f + 7, &release) < 0 ||
			    release < syscall_table_oldest() || release > syscall_table_newest())
				die("kernel=X.Y: a release sbx's table covers (3.10 to 6.17), not", f + 7);
			deny_new_flags(ctx, release, &user_notif_denied);
		} else {
			die("unknown feature", f);
		}
	}
	if (n == 0)
		die("no feature given", NULL);

	/* An unprivileged process may load a filter only under no_new_privs. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("nofeature: unable to set no_new_privs");
		return EXIT_OWN;
	}
	int rc = seccomp_load(ctx);
	if (rc < 0) {
		fprintf(stderr, "nofeature: unable to load the filter: %s\n",
			strerror(-rc));
		return EXIT_OWN;
	}
	seccomp_release(ctx);
	/* Stacked last, as sbx stacks it: ENOSYS wins over the rules above. */
	if (release) {
		struct sock_fprog as_of;
		struct child_status st;

		rc = syscalls_as_of_build(release, &as_of);
		if (rc < 0) {
			fprintf(stderr, "nofeature: unable to build the kernel= filter: %s\n",
				strerror(-rc));
			return EXIT_OWN;
		}
		if (syscalls_as_of_install(&as_of, &st) < 0) {
			fprintf(stderr, "nofeature: unable to load the kernel= filter: %s\n",
				strerror(st.err));
			return EXIT_OWN;
		}
		free(as_of.filter);
	}

	const char *prog = argv[3];
	if (strchr(prog, '/'))
		execv(prog, argv + 3);
	else
		execvp(prog, argv + 3);
	int err = errno;
	fprintf(stderr, "nofeature: unable to execute %s: %s\n", prog, strerror(err));
	return err == ENOENT ? 127 : 126;
}
