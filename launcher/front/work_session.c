/* SPDX-License-Identifier: MIT */
/* Sessions: a root pinned when the session opens, a mode, an escalation
 * switch under the deployment's ceiling, and the tasks it started. Every run
 * of a session confines the pinned directory (run_set_pinned_root), and is
 * refused if the path no longer names it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h" /* path_is_within */
#include "probe.h"
#include "work.h"

void work_init(struct work *w, const struct sbx_config *cfg)
{
	memset(w, 0, sizeof(*w));
	w->cfg = cfg;
	w->max_background = cfg->has_max_background ? cfg->max_background
						    : POLICY_DEFAULT_MAX_BACKGROUND;
	w->answer_max = RPC_ANSWER_MAX_DEFAULT;
	w->escalation_fix = "open the session with escalation, where the deployment allows it";
}

const json_t *work_facts(struct work *w)
{
	if (!w->facts)
		w->facts = probe_facts();
	return w->facts;
}

static bool ceiling_allows_escalation(const struct sbx_config *cfg)
{
	return !(cfg->has_escalation && !cfg->escalation);
}

static bool session_may_write(const char *path, const char *root)
{
	static const char *const shared[] = { "/tmp", "/dev/shm" };
	char real[PATH_MAX];
	bool inside;

	if (!path || !realpath(path, real))
		return false;
	inside = path_is_within(real, root);
	for (size_t i = 0; i < 2; i++)
		inside = inside || path_is_within(real, shared[i]);
	return inside;
}

/* A --spill-dir or the config in what the session's commands could write
 * (inside its root, /tmp or /dev/shm) would refuse each of its runs
 * (spill.c, run.c): refused here, when the session opens, not at its first
 * run (new-user pass 8, finding 4). */
static int session_writes_sbx_files(const struct work *w, const char *root,
				    struct sbx_error *err)
{
	if (session_may_write(w->spill_dir, root))
		return sbx_error_set(err, EINVAL, SBX_E_USAGE,
				     "start sbx serve with a --spill-dir outside the root, /tmp and "
				     "/dev/shm, or open the session read-only",
				     "spill dir %s lies inside what a workspace-write session on %s "
				     "may write",
				     w->spill_dir, root);
	if (w->cfg->source[0] && session_may_write(w->cfg->source, root))
		return sbx_error_set(err, EINVAL, SBX_E_USAGE,
				     "keep the config outside the root, /tmp and /dev/shm, or open "
				     "the session read-only",
				     "the config %s lies inside what a workspace-write session on %s "
				     "may write: its commands could rewrite the policy of every "
				     "later run",
				     w->cfg->source, root);
	return 0;
}

int work_session_open(struct work *w, const char *root, bool has_mode, enum sbx_mode mode,
		      bool has_escalation, bool escalation, const char *cwd,
		      struct work_session **out, struct sbx_error *err)
{
	struct work_session *sess;
	int rc;

	/* Why a ceiling: the deployment decides whether a model may ever be
	 * offered a wider mode; a client cannot turn that back on. */
	if (has_escalation && escalation && !ceiling_allows_escalation(w->cfg))
		return sbx_error_set(err, EPERM, SBX_E_BAD_REQUEST,
				     "open the session without escalation; only the deployment's "
				     "config can allow it",
				     "escalation is off in this deployment (config escalation = "
				     "false); a session cannot turn it on");
	if (!root || root[0] != '/')
		return sbx_error_set(err, EINVAL, SBX_E_BAD_REQUEST,
				     "send root as an absolute path: sbx has no directory of "
				     "yours to take a relative one from",
				     "root must be an absolute path");
	sess = calloc(1, sizeof(*sess));
	if (!sess)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	rc = root_pin(root, sess->root, &sess->root_fd, err);
	if (rc < 0) {
		free(sess);
		return rc;
	}
	sess->mode = has_mode ? mode : w->cfg->has_mode ? w->cfg->mode : SBX_MODE_READ_ONLY;
	sess->escalation = has_escalation ? escalation
					  : w->cfg->has_escalation && w->cfg->escalation;
	/* Nothing is wider than danger-full-access: such a session offers
	 * no escalation, and takes no sandbox_permissions (which would only
	 * narrow it, unasked for). */
	if (sess->mode == SBX_MODE_DANGER_FULL_ACCESS)
		sess->escalation = false;
	if (sess->mode == SBX_MODE_WORKSPACE_WRITE && strcmp(sess->root, "/") == 0) {
		close(sess->root_fd);
		free(sess);
		return sbx_error_set(err, EINVAL, SBX_E_USAGE,
				     "take the project's directory as the root, or mode "
				     "danger-full-access if every file is meant",
				     "refusing root / with workspace-write: that is every file; "
				     "use danger-full-access if that is what you mean");
	}
	if (sess->mode == SBX_MODE_WORKSPACE_WRITE && session_writes_sbx_files(w, sess->root, err) < 0) {
		close(sess->root_fd);
		free(sess);
		return -EINVAL;
	}
	if (cwd && !(sess->cwd = strdup(cwd))) {
		close(sess->root_fd);
		free(sess);
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	}
	snprintf(sess->name, sizeof(sess->name), "s%u", ++w->next_session);
	sess->next = w->sessions;
	w->sessions = sess;
	*out = sess;
	return 0;
}

struct work_session *work_session_find(struct work *w, const char *name)
{
	for (struct work_session *s = w->sessions; s; s = s->next)
		if (!s->closed && strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static void session_free(struct work_session *sess)
{
	while (sess->tasks) {
		struct work_task *t = sess->tasks;

		sess->tasks = t->next;
		json_decref(t->result);
		json_decref(t->kill_waiters);
		stream_view_free(&t->out);
		stream_view_free(&t->err);
		free(t);
	}
	work_spill_delete_all(sess);
	free(sess->spills);
	if (sess->root_fd >= 0)
		close(sess->root_fd);
	free(sess->cwd);
	free(sess);
}

/* A closed session whose last task has settled goes away. */
void work_session_reap(struct work *w)
{
	for (struct work_session **p = &w->sessions; *p;) {
		struct work_session *s = *p;

		if (s->closed && s->running == 0 && s->busy == 0) {
			*p = s->next;
			session_free(s);
		} else {
			p = &s->next;
		}
	}
}

void work_session_close(struct work *w, struct work_session *sess)
{
	sess->closed = true;
	for (struct work_task *t = sess->tasks; t; t = t->next)
		if (t->status == TASK_RUNNING) {
			t->kill_requested = true;
			rpc_job_end(t->job, false);
		}
	work_spill_delete_all(sess);
	work_session_reap(w);
}

void work_close_all(struct work *w)
{
	for (struct work_session *s = w->sessions; s; s = s->next)
		if (!s->closed) {
			s->closed = true;
			for (struct work_task *t = s->tasks; t; t = t->next)
				if (t->status == TASK_RUNNING) {
					t->kill_requested = true;
					rpc_job_end(t->job, false);
				}
		}
	work_session_reap(w);
}

void work_free(struct work *w)
{
	for (struct work_session *s = w->sessions; s; s = s->next) {
		s->closed = true;
		s->running = s->busy = 0;
	}
	work_session_reap(w);
	json_decref(w->facts);
}

int work_run_build(struct work *w, const struct work_session *sess,
		   const struct work_call *call, struct sbx_run **out, struct sbx_error *err)
{
	struct sbx_session session = { .root = sess->root, .has_mode = true, .mode = sess->mode };
	const char *cwd = call->cwd ? call->cwd : sess->cwd;
	struct sbx_policy pol;
	struct sbx_run *run;
	int rc;

	if (call->sandbox_permissions && !sess->escalation)
		return sbx_error_set(err, EPERM, SBX_E_BAD_REQUEST, w->escalation_fix,
				     "sandbox_permissions: this session has no escalation (%s)",
				     w->escalation_fix);
	/* A value outside the schema's enum is a bad param of the request (the
	 * caller's mistake, -32602), like a bad timeout_ms, not sbx refusing. */
	if (call->sandbox_permissions && strcmp(call->sandbox_permissions, "workspace-write") &&
	    strcmp(call->sandbox_permissions, "danger-full-access"))
		return sbx_error_set(err, EINVAL, SBX_E_BAD_REQUEST, call->sandbox_permissions,
				     "bad sandbox_permissions '%.32s' (expected workspace-write or "
				     "danger-full-access)",
				     call->sandbox_permissions);
	if (call->justification && !call->sandbox_permissions)
		return sbx_error_set(err, EINVAL, SBX_E_BAD_REQUEST,
				     "send justification only beside sandbox_permissions (the "
				     "escalation it explains), or leave it out",
				     "justification without sandbox_permissions: it explains an "
				     "escalation, and there is none");
	rc = policy_resolve(w->cfg, &session, call->sandbox_permissions, &pol, err);
	if (rc < 0)
		return rc;
	pol.escalation = sess->escalation;
	if (call->timeout_ms)
		pol.timeout_ms = call->timeout_ms;
	run = sbx_run_new();
	if (!run)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	rc = run_apply_policy(run, &pol, err);
	run->cwd_name = w->cwd_name;
	if (rc == 0 && (sbx_run_set_command(run, call->command) < 0 ||
			run_set_pinned_root(run, sess->root, sess->root_fd) < 0 ||
			(cwd && sbx_run_set_cwd(run, cwd) < 0) ||
			(w->spill_dir && sbx_run_set_spill_dir(run, w->spill_dir) < 0)))
		rc = sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	if (rc < 0) {
		sbx_run_free(run);
		return rc;
	}
	*out = run;
	return 0;
}
