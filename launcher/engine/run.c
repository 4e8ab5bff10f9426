/* SPDX-License-Identifier: MIT */
/* One live run from spawn to result: collect both streams and the exit on a
 * loop, keep the timers (timeout, grace, drain), end the whole tree. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "locale_dialect.h"
#include "policy.h"
#include "run.h"
#include "caps.h"
#include "run_supervise.h"
#include "statedir.h"
#include "syscall_filter.h"
#include "syscalls_as_of.h"
#include "view_prepare.h"

extern char **environ;

/* Bash pids of the runs alive in this process: their trees are theirs, and
 * never taken for a finished run's leftovers. */
#define LIVE_MAX 1024
static pid_t live_pids[LIVE_MAX];
static size_t n_live;
/* serve's spawner thread adds, its loop removes. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(pid_t pid)
{
	pthread_mutex_lock(&live_lock);
	if (n_live < LIVE_MAX)
		live_pids[n_live++] = pid;
	pthread_mutex_unlock(&live_lock);
}

static void live_remove(pid_t pid)
{
	pthread_mutex_lock(&live_lock);
	for (size_t i = 0; i < n_live; i++)
		if (live_pids[i] == pid) {
			live_pids[i] = live_pids[--n_live];
			break;
		}
	pthread_mutex_unlock(&live_lock);
}

/* Also the helpers being reaped (reap.c): they are accounted for, and no
 * other run's walk may wait for them. */
size_t run_live_pids(pid_t *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&live_lock);
	n = n_live < max ? n_live : max;
	memcpy(out, live_pids, n * sizeof(*out));
	pthread_mutex_unlock(&live_lock);
	return n + reap_pending_pids(out + n, max - n);
}

uint64_t run_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
/* A directory the caller cannot enter is the caller's to fix, not a
 * sandbox failure: said before any runner is asked (it was reported as
 * SANDBOX_UNAVAILABLE from the child's chdir). name: what the caller gave
 * it as; the root (no cwd given) is sbx run's current directory by default. */
static int cwd_enterable(const char *cwd, const char *name, struct sbx_error *err)
{
	if (access(cwd, X_OK) < 0)
		return sbx_error_set(err, errno, SBX_E_USAGE, cwd, "%s %s: %s: %s", name, cwd,
				     strerror(errno),
				     strcmp(name, "root") == 0
					     ? "run from a directory you can enter, or pass "
					       "--root/--cwd"
					     : "give a directory you can enter");
	return 0;
}


/* The root is resolved once, here, into a handle (root_pin.c): symlinks in
 * it cannot be swapped later to point the writable bind somewhere else. A
 * root pinned by a session is not resolved again: its path must still name
 * the pinned directory, and the run confines the session's own handle. */
static int resolve_paths(struct run_state *r, const struct sbx_run *cfg, struct sbx_error *err)
{
	char want[PATH_MAX];
	struct stat st;
	int rc;

	if (cfg->root_fd >= 0) {
		snprintf(r->root, sizeof(r->root), "%s", cfg->root);
		rc = root_verify(r->root, cfg->root_fd, err);
		if (rc < 0)
			return rc;
		r->root_fd = fcntl(cfg->root_fd, F_DUPFD_CLOEXEC, 3);
		if (r->root_fd < 0)
			return sbx_error_set(err, errno, SBX_E_INTERNAL, NULL, "dup: %s",
					     strerror(errno));
	} else {
		if (!cfg->root) {
			if (!getcwd(want, sizeof(want)))
				return sbx_error_set(err, errno, SBX_E_USAGE, NULL,
						     "unable to read the current directory: %s",
						     strerror(errno));
		} else {
			snprintf(want, sizeof(want), "%s", cfg->root);
		}
		rc = root_pin(want, r->root, &r->root_fd, err);
		if (rc < 0)
			return rc;
	}
	if (r->mode == SBX_MODE_WORKSPACE_WRITE && strcmp(r->root, "/") == 0)
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL,
				     "refusing root / with workspace-write: that is every file; "
				     "give --root the project's directory, or use --mode "
				     "danger-full-access if that is what you mean");

	if (!cfg->cwd) {
		snprintf(r->cwd, sizeof(r->cwd), "%s", r->root);
		return cwd_enterable(r->cwd, run_cwd_name(cfg), err);
	}
	/* A relative --cwd is taken from the root. */
	if (cfg->cwd[0] == '/')
		snprintf(want, sizeof(want), "%s", cfg->cwd);
	else if (snprintf(want, sizeof(want), "%s/%s", strcmp(r->root, "/") ? r->root : "",
			  cfg->cwd) >= (int)sizeof(want))
		return sbx_error_set(err, ENAMETOOLONG, SBX_E_USAGE, NULL, "%s too long",
				     run_cwd_name(cfg));
	if (!realpath(want, r->cwd))
		return sbx_error_set(err, errno, SBX_E_USAGE, want, "%s %s: %s", run_cwd_name(cfg),
				     want, strerror(errno));
	if (stat(r->cwd, &st) < 0 || !S_ISDIR(st.st_mode))
		return sbx_error_set(err, ENOTDIR, SBX_E_USAGE, r->cwd, "%s %s: not a directory",
				     run_cwd_name(cfg), r->cwd);
	return cwd_enterable(r->cwd, run_cwd_name(cfg), err);
}

void run_evidence_ready(struct run_state *r)
{
	struct dialect_texts local;

	if (!r->ev_pending)
		return;
	r->ev_pending = false;
	locale_texts_for_env(r->envp, &local, r->missing);
	evidence_init(&r->ev, r->runner->dialects, &local);
	/* the command's own words for the errors its output names a noted
	 * refusal with (run_named.c) */
	r->named_local = (struct supervise_local){ { r->ev.local.text[0], r->ev.local.text[1],
						     r->missing[0], r->missing[1] } };
}

static void on_stream(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct run_state *r = w->ctx;
	bool is_err = (w == &r->w_err);
	struct stream *s = is_err ? &r->err : &r->out;

	if (n > 0) {
		/* After the tree is gone, what is left in the pipes is at most
		 * their size: keep reading while it flows, however long the loop
		 * was busy elsewhere (a slow reader of ours), so nothing is lost.
		 * More than that can only come from a writer outside the tree,
		 * which must not keep the run open: stop. */
		if (r->orphans_killed) {
			r->drain_budget = r->drain_budget > (uint64_t)n ? r->drain_budget - (uint64_t)n : 0;
			r->drain_until = run_now_ms() + (r->drain_budget ? RUN_DRAIN_MS : 0);
		}
		stream_feed(s, buf, (size_t)n);
		run_evidence_ready(r);
		/* Evidence is gathered while both streams flow (test runners
		 * report on stdout), so a denial followed by much other output
		 * still counts. */
		evidence_feed(&r->ev, is_err ? EVIDENCE_STDERR : EVIDENCE_STDOUT, buf, (size_t)n);
		run_named_feed(r, is_err, buf, (size_t)n);
		return;
	}
	if (is_err)
		r->err_eof = true;
	else
		r->out_eof = true;
}

/* A spliced passthrough (stream_splice.c): the pipe is readable. At most a
 * few chunks per wake-up, so the other stream and the exit are not kept
 * waiting. */
static void on_stream_ready(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct run_state *r = w->ctx;
	bool is_err = (w == &r->w_err);
	struct stream *s = is_err ? &r->err : &r->out;
	int fd = is_err ? r->fd_err : r->fd_out;

	(void)buf;
	(void)n;
	for (int i = 0; i < 16; i++) {
		ssize_t m = stream_pump(s, fd, w->buf, w->buf_size);

		if (m == -EAGAIN || m == -EINTR)
			return;
		if (m > 0) {
			if (r->orphans_killed) {
				r->drain_budget = r->drain_budget > (uint64_t)m
							  ? r->drain_budget - (uint64_t)m : 0;
				r->drain_until = run_now_ms() + (r->drain_budget ? RUN_DRAIN_MS : 0);
			}
			continue;
		}
		/* the end, or an error: as end of file */
		stream_splice_finish(s);
		loop_remove(r->loop, w);
		if (is_err)
			r->err_eof = true;
		else
			r->out_eof = true;
		return;
	}
}

static void on_cancel(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct run_state *r = w->ctx;

	(void)buf;
	(void)n;
	loop_remove(r->loop, w);
	if (!r->bash_exited && !r->cancelled) {
		r->cancelled = true;
		run_stop_gently(r, run_now_ms());
	}
}

/* How bash ended: our child's wait status, or, in a PID namespace, what its
 * init reports (end of file without a report: init was killed, and the
 * kernel killed everything in the namespace with it). Init reports again
 * when no process is left in the namespace but itself (init_empty). Returns
 * whether bash has exited; *closed: no more reports will come. */
static bool collect_exit(struct run_state *r, bool *closed)
{
	struct init_exit rec;
	bool got = false;
	ssize_t n;

	if (r->exit_fd < 0) {
		*closed = waitpid(r->pid, &r->wstatus, WNOHANG | __WALL) != 0;
		return *closed;
	}
	*closed = false;
	for (;;) {
		do
			n = read(r->exit_fd, &rec, sizeof(rec));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(rec))
			break;
		if (!r->bash_exited && !got)
			r->wstatus = rec.wstatus;
		got = true;
		r->init_empty = rec.empty != 0;
	}
	if (n < 0 && errno == EAGAIN)
		return got;
	/* End of file (or a short record): init is gone. */
	if (!r->bash_exited && !got)
		r->wstatus = SIGKILL;
	r->init_empty = false;
	*closed = true;
	return true;
}

static void on_exit_ready(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct run_state *r = w->ctx;
	bool closed, exited = collect_exit(r, &closed);

	(void)buf;
	(void)n;
	if (closed)
		loop_remove(r->loop, w);
	if (!exited || r->bash_exited)
		return; /* not yet (the loop re-arms), or a later report of init's */
	r->bash_exited = true;
	r->exit_ms = run_now_ms();
	r->drain_until = r->exit_ms + RUN_DRAIN_MS;
	/* Until its end (end_tree), the run's helper is its own, never
	 * another run's leftover: init stays listed, and so does the dead-man
	 * helper (listed since the spawn), ours now that bash is gone. */
	if (r->exit_fd < 0)
		live_remove(r->pid);
}

static int prepare_spec(struct run_state *r, const struct sbx_run *cfg, int in_fd, int out_w,
			int err_w, struct sbx_error *err)
{
	bool confined = r->mode != SBX_MODE_DANGER_FULL_ACCESS;

	r->argv[0] = "bash";
	r->argv[1] = "-c";
	r->argv[2] = r->command;
	r->argv[3] = NULL;
	r->envp = env_build(environ, (const char *const *)cfg->patterns, cfg->n_patterns, confined);
	if (!r->envp || (r->view.cache_dir && env_add_cache_vars(&r->envp, r->view.cache_dir) < 0))
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	r->spec.mode = r->mode;
	r->spec.root = r->root;
	r->spec.root_fd = r->root_fd;
	r->spec.cwd = r->cwd;
	r->spec.tmp_dir = "/tmp";
	r->spec.net = cfg->net;
	r->spec.uid = getuid();
	r->spec.gid = getgid();
	r->spec.bash = bash_path();
	r->spec.argv = r->argv;
	r->spec.envp = r->envp;
	r->spec.stdin_fd = in_fd;
	r->spec.stdout_fd = out_w;
	r->spec.stderr_fd = err_w;
	r->spec.status_fd = -1;
	r->spec.deadman_fd = -1;
	r->spec.signals_to_reset = signals_not_default();
	r->spec.exit_fd = -1;
	r->spec.view = &r->view;
	if (confined) {
		/* For the namespace runner's remount walk (kernels without
		 * mount_setattr): room for /proc/self/mountinfo. Untouched pages
		 * cost nothing. */
		r->spec.scratch_size = RUN_SCRATCH_SIZE;
		r->spec.scratch = malloc(RUN_SCRATCH_SIZE);
		if (!r->spec.scratch)
			return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	}
	if (cfg->syscalls_as_of) {
		int rc = syscalls_as_of_build(cfg->syscalls_as_of, &r->as_of);

		if (rc < 0)
			return sbx_error_set(err, -rc, SBX_E_USAGE, NULL,
					     "unable to build the --syscalls-as-of filter: %s",
					     strerror(-rc));
		r->spec.syscalls_as_of = &r->as_of;
	}
	/* The runner's prepare fills these (its filter, its ruleset). */
	r->spec.seccomp = NULL;
	r->spec.landlock_ruleset_fd = -1;
	r->spec.full_map_fd = -1;
	r->spec.caps_keep = confined ? caps_for_caller(r->spec.uid) : 0;
	run_limits_prepare(&r->limits, cfg, &r->spec);
	if (confined)
		run_supervise_prepare(r);
	return 0;
}

static struct run_state *run_alloc(void)
{
	struct run_state *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->pid = -1;
	r->root_fd = -1;
	r->exit_fd = -1;
	r->reap_pidfd = -1;
	r->cancel_fd = -1;
	r->pidfd = r->fd_out = r->fd_err = -1;
	r->view.tmp_fd = r->view.cache_fd = -1;
	r->protect.dir_fd = r->protect.lock_fd = r->protect.runs_lock = -1;
	r->deadman_w = -1;
	r->notify_sock[0] = r->notify_sock[1] = -1;
	r->opener_sock[0] = r->opener_sock[1] = -1;
	r->spec.opener_fd = -1;
	r->out.spill_fd = r->err.spill_fd = -1;
	spill_place_init(&r->spill, 0);
	return r;
}

#define WRITABLE_PLACES_MAX (4 + 2 * STATEDIR_CANDIDATES)

/* What a workspace-write command may write, outside sbx's own view of it:
 * the root; /tmp and /dev/shm (the host's, under the landlock runner); the
 * tool caches and private /tmps, every root's own, which lie in sbx's state
 * (adversarial pass 6, finding 14: a --spill-dir in the cache let the
 * command swap a spill file for a link to a hidden key). Resolved, as the
 * places compared with them are. */
static size_t writable_places(const struct run_state *r, const struct sbx_run *cfg,
			      const char **writable, char (*kinds)[PATH_MAX + 8])
{
	size_t n = 0;

	writable[n++] = r->root;
	writable[n++] = "/tmp";
	writable[n++] = "/dev/shm";
	if (cfg->cache_dir && cfg->cache_dir[0] == '/')
		writable[n++] = cfg->cache_dir;
	for (unsigned i = 0; i < STATEDIR_CANDIDATES; i++) {
		char c[PATH_MAX], *real;

		if (statedir_candidate(i, c, sizeof(c)) < 0)
			continue;
		real = realpath(c, NULL);
		snprintf(kinds[2 * i], PATH_MAX + 8, "%s/cache", real ? real : c);
		snprintf(kinds[2 * i + 1], PATH_MAX + 8, "%s/tmp", real ? real : c);
		free(real);
		writable[n++] = kinds[2 * i];
		writable[n++] = kinds[2 * i + 1];
	}
	return n;
}

/* Why refused: sbx reads its config again at its next start, and a run
 * that could rewrite it would choose the next run's policy (mode,
 * deny_read = none, unix_sockets) for it (adversarial pass 7, finding 08). */
static int config_not_writable(const char *config, const char *const *writable, size_t n,
			       const struct protect_state *ps, struct sbx_error *err)
{
	/* The root by another name (adversarial pass 8, finding 3). */
	for (size_t i = 0; config && n && i < ps->n_root_alias; i++)
		if (path_is_within(config, ps->root_alias[i]))
			return sbx_error_set(err, EINVAL, SBX_E_USAGE,
					     "keep the config outside what a workspace-write run "
					     "writes, or run read-only",
					     "the config %s lies inside %s, the root by another name, "
					     "which this workspace-write run may write: its command "
					     "could rewrite the policy of every later run",
					     config, ps->root_alias[i]);
	struct stat st;

	/* why: a file with another name (a hard link: adversarial pass 9,
	 * finding 03) is the same file wherever that name lies, and a name
	 * in what the run writes cannot be ruled out from this one. */
	if (config && n && stat(config, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
		return sbx_error_set(err, EINVAL, SBX_E_USAGE,
				     "keep the config as a file of one name (cp it, not ln), or "
				     "run read-only",
				     "the config %s has %ju names (hard links): one could lie in "
				     "what this workspace-write run may write, and its command "
				     "rewrite the policy of every later run",
				     config, (uintmax_t)st.st_nlink);
	for (size_t i = 0; config && i < n; i++)
		if (path_is_within(config, writable[i]))
			return sbx_error_set(err, EINVAL, SBX_E_USAGE,
					     "keep the config outside what a workspace-write run "
					     "writes, or run read-only",
					     "the config %s lies inside %s, which this "
					     "workspace-write run may write: its command could "
					     "rewrite the policy of every later run",
					     config, writable[i]);
	return 0;
}

/* Why refused, not changed: the disposition is the embedding program's. An
 * ignored SIGCHLD (SIG_IGN, also inherited across execve, or SA_NOCLDWAIT)
 * makes the kernel reap our children itself: their exit statuses are lost,
 * and a command's failure, or a refused write, read as exit 0 (the
 * namespace runner's run waited out its timeout instead). */
static bool sigchld_ignored(void)
{
	struct sigaction sa;

	if (sigaction(SIGCHLD, NULL, &sa) < 0)
		return false;
	return sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT);
}

int run_spawn(const struct sbx_run *cfg, struct run_state **out, struct sbx_error *err)
{
	struct run_state *r;
	int p_out[2] = { -1, -1 }, p_err[2] = { -1, -1 }, in_fd = -1;
	int rc;
	bool spill = cfg->pass_out < 0;
	const char *writable[WRITABLE_PLACES_MAX];
	char kinds[2 * STATEDIR_CANDIDATES][PATH_MAX + 8];
	size_t n_writable = 0;

	if (!cfg->command)
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL, "no command given");
	if (sigchld_ignored())
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL,
				     "SIGCHLD is ignored in this process (SIG_IGN or SA_NOCLDWAIT): "
				     "the kernel would reap the command before sbx reads its exit "
				     "status; set SIGCHLD to SIG_DFL (or a handler without "
				     "SA_NOCLDWAIT) before running");
	r = run_alloc();
	if (!r)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	r->loop_persists = cfg->reap_in_loop;
	r->cancel_fd = cfg->cancel_fd;
	r->mode = cfg->mode;
	r->timeout_ms = cfg->timeout_ms;
	r->escalation = cfg->escalation;
	r->command = strdup(cfg->command);
	if (!r->command) {
		rc = sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		goto fail;
	}
	/* First: without these, what fails next says nothing useful. */
	rc = host_check(r->mode, &in_fd, err);
	if (rc < 0)
		goto fail;
	rc = resolve_paths(r, cfg, err);
	if (rc < 0)
		goto fail_fds;
	/* Only workspace-write writes anything: a read-only run's launch,
	 * and one with neither a spill nor a config, resolves none. */
	if (r->mode == SBX_MODE_WORKSPACE_WRITE && (spill || cfg->config_file))
		n_writable = writable_places(r, cfg, writable, kinds);
	if (spill) {
		/* Spill files are written by sbx, unconfined: their place is
		 * fixed now, away from what the command may write (spill.c). */
		spill_place_init(&r->spill, cfg->spill_max_bytes);
		rc = spill_place_choose(&r->spill, cfg->spill_dir, writable, n_writable, err);
		if (rc < 0)
			goto fail_fds;
	}
	if (stream_init(&r->out, "stdout", cfg->output_limit, cfg->pass_out,
			spill ? &r->spill : NULL) < 0 ||
	    stream_init(&r->err, "stderr", cfg->output_limit, cfg->pass_err,
			spill ? &r->spill : NULL) < 0) {
		rc = sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		goto fail_fds;
	}
	if (pipe_open_collect(p_out) < 0 || pipe_open_collect(p_err) < 0) {
		rc = sbx_error_set(err, errno, SBX_E_INTERNAL, NULL, "unable to create pipes: %s",
				   strerror(errno));
		goto fail_fds;
	}
	rc = view_prepare(r, cfg, err);
	/* After the view: it knows the root's other names (bind mounts). */
	if (rc == 0)
		rc = config_not_writable(cfg->config_file, writable, n_writable, &r->protect, err);
	if (rc == 0)
		rc = prepare_spec(r, cfg, in_fd, p_out[1], p_err[1], err);
	/* Other modes only where a dead sbx left a baseline (view_prepare). */
	if (rc == 0 && (r->mode == SBX_MODE_WORKSPACE_WRITE || r->protect.dir_fd >= 0))
		rc = view_protect_begin(r, err);
	if (rc < 0)
		goto fail_fds;
	r->start_ms = run_now_ms();
	int deadman[2] = { -1, -1 };

	/* Confined runs get a dead-man switch: the init of the run's PID
	 * namespace (namespace runner) or a Landlock-scoped helper where the
	 * kernel can scope signals (deadman.c); a run's keeper (keeper.c) is
	 * one too, in any mode. Its trigger is this pipe. */
	if (r->mode != SBX_MODE_DANGER_FULL_ACCESS || !process_is_subreaper()) {
		if (pipe2(deadman, O_CLOEXEC) < 0) {
			rc = sbx_error_set(err, errno, SBX_E_INTERNAL, NULL,
					   "unable to create pipes: %s", strerror(errno));
			goto fail_fds;
		}
		r->spec.deadman_fd = deadman[0];
		r->deadman_w = deadman[1];
	}
	r->spec.deadman_pid = &r->deadman_pid;
	r->spec.opener_pid = &r->opener_pid;
	r->spec.netns_cookie = &r->netns_cookie;
	/* Until our children of this start are listed live, no other run's
	 * end may walk them (tree.c). */
	bool gate = tree_spawn_begin();

	run_supervise_began(r);
	rc = run_pick_and_spawn(r, cfg, err);
	if (deadman[0] >= 0)
		close(deadman[0]);
	r->spec.deadman_fd = -1;
	close(in_fd);
	close(p_out[1]);
	close(p_err[1]);
	in_fd = p_out[1] = p_err[1] = -1;
	if (rc < 0) {
		tree_spawn_end(gate);
		goto fail_fds;
	}
	live_add(r->pid);
	/* The dead-man helper too, from now on: once bash exits it is our
	 * child, before our loop has seen that exit, and another run's end
	 * walking our children then must not take it for a leftover (it
	 * killed and reaped it, and this run's end later killed its pid,
	 * free by then for any process to take). Listed before anything
	 * else is done here: bash may exit at once. */
	if (r->deadman_pid > 0)
		live_add(r->deadman_pid);
	/* The opener too (landlock runner: our child, beside bash). */
	if (r->opener_pid > 0)
		live_add(r->opener_pid);
	run_supervise_spawned(r);
	tree_spawn_end(gate);
	run_supervise_attach(r, cfg);
	/* The denial texts in the command's own language are looked up when
	 * its first output arrives (run_evidence_ready): most commands print
	 * nothing that needs judging, and the lookup costs ~0.15 ms. */
	evidence_init(&r->ev, 0, NULL);
	r->ev_pending = r->runner != NULL;
	r->fd_out = p_out[0];
	r->fd_err = p_err[0];
	if (r->timeout_ms)
		r->timeout_at = r->start_ms + r->timeout_ms;

	*out = r;
	return 0;

fail_fds:
	if (in_fd >= 0)
		close(in_fd);
	for (int i = 0; i < 2; i++) {
		if (p_out[i] >= 0)
			close(p_out[i]);
		if (p_err[i] >= 0)
			close(p_err[i]);
	}
fail:
	run_discard(r);
	return rc;
}

/* On the loop's thread: collect the spawned run there. */
int run_attach(struct run_state *r, struct loop *loop, struct sbx_error *err)
{
	r->loop = loop;
	r->w_out = (struct loop_watch){ .fd = r->fd_out, .cb = on_stream, .ctx = r };
	r->w_err = (struct loop_watch){ .fd = r->fd_err, .cb = on_stream, .ctx = r };
	/* Nothing listens for a denial (no runner): a passthrough need not be
	 * read past its head; it is spliced out (stream_splice.c). */
	if (!r->runner && stream_splice_open(&r->out, r->fd_out))
		r->w_out = (struct loop_watch){ .fd = r->fd_out, .readiness = true,
						.cb = on_stream_ready, .ctx = r };
	if (!r->runner && stream_splice_open(&r->err, r->fd_err))
		r->w_err = (struct loop_watch){ .fd = r->fd_err, .readiness = true,
						.cb = on_stream_ready, .ctx = r };
	r->w_pid = (struct loop_watch){ .fd = r->exit_fd >= 0 ? r->exit_fd : r->pidfd,
					.readiness = true, .cb = on_exit_ready, .ctx = r };
	r->w_cancel = (struct loop_watch){ .fd = r->cancel_fd, .readiness = true, .cb = on_cancel, .ctx = r };
	r->w_out.buf = malloc(RUN_READ_BUF);
	r->w_err.buf = malloc(RUN_READ_BUF);
	if (!r->w_out.buf || !r->w_err.buf) {
		run_terminate(r);
		run_discard(r);
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	}
	r->w_out.buf_size = r->w_err.buf_size = RUN_READ_BUF;
	if (loop_add(loop, &r->w_out) < 0 || loop_add(loop, &r->w_err) < 0 ||
	    loop_add(loop, &r->w_pid) < 0 ||
	    (r->cancel_fd >= 0 && loop_add(loop, &r->w_cancel) < 0)) {
		run_terminate(r);
		run_discard(r);
		return sbx_error_set(err, EBUSY, SBX_E_INTERNAL, NULL, "event loop refused the run");
	}
	return 0;
}

int run_start(const struct sbx_run *cfg, struct loop *loop, struct run_state **out,
	      struct sbx_error *err)
{
	int rc = run_spawn(cfg, out, err);

	if (rc == 0 && (rc = run_attach(*out, loop, err)) < 0)
		*out = NULL;
	return rc;
}

int run_next_timeout(const struct run_state *r, uint64_t now)
{
	uint64_t next = 0;

	if (!r->bash_exited) {
		if (r->kill_at)
			next = r->kill_at;
		else if (r->timeout_at)
			next = r->timeout_at;
	} else {
		next = r->drain_until;
	}
	if (!next)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

static void stop_watch(struct run_state *r, struct loop_watch *w, int *fd)
{
	loop_remove(r->loop, w);
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The run's end for its dead-man switch, init or keeper: a byte, then the
 * close. The byte is seen at once even where a copy of the write end lives
 * on elsewhere (a fork of the caller taken meanwhile holds one until it
 * execs or exits); the end of file alone is for sbx's death. */
static void pull_trigger(struct run_state *r)
{
	if (r->deadman_w < 0)
		return;
	(void)!write(r->deadman_w, "x", 1);
	close(r->deadman_w);
	r->deadman_w = -1;
}

/* Fire the dead-man switch: its helper kills every process of the run at
 * once (signals scoped to the run). Wait briefly for it to have done so, so a
 * walk of the tree that follows cannot kill it first. */
static void fire_deadman(struct run_state *r)
{
	if (r->deadman_w < 0)
		return;
	pull_trigger(r);
	if (r->deadman_pid > 0) {
		int fd = (int)syscall(SYS_pidfd_open, r->deadman_pid, 0);

		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, RUN_DEADMAN_WAIT_MS);
			close(fd);
		}
	}
}

/* Wait up to ms for pid (our child) to exit, through its pidfd, and reap
 * it; SIGKILL it if it is late. */
static void wait_and_reap(pid_t pid, int pidfd, int ms)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0 || poll(&p, 1, ms) <= 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

/* The opener (landlock runner: our child) serves the command's opens as
 * long as the command lives: it ends with it, first, so the look for what
 * else is left does not take it for a leftover. (The namespace runner's
 * is inside the run's PID namespace, whose init reaps it and whose end
 * ends it.) */
static void end_opener(struct run_state *r)
{
	if (r->opener_pid <= 0)
		return;
	live_remove(r->opener_pid);
	kill(r->opener_pid, SIGKILL);
	while (waitpid(r->opener_pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	r->opener_pid = 0;
}

/* Nothing outlives a run: what bash left behind (still holding the pipes or
 * not) ends now.
 *  - A PID namespace (namespace runner): init's exit makes the kernel kill
 *    every process left in it, however it forked or setsid'd; no walk of
 *    /proc. When init has said that nothing but itself is left, its exit
 *    and the namespace's teardown are reaped later (reap.c); otherwise we
 *    wait for it, so nothing of the run is alive once the run is over.
 *  - A keeper (keeper.c): the same, but the keeper kills and reaps what is
 *    left below it itself before it exits. Our own children are not
 *    looked at.
 *  - The Landlock dead-man helper: one look at our children (the run's
 *    orphans come to us, the subreaper). Only the helper left: it is ended
 *    and reaped later. Else it kills the whole run at once (its signals are
 *    scoped to the run), and the walk below reaps what it killed.
 *  - Otherwise, the walk of our children ends and reaps the rest. */
static void end_tree(struct run_state *r)
{
	end_opener(r);
	live_remove(r->exit_fd >= 0 ? r->pid : r->deadman_pid);
	if (r->exit_fd >= 0) {
		pull_trigger(r);
		if (r->init_empty) {
			r->reap_pid = r->pid;
			r->reap_pidfd = r->pidfd;
			r->pidfd = -1;
		} else {
			wait_and_reap(r->pid, r->pidfd, RUN_END_WAIT_MS);
		}
		r->pid = -1;
		return;
	}
	if (r->deadman_pid > 0) {
		if (!tree_has_orphans(run_live_pids, r->deadman_pid)) {
			/* Nothing for it to kill: it need not look (its
			 * kill(-1) walks every process of the host). */
			kill(r->deadman_pid, SIGKILL);
			close(r->deadman_w);
			r->deadman_w = -1;
			r->reap_pid = r->deadman_pid;
			r->reap_pidfd = -1;
			return;
		}
		fire_deadman(r);
	}
	tree_kill_orphans(run_live_pids);
}

void run_tick(struct run_state *r, uint64_t now)
{
	if (r->done)
		return;
	if (!r->bash_exited) {
		if (r->kill_at && now >= r->kill_at) {
			fire_deadman(r);
			tree_signal(r->pid, SIGKILL, r->spec.keeper);
			r->kill_at = 0;
		} else if (r->timeout_at && now >= r->timeout_at) {
			r->timed_out = true;
			run_stop_gently(r, now);
		}
		return;
	}
	if (!r->orphans_killed && ((r->out_eof && r->err_eof) || now >= r->drain_until)) {
		end_tree(r);
		r->orphans_killed = true;
		r->drain_budget = 2 * (uint64_t)COLLECT_PIPE_SIZE + 2 * RUN_READ_BUF;
		if (!(r->out_eof && r->err_eof))
			r->drain_until = now + RUN_DRAIN_MS;
	}
	if (r->orphans_killed && ((r->out_eof && r->err_eof) || now >= r->drain_until)) {
		/* A holder outside our tree (it was passed the fd) cannot keep
		 * the run open forever: stop reading. */
		stop_watch(r, &r->w_out, &r->fd_out);
		stop_watch(r, &r->w_err, &r->fd_err);
		r->done = true;
	}
}

/* The whole tree gets SIGTERM, then SIGKILL after a grace. */
void run_stop_gently(struct run_state *r, uint64_t now)
{
	r->timeout_at = 0;
	tree_signal(r->pid, SIGTERM, r->spec.keeper);
	r->kill_at = now + RUN_TERM_GRACE_MS;
}

void run_terminate(struct run_state *r)
{
	if (r->pid > 0 && !r->bash_exited) {
		fire_deadman(r);
		tree_signal(r->pid, SIGKILL, r->spec.keeper);
		r->kill_at = 0;
		r->timeout_at = 0;
	}
}

void run_discard(struct run_state *r)
{
	if (!r)
		return;
	if (r->loop) {
		loop_remove(r->loop, &r->w_out);
		loop_remove(r->loop, &r->w_err);
		loop_remove(r->loop, &r->w_pid);
		loop_remove(r->loop, &r->w_cancel);
	}
	if (r->pid > 0)
		live_remove(r->pid);
	/* A keeper ends what is below it itself: killed, it would leave that
	 * to whoever reaps orphans above us. */
	if (r->pid > 0 && r->spec.keeper) {
		pull_trigger(r);
		wait_and_reap(r->pid, r->pidfd, RUN_END_WAIT_MS);
	} else if (r->pid > 0 && !r->bash_exited) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, __WALL);
	}
	if (r->deadman_pid > 0)
		live_remove(r->deadman_pid);
	end_opener(r);
	run_supervise_end(r);
	if (r->reap_pid > 0)
		reap_defer(r->reap_pid, r->reap_pidfd, &r->limits,
			   r->loop_persists ? r->loop : NULL);
	r->reap_pid = 0;
	/* A run that never reached its end still puts the protected paths
	 * back and leaves the root's baseline (before the root's handle goes). */
	protect_free(&r->protect, r->root_fd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	if (r->root_fd >= 0)
		close(r->root_fd);
	if (r->exit_fd >= 0)
		close(r->exit_fd);
	if (r->deadman_w >= 0)
		close(r->deadman_w);
	if (r->fd_out >= 0)
		close(r->fd_out);
	if (r->fd_err >= 0)
		close(r->fd_err);
	free(r->w_out.buf);
	free(r->w_err.buf);
	stream_close(&r->out);
	stream_close(&r->err);
	spill_place_close(&r->spill);
	free(r->out.spill_path);
	free(r->err.spill_path);
	run_limits_discard(&r->limits);
	env_free(r->envp);
	view_release(r);
	free(r->spec.scratch);
	free(r->as_of.filter);
	free(r->command);
	free(r);
}
