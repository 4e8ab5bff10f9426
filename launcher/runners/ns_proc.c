/* SPDX-License-Identifier: MIT */
/* The namespace view's /proc: a procfs of the run's own PID namespace, so the
 * command sees (and can name) only the run's processes: the
 * /proc/<pid>/root|cwd|fd routes to the host's writable mounts are gone, and
 * the run's processes may write their own /proc/self files (comm,
 * oom_score_adj, the maps of a nested user namespace). Child side, in the
 * namespace's init. */
#include <errno.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>

#include "mount_api.h"
#include "ns_mounts.h"
#include "ns_proc.h"

/* System-wide knobs in the new procfs stay read-only, as bubblewrap keeps
 * them. Why it matters here: a root caller's command is uid 0 on the host
 * too (identity map), and /proc/sys, /proc/sysrq-trigger and the irq
 * affinities check the owner's mode bits, not a capability. */
static const char *const covered[] = {
	"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs",
	"/proc/acpi", "/proc/driver", "/proc/mtrr", "/proc/pressure", "/proc/kcore",
};

static int keep_readonly(const char *path, struct child_status *st)
{
	struct ns_mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	/* Absent on this kernel (no ACPI, no MTRR): nothing to cover. */
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		return errno == ENOENT ? 0 : child_status_set(st, STAGE_MOUNT, errno, "mount --bind", path);
	/* One call (5.12+), else the remount with the flags restated. */
	if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return child_status_set(st, STAGE_MOUNT, errno, "mount_setattr", path);
	return ns_remount_readonly(path, st);
}

int ns_proc_mount(bool *private_proc, struct child_status *st)
{
	*private_proc = false;
	/* EPERM (also EACCES, EBUSY): the host's /proc is not fully visible
	 * to us (a container masks parts of it), and the kernel refuses a new
	 * procfs that would reveal them. The caller falls back to the host's
	 * /proc, read-only, with Landlock closing its routes. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		if (errno == EPERM || errno == EACCES || errno == EBUSY)
			return 0;
		return child_status_set(st, STAGE_MOUNT, errno, "mount proc", "/proc");
	}
	*private_proc = true;
	for (size_t i = 0; i < sizeof(covered) / sizeof(covered[0]); i++)
		if (keep_readonly(covered[i], st) < 0)
			return -1;
	return 0;
}
