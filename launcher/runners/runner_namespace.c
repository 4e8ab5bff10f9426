/* SPDX-License-Identifier: MIT */
/* The namespace runner: user, mount, IPC and PID namespaces of the run's own,
 * a read-only view of the host's file tree with a private /proc (ns_view.c),
 * Landlock scopes on top, then no capabilities. A denied write fails with
 * EROFS. The session, the fds and the exec are the child's common path
 * (child.c), not ours. */
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
#include "landlock.h"
#include "netns.h"
#include "ns_view.h"
#include "runner.h"
#include "userns.h"
#include "userns_host.h"

/* ---- parent ---- */

/* Cheap, no fork: the switches that settle it (userns_host.c). Anything
 * else is discovered at clone time (STAGE_USERNS and STAGE_MOUNT_PRIVATE tell
 * the parent "unusable here"). An AppArmor restriction settles it only while
 * sbx runs under no profile of its own: with sbx's profile loaded, the
 * attempt decides. */
static int runner_namespace_probe(char *reason, size_t reason_size)
{
	struct userns_host h;

	userns_host_read("", &h);
	switch (userns_host_switch(&h, geteuid() == 0, reason, reason_size)) {
	case USERNS_SWITCH_NONE:
		return 0;
	case USERNS_SWITCH_MAX_ZERO:
		return -ENOSPC;
	default:
		return -EPERM;
	}
}

/* The namespaces come with the clone itself (the child becomes the init of
 * the new PID namespace). */
static int runner_namespace_clone_flags(const struct child_spec *spec)
{
	/* CLONE_NEWIPC: SysV shared memory, semaphores and message queues and
	 * POSIX message queues are state outside the file tree that a read-only
	 * command could otherwise create, change or delete on the host.
	 * CLONE_NEWPID: the run's processes only, in a /proc of their own
	 * (no /proc/<pid>/root route to a host process), and an init whose
	 * exit ends them all. */
	return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID |
	       (spec->net == SBX_NET_NONE ? CLONE_NEWNET : 0);
}

static enum sbx_enforcement runner_namespace_enforcement(const struct child_spec *spec)
{
	/* With the host's /proc (fallback), Landlock closes its routes, and
	 * before ABI 3 it cannot refuse truncate(2) through one of them. */
	if (spec->view && spec->view->private_proc)
		return SBX_ENFORCEMENT_FULL;
	return spec->landlock_abi >= 3 ? SBX_ENFORCEMENT_FULL : SBX_ENFORCEMENT_PARTIAL;
}

/* The filter with this runner's rules; for a root caller who may, a full
 * identity map, which spawn writes for the child after the clone. */
static int runner_namespace_prepare(struct child_spec *spec, char *reason, size_t reason_size)
{
	spec->full_map = spec->caps_keep && userns_can_map_all();
	/* A root caller's nested namespaces fail in the kernel anyway
	 * (seccomp_rules.c): refused by the filter, they are marked. */
	return runner_prepare_filter(spec, spec->caps_keep ? SECCOMP_RULES_NAMESPACE_ROOT
							  : SECCOMP_RULES_NAMESPACE,
				     reason, reason_size);
}

static void runner_namespace_release(struct child_spec *spec)
{
	spec->full_map = false;
}

/* ---- child: no allocation, no stdio ---- */

/* In the namespace's init: identity maps, the network, the view. */
static int runner_namespace_enter(const struct child_spec *spec, struct child_status *st)
{
	/* A root caller's kept capabilities must reach every owner inside the
	 * writable binds (a workspace owned by another user): all ids mapped
	 * onto themselves. The read-only binds still refuse everything. */
	if (spec->full_map ? userns_wait_full_map(spec->full_map_fd, st) < 0
			   : userns_write_identity_maps(spec->uid, spec->gid, st) < 0)
		return -1;
#ifdef CONFIG_NETNS
	/* --net none: the new network namespace came with the clone; bring up
	 * its loopback while we still hold CAP_NET_ADMIN in it. */
	if (spec->net == SBX_NET_NONE && netns_loopback_up(st, NULL) < 0)
		return -1;
#endif

	/* Nothing we mount may propagate back to the host's namespace, and
	 * nothing mounted on the host later may appear in ours. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return child_status_set(st, STAGE_MOUNT_PRIVATE, errno, "make private", "/");
	return ns_view_build(spec, st);
}

/* In the command's process (it shares init's memory until exec, so it sees
 * what the view reported). */
static int runner_namespace_confine(const struct child_spec *spec, struct child_status *st)
{
	const char *write_dirs[6];
	size_t n = 0;

	if (spec->view->private_proc) {
		/* The mounts decide every file access (the few device nodes
		 * in /dev take writes they discard: a read-only mount cannot
		 * stop a device write, and a Landlock file layer would refuse
		 * the nested sandboxes' mounts). On ABI 6+ signals and abstract
		 * unix sockets stay inside the run. */
		if (landlock_scope_enforce(spec->landlock_abi, st) < 0)
			return -1;
	} else {
		/* The host's /proc: /proc/<pid>/root, /cwd and /fd/N of a process
		 * outside lead to the host's writable mounts. Landlock closes
		 * them (its rules are on inodes, and what such a path reaches is
		 * under no allowed directory; nor may a domain ptrace a process
		 * outside it). No Landlock, no safe view: refuse. */
		if (spec->landlock_abi < 1)
			return child_status_set(st, STAGE_LANDLOCK, ENOSYS,
						"no private /proc could be mounted (the host's is "
						"masked) and no Landlock to close /proc/<pid>/root "
						"routes", NULL);
		/* Under sbx's scope domain, which grants REFER only when
		 * asked (kernel/scope_thread.h): a ruleset with file rights
		 * below one that does not would refuse every rename across
		 * directories. sbx spawns again, under one that does. */
		if (spec->scope_without_refer)
			return child_status_set(st, STAGE_LANDLOCK, EXDEV,
						"the scope domain grants no REFER", NULL);
		/* Opened now, so the rules name the view's inodes: its /tmp,
		 * /dev/shm and ptys, not the host's directories. */
		write_dirs[n++] = "/dev/shm";
		write_dirs[n++] = "/dev/pts";
		if (spec->mode == SBX_MODE_WORKSPACE_WRITE) {
			write_dirs[n++] = spec->root;
			write_dirs[n++] = spec->tmp_dir && spec->tmp_dir[0] ? spec->tmp_dir : "/tmp";
			if (spec->view->cache_dir)
				write_dirs[n++] = spec->view->cache_dir;
		}
		if (landlock_enforce(spec->landlock_abi, write_dirs, n, st) < 0)
			return -1;
	}

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
	.confine = runner_namespace_confine,
	.pid_namespace = true,
	.protects_by_mounts = true,
	/* EROFS for the read-only view; EBUSY for a rename over a protected
	 * path's mount point; EXDEV for a rename between two of its mounts (the
	 * root and /tmp) that the host would have allowed. */
	.dialects = DIALECT_EROFS | DIALECT_EBUSY | DIALECT_EXDEV,
	.enforcement = runner_namespace_enforcement,
};
