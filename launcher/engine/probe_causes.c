/* SPDX-License-Identifier: MIT */
/* sbx probe: for each missing piece, the real cause and the fix that
 * applies to this machine (a sysctl, an lsm= entry, a kernel option, a
 * container profile). Causes are read from the kernel (the errno of a real
 * attempt, /proc/sys, /sys/kernel/security/lsm, whether a seccomp filter sits
 * on us); the kernel release only names a cause, it never stands in for a
 * probe. User namespaces: probe_userns.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe.h"
#include "syscall_table.h"
#include "userns_host.h"

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

static unsigned running_release(void)
{
	struct utsname u;
	unsigned r = 0;

	if (uname(&u) == 0)
		kernel_release_parse(u.release, &r);
	return r;
}

void probe_landlock_cause(int err, struct probe_cause *c)
{
	char lsm[256];
	unsigned release = running_release();
	struct userns_host h;

	c->reason[0] = c->cause[0] = c->fix[0] = '\0';
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
		userns_host_read("", &h);
		if (h.seccomp_mode == 2) {
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

	c->cause[0] = '\0';
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
