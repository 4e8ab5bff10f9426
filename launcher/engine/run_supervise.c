/* SPDX-License-Identifier: MIT */
/* A run and its supervisor: the filters and the handoff socket go into the
 * child's spec, the listener comes back after spawn, supervision ends with
 * the run. Where the kernel cannot supervise, the run goes on without: the
 * landlock runner then reports enforcement partial (metadata uncovered), and
 * pathname sockets stay open; `sbx probe` says why. Never a refusal. */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "protect.h"
#include "run.h"
#include "run_supervise.h"

#ifdef CONFIG_SUPERVISOR
#include "scope_thread.h"
#include "seccomp_notify.h"
#include "statedir.h"
#include "supervisor.h"

static void close_opener(struct run_state *r)
{
	for (int i = 0; i < 2; i++)
		if (r->opener_sock[i] >= 0)
			close(r->opener_sock[i]);
	r->opener_sock[0] = r->opener_sock[1] = -1;
	r->spec.opener_fd = -1;
}

/* What the command of a caller with real uid `uid` holds, and so the
 * supervisor's threads: a root caller's keeps exactly CAP_CHOWN,
 * CAP_DAC_OVERRIDE, CAP_FOWNER and CAP_FSETID (CONTRACT section 1), as far as
 * we hold them ourselves; anyone else's nothing. (The same mask as the
 * child's caps_for_caller where that exists.) */
void run_supervise_prepare(struct run_state *r)
{
	char reason[240];
	int sv[2];

	r->notify_sock[0] = r->notify_sock[1] = -1;
	if (r->mode == SBX_MODE_DANGER_FULL_ACCESS || supervisor_probe(reason, sizeof(reason)) < 0)
		return;
	/* workspace-write: the run's opener performs its opens for writing
	 * (runners/opener.h), so no file of the run is ever open for writing
	 * with a setuid or setgid bit. Read-only mode too under the namespace
	 * runner (its filter, notify_sockets): a read-only mount does not stop
	 * an open of a FIFO for writing, which the supervisor refuses there
	 * (supervisor_open.c). Under the landlock runner Landlock refuses it,
	 * and a read-only run has nothing else to open for writing on the
	 * host (/dev/null and the like): no opener (run_supervise_spawn). */
	bool opens = socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->opener_sock) == 0;

	r->spec.notify_sockets = notify_filter_get(opens ? NOTIFY_SOCKETS_OPENS : NOTIFY_SOCKETS);
	r->spec.notify_metadata = notify_filter_get(opens && r->mode == SBX_MODE_WORKSPACE_WRITE
						    ? NOTIFY_METADATA_OPENS : NOTIFY_METADATA);
	if (!r->spec.notify_sockets || !r->spec.notify_metadata ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		r->spec.notify_sockets = r->spec.notify_metadata = NULL;
		close_opener(r);
		return;
	}
	r->notify_sock[0] = sv[0];
	r->notify_sock[1] = sv[1];
	r->spec.notify_fd = sv[1];
	r->spec.opener_fd = r->opener_sock[1];
}

/* The namespace runner's /proc is the host's here (its procfs could not be
 * mounted: a container masks parts of the host's), so its command's domain
 * handles file rights: learnt once, from a child that said so. */
static bool ns_host_proc;

static void scope_drop(struct run_state *r)
{
	if (!r->scope)
		return;
	run_supervise_spawned(r);
	scope_thread_unref(r->scope);
	r->scope = NULL;
	r->spec.scope_without_refer = false;
}

/* A scope thread whose domain suits the runner about to spawn (refer: the
 * command's domain will handle file rights). Without one (no thread to be
 * had) the supervisor decides abstract names as below ABI 6
 * (supervisor_abstract.c). */
static void scope_for(struct run_state *r, bool refer)
{
	int err;

	if (r->scope && scope_thread_refers(r->scope) == refer)
		return;
	scope_drop(r);
	r->scope = scope_thread_start(refer, &err);
	if (r->scope) {
		/* Until the run's first processes are listed live (run.c),
		 * no walk of our children takes them for leftovers. */
		tree_spawner_add(scope_thread_tid(r->scope));
		r->scope_listed = true;
		r->spec.scope_without_refer = !refer;
	}
}

void run_supervise_spawned(struct run_state *r)
{
	/* Listed live now: from here on the walks see its children as any
	 * thread's (and the end of the run reaps its dead-man helper). */
	if (r->scope && r->scope_listed)
		tree_spawner_remove(scope_thread_tid(r->scope));
	r->scope_listed = false;
}

struct spawn_args {
	struct child_spec *spec;
	int flags;
	struct spawn_outcome *o;
};

static int spawn_there(void *arg)
{
	struct spawn_args *a = arg;

	return spawn_child(a->spec, a->flags, a->o);
}

int run_supervise_spawn(struct run_state *r, int clone_flags, struct spawn_outcome *o)
{
	struct spawn_args a = { &r->spec, clone_flags, o };
	bool landlock = r->spec.runner && r->spec.runner->id == SBX_RUNNER_LANDLOCK;
	int rc;

	/* The landlock runner's read-only run has no opener (its filter asks
	 * for no opens); the namespace runner's has, in either mode. */
	if (r->opener_sock[1] >= 0)
		r->spec.opener_fd = landlock && r->mode != SBX_MODE_WORKSPACE_WRITE ? -1 : r->opener_sock[1];
	if (r->notify_sock[0] < 0 || r->spec.landlock_abi < 6) {
		scope_drop(r);
		return spawn_child(&r->spec, clone_flags, o);
	}
	scope_for(r, landlock || __atomic_load_n(&ns_host_proc, __ATOMIC_RELAXED));
	/* Spawned there, the command's Landlock domains lie below the scope
	 * thread's own. */
	rc = r->scope ? scope_thread_call(r->scope, spawn_there, &a) : spawn_child(&r->spec, clone_flags, o);
	/* The namespace runner fell back to the host's /proc, whose Landlock
	 * ruleset handles file rights, below a scope domain that grants no
	 * REFER: its child refused to go on (every rename across directories
	 * would fail). Once more, under a domain that grants it; and the
	 * next runs of this process start so. */
	if (rc == 0 && r->scope && !landlock && o->failed && o->status.stage == STAGE_LANDLOCK &&
	    o->status.err == EXDEV) {
		__atomic_store_n(&ns_host_proc, true, __ATOMIC_RELAXED);
		scope_for(r, true);
		rc = r->scope ? scope_thread_call(r->scope, spawn_there, &a)
			      : spawn_child(&r->spec, clone_flags, o);
	}
	return rc;
}

void run_supervise_began(struct run_state *r)
{
	struct timespec res = { 0, 0 };

	clock_gettime(CLOCK_REALTIME_COARSE, &r->began);
	clock_getres(CLOCK_REALTIME_COARSE, &res);
	r->began.tv_nsec -= res.tv_nsec;
	if (r->began.tv_nsec < 0) {
		r->began.tv_nsec += 1000000000L;
		r->began.tv_sec--;
	}
}

struct windows {
	struct supervise_window *w; /* each below owned */
	size_t n, cap;
	const char *shared[STATEDIR_CANDIDATES + 3]; /* where runs write outside roots */
	size_t n_shared;
	bool failed;
};

static void window_add(struct windows *ws, uint64_t from, uint64_t to, const char *below)
{
	char *own = strdup(below);

	if (own && ws->n == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 32;
		struct supervise_window *p = realloc(ws->w, cap * sizeof(*p));

		if (p) {
			ws->w = p;
			ws->cap = cap;
		}
	}
	if (!own || ws->n == ws->cap) {
		free(own);
		ws->failed = true;
		return;
	}
	ws->w[ws->n++] = (struct supervise_window){ from, to, own };
}

/* A recorded run's window, over its root and over the places outside
 * roots a run writes: the host's /tmp and /dev/shm where it could (the
 * first two shared), sbx's state (caches, the namespace runner's /tmp). */
static void window_of_run(void *ctx, uint64_t from, uint64_t to, bool host_tmp, const char *root)
{
	struct windows *ws = ctx;

	if (root)
		window_add(ws, from, to, root);
	for (size_t i = host_tmp ? 0 : 2; i < ws->n_shared; i++)
		window_add(ws, from, to, ws->shared[i]);
}

static bool allows_a_path(const struct sbx_run *cfg)
{
	for (size_t i = 0; i < cfg->n_unix_sockets; i++)
		if (cfg->unix_sockets[i] && cfg->unix_sockets[i][0] == '/')
			return true;
	return false;
}

/* Where each path entry of the allow-list can match: the directory its
 * text names before any pattern character (/run/user/1000 for an entry
 * of /run/user/1000/ and a star), resolved, for the runs record's
 * archive, which gives the runs that could matter there. One that does
 * not resolve: its nearest ancestor that does. */
static size_t allowed_dirs(const struct sbx_run *cfg, char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < cfg->n_unix_sockets; i++) {
		const char *e = cfg->unix_sockets[i];
		char dir[PATH_MAX], real[PATH_MAX];
		size_t lit, cut = 1;

		if (!e || e[0] != '/')
			continue;
		lit = strcspn(e, "*?[\\");
		for (size_t k = 1; k < lit; k++)
			if (e[k] == '/')
				cut = k;
		if (cut >= sizeof(dir))
			cut = 1;
		memcpy(dir, e, cut);
		dir[cut] = '\0';
		while (!realpath(dir, real)) {
			char *slash = strrchr(dir, '/');

			slash[slash == dir ? 1 : 0] = '\0';
		}
		if ((out[n] = strdup(real)))
			n++;
	}
	return n;
}

/* The runs record's windows, for the allow-list's path entries: a socket
 * named there that a past run linked or renamed in is not the daemon's.
 * The record holds this caller's workspace-write runs (protect_runs.c),
 * read in every state directory the caller has. Why a record that cannot
 * be read becomes one window over everything: fail closed. */
static void past_windows(struct run_state *r, const struct sbx_run *cfg, struct windows *ws)
{
	char cand[STATEDIR_CANDIDATES][PATH_MAX];
	char **paths = calloc(cfg->n_unix_sockets + 1, sizeof(*paths));
	int dirs[STATEDIR_CANDIDATES];
	size_t n = 0, n_paths;
	bool own = r->protect.n_runs_dir > 0;

	ws->shared[ws->n_shared++] = "/tmp";
	ws->shared[ws->n_shared++] = "/dev/shm";
	for (unsigned i = 0; i < STATEDIR_CANDIDATES; i++) {
		if (statedir_candidate(i, cand[i], sizeof(cand[i])) < 0)
			continue;
		ws->shared[ws->n_shared++] = cand[i];
		if (!own) {
			int fd = statedir_open_kind(cand[i], "protect");

			if (fd >= 0)
				dirs[n++] = fd;
		}
	}
	if (cfg->cache_dir && cfg->cache_dir[0] == '/')
		ws->shared[ws->n_shared++] = cfg->cache_dir;
	n_paths = paths ? allowed_dirs(cfg, paths) : 0;
	if (!paths)
		ws->failed = true;
	else if (protect_runs_each(own ? r->protect.runs_dir : dirs, own ? r->protect.n_runs_dir : n,
			      (const char *const *)paths, n_paths, window_of_run, ws) < 0)
		ws->failed = true;
	while (n_paths)
		free(paths[--n_paths]);
	free(paths);
	for (size_t i = 0; i < n; i++)
		close(dirs[i]);
	/* This run's own, where the record does not hold it (no state
	 * directory): a directory it renames in is its doing too. */
	if (r->mode == SBX_MODE_WORKSPACE_WRITE && !r->protect.run_open)
		window_of_run(ws,
			      (uint64_t)r->began.tv_sec * 1000000000u + (uint64_t)r->began.tv_nsec,
			      UINT64_MAX, true, r->root);
	if (ws->failed) {
		ws->failed = false;
		window_add(ws, 0, UINT64_MAX, "/");
	}
}

static void windows_free(struct windows *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free((char *)ws->w[i].below);
	free(ws->w);
}

void run_supervise_attach(struct run_state *r, const struct sbx_run *cfg)
{
	struct windows ws = { 0 };
	struct supervisor_params p = { 0 };
	char tmp[PATH_MAX];
	int listener, err = 0;

	if (r->notify_sock[0] < 0)
		return;
	close(r->notify_sock[1]);
	r->notify_sock[1] = -1;
	r->spec.notify_fd = -1;
	/* The opener has its end (or the child never made one): ours goes
	 * to the supervisor, or nowhere. */
	if (r->opener_sock[1] >= 0)
		close(r->opener_sock[1]);
	r->opener_sock[1] = -1;
	r->spec.opener_fd = -1;
	listener = notify_receive_listener(r->notify_sock[0]);
	close(r->notify_sock[0]);
	r->notify_sock[0] = -1;
	if (listener < 0 || !r->runner) {
		close_opener(r); /* nothing to serve: it ends */
		return;
	}
	p.metadata = r->runner->id == SBX_RUNNER_LANDLOCK;
	if (r->mode == SBX_MODE_WORKSPACE_WRITE) {
		/* The writable set as the command sees it: the namespace runner's
		 * /tmp is its own at /tmp, the landlock runner's the host's. */
		if (p.metadata && realpath(r->spec.tmp_dir, tmp))
			p.writable.dirs[1] = tmp;
		else
			p.writable.dirs[1] = r->spec.tmp_dir;
		p.writable.dirs[0] = r->root;
		p.writable.below_only[1] = true;
		p.writable.n = 2;
		/* The workspace's tool cache, at its own path in both views. */
		if (r->view.cache_dir)
			p.writable.dirs[p.writable.n++] = r->view.cache_dir;
		/* A home the namespace runner brings into its /tmp is the
		 * host's, read-only: not the run's to change, nor to watch
		 * where it holds a hidden path, as elsewhere. */
		for (size_t i = 0; !p.metadata && i < r->view.n_homes && i < SUPERVISE_MAX_EXCEPT; i++)
			p.writable.except[p.writable.n_except++] = r->view.home_path[i];
	}
	/* /dev/shm: the run's own under the namespace runner (every mode), the
	 * host's, writable in workspace-write, under the landlock runner. */
	if (!p.metadata || r->mode == SBX_MODE_WORKSPACE_WRITE) {
		p.writable.dirs[p.writable.n] = "/dev/shm";
		p.writable.below_only[p.writable.n++] = true;
	}
	p.allow = (const char *const *)cfg->unix_sockets;
	p.n_allow = cfg->n_unix_sockets;
	p.hidden = r->view.hide.path;
	p.n_hidden = r->view.hide.n;
	p.revealed = r->view.reveal.path;
	p.n_revealed = r->view.reveal.n;
	/* Exactly what the command keeps (caps.c), no more. */
	p.caps = r->spec.caps_keep;
	/* Their refusals come to us only inside the joined filter. */
	p.rules = r->spec.notify_joined ? r->spec.seccomp : NULL;
	p.pty_pool = r->spec.pty_pool;
	p.run = r->pid;
	p.scope = r->scope;
	p.netns_cookie = r->netns_cookie;
	/* Taken over (closed) by the supervisor, whatever becomes of it; none
	 * where no opener was started (landlock runner, read-only). */
	if (p.metadata && r->mode != SBX_MODE_WORKSPACE_WRITE && r->opener_sock[0] >= 0) {
		close(r->opener_sock[0]);
		r->opener_sock[0] = -1;
	}
	p.opener = r->opener_sock[0];
	p.landlock_abi = r->spec.landlock_abi;
	p.started = r->began;
	if (allows_a_path(cfg))
		past_windows(r, cfg, &ws);
	if (ws.failed) /* not even the window over all: no path is allowed */
		p.n_allow = 0;
	p.past = ws.w;
	p.n_past = ws.n;
	r->opener_sock[0] = -1;
	r->sup = supervisor_start(listener, &p, &err);
	windows_free(&ws);
	r->spec.supervised = r->sup != NULL;
}

unsigned run_supervise_refusals(const struct run_state *r)
{
	return supervisor_refusals(r->sup);
}

bool run_supervise_refusal_named(const struct run_state *r, const char *text, size_t len)
{
	return supervisor_refusal_named(r->sup, text, len, &r->named_local);
}

bool run_supervise_refusal_commanded(const struct run_state *r, const char *text, size_t len)
{
	return supervisor_refusal_commanded(r->sup, r->command, r->cwd, text, len);
}

bool run_supervise_noted_any(const struct run_state *r)
{
	return supervisor_noted_any(r->sup);
}

void run_supervise_end(struct run_state *r)
{
	supervisor_stop(r->sup);
	r->sup = NULL;
	scope_drop(r);
	for (int i = 0; i < 2; i++)
		if (r->notify_sock[i] >= 0)
			close(r->notify_sock[i]);
	r->notify_sock[0] = r->notify_sock[1] = -1;
	close_opener(r);
	/* The pty pool ends (the supervisor, still finishing, can take no
	 * more from it), then the landlock runner's ruleset is free again. */
	runners_run_over(&r->spec);
}

#else

void run_supervise_spawned(struct run_state *r)
{
	(void)r;
}

void run_supervise_prepare(struct run_state *r)
{
	r->notify_sock[0] = r->notify_sock[1] = -1;
}

int run_supervise_spawn(struct run_state *r, int clone_flags, struct spawn_outcome *o)
{
	return spawn_child(&r->spec, clone_flags, o);
}

void run_supervise_attach(struct run_state *r, const struct sbx_run *cfg)
{
	(void)r;
	(void)cfg;
}

unsigned run_supervise_refusals(const struct run_state *r)
{
	(void)r;
	return 0;
}

bool run_supervise_refusal_named(const struct run_state *r, const char *text, size_t len)
{
	(void)r;
	(void)text;
	(void)len;
	return false;
}

bool run_supervise_refusal_commanded(const struct run_state *r, const char *text, size_t len)
{
	(void)r;
	(void)text;
	(void)len;
	return false;
}

bool run_supervise_noted_any(const struct run_state *r)
{
	(void)r;
	return false;
}

void run_supervise_end(struct run_state *r)
{
	runners_run_over(&r->spec);
}

#endif
