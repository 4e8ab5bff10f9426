/* SPDX-License-Identifier: MIT */
/* The namespace runner: a user and a mount namespace of our own, a read-only
 * view of the host's file tree (ns_view.c), a Landlock ruleset on top, then no
 * capabilities. A denied write fails with EROFS. The session, the fds and the
 * exec are the child's common path (child.c), not ours. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "deadman.h"
#include "landlock.h"
#include "netns.h"
#include "ns_view.h"
#include "runner.h"
#include "userns.h"

/* ---- parent ---- */

static int userns_try_child(void *arg)
{
	(void)arg;
	_exit(0);
}

/* The integer in a /proc/sys file: 0, or -errno (-ENOENT if it is absent). */
static int read_sysctl(const char *path, long *out)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	if (sscanf(buf, "%ld", out) != 1)
		return -EIO;
	return 0;
}

/* Only on the failure path of the probe: can a user namespace be made at
 * all? A child in a new one exits at once. 0, or the errno clone gave. */
static int userns_try(void)
{
	char stack[16384] __attribute__((aligned(16)));
	pid_t pid = clone(userns_try_child, stack + sizeof(stack), CLONE_NEWUSER | SIGCHLD, NULL);

	if (pid < 0)
		return errno;
	waitpid(pid, NULL, __WALL);
	return 0;
}

/* Cheap, no fork: the switches that are known to turn user namespaces off.
 * Anything else is discovered at clone time (STAGE_USERNS and
 * STAGE_MOUNT_PRIVATE tell the parent "unusable here"). */
static int runner_namespace_probe(char *reason, size_t reason_size)
{
	char ll_reason[160] = "";
	long v;
	bool root = geteuid() == 0;

	if (read_sysctl("/proc/sys/user/max_user_namespaces", &v) == 0 && v == 0) {
		snprintf(reason, reason_size,
			 "user namespaces disabled (user.max_user_namespaces=0)");
		return -ENOSPC;
	}
	/* Debian and Ubuntu kernels: unprivileged creation switched off. */
	if (!root && read_sysctl("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 &&
	    v == 0) {
		snprintf(reason, reason_size, "unprivileged user namespaces disabled "
			 "(kernel.unprivileged_userns_clone=0)");
		return -EPERM;
	}
	/* Ubuntu 23.10+: AppArmor denies the new namespace its capabilities. */
	if (!root &&
	    read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 &&
	    v == 1) {
		snprintf(reason, reason_size, "unprivileged user namespaces restricted by AppArmor "
			 "(kernel.apparmor_restrict_unprivileged_userns=1)");
		return -EPERM;
	}
	/* See runner_namespace_enter: without Landlock the view can be left
	 * through /proc/<pid>/root of a process outside it. */
	if (landlock_abi_probe(ll_reason, sizeof(ll_reason)) < 0) {
		int userns_err = userns_try();

		/* Both facts, when both stand in the way: fixing Landlock alone
		 * would otherwise run into the next wall without warning. */
		if (userns_err)
			snprintf(reason, reason_size,
				 "user namespaces unavailable (clone: %s), and needs Landlock "
				 "to close /proc/<pid>/root routes: %s",
				 strerror(userns_err), ll_reason);
		else
			snprintf(reason, reason_size,
				 "needs Landlock to close /proc/<pid>/root routes: %s", ll_reason);
		return -ENOSYS;
	}
	if (reason_size)
		reason[0] = '\0';
	return 0;
}

/* unshare(CLONE_NEWUSER) fails with EINVAL in a CLONE_VM child (the memory
 * is shared with a process outside the new namespace), so the namespaces
 * come with the clone itself. */
static int runner_namespace_clone_flags(const struct child_spec *spec)
{
	/* CLONE_NEWIPC: SysV shared memory, semaphores and message queues and
	 * POSIX message queues are state outside the file tree that a read-only
	 * command could otherwise create, change or delete on the host. */
	return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC |
	       (spec->net == SBX_NET_NONE ? CLONE_NEWNET : 0);
}

static enum sbx_enforcement runner_namespace_enforcement(const struct child_spec *spec)
{
	/* Before ABI 3 Landlock cannot refuse truncate(2), and a truncate
	 * through a /proc/<pid>/root route would reach a host file. */
	return spec->landlock_abi >= 3 ? SBX_ENFORCEMENT_FULL : SBX_ENFORCEMENT_PARTIAL;
}

/* The filter with this runner's rules; for a root caller who may, the helper
 * that gives the child a full identity map (userns.c). */
static int runner_namespace_prepare(struct child_spec *spec, char *reason, size_t reason_size)
{
	int rc = runner_prepare_filter(spec, SECCOMP_RULES_NAMESPACE, reason, reason_size);

	if (rc < 0 || !spec->caps_keep || !userns_can_map_all())
		return rc;
	rc = userns_mapper_start(&spec->userns_mapper_fd, &spec->userns_mapper_pid);
	if (rc < 0)
		snprintf(reason, reason_size, "identity-map helper: %s", strerror(-rc));
	return rc;
}

static void runner_namespace_release(struct child_spec *spec)
{
	userns_mapper_stop(&spec->userns_mapper_fd, &spec->userns_mapper_pid);
}

/* ---- child: no allocation, no stdio ---- */

static int runner_namespace_enter(const struct child_spec *spec, struct child_status *st)
{
	const char *write_dirs[2];
	size_t n = 0;

	/* /proc stays the host's: the contract does not restrict process
	 * visibility, which a PID namespace with its own /proc would. But
	 * /proc/<pid>/root, /cwd and /fd/N of a process outside lead to the
	 * host's writable mounts. Landlock closes them: its rules are on
	 * inodes, and what such a path reaches is under no allowed directory
	 * (nor may a Landlock domain ptrace-access a process outside it). No
	 * Landlock, no safe view: refuse before setting anything up. */
	if (spec->landlock_abi < 1)
		return child_status_set(st, STAGE_LANDLOCK, ENOSYS,
					"no Landlock to close /proc/<pid>/root routes", NULL);

	/* A root caller's kept capabilities must reach every owner inside the
	 * writable binds (a workspace owned by another user): all ids mapped
	 * onto themselves. The read-only binds still refuse everything. */
	if (spec->userns_mapper_pid > 0 ? userns_ask_full_map(spec->userns_mapper_fd, st) < 0
					 : userns_write_identity_maps(spec->uid, spec->gid, st) < 0)
		return -1;
#ifdef CONFIG_NETNS
	/* --net none: the new network namespace came with the clone; bring up
	 * its loopback while we still hold CAP_NET_ADMIN in it. */
	if (spec->net == SBX_NET_NONE && netns_loopback_up(st) < 0)
		return -1;
#endif

	/* Nothing we mount may propagate back to the host's namespace, and
	 * nothing mounted on the host later may appear in ours. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return child_status_set(st, STAGE_MOUNT_PRIVATE, errno, "make private", "/");

	if (ns_view_build(spec, st) < 0)
		return -1;

	/* Opened after the view is built, so the rules name the new mounts'
	 * inodes: our /tmp tmpfs, not the host's /tmp directory. */
	if (spec->mode == SBX_MODE_WORKSPACE_WRITE) {
		write_dirs[n++] = spec->root;
		write_dirs[n++] = spec->tmp_dir && spec->tmp_dir[0] ? spec->tmp_dir : "/tmp";
	}
	if (deadman_start(spec, st) < 0 ||
	    landlock_enforce(spec->landlock_abi, write_dirs, n, st) < 0)
		return -1;

	/* Last: we needed CAP_SYS_ADMIN in our namespace for every step above.
	 * Without it (bounding and ambient too; a root caller keeps only its
	 * few file capabilities) and with no_new_privs, a nested `unshare -rm`
	 * sees our mounts locked and cannot remount or unmount them. */
	return caps_keep_only(spec->caps_keep, st);
}

const struct runner_ops runner_namespace = {
	.name = "namespace",
	.id = SBX_RUNNER_NAMESPACE,
	.probe = runner_namespace_probe,
	.clone_flags = runner_namespace_clone_flags,
	.prepare = runner_namespace_prepare,
	.release = runner_namespace_release,
	.enter = runner_namespace_enter,
	.dialects = DIALECT_EROFS,
	.enforcement = runner_namespace_enforcement,
};
