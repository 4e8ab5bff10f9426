/* SPDX-License-Identifier: MIT */
/* The landlock runner: a Landlock ruleset on the host's file tree, built in
 * the parent (prepare) and enforced by the child, then no capabilities but a
 * root caller's few. A denied write fails with EACCES (EXDEV for a refused
 * cross-directory rename or link). The session, the fds and the exec are the
 * child's common path (child.c), not ours. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "deadman.h"
#include "landlock.h"
#include "landlock_cache.h"
#include "netns.h"
#include "ns_view.h"
#include "pty_pool.h"
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

/* ---- parent: the ruleset ---- */

/* The device nodes a command needs, and nothing else of /dev: not /dev/pts,
 * the ttyN and ttyS* consoles, /dev/console (the caller's terminal can be
 * read, and the ABI 5 device right stops only ioctls), nor raw disks, input,
 * sound and video devices. /dev/fd, stdin, stdout and stderr are symlinks
 * into /proc/self/fd and need no rule. */
static int allow_dev(int rs, uint64_t all, bool writable, char *failed, size_t failed_size,
		     struct ll_seen *seen)
{
	uint64_t r = LANDLOCK_ACCESS_FS_READ_FILE;
	uint64_t rw = r | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      (all & (LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV));
	const struct {
		const char *path;
		uint64_t rights;
	} nodes[] = {
		/* Accepts writes in every mode (`>/dev/null`). */
		{ "/dev/null", rw },
		{ "/dev/zero", r },
		{ "/dev/full", r },
		{ "/dev/random", r },
		{ "/dev/urandom", r },
		/* The controlling terminal, and only the command's own: it has
		 * none at start (a new session), so opening answers ENXIO, the
		 * truth, not EACCES. */
		{ "/dev/tty", rw },
		/* New ptys: the master side. Their slaves are not granted by
		 * path (/dev/pts is not granted: the user's other terminals
		 * live there), and Landlock refuses TIOCGPTPEER's open of one
		 * too; the supervisor performs TIOCGPTPEER on the command's
		 * own master instead (engine/supervisor_pty.c), and swaps in a
		 * pty of the run's pool, whose slave alone is granted, when the
		 * command asks for its new pty's number (grant_pool below). */
		{ "/dev/ptmx", rw },
		/* Host-wide shared memory: written only where the mode allows. */
		{ "/dev/shm", writable ? all : LL_READ_EXEC },
	};

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		int rc;

		ll_seen_path(seen, nodes[i].path);
		rc = landlock_allow_path(rs, nodes[i].path, nodes[i].rights);

		/* A minimal container /dev may lack some: nothing to grant. */
		if (rc < 0 && rc != -ENOENT) {
			snprintf(failed, failed_size, "%s", nodes[i].path);
			return rc;
		}
	}
	return 0;
}

/* What the walk listed and what was granted by name go to log and seen:
 * the cache (landlock_cache.c) uses the ruleset again only while they are
 * unchanged. */
static int build_ruleset(const struct child_spec *spec, char *reason, size_t reason_size,
			 struct landlock_walk_log *log, struct ll_seen *seen)
{
	uint64_t all = landlock_fs_rights(spec->landlock_abi);
	bool writable = spec->mode == SBX_MODE_WORKSPACE_WRITE;
	/* Why not also devpts or /dev bound elsewhere (a chroot's): finding
	 * them means reading the whole mount table on every run; deny_read
	 * can name them where they exist. The hidden paths (credential stores,
	 * sbx's own state) are left out the same way. */
	const char *except[1 + NS_VIEW_MAX_PATHS] = { "/dev" };
	size_t n_except = 1;
	char failed[256] = "";
	int rs, rc;

	/* Each one as it is now (or that it is absent: then nothing is left
	 * out for it, and its appearing later must mean a fresh build). */
	for (size_t i = 0; spec->view && i < spec->view->hide.n; i++) {
		except[n_except++] = spec->view->hide.path[i];
		ll_seen_path(seen, spec->view->hide.path[i]);
	}
	if (spec->mode != SBX_MODE_WORKSPACE_WRITE && spec->mode != SBX_MODE_READ_ONLY) {
		snprintf(reason, reason_size, "landlock runner: unconfined mode");
		return -EINVAL;
	}
	rs = landlock_ruleset_create(spec->landlock_abi, landlock_scopes(spec->landlock_abi));
	if (rs < 0) {
		snprintf(reason, reason_size, "landlock_create_ruleset: %s", strerror(-rs));
		return rs;
	}
	/* Reads and execution everywhere but the device trees: every entry of
	 * / except /dev, and / itself listable. Not IOCTL_DEV: a device opened
	 * for reading would still take ioctls that change the outside. */
	rc = landlock_allow_except_logged(rs, "/", LL_READ_EXEC, LANDLOCK_ACCESS_FS_READ_DIR, except,
					  n_except, failed, sizeof(failed), log);
	if (rc == 0)
		rc = allow_dev(rs, all, writable, failed, sizeof(failed), seen);
	/* What stays readable below a hidden directory (known_hosts, public
	 * keys). */
	for (size_t i = 0; rc == 0 && spec->view && i < spec->view->reveal.n; i++) {
		ll_seen_path(seen, spec->view->reveal.path[i]);
		rc = landlock_allow_path(rs, spec->view->reveal.path[i], LL_READ_EXEC);
		if (rc == -ENOENT)
			rc = 0;
		else if (rc < 0)
			snprintf(failed, sizeof(failed), "%s", spec->view->reveal.path[i]);
	}
	/* Everything beneath each write dir, REFER included (ABI 2+), so
	 * renames and links between its subdirectories work. Under ABI 1 such
	 * a rename fails with EXDEV: the classifier knows that dialect. The
	 * root through the handle the engine opened: never resolved again. */
	if (rc == 0 && writable) {
		rc = landlock_allow_fd(rs, spec->root_fd, all);
		if (rc < 0)
			snprintf(failed, sizeof(failed), "%s", spec->root);
		else if (ll_seen_path(seen, spec->tmp_dir),
			 (rc = landlock_allow_path(rs, spec->tmp_dir, all)) < 0)
			snprintf(failed, sizeof(failed), "%s", spec->tmp_dir);
		/* The workspace's tool cache (inside sbx's hidden state). */
		else if (spec->view && spec->view->cache_fd >= 0 &&
			 (rc = landlock_allow_fd(rs, spec->view->cache_fd, all)) < 0)
			snprintf(failed, sizeof(failed), "%s", spec->view->cache_dir);
	}
	if (rc < 0) {
		snprintf(reason, reason_size, "landlock_add_rule %s: %s", failed, strerror(-rc));
		close(rs);
		return rc;
	}
	return rs;
}

/* The run's pty pool (kernel/pty_pool.h): a few new ptys made now, before
 * the domain exists, and a rule for exactly each one's slave, so that the
 * command can open it by the name ptsname gives once the supervisor has
 * swapped it in for a pty the command made (engine/supervisor_ptypool.c).
 * Never a rule on /dev/pts: it would grant the caller's terminal
 * (/dev/pts/M, the same uid) and every other pty made before or after.
 * A rule names the slave's inode, so it grants that pty alone and ends with
 * it. What a pool pty grants is what the command has from a pty it makes
 * itself (its slave through TIOCGPTPEER): the other end of its own pty.
 * Until it is handed out its master is sbx's alone and the pty locked, so
 * its slave cannot be opened (EIO) even though the rule names it. Read and
 * write are what open(O_RDWR) needs (O_TRUNC is ignored on a terminal); the
 * device ioctls (ABI 5) are what a terminal is for (termios, TIOCSCTTY);
 * TIOCSTI stays refused by the seccomp rules. Only where the supervisor can
 * hand one over (the landlock runner's notify filter); a pool that cannot be
 * made or granted is no pool: the run goes on as before. */
static void grant_pool(struct child_spec *spec, int rs)
{
	uint64_t rights = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			  (landlock_fs_rights(spec->landlock_abi) & LANDLOCK_ACCESS_FS_IOCTL_DEV);
	struct pty_pool *pool;

	if (!spec->notify_metadata)
		return;
	pool = pty_pool_new(PTY_POOL_SIZE);
	for (size_t i = 0; i < pty_pool_size(pool); i++) {
		if (landlock_allow_fd(rs, pty_pool_slave(pool, i), rights) < 0) {
			/* Its ptys end here, and with them the rules. */
			pty_pool_close(pool);
			pty_pool_unref(pool);
			pool = NULL;
			break;
		}
		spec->landlock_lend.pool_rules++;
	}
	spec->pty_pool = pool;
}

void runner_landlock_run_over(struct child_spec *spec)
{
	/* First the pool's ptys end (sbx holds the masters of those not
	 * handed out), then the ruleset naming them may serve another run. */
	bool handed_out = pty_pool_close(spec->pty_pool);

	pty_pool_unref(spec->pty_pool);
	spec->pty_pool = NULL;
	ll_cache_return(&spec->landlock_lend, !handed_out);
}

static int runner_landlock_prepare(struct child_spec *spec, char *reason, size_t reason_size)
{
	int rs, rc = runner_prepare_filter(spec, SECCOMP_RULES_LANDLOCK, reason, reason_size);

	if (rc < 0)
		return rc;
	/* What an earlier attempt of this run left (a transient failure). */
	runner_landlock_run_over(spec);
	/* The same policy on an unchanged tree: the ruleset built before. */
	rs = ll_cache_lend(spec, &spec->landlock_lend);
	if (rs < 0) {
		struct landlock_walk_log log = { .n = 0 };
		struct ll_seen seen = { .n = 0 };

		rs = build_ruleset(spec, reason, reason_size, &log, &seen);
		if (rs < 0) {
			landlock_walk_log_free(&log);
			ll_seen_free(&seen);
			return rs;
		}
		ll_cache_put(spec, rs, &log, &seen, &spec->landlock_lend);
	}
	grant_pool(spec, rs);
	spec->landlock_ruleset_fd = rs;
	return 0;
}

static void runner_landlock_release(struct child_spec *spec)
{
	if (spec->landlock_ruleset_fd >= 0)
		close(spec->landlock_ruleset_fd);
	spec->landlock_ruleset_fd = -1;
	/* Without a pool the ruleset was needed only until the child entered
	 * its domain (the spawn is over): another run may have it now. */
	if (!spec->pty_pool)
		ll_cache_return(&spec->landlock_lend, true);
}

/* ---- child: no allocation, no stdio ---- */

static int runner_landlock_enter(const struct child_spec *spec, struct child_status *st)
{
	if (spec->landlock_ruleset_fd < 0)
		return child_status_set(st, STAGE_LANDLOCK, EBADF, "landlock runner: no ruleset",
					NULL);
#ifdef CONFIG_NETNS
	if (spec->net == SBX_NET_NONE) {
		if (spec->uid != 0 && userns_write_identity_maps(spec->uid, spec->gid, st) < 0)
			return -1;
		/* Its cookie: how the supervisor knows a socket of this
		 * namespace where it may not ask the socket (supervisor_abstract.c;
		 * shared memory: we are the parent's vfork child). */
		if (netns_loopback_up(st, spec->netns_cookie) < 0)
			return -1;
	}
#endif
	if (deadman_start(spec, st) < 0 || landlock_restrict(spec->landlock_ruleset_fd, st) < 0)
		return -1;

	/* A root launcher's child would otherwise keep every capability under
	 * the ruleset: CAP_SYS_ADMIN to mount over the workspace, CAP_DAC_*,
	 * raw devices. Landlock restricts paths, not privilege. A root caller
	 * keeps its few file capabilities (caps.c): in the init namespace,
	 * so Landlock and the filters decide what they reach. */
	return caps_keep_only(spec->caps_keep, st);
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
	.prepare = runner_landlock_prepare,
	.release = runner_landlock_release,
	.enter = runner_landlock_enter,
	.dialects = DIALECT_EACCES | DIALECT_EXDEV,
	.enforcement = runner_landlock_enforcement,
};
