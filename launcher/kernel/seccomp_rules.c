/* SPDX-License-Identifier: MIT */
/* The errno rules of the seccomp filter a confined command runs under, in one
 * place: seccomp_rules_add() is the only function that names a system call,
 * so the filter is compiled from it once, at build time (seccomp_gen.c), and
 * a unit test checks that what sbx embeds is what libseccomp makes of it. Every rule is an argument compare libseccomp can express; nothing
 * here depends on the run (no paths, no serial numbers, no ids).
 *
 * What is refused, and why:
 *  - both runners: the terminal-injection ioctls; the file systems' keyring
 *    ioctls (fscrypt's keys, added and removed for a whole file system, not
 *    a file a mount could make read-only) and the file system's label;
 *    setting a setuid or setgid
 *    bit by any call that takes a mode (as systemd's RestrictSUIDSGID=);
 *    openat2 (ENOSYS: its mode sits in a struct the filter cannot read, and
 *    callers fall back to openat); the kernel keyrings; io_uring (ENOSYS:
 *    its operations carry modes and addresses no filter sees);
 *  - landlock runner only: new namespaces of any kind (clone3 with ENOSYS
 *    so libc falls back to clone, whose flags the filter can read),
 *    entering any namespace (setns), every mount call (those libseccomp
 *    cannot name by number: seccomp_rules_unnamed), and CLONE_PARENT (a
 *    process beside bash, outside the tree the end of the run looks at).
 *    The namespace runner allows both: its binds are locked, and nested
 *    sandboxes work there. Also limits and priorities of other processes
 *    (prlimit64 of another pid, setpriority and ioprio_set of a user or
 *    process group): they reach sbx and the caller's processes; and
 *    dnotify (fcntl F_NOTIFY), a watch the supervisor cannot judge; and
 *    prctl(PR_SET_DUMPABLE, 0) is made a no-op (add_dumpable_stays);
 *  - namespace runner, root caller: new namespaces, setns and mounts, as
 *    under Landlock. Not for safety (the kernel refuses them all: no
 *    CAP_SYS_ADMIN, and mapping root in a nested user namespace wants
 *    CAP_SETFCAP), but so that the refusal is ours, counted, and the run
 *    marked (engine/supervisor.c), not a kernel EPERM nobody attributes. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "seccomp_rules.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
/* Debian 12's 6.1 headers lack fchmodat2 (Linux 6.6); libseccomp resolves
 * the name for the other arches from its own table. */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
/* The kernel's __O_TMPFILE bit alone (glibc's __O_TMPFILE adds
 * O_DIRECTORY): any open carrying it either creates a file or fails. */
#define TMPFILE_BIT 020000000UL

#ifndef F_NOTIFY
#define F_NOTIFY 1026
#endif
/* linux/ioprio.h's, absent from older headers */
#ifndef IOPRIO_WHO_PGRP
#define IOPRIO_WHO_PGRP 2
#define IOPRIO_WHO_USER 3
#endif

#define REFUSE SCMP_ACT_ERRNO(EPERM)
_Static_assert(REFUSE == SECCOMP_RULES_REFUSED, "the joined filter looks for this verdict");
/* "This kernel has no such call": the caller's fallback takes over. */
#define ABSENT SCMP_ACT_ERRNO(ENOSYS)

static const unsigned long special_bits[] = { S_ISUID, S_ISGID };

/* ioctl's request is an int in the kernel: match only its low 32 bits, or a
 * request with high bits set slips past (CVE-2019-10063, the flatpak bypass
 * of CVE-2017-5226's fix). */
static int refuse_ioctl(scmp_filter_ctx ctx, unsigned long request)
{
	return seccomp_rule_add(ctx, REFUSE, SCMP_SYS(ioctl), 1,
				SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, request));
}

/* The mode is argument `arg` of nr: refuse it with either special bit. A
 * masked compare, so the kernel's own truncation of the mode to umode_t
 * cannot hide a bit from the filter. */
static int refuse_mode(scmp_filter_ctx ctx, int nr, unsigned arg)
{
	for (size_t i = 0; i < 2; i++) {
		unsigned long bit = special_bits[i];
		struct scmp_arg_cmp mode = { arg, SCMP_CMP_MASKED_EQ, bit, bit };
		int rc = seccomp_rule_add_array(ctx, REFUSE, nr, 1, &mode);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* An open that creates (O_CREAT, or O_TMPFILE) with a special bit in its
 * mode. Without those flags the kernel ignores the mode. */
static int refuse_create_mode(scmp_filter_ctx ctx, int nr, unsigned flags_arg,
			      unsigned mode_arg)
{
	static const unsigned long creating[] = { O_CREAT, TMPFILE_BIT };

	for (size_t f = 0; f < 2; f++)
		for (size_t i = 0; i < 2; i++) {
			struct scmp_arg_cmp cmp[2] = {
				{ flags_arg, SCMP_CMP_MASKED_EQ, creating[f], creating[f] },
				{ mode_arg, SCMP_CMP_MASKED_EQ, special_bits[i], special_bits[i] },
			};
			int rc = seccomp_rule_add_array(ctx, REFUSE, nr, 2, cmp);

			if (rc < 0)
				return rc;
		}
	return 0;
}

/* Setuid/setgid minting: the owner of a file needs no capability to set
 * these bits, so a root caller's run would leave a setuid-root program in the
 * workspace (and, under the landlock runner, in the host's /tmp). */
static int add_no_special_bits(scmp_filter_ctx ctx)
{
	int rc = 0;

	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(chmod), 1);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(fchmod), 1);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(fchmodat), 2);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(fchmodat2), 2);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(mkdir), 1);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(mkdirat), 2);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(mknod), 1);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(mknodat), 2);
	rc = rc ? rc : refuse_mode(ctx, SCMP_SYS(creat), 1);
	rc = rc ? rc : refuse_create_mode(ctx, SCMP_SYS(open), 1, 2);
	rc = rc ? rc : refuse_create_mode(ctx, SCMP_SYS(openat), 2, 3);
	rc = rc ? rc : seccomp_rule_add(ctx, ABSENT, SCMP_SYS(openat2), 0);
	/* io_uring's OPENAT and OPENAT2 create files with a mode no filter
	 * sees (a setuid file, empty as long as the writer lacks CAP_FSETID;
	 * its CONNECT reaches sockets past any filter); libraries that use it
	 * (libuv, liburing users) fall back to plain system calls on ENOSYS,
	 * as on a kernel without it. */
	rc = rc ? rc : seccomp_rule_add(ctx, ABSENT, SCMP_SYS(io_uring_setup), 0);
	return rc;
}

/* Keyrings are not namespaced. The special ids of the user and user-session
 * keyrings could be refused by argument, but the caller's keyrings are also
 * reachable by serial number (listed in /proc/keys, random per boot, so no
 * precompiled filter can know them), and their owner's "user" permissions
 * allow linking one into the run's own session keyring, which makes every
 * key in it possessed and readable. So no keyring call at all: the run has
 * its own empty session keyring (keyring.c), and the kernel's own lookups
 * (request_key from inside the kernel) search only that. Container
 * runtimes' default profiles refuse these three calls the same way. */
static int add_no_keyrings(scmp_filter_ctx ctx)
{
	int rc = seccomp_rule_add(ctx, REFUSE, SCMP_SYS(add_key), 0);

	rc = rc ? rc : seccomp_rule_add(ctx, REFUSE, SCMP_SYS(keyctl), 0);
	rc = rc ? rc : seccomp_rule_add(ctx, REFUSE, SCMP_SYS(request_key), 0);
	return rc;
}


/* Any namespace flag in argument 0 of nr. */
static int refuse_new_namespaces(scmp_filter_ctx ctx, int nr, unsigned long flags)
{
	int rc = 0;

	for (unsigned long bit = 1; rc == 0 && bit; bit <<= 1) {
		struct scmp_arg_cmp cmp = { 0, SCMP_CMP_MASKED_EQ, bit, bit };

		if (flags & bit)
			rc = seccomp_rule_add_array(ctx, REFUSE, nr, 1, &cmp);
	}
	return rc;
}

/* Landlock does not see mounts: an overlayfs created in a nested user
 * namespace (fsopen + fsconfig is enough, no move_mount needed) makes the
 * kernel delete and create entries in a workdir= outside the policy. The
 * other namespaces need CAP_SYS_ADMIN, which no command holds outside a user
 * namespace of its own: refused by the kernel, refused here too, so that
 * the refusal is counted. */
static int add_no_namespaces_no_mounts(scmp_filter_ctx ctx)
{
	static const int mount_family[] = {
		SCMP_SYS(mount), SCMP_SYS(umount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
		SCMP_SYS(fsopen), SCMP_SYS(fsconfig), SCMP_SYS(fsmount), SCMP_SYS(fspick),
		SCMP_SYS(open_tree), SCMP_SYS(move_mount), SCMP_SYS(mount_setattr),
	};
	int rc = refuse_new_namespaces(ctx, SCMP_SYS(unshare), CLONE_NAMESPACES | CLONE_NEWTIME);

	/* clone's flags are its first argument on x86-64, x32 and i386. */
	rc = rc ? rc : refuse_new_namespaces(ctx, SCMP_SYS(clone), CLONE_NAMESPACES);
	rc = rc ? rc : seccomp_rule_add(ctx, ABSENT, SCMP_SYS(clone3), 0);
	/* Entering one is as good as making one: a user namespace the caller
	 * owns (pinned at a path) gives every capability inside it, and with
	 * them its network or mount namespaces. setns(fd, 0) names no type,
	 * so all of it. */
	rc = rc ? rc : seccomp_rule_add(ctx, REFUSE, SCMP_SYS(setns), 0);
	for (size_t i = 0; rc == 0 && i < sizeof(mount_family) / sizeof(mount_family[0]); i++)
		rc = seccomp_rule_add(ctx, REFUSE, mount_family[i], 0);
	return rc;
}

/* The mount calls libseccomp 2.5 (Debian 12) has no name for, by number:
 * open_tree_attr (Linux 6.15) makes a detached copy of a mount with new
 * attributes, open_tree and mount_setattr in one call, and is refused
 * where they are. Its number is the same on x86-64, i386 and arm64 (x32
 * is refused whole: seccomp_compile.c). */
static const unsigned mount_family_unnamed[] = { 467 /* open_tree_attr */ };

size_t seccomp_rules_unnamed(enum seccomp_rules_for runner, unsigned *nr, size_t max)
{
	size_t n = 0;

	if (runner == SECCOMP_RULES_NAMESPACE)
		return 0;
	for (size_t i = 0; i < sizeof(mount_family_unnamed) / sizeof(mount_family_unnamed[0]) &&
			   n < max;
	     i++)
		nr[n++] = mount_family_unnamed[i];
	return n;
}

/* Landlock scopes signals (ABI 6+) but not these calls, which reach any
 * process of the caller's uid in the host's PID namespace: sbx itself among
 * them. prlimit64 on sbx (RLIMIT_NOFILE 4, RLIMIT_CPU 1) would leave it
 * unable to put the protected paths back, or kill it before it does; the
 * nice and I/O priority of every process of the user (or of a process
 * group, sbx's caller's) would stay changed after the run. A command may
 * still set its own limits (pid 0), read anyone's, and set the priority of
 * single processes (a lower one only: raising needs CAP_SYS_NICE). The
 * namespace runner's PID namespace holds only the run's processes. */
static int add_no_foreign_limits(scmp_filter_ctx ctx)
{
	/* which is an int in the kernel: its low 32 bits decide. */
	static const struct {
		int nr;
		unsigned long which;
	} groups[] = {
		{ SCMP_SYS(setpriority), PRIO_USER },
		{ SCMP_SYS(setpriority), PRIO_PGRP },
		{ SCMP_SYS(ioprio_set), IOPRIO_WHO_USER },
		{ SCMP_SYS(ioprio_set), IOPRIO_WHO_PGRP },
	};
	/* pid 0 with high bits set is still the caller for the kernel, and
	 * refused here: the safe side. */
	struct scmp_arg_cmp limits[] = { { 0, SCMP_CMP_NE, 0, 0 }, { 2, SCMP_CMP_NE, 0, 0 } };
	int rc = seccomp_rule_add_array(ctx, REFUSE, SCMP_SYS(prlimit64), 2, limits);

	for (size_t i = 0; rc == 0 && i < sizeof(groups) / sizeof(groups[0]); i++)
		rc = seccomp_rule_add(ctx, REFUSE, groups[i].nr, 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, groups[i].which));
	return rc;
}

/* The run's processes are sbx's children or below them (sbx and bash are
 * subreapers), except one made with CLONE_PARENT by bash itself: a sibling
 * of bash, the child of whatever thread spawned it (serve's spawner thread,
 * whose children the end of a run takes for runs being started). The end of
 * the run would not see it, find nothing left and stand the dead-man helper
 * down, and it would live on after the protected paths were put back. Under
 * the namespace runner such a sibling is still a child of the namespace's
 * init. Nothing a command runs needs it. */
static int add_no_clone_parent(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp parent = { 0, SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT };

	return seccomp_rule_add_array(ctx, REFUSE, SCMP_SYS(clone), 1, &parent);
}

/* prctl(PR_SET_DUMPABLE, 0) does nothing and says it did. Why: the
 * supervisor reads the command's memory and descriptors to perform its calls
 * (an open for writing, a connect, a chmod), with no more privilege than the
 * command; a process that made itself non-dumpable (ssh-agent, gpg-agent
 * do) hides both from it, and every such call of its would be refused. Its
 * non-dumpability would guard it from the run's other processes only, which
 * already hold what it holds. (The namespace runner's supervisor owns the
 * run's user namespace, and sees such a process anyway.) */
static int add_dumpable_stays(scmp_filter_ctx ctx)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(prctl), 2,
				SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, PR_SET_DUMPABLE),
				SCMP_A1(SCMP_CMP_EQ, 0));
}

/* dnotify: fcntl(dir, F_NOTIFY) is a watch on a directory's entries, as
 * inotify's, on a fd of the command's whose signal goes to whoever set it:
 * the supervisor cannot place it for the command the way it places inotify
 * watches, and letting the kernel go on after a look at the fd leaves the fd
 * to be swapped. On /dev/pts it says when each pty of the host is made and
 * removed (and, where a kernel reports a device's reads and writes to its
 * directory, each keystroke). inotify does all dnotify does. cmd is an
 * unsigned int in the kernel: its low 32 bits decide. */
static int add_no_dnotify(scmp_filter_ctx ctx)
{
	int rc = seccomp_rule_add(ctx, REFUSE, SCMP_SYS(fcntl), 1,
				  SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, F_NOTIFY));

	return rc ? rc : seccomp_rule_add(ctx, REFUSE, SCMP_SYS(fcntl64), 1,
					  SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, F_NOTIFY));
}

int seccomp_rules_add(void *filter, enum seccomp_rules_for runner)
{
	scmp_filter_ctx ctx = filter;
	/* TIOCSTI: inject a byte into the terminal's input queue (CVE-2017-5226). */
	int rc = refuse_ioctl(ctx, TIOCSTI);

	/* TIOCLINUX: the Linux console's paste-selection, the same injection. */
	rc = rc ? rc : refuse_ioctl(ctx, TIOCLINUX);
	/* fscrypt's keys live in the file system's keyring, for every file of
	 * it and past the run: a key the command adds stays on the host, and
	 * one it removes locks the user's encrypted directories. No mount of
	 * the view is asked (the read-only binds do not refuse them). The
	 * label is the whole file system's (CAP_SYS_ADMIN, which no command
	 * holds: refused here all the same). The landlock runner's supervisor
	 * refuses them too (supervisor_ioctl.c); so do the 32-bit numbers,
	 * which are the same. */
	rc = rc ? rc : refuse_ioctl(ctx, FS_IOC_ADD_ENCRYPTION_KEY);
	rc = rc ? rc : refuse_ioctl(ctx, FS_IOC_REMOVE_ENCRYPTION_KEY);
	rc = rc ? rc : refuse_ioctl(ctx, FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS);
	rc = rc ? rc : refuse_ioctl(ctx, FS_IOC_SETFSLABEL);
	rc = rc ? rc : add_no_special_bits(ctx);
	rc = rc ? rc : add_no_keyrings(ctx);
	if (rc == 0 && runner != SECCOMP_RULES_NAMESPACE)
		rc = add_no_namespaces_no_mounts(ctx);
	if (rc == 0 && runner == SECCOMP_RULES_LANDLOCK)
		rc = add_no_foreign_limits(ctx);
	if (rc == 0 && runner == SECCOMP_RULES_LANDLOCK)
		rc = add_no_clone_parent(ctx);
	if (rc == 0 && runner == SECCOMP_RULES_LANDLOCK)
		rc = add_no_dnotify(ctx);
	if (rc == 0 && runner == SECCOMP_RULES_LANDLOCK)
		rc = add_dumpable_stays(ctx);
	return rc;
}
