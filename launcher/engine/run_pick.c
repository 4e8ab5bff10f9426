/* SPDX-License-Identifier: MIT */
/* Choose the runner for a confined mode and start the child under it. Fail
 * closed: if no allowed runner can enforce the mode, the command never starts
 * and the error names every runner tried and why it is unusable. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock.h"
#include "probe.h"
#include "run.h"
#include "run_supervise.h"
#include "statedir.h"
#include "view_prepare.h"

/* Per process, only the probe's verdict is remembered: it reads facts about
 * the machine (a sysctl, the Landlock ABI) that no confined command can
 * change. What a spawn runs into is never remembered: a command can exhaust
 * processes, memory or the namespace quota for a moment, and one such moment
 * must not weaken or disable every later run of a long-lived serve. */
static char unusable_reason[SBX_RUNNER_NONE + 1][320];
static bool probed_ok[SBX_RUNNER_NONE + 1];

static int landlock_abi_for(const struct sbx_run *cfg)
{
	static int kernel_abi = -1;
	char reason[128];
	int abi;

	if (kernel_abi < 0) {
		int rc = landlock_abi_probe(reason, sizeof(reason));

		kernel_abi = rc > 0 ? rc : 0;
	}
	abi = kernel_abi;
	if (abi > SBX_LANDLOCK_ABI_KNOWN)
		abi = SBX_LANDLOCK_ABI_KNOWN;
	if (cfg->landlock_abi > 0 && cfg->landlock_abi < abi)
		abi = cfg->landlock_abi;
	return abi;
}

static void append_reason(char *buf, size_t size, const char *name, const char *reason)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s: %s", len ? "; " : "", name, reason);
}

/* Why a runner is out for this run. The namespace runner's cause and fix
 * are read from the host only when the run is refused: finding a chroot's
 * witness walks /proc, too much for every run that `auto` moves on from. */
struct runner_out {
	bool out;
	char reason[320];
	bool probe_refused;      /* reason is its probe's */
	bool seen;               /* its spawn failed at entry, as userns tells */
	struct userns_seen userns;
};

/* What an entry failure of the namespace runner says about user
 * namespaces, if anything: a refused clone, or a refusal inside them. */
static bool userns_seen_of(const struct spawn_outcome *o, struct userns_seen *s)
{
	memset(s, 0, sizeof(*s));
	if (o->clone_failed && (o->clone_errno == EPERM || o->clone_errno == EACCES)) {
		s->create_err = o->clone_errno;
		return true;
	}
	if (!o->clone_failed && (o->status.err == EPERM || o->status.err == EACCES) &&
	    (o->status.stage == STAGE_USERNS || o->status.stage == STAGE_MOUNT_PRIVATE)) {
		s->inside_err = o->status.err;
		snprintf(s->inside_what, sizeof(s->inside_what), "%s", o->status.what);
		return true;
	}
	return false;
}

static void runner_reason(enum sbx_runner id, const struct runner_out *r, char *buf, size_t size)
{
	/* The clone asked for several namespaces at once (--net none adds a
	 * network namespace): blame user namespaces only if one alone is
	 * refused too. */
	if (id == SBX_RUNNER_NAMESPACE && r->seen && r->userns.create_err) {
		struct userns_seen alone;

		probe_userns_try(&alone);
		if (alone.create_err == 0) {
			snprintf(buf, size, "%.*s (a user namespace alone is made: another namespace "
				 "this run needs is refused)", (int)sizeof(r->reason), r->reason);
			return;
		}
	}
	if (id == SBX_RUNNER_NAMESPACE && (r->probe_refused || r->seen))
		probe_namespace_refusal(r->reason, r->seen ? &r->userns : NULL, buf, size);
	else
		snprintf(buf, size, "%.*s", (int)sizeof(r->reason), r->reason);
}

/* Entering the namespaces at all failed (the clone, or the first steps in
 * the new namespaces). */
static bool failed_at_entry(const struct spawn_outcome *o)
{
	if (o->clone_failed)
		return true;
	return o->status.stage == STAGE_USERNS || o->status.stage == STAGE_MOUNT_PRIVATE;
}

static bool sysctl_is_zero(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strtol(buf, NULL, 10) == 0 && buf[0] == '0';
}

/* Why a failure to start is transient or a fact. Transient: what a command
 * (this caller's own, or a confined one) can cause for a moment: EAGAIN
 * (RLIMIT_NPROC, the pids cgroup, a fork bomb), ENOMEM, EMFILE/ENFILE, and
 * ENOSPC from a namespace count that is used up. A fact: the kernel refuses
 * the mechanism itself (EPERM from a sysctl, a seccomp profile or AppArmor;
 * ENOSYS, EINVAL, EOPNOTSUPP), or a namespace limit that is 0: no command
 * can change those. Anything unknown counts as transient: the run fails, and
 * nothing weaker is chosen for it. */
bool run_failure_is_transient(int err)
{
	/* Only the shortages a busy machine (or a command that exhausted them
	 * a moment ago) gives: anything else (ENOENT, ESTALE, EPERM, ...) is
	 * a fact about this run or this machine, and saying "short of
	 * processes" for it would send the caller the wrong way. */
	switch (err) {
	case EAGAIN:
	case ENOMEM:
	case EMFILE:
	case ENFILE:
	case ENOBUFS:
	case EINTR:
		return true;
	case ENOSPC:
		return !(sysctl_is_zero("/proc/sys/user/max_user_namespaces") ||
			 sysctl_is_zero("/proc/sys/user/max_mnt_namespaces") ||
			 sysctl_is_zero("/proc/sys/user/max_ipc_namespaces") ||
			 sysctl_is_zero("/proc/sys/user/max_net_namespaces"));
	default:
		return false;
	}
}

static int outcome_errno(const struct spawn_outcome *o)
{
	return o->clone_failed ? o->clone_errno : o->status.err;
}

/* At any stage before exec: a shortage in the runner's setup (a helper's
 * fork, a mount's memory) is no more a fact about the runner than one at
 * clone time. */
static bool failed_transiently(const struct spawn_outcome *o)
{
	if (!o->clone_failed && !(o->failed && o->status.stage != STAGE_EXEC))
		return false;
	return run_failure_is_transient(outcome_errno(o));
}

static void describe_failure(const struct runner_ops *r, const struct spawn_outcome *o,
			     enum sbx_net net, char *buf, size_t size)
{
	if (o->clone_failed && r->id == SBX_RUNNER_LANDLOCK && net == SBX_NET_NONE) {
		snprintf(buf, size, "--net none needs a network namespace, which needs a user "
			 "namespace here: clone: %s", strerror(o->clone_errno));
		return;
	}
	if (o->clone_failed) {
		/* EPERM and EACCES get their cause from the host if the run
		 * is refused (runner_reason). */
		const char *why = o->clone_errno == ENOSPC ? " (user.max_user_namespaces is 0 or used up)"
							   : "";
		snprintf(buf, size, "cannot create namespaces: clone: %s%s",
			 strerror(o->clone_errno), why);
		return;
	}
	snprintf(buf, size, "%s: %s: %s", child_stage_name(o->status.stage), o->status.what,
		 strerror(o->status.err));
}

/* The namespace runner shows the command a view of its own: a private /tmp
 * (workspace-write) and /dev cover what the host has there. A cwd hidden by
 * them is the caller's mistake, said before anything starts. */
static int check_cwd_visible(const struct run_state *r, const struct sbx_run *cfg,
			     struct sbx_error *err)
{
	if (path_is_within(r->cwd, "/dev") ||
	    (r->mode == SBX_MODE_WORKSPACE_WRITE && path_is_within(r->cwd, "/tmp") &&
	     !path_is_within(r->cwd, r->root)))
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, r->cwd,
				     "%s %s is not visible in the namespace sandbox (its private "
				     "/tmp and /dev cover it); use a directory inside the root",
				     run_cwd_name(cfg), r->cwd);
	return 0;
}

/* Whether home (resolved; a dangling link by its target) lies in the
 * host's /tmp or /dev/shm, outside root. */
static bool home_in_shared_tmp(const char *home, const char *root)
{
	char real[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	if (!home || home[0] != '/')
		return false;
	if (!realpath(home, real)) {
		n = readlink(home, link, sizeof(link) - 1);
		if (n <= 0 || link[0] != '/')
			snprintf(real, sizeof(real), "%s", home);
		else
			link[n] = '\0', snprintf(real, sizeof(real), "%s", link);
	}
	return (path_is_within(real, "/tmp") || path_is_within(real, "/dev/shm")) &&
	       !path_is_within(real, root);
}

/* Why: workspace-write grants the host's /tmp and /dev/shm whole under
 * Landlock, so a home there (however its path is spelt: a symlink into
 * /tmp passed every check on the path) would be the command's to write: a
 * start-up file or a git config it plants runs in the user's next shell
 * (adversarial pass 5, finding 01). The namespace runner brings such a home
 * in read-only; the landlock runner is not used for it. */
static bool home_in_tmp(const struct run_state *r, bool namespace_unusable, char *reason,
			size_t size)
{
	const char *homes[] = { getenv("HOME"), view_passwd_home() };
	/* The same for where the environment moves the start-up files and
	 * git's user config (adversarial pass 7, finding 12: a
	 * core.fsmonitor in $GIT_CONFIG_GLOBAL in /tmp ran in the user's
	 * next git status). */
	static const char *const moved[] = { "XDG_CONFIG_HOME", "XDG_DATA_HOME", "ZDOTDIR",
					     "GIT_CONFIG_GLOBAL" };

	if (r->mode != SBX_MODE_WORKSPACE_WRITE)
		return false;
	for (size_t i = 0; i < 2; i++)
		if (home_in_shared_tmp(homes[i], r->root)) {
			snprintf(reason, size, "the home %.80s lies in the host's /tmp or /dev/shm, "
				 "which workspace-write grants whole under Landlock: its start-up "
				 "files would be the command's to change: use %sa HOME outside /tmp",
				 homes[i], namespace_unusable ? "" : "the namespace runner or ");
			return true;
		}
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		const char *v = getenv(moved[i]);

		if (home_in_shared_tmp(v, r->root)) {
			snprintf(reason, size, "$%s (%.80s) lies in the host's /tmp or /dev/shm, "
				 "which workspace-write grants whole under Landlock: what the user's "
				 "shells and git read there would be the command's to change: use "
				 "%sa %s outside /tmp",
				 moved[i], v, namespace_unusable ? "" : "the namespace runner or ",
				 moved[i]);
			return true;
		}
	}
	return false;
}

/* Why: the namespace runner covers a hidden path with a mount on its place,
 * and one that holds the root (a deny_read entry above it, a store that is
 * a symlink to the home) would cover the root too: the run failed to enter
 * it, saying only that it was missing. The landlock runner grants the root
 * inside it and keeps the rest out. */
static bool pinned(const struct run_state *r, const char *path)
{
	for (size_t i = 0; i < r->view.pinned.n; i++)
		if (strcmp(r->view.pinned.path[i], path) == 0)
			return true;
	return false;
}

static bool hidden_holds_root(const struct run_state *r, char *reason, size_t size)
{
	/* sbx's state is the exception: the runner keeps the way from it to
	 * a root inside it in place (ns_hide.c). */
	for (size_t i = 0; i < r->view.hide.n; i++)
		if (path_is_within(r->root, r->view.hide.path[i]) && !pinned(r, r->view.hide.path[i])) {
			snprintf(reason, size, "the hidden path %.80s holds the root: its cover "
				 "would hide the root too (a deny_read entry above the root, or a "
				 "credential store that is a symlink to it): use the landlock runner, "
				 "or fix the entry or the link", r->view.hide.path[i]);
			return true;
		}
	return false;
}

/* Why: the landlock runner grants workspace-write the root as a whole (a
 * rule cannot leave a subtree out), so a hidden path that exists inside the
 * root (root = $HOME holds ~/.ssh; a deny_read entry in the workspace) would
 * be readable and writable there. The namespace runner covers it; the
 * landlock runner is not used for such a run. */
static bool hidden_inside_root(const struct run_state *r, bool namespace_unusable, char *reason,
			       size_t size)
{
	struct stat st;

	if (r->mode != SBX_MODE_WORKSPACE_WRITE)
		return false;
	/* why: a tool cache in the host's /tmp or /dev/shm lies beside the
	 * other roots' caches there (cache_dir = /tmp/c: c/NAME-HASH each),
	 * which workspace-write grants whole under Landlock: a run rewrote
	 * another root's cache (adversarial pass 6, finding 03c). */
	if (r->view.cache_dir &&
	    (path_is_within(r->view.cache_dir, "/tmp") || path_is_within(r->view.cache_dir, "/dev/shm")) &&
	    !path_is_within(r->view.cache_dir, r->root)) {
		snprintf(reason, size, "the tool cache %.80s lies in the host's /tmp or /dev/shm, "
			 "beside other roots' caches, which workspace-write grants whole under "
			 "Landlock: use %sa cache_dir outside /tmp and /dev/shm",
			 r->view.cache_dir, namespace_unusable ? "" : "the namespace runner or ");
		return true;
	}
	/* The same for one under /tmp, which workspace-write grants whole. */
	if (r->hidden_in_tmp) {
		/* sbx's state is hidden whatever deny_read says: the way out
		 * is a HOME and XDG_CACHE_HOME outside /tmp. */
		bool state = statedir_is_candidate(r->hidden_in_tmp);

		snprintf(reason, size, "cannot hide %.80s%s inside /tmp or /dev/shm (workspace-write "
			 "grants the host's whole under Landlock): use %s%s",
			 r->hidden_in_tmp, state ? " (sbx's state)" : "",
			 namespace_unusable ? "" : "the namespace runner or ",
			 state ? "a HOME and XDG_CACHE_HOME outside /tmp and /dev/shm"
			       : "a deny_read without it");
		return true;
	}
	for (size_t i = 0; i < r->view.hide.n; i++) {
		const char *h = r->view.hide.path[i];

		if (path_is_within(h, r->root) && lstat(h, &st) == 0) {
			/* sbx's state is hidden whatever deny_read says. */
			bool state = statedir_is_candidate(h);

			/* Only the ways out that exist here. */
			snprintf(reason, size, "cannot hide %.80s%s inside the root %.80s (Landlock "
				 "grants the root whole): use %s%s%s",
				 h, state ? " (sbx's state)" : "", r->root,
				 namespace_unusable ? ""
				 : state	    ? "the namespace runner or "
						    : "the namespace runner, ",
				 "another root", state ? "" : " or a deny_read without it");
			return true;
		}
	}
	return false;
}

/* 0 (o says how the spawn went), -errno (spawn_child failed), or 1: the
 * runner's prepare failed, with the reason in prep_reason. */
static int spawn_with(struct run_state *r, const struct runner_ops *runner,
		      struct spawn_outcome *o, char *prep_reason, size_t prep_size)
{
	int flags, rc;

	r->spec.runner = runner;
	/* A PID namespace's init holds the run; without one, a keeper does,
	 * unless the process opted in to holding it itself (process.c). */
	r->spec.keeper = !runner->pid_namespace && !process_is_subreaper();
	flags = runner->clone_flags(&r->spec);
	run_limits_for_clone(&r->limits, &r->spec, flags);
	prep_reason[0] = '\0';
	rc = runner->prepare(&r->spec, prep_reason, prep_size) < 0 ? 1
	     : run_supervise_spawn(r, flags, o);
	runner->release(&r->spec);
	return rc;
}

static int exec_failure(const struct spawn_outcome *o, struct sbx_error *err)
{
	char detail[320];

	snprintf(detail, sizeof(detail), "%s: %s", o->status.what, strerror(o->status.err));
	return sbx_error_set(err, o->status.err, SBX_E_SPAWN, detail, "unable to start bash: %s",
			     detail);
}

/* A transient shortage: this run fails, nothing is remembered, nothing
 * weaker is tried. Not SANDBOX_UNAVAILABLE: the sandbox is available, the
 * machine was short of something for a moment. */
static int transient_failure(const struct runner_ops *runner, const struct spawn_outcome *o,
			     struct sbx_error *err)
{
	char detail[320];
	int e = outcome_errno(o);

	if (o->clone_failed)
		snprintf(detail, sizeof(detail), "%s runner: clone: %s", runner->name, strerror(e));
	else
		snprintf(detail, sizeof(detail), "%s runner: %s: %s: %s", runner->name,
			 child_stage_name(o->status.stage), o->status.what, strerror(e));
	return sbx_error_set(err, e, SBX_E_SPAWN, detail,
			     "unable to start the run for now (%s): the machine is short of "
			     "processes, memory or namespaces; the runner is unchanged, retry later",
			     detail);
}

/* danger-full-access asks no runner. An escalation replaces the mode and
 * nothing else, so a --net none policy still holds: a network namespace of
 * its own (owned by a user namespace unless we are root), or no run. */
static int spawn_unconfined(struct run_state *r, struct sbx_error *err)
{
	struct spawn_outcome o;
	int flags = 0;
	int rc;

	if (r->spec.net == SBX_NET_NONE) {
#ifndef CONFIG_NETNS
		return sbx_error_set(err, ENOSYS, SBX_E_SANDBOX_UNAVAILABLE, NULL,
				     "--net none: this build has no network isolation (CONFIG_NETNS=n)");
#endif
		flags = CLONE_NEWNET | (r->spec.uid != 0 ? CLONE_NEWUSER : 0);
	}
	r->spec.keeper = !process_is_subreaper();
	run_limits_for_clone(&r->limits, &r->spec, flags);
	rc = spawn_child(&r->spec, flags, &o);
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_SPAWN, NULL, "unable to spawn: %s", strerror(-rc));
	if (o.clone_failed && flags)
		return sbx_error_set(err, o.clone_errno, SBX_E_SANDBOX_UNAVAILABLE, NULL,
				     "--net none needs a network namespace: clone: %s",
				     strerror(o.clone_errno));
	if (o.clone_failed)
		return sbx_error_set(err, o.clone_errno, SBX_E_SPAWN, NULL,
				     "unable to spawn: clone: %s", strerror(o.clone_errno));
	if (o.failed && o.status.stage == STAGE_EXEC)
		return exec_failure(&o, err);
	if (o.failed) {
		char detail[320];

		snprintf(detail, sizeof(detail), "%s: %s: %s", child_stage_name(o.status.stage),
			 o.status.what, strerror(o.status.err));
		return sbx_error_set(err, o.status.err, SBX_E_SANDBOX_UNAVAILABLE, detail,
				     "%s setup failed: %s",
				     o.status.stage == STAGE_SECCOMP || o.status.stage == STAGE_NO_NEW_PRIVS
					     ? "--syscalls-as-of" : "--net none",
				     detail);
	}
	r->pid = o.pid;
	r->pidfd = o.pidfd;
	r->exit_fd = o.exit_fd;
	return 0;
}

int run_pick_and_spawn(struct run_state *r, const struct sbx_run *cfg, struct sbx_error *err)
{
	const struct runner_ops *pinned[2] = { NULL, NULL };
	const struct runner_ops *const *candidates = runner_table;
	char reasons[1024] = "";
	struct spawn_outcome o;
	int rc;
	/* The runners this run found unusable, so far, and why. */
	struct runner_out out[SBX_RUNNER_NONE + 1];

	if (r->mode == SBX_MODE_DANGER_FULL_ACCESS)
		return spawn_unconfined(r, err);

	if (cfg->runner != SBX_RUNNER_AUTO) {
		pinned[0] = runner_by_id(cfg->runner);
		if (!pinned[0])
			return sbx_error_set(err, ENOSYS, SBX_E_SANDBOX_UNAVAILABLE, NULL,
					     "the pinned runner cannot enforce %s mode: %s: not in "
					     "this build", sbx_mode_name(r->mode),
					     sbx_runner_name(cfg->runner));
		candidates = pinned;
	}
#ifndef CONFIG_NETNS
	if (cfg->net == SBX_NET_NONE)
		return sbx_error_set(err, ENOSYS, SBX_E_SANDBOX_UNAVAILABLE, NULL,
				     "--net none: this build has no network isolation (CONFIG_NETNS=n)");
#endif
	r->spec.landlock_abi = landlock_abi_for(cfg);
	memset(out, 0, sizeof(out));

	for (size_t i = 0; candidates[i]; i++) {
		const struct runner_ops *runner = candidates[i];
		struct runner_out *why = &out[runner->id];
		char reason[320];

		if (unusable_reason[runner->id][0]) {
			why->out = why->probe_refused = true;
			snprintf(why->reason, sizeof(why->reason), "%s", unusable_reason[runner->id]);
			continue;
		}
		/* A probe that passed once is not repeated (serve runs many
		 * commands): if the machine changes under us, the clone or the
		 * setup fails instead, and that is caught below just the same. */
		if (!probed_ok[runner->id] && runner->probe(reason, sizeof(reason)) < 0) {
			snprintf(unusable_reason[runner->id], sizeof(unusable_reason[0]), "%s", reason);
			why->out = why->probe_refused = true;
			snprintf(why->reason, sizeof(why->reason), "%s", reason);
			continue;
		}
		probed_ok[runner->id] = true;
		if (runner->id == SBX_RUNNER_NAMESPACE && check_cwd_visible(r, cfg, err) < 0)
			return -EINVAL;
		if (runner->id == SBX_RUNNER_NAMESPACE &&
		    hidden_holds_root(r, reason, sizeof(reason))) {
			why->out = true;
			snprintf(why->reason, sizeof(why->reason), "%s", reason);
			continue;
		}
		/* A fact about this run, not the machine: never remembered. */
		if (runner->id == SBX_RUNNER_LANDLOCK &&
		    (hidden_inside_root(r, out[SBX_RUNNER_NAMESPACE].out, reason, sizeof(reason)) ||
		     home_in_tmp(r, out[SBX_RUNNER_NAMESPACE].out, reason, sizeof(reason)))) {
			why->out = true;
			snprintf(why->reason, sizeof(why->reason), "%s", reason);
			continue;
		}
		rc = spawn_with(r, runner, &o, reason, sizeof(reason));
		/* A transient shortage is tried once more, with the same runner:
		 * never a reason to pick a weaker one. */
		if (rc == 0 && failed_transiently(&o))
			rc = spawn_with(r, runner, &o, reason, sizeof(reason));
		if (rc == 0 && failed_transiently(&o))
			return transient_failure(runner, &o, err);
		if (rc < 0)
			return sbx_error_set(err, -rc, SBX_E_SPAWN, NULL, "unable to spawn: %s",
					     strerror(-rc));
		/* Nothing started: a failure of this run, never remembered. */
		if (rc == 1) {
			char detail[400];

			snprintf(detail, sizeof(detail), "%s: %s", runner->name, reason);
			return sbx_error_set(err, EPERM, SBX_E_SANDBOX_UNAVAILABLE, detail,
					     "the %s runner failed while preparing %s mode: %s",
					     runner->name, sbx_mode_name(r->mode), reason);
		}
		if (!o.clone_failed && !o.failed) {
			r->runner = runner;
			r->pid = o.pid;
			r->pidfd = o.pidfd;
			r->exit_fd = o.exit_fd;
			r->view.private_proc = o.private_proc;
			return 0;
		}
		if (o.failed && o.status.stage == STAGE_EXEC)
			return exec_failure(&o, err);
		describe_failure(runner, &o, r->spec.net, reason, sizeof(reason));
		if (!failed_at_entry(&o)) {
			char detail[400];

			/* Past the point of entry: a runner failure, never a
			 * command failure, and no fallback to a weaker runner. */
			snprintf(detail, sizeof(detail), "%s: %s", runner->name, reason);
			return sbx_error_set(err, EPERM, SBX_E_SANDBOX_UNAVAILABLE, detail,
					     "the %s runner failed while setting up %s mode: %s",
					     runner->name, sbx_mode_name(r->mode), reason);
		}
		/* A fact about the machine: `auto` moves on for this run. Not
		 * remembered all the same (see unusable_reason): the next run
		 * asks the kernel again. */
		why->out = true;
		snprintf(why->reason, sizeof(why->reason), "%s", reason);
		why->seen = runner->id == SBX_RUNNER_NAMESPACE && userns_seen_of(&o, &why->userns);
	}
	for (size_t i = 0; candidates[i]; i++) {
		char reason[600];

		if (!out[candidates[i]->id].out)
			continue;
		runner_reason(candidates[i]->id, &out[candidates[i]->id], reason, sizeof(reason));
		append_reason(reasons, sizeof(reasons), candidates[i]->name, reason);
	}
	/* Only what was tried is named: a pinned runner's refusal says
	 * nothing of the runners `auto` would have tried. */
	return sbx_error_set(err, EPERM, SBX_E_SANDBOX_UNAVAILABLE, reasons, "%s %s mode here: %s",
			     cfg->runner != SBX_RUNNER_AUTO ? "the pinned runner cannot enforce"
							   : "no runner can enforce",
			     sbx_mode_name(r->mode), reasons[0] ? reasons : "no runner built in");
}
