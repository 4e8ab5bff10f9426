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
#include <unistd.h>

#include "run.h"
#include "run_supervise.h"

#ifdef CONFIG_SUPERVISOR
#include "seccomp_notify.h"
#include "supervisor.h"

/* What the command of a caller with real uid `uid` holds, and so the
 * supervisor's threads: a root caller's keeps exactly CAP_CHOWN,
 * CAP_DAC_OVERRIDE, CAP_FOWNER and CAP_FSETID (CONTRACT section 1), as far as
 * we hold them ourselves; anyone else's nothing. (The same mask as the
 * child's caps_for_caller where that exists.) */
void run_supervise_prepare(struct run_state *r)
{
	char reason[160];
	int sv[2];

	r->notify_sock[0] = r->notify_sock[1] = -1;
	if (r->mode == SBX_MODE_DANGER_FULL_ACCESS || supervisor_probe(reason, sizeof(reason)) < 0)
		return;
	r->spec.notify_sockets = notify_filter_get(NOTIFY_SOCKETS);
	r->spec.notify_metadata = notify_filter_get(NOTIFY_METADATA);
	if (!r->spec.notify_sockets || !r->spec.notify_metadata ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		r->spec.notify_sockets = r->spec.notify_metadata = NULL;
		return;
	}
	r->notify_sock[0] = sv[0];
	r->notify_sock[1] = sv[1];
	r->spec.notify_fd = sv[1];
}

void run_supervise_attach(struct run_state *r, const struct sbx_run *cfg)
{
	struct supervisor_params p = { 0 };
	char tmp[PATH_MAX];
	int listener, err = 0;

	if (r->notify_sock[0] < 0)
		return;
	close(r->notify_sock[1]);
	r->notify_sock[1] = -1;
	r->spec.notify_fd = -1;
	listener = notify_receive_listener(r->notify_sock[0]);
	close(r->notify_sock[0]);
	r->notify_sock[0] = -1;
	if (listener < 0 || !r->runner)
		return;
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
	r->sup = supervisor_start(listener, &p, &err);
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
	for (int i = 0; i < 2; i++)
		if (r->notify_sock[i] >= 0)
			close(r->notify_sock[i]);
	r->notify_sock[0] = r->notify_sock[1] = -1;
	/* The pty pool ends (the supervisor, still finishing, can take no
	 * more from it), then the landlock runner's ruleset is free again. */
	runners_run_over(&r->spec);
}

#else

void run_supervise_prepare(struct run_state *r)
{
	r->notify_sock[0] = r->notify_sock[1] = -1;
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
