/* SPDX-License-Identifier: MIT */
/* The landlock runner: a Landlock ruleset on the host's file tree, then no
 * capabilities. A denied write fails with EACCES (EXDEV for a refused
 * cross-directory rename or link). The session, the fds and the exec are the
 * child's common path (child.c), not ours. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include "caps.h"
#include "deadman.h"
#include "landlock.h"
#include "netns.h"
#include "runner.h"
#include "userns.h"

static int runner_landlock_probe(char *reason, size_t reason_size)
{
	int abi = landlock_abi_probe(reason, reason_size);
	return abi >= 1 ? 0 : abi;
}

/* --net none needs a network namespace. Root may create one directly; any
 * other caller needs a user namespace to own it, which is exactly what is
 * often missing where this runner is used: then the clone fails and the run
 * is refused rather than run with the network open. */
static int runner_landlock_clone_flags(const struct child_spec *spec)
{
	if (spec->net != SBX_NET_NONE)
		return 0;
	return CLONE_NEWNET | (spec->uid != 0 ? CLONE_NEWUSER : 0);
}

static int runner_landlock_enter(const struct child_spec *spec,
				 struct child_status *st)
{
	const char *write_dirs[2];
	size_t n = 0;

	/* read-only: no write dir; only /dev/null, which landlock_enforce always
	 * allows. */
	if (spec->mode == SBX_MODE_WORKSPACE_WRITE) {
		write_dirs[n++] = spec->root;
		write_dirs[n++] = spec->tmp_dir;
	} else if (spec->mode != SBX_MODE_READ_ONLY) {
		return child_status_set(st, STAGE_LANDLOCK, EINVAL,
					"landlock runner: unconfined mode", NULL);
	}

#ifdef CONFIG_NETNS
	if (spec->net == SBX_NET_NONE) {
		if (spec->uid != 0 && userns_write_identity_maps(spec->uid, spec->gid, st) < 0)
			return -1;
		if (netns_loopback_up(st) < 0)
			return -1;
	}
#endif
	if (deadman_start(spec, st) < 0 ||
	    landlock_enforce(spec->landlock_abi, write_dirs, n, st) < 0)
		return -1;

	/* A root launcher's child would otherwise keep every capability under
	 * the ruleset: CAP_SYS_ADMIN to mount over the workspace, CAP_DAC_*,
	 * raw devices. Landlock restricts paths, not privilege. */
	return caps_drop_all(st);
}

static enum sbx_enforcement runner_landlock_enforcement(const struct child_spec *spec)
{
	/* truncate(2) cannot be restricted before ABI 3; metadata (chmod,
	 * chown, utimes, xattrs) only by the syscall supervisor. */
	return spec->landlock_abi >= 3 && spec->supervised ? SBX_ENFORCEMENT_FULL
							   : SBX_ENFORCEMENT_PARTIAL;
}

const struct runner_ops runner_landlock = {
	.name = "landlock",
	.id = SBX_RUNNER_LANDLOCK,
	.probe = runner_landlock_probe,
	.clone_flags = runner_landlock_clone_flags,
	.enter = runner_landlock_enter,
	.dialects = DIALECT_EACCES | DIALECT_EXDEV,
	.enforcement = runner_landlock_enforcement,
};
