/* SPDX-License-Identifier: MIT */
/* Landlock rulesets through the raw system calls (no library).
 *
 * landlock_enforce runs in the clone(CLONE_VM|CLONE_VFORK) child: it shares
 * the parent's memory until exec, so it allocates nothing, takes no locks and
 * uses no stdio. Every failure is reported through the child_status with the
 * path it concerns. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"

/* ABI 1: EXECUTE (bit 0) through MAKE_SYM (bit 12). */
#define LL_FS_ABI1 ((1ULL << 13) - 1)

int landlock_abi_probe(char *reason, size_t reason_size)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	if (abi >= 1)
		return (int)abi;

	int err = abi < 0 ? errno : EINVAL;
	const char *why;
	switch (err) {
	case ENOSYS:
		why = "not supported by this kernel";
		break;
	case EOPNOTSUPP:
		why = "disabled at boot (not in the lsm= list)";
		break;
	default:
		why = strerror(err);
		break;
	}
	if (reason && reason_size)
		snprintf(reason, reason_size, "%s", why);
	return -err;
}

uint64_t landlock_fs_rights(int abi)
{
	uint64_t rights = 0;

	/* ABIs 4, 6 and 7 add network, scoping and logging, no fs rights; an ABI
	 * newer than we know gets the rights we know of. */
	if (abi > SBX_LANDLOCK_ABI_KNOWN)
		abi = SBX_LANDLOCK_ABI_KNOWN;
	if (abi >= 1)
		rights |= LL_FS_ABI1;
	if (abi >= 2)
		rights |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return rights;
}

/* Allow `access` beneath path. A non-directory only takes file rights. */
static int add_path_rule(int ruleset, const char *path, uint64_t access,
			 struct child_status *st)
{
	/* O_PATH: we need a handle on the inode, not the right to read it (a
	 * write dir may be unreadable to us, and a device must not be opened). */
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return child_status_set(st, STAGE_LANDLOCK, errno, "open", path);

	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		int err = errno;
		close(fd);
		return child_status_set(st, STAGE_LANDLOCK, err, "fstat", path);
	}
	if (!S_ISDIR(sb.st_mode))
		access &= LL_FS_FILE;

	struct landlock_path_beneath_attr attr = {
		.allowed_access = access,
		.parent_fd = fd,
	};
	long rc = syscall(SYS_landlock_add_rule, ruleset,
			  LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
	int err = errno;
	close(fd);
	if (rc < 0)
		return child_status_set(st, STAGE_LANDLOCK, err,
					"landlock_add_rule", path);
	return 0;
}

uint64_t landlock_scopes(int abi)
{
	/* Why signals: a command that can signal outside its domain can
	 * SIGKILL or SIGSTOP sbx itself, orphaning its tree past the run and
	 * stopping the timeout. Why abstract unix sockets: with --net allow
	 * the command would reach every abstract socket on the host (session
	 * buses, X11, IDE helpers) and ask those daemons to write for it. Both
	 * scoped, it reaches only what its own run created (ABI 6+; older
	 * kernels cannot refuse either, see docs/security.md). */
	return abi >= 6 ? SBX_LANDLOCK_SCOPE_SIGNAL | SBX_LANDLOCK_SCOPE_ABSTRACT_UNIX : 0;
}

int landlock_restrict(int ruleset, struct child_status *st)
{
	/* landlock_restrict_self requires no_new_privs (or CAP_SYS_ADMIN); we
	 * want it regardless, so that nothing exec'd can shed the domain's
	 * intent by gaining privileges through a setuid binary. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_NO_NEW_PRIVS, errno,
					"prctl(PR_SET_NO_NEW_PRIVS)", NULL);
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return child_status_set(st, STAGE_LANDLOCK, errno, "landlock_restrict_self", NULL);
	return 0;
}

int landlock_enforce(int abi, const char *const *write_dirs, size_t n_write_dirs,
		     struct child_status *st)
{
	uint64_t all = landlock_fs_rights(abi);
	if (all == 0)
		return child_status_set(st, STAGE_LANDLOCK, EINVAL,
					"landlock ABI", "none");

	/* Handle every right the ABI knows: a right left unhandled is allowed
	 * everywhere, so the ruleset must name them all to deny writes. */
	struct sbx_ruleset_attr rattr;
	memset(&rattr, 0, sizeof(rattr));
	rattr.handled_access_fs = all;
	rattr.scoped = landlock_scopes(abi);
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &rattr,
				   sizeof(rattr), 0);
	if (ruleset < 0)
		return child_status_set(st, STAGE_LANDLOCK, errno,
					"landlock_create_ruleset", NULL);

	/* Reads and execution everywhere. Not IOCTL_DEV (ABI 5): a device opened
	 * read-only still takes ioctls that change the outside, such as
	 * tcsetattr or a window size on the caller's terminal. The command's own
	 * fds 0-2 are pipes and /dev/null, opened before the domain. */
	uint64_t read_exec = LL_READ_EXEC;
	if (add_path_rule(ruleset, "/", read_exec, st) < 0)
		goto fail;

	/* Everything beneath each write dir, REFER included (ABI 2+), so renames
	 * and links between its subdirectories work. Under ABI 1 such a rename
	 * fails with EXDEV: the classifier knows that dialect. */
	for (size_t i = 0; i < n_write_dirs; i++)
		if (add_path_rule(ruleset, write_dirs[i], all, st) < 0)
			goto fail;

	/* The /dev/null node accepts writes in every mode. TRUNCATE where the
	 * ABI knows it, for `>/dev/null` (O_TRUNC): current kernels skip the
	 * truncate check for a device node, but the right is what the intent
	 * is, and costs nothing. */
	uint64_t devnull = read_exec | LANDLOCK_ACCESS_FS_WRITE_FILE |
			   (all & (LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV));
	if (add_path_rule(ruleset, "/dev/null", devnull, st) < 0)
		goto fail;

	if (landlock_restrict(ruleset, st) < 0)
		goto fail;
	close(ruleset);
	return 0;

fail:
	close(ruleset);
	return -1;
}
