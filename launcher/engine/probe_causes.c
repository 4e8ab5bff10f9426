/* SPDX-License-Identifier: MIT */
/* sbx probe: for each missing piece, the real cause and the fix that
 * applies to this machine (a sysctl, an lsm= entry, a kernel option, a
 * container profile). Causes are read from the kernel (the errno of a real
 * attempt, /proc/sys, /sys/kernel/security/lsm, whether a seccomp filter sits
 * on us); the kernel release only names a cause, it never stands in for a
 * probe. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fds.h"
#include "probe.h"
#include "syscall_table.h"

static void set(struct probe_cause *c, const char *reason, const char *fix)
{
	snprintf(c->reason, sizeof(c->reason), "%s", reason);
	snprintf(c->fix, sizeof(c->fix), "%s", fix);
}

/* A small /proc or /sys file, its first line without the newline ("" if
 * unreadable). */
static void read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Whether a seccomp filter sits on this process (a container's profile, or
 * a test's emulation): its answers, not the kernel's, may be what we see. */
static bool under_seccomp_filter(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	const char *p;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strstr(buf, "\nSeccomp:\t");
	return p && p[strlen("\nSeccomp:\t")] == '2';
}

static unsigned running_release(void)
{
	struct utsname u;
	unsigned r = 0;

	if (uname(&u) == 0)
		kernel_release_parse(u.release, &r);
	return r;
}

/* Whether this process is chrooted into a plain directory (its / is not the
 * root of a mount): the kernel refuses a new user namespace to a chrooted
 * process (EPERM), whatever sysctls and security modules say. A chroot onto
 * a mount point is not told apart from a security module's refusal. */
static bool in_chroot(void)
{
	struct statx st;

	if (statx(AT_FDCWD, "/", 0, 0, &st) != 0)
		return false;
	return (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* The errno of unshare(CLONE_NEWUSER) in a throwaway child (0: it works). */
static int try_userns(void)
{
	int ws;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		int err = unshare(CLONE_NEWUSER) == 0 ? 0 : errno;

		/* see made_one in supervisor_refusal.c: exit without a last
		 * close that waits */
		fds_close_from_bounded(0);
		_exit(err & 0xff);
	}
	if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws))
		return EIO;
	return WEXITSTATUS(ws);
}

void probe_userns_cause(const char *runner_reason, struct probe_cause *c)
{
	char limit[32];
	int err;

	c->reason[0] = c->fix[0] = '\0';
	/* The switches the runner's own probe reads name themselves. */
	if (runner_reason && strstr(runner_reason, "max_user_namespaces")) {
		set(c, runner_reason, "sysctl -w user.max_user_namespaces=15000 (and in "
				      "/etc/sysctl.d/ to keep it)");
		return;
	}
	if (runner_reason && strstr(runner_reason, "unprivileged_userns_clone")) {
		set(c, runner_reason, "sysctl -w kernel.unprivileged_userns_clone=1");
		return;
	}
	if (runner_reason && strstr(runner_reason, "AppArmor")) {
		set(c, runner_reason, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or "
				      "an AppArmor profile for sbx that allows userns");
		return;
	}
	err = try_userns();
	switch (err) {
	case 0:
		return;
	case ENOSPC:
		read_line("/proc/sys/user/max_user_namespaces", limit, sizeof(limit));
		snprintf(c->reason, sizeof(c->reason),
			 "user namespaces used up (user.max_user_namespaces=%s)", limit);
		snprintf(c->fix, sizeof(c->fix), "sysctl -w user.max_user_namespaces=15000");
		return;
	case EINVAL:
		set(c, "this kernel has no user namespaces (built without CONFIG_USER_NS)",
		    "a kernel built with CONFIG_USER_NS=y; until then the landlock runner confines");
		return;
	}
	if (err == EPERM && in_chroot()) {
		set(c, "creating a user namespace is refused (Operation not permitted): sbx runs "
		       "in a chroot, where the kernel refuses user namespaces",
		    "run sbx in a container or a mount namespace with its own root (pivot_root, "
		    "as container runtimes do) rather than a chroot; else sbx uses the landlock "
		    "runner");
		return;
	}
	if (under_seccomp_filter()) {
		snprintf(c->reason, sizeof(c->reason),
			 "creating a user namespace is refused by a seccomp filter on sbx (%s), "
			 "as container runtimes' default profiles do", strerror(err));
		snprintf(c->fix, sizeof(c->fix),
			 "a container seccomp profile that allows clone/unshare with CLONE_NEWUSER "
			 "(or the runtime's unconfined profile); else sbx uses the landlock runner");
		return;
	}
	snprintf(c->reason, sizeof(c->reason),
		 "creating a user namespace is refused (%s) by a security module", strerror(err));
	snprintf(c->fix, sizeof(c->fix),
		 "allow user namespaces for sbx in the AppArmor or SELinux policy");
}

void probe_landlock_cause(int err, struct probe_cause *c)
{
	char lsm[256];
	unsigned release = running_release();

	c->reason[0] = c->fix[0] = '\0';
	switch (err) {
	case EOPNOTSUPP:
		read_line("/sys/kernel/security/lsm", lsm, sizeof(lsm));
		snprintf(c->reason, sizeof(c->reason),
			 "built in but not enabled at boot: landlock is not in the lsm= list");
		if (lsm[0])
			snprintf(c->fix, sizeof(c->fix),
				 "boot with lsm=landlock,%.150s (the kernel command line; the "
				 "modules active now are %.150s)", lsm, lsm);
		else
			snprintf(c->fix, sizeof(c->fix),
				 "add landlock to the lsm= kernel parameter (keep the modules "
				 "listed in /sys/kernel/security/lsm) and reboot");
		return;
	case ENOSYS:
	case EPERM:
		if (under_seccomp_filter()) {
			snprintf(c->reason, sizeof(c->reason),
				 "the landlock system calls are refused by a seccomp filter on "
				 "sbx (%s), as a container's profile does",
				 strerror(err));
			snprintf(c->fix, sizeof(c->fix),
				 "a container seccomp profile that allows landlock_create_ruleset, "
				 "landlock_add_rule and landlock_restrict_self");
			return;
		}
		if (release && release < KERNEL_RELEASE(5, 13)) {
			snprintf(c->reason, sizeof(c->reason),
				 "this kernel (%u.%u) predates Landlock (5.13)", release >> 8,
				 release & 0xff);
			snprintf(c->fix, sizeof(c->fix),
				 "none needed for the namespace runner; the landlock runner needs "
				 "a 5.13+ kernel with CONFIG_SECURITY_LANDLOCK=y");
			return;
		}
		set(c, "this kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)",
		    "a kernel built with CONFIG_SECURITY_LANDLOCK=y and landlock in CONFIG_LSM "
		    "(or in lsm= at boot)");
		return;
	}
	snprintf(c->reason, sizeof(c->reason), "%s", strerror(err));
}

void probe_io_uring_cause(const char *reason, struct probe_cause *c)
{
	char v[16];

	snprintf(c->reason, sizeof(c->reason), "%s", reason);
	read_line("/proc/sys/kernel/io_uring_disabled", v, sizeof(v));
	if (v[0] && v[0] != '0')
		snprintf(c->fix, sizeof(c->fix),
			 "none needed (poll collects the same bytes); io_uring is switched off by "
			 "kernel.io_uring_disabled=%s", v);
	else
		snprintf(c->fix, sizeof(c->fix), "none needed (poll collects the same bytes)");
}

void probe_runner_fix(const char *runner, const char *reason, const struct probe_cause *userns,
		      const struct probe_cause *landlock, char *fix, size_t size)
{
	if (strcmp(runner, "landlock") == 0) {
		snprintf(fix, size, "%s", landlock->fix[0] ? landlock->fix : "see the reason");
		return;
	}
	if (userns->fix[0]) {
		snprintf(fix, size, "%s", userns->fix);
		return;
	}
	/* User namespaces work, yet the runner does not: the private /proc. */
	if (reason && strstr(reason, "/proc"))
		snprintf(fix, size, "an unmasked /proc for sbx's container (docker: --security-opt "
				    "systempaths=unconfined), or a kernel with Landlock (5.13+) to "
				    "close the host /proc's routes instead");
	else
		snprintf(fix, size, "see the reason");
}
