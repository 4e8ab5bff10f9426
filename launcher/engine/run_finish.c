/* SPDX-License-Identifier: MIT */
/* A run that is over becomes a result: bounded output, the exit facts, the
 * denial fact and its markers. Also sbx_run_execute: one run on its own loop. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "run.h"
#include "run_supervise.h"

static bool classify_run(struct run_state *r, const struct sbx_result *res)
{
	bool ww = r->mode == SBX_MODE_WORKSPACE_WRITE;
	bool ns = r->runner && r->runner->protects_by_mounts;
	const char *writable[6], *protected[NS_VIEW_MAX_PATHS + 1], *hidden[NS_VIEW_MAX_PATHS + 1];
	char *joined[NS_VIEW_MAX_PATHS];
	size_t n = 0, np = 0;
	bool denied;

	/* What the mode let the command write, as the runner gave it. */
	writable[n++] = "/dev/null";
	if (ww || ns)
		writable[n++] = "/dev/shm";
	if (ww) {
		writable[n++] = r->root;
		writable[n++] = "/tmp";
		if (r->view.cache_dir)
			writable[n++] = r->view.cache_dir;
	}
	writable[n] = NULL;
	for (size_t i = 0; ww && i < r->view.protect.n && np < NS_VIEW_MAX_PATHS - 1 - NS_VIEW_MAX_HOMES;
	     i++)
		if (asprintf(&joined[np], "%s/%s", r->root, r->view.protect.path[i]) >= 0)
			protected[np] = joined[np], np++;
	/* .git itself: bound onto itself, so renaming it away fails (EBUSY). */
	if (ww && asprintf(&joined[np], "%s/.git", r->root) >= 0)
		protected[np] = joined[np], np++;
	/* A home the namespace runner brought into its /tmp is read-only
	 * there: a write it refused is the sandbox's, as in a protected path
	 * (new-user pass 6, finding 3: it was taken for the run's own /tmp). */
	for (size_t i = 0; ww && ns && i < r->view.n_homes && np < NS_VIEW_MAX_PATHS; i++)
		if ((joined[np] = strdup(r->view.home_path[i])))
			protected[np] = joined[np], np++;
	protected[np] = NULL;
	for (size_t i = 0; i <= r->view.hide.n && i < NS_VIEW_MAX_PATHS; i++)
		hidden[i] = i < r->view.hide.n ? r->view.hide.path[i] : NULL;
	hidden[NS_VIEW_MAX_PATHS] = NULL;

	struct classify_input in = {
		.evidence = &r->ev,
		.exited = res->exited,
		.exit_code = res->exit_code,
		.confined = r->runner != NULL,
		.cwd = r->cwd,
		.command = r->command,
		.writable = writable,
		.protected_paths = protected,
		.hidden_paths = hidden,
		.could_write = caller_could_write,
		.could_write_ctx = NULL,
	};

	/* No output at all: no line to judge, so no texts to look up. */
	if (r->ev_pending) {
		r->ev_pending = false;
		evidence_init(&r->ev, r->runner->dialects, NULL);
	}
	evidence_finish(&r->ev);
	denied = classify_denied(&in);
	for (size_t i = 0; i < np; i++)
		free(joined[i]);
	return denied;
}

/* After the run's processes are gone: every protected path goes back to
 * the root's baseline (what was absent is removed, what changed is put
 * back), whoever changed it while this run was live, and every git
 * repository under the root is held to the allow-list. */
bool run_protect_pending(const struct run_state *r)
{
	return !r->protect_finished && r->runner &&
	       (r->mode == SBX_MODE_WORKSPACE_WRITE || r->protect.begun);
}

void run_protect_finish(struct run_state *r)
{
	if (!run_protect_pending(r)) {
		r->protect_finished = true;
		return;
	}
	r->protect_finished = true;
	/* What the record says this run could write beside the root. */
	r->protect.host_tmp = r->runner && r->runner->id == SBX_RUNNER_LANDLOCK;
	size_t n = protect_end(&r->protect, r->root_fd, r->protect_reverted, PROTECT_REPORT_MAX);

	r->n_protect_reverted = n < PROTECT_REPORT_MAX ? n : PROTECT_REPORT_MAX;
	r->protect_reverted_more = n - r->n_protect_reverted;
}

/* That write was refused, after the fact: sandbox.reverted says so. */
static bool sweep_protected(struct run_state *r, struct sbx_result *res)
{
	run_protect_finish(r);
	/* A read-only run that recovered a dead sbx's baseline leaves it as a
	 * workspace-write run would; its command could write none of it, so
	 * what another run's command changed meanwhile is not this run's. */
	if (!r->runner || r->mode != SBX_MODE_WORKSPACE_WRITE)
		return false;
	for (size_t i = 0; i < r->n_protect_reverted; i++) {
		res->reverted[res->n_reverted] = strdup(r->protect_reverted[i]);
		if (res->reverted[res->n_reverted])
			res->n_reverted++;
	}
	res->reverted_more = r->protect_reverted_more;
	return r->n_protect_reverted > 0;
}

/* What this run put back before it started, to a baseline an earlier run
 * left when its sbx died (protect_base.c): in the result, and a line after
 * the markers, so that whoever reads the result learns that the earlier
 * run's writes there were undone (and that their own, made since, were
 * too). Not a denial of this run. */
static void add_recovered(struct run_state *r, struct sbx_result *res, char *markers, size_t size)
{
	char line[512];
	size_t len, have = strlen(markers);

	if (!r->protect.n_recovered)
		return;
	len = (size_t)snprintf(line, sizeof(line),
			       "[sandbox: protected paths put back before this run, as they were "
			       "when an earlier run on this root started (its sbx ended without "
			       "doing it):");
	for (size_t i = 0; i < r->protect.n_recovered; i++) {
		const char *p = r->protect.recovered[i];
		char q[PATH_MAX * 4];
		size_t qn = markers_quote_path(p, q, sizeof(q));

		res->recovered[res->n_recovered] = strdup(p);
		if (res->recovered[res->n_recovered])
			res->n_recovered++;
		/* The names an earlier run chose, quoted: never a line of
		 * their own in what the model reads. */
		if (qn < sizeof(q) && len + qn + 8 < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %s", q);
		else if (len + 6 < sizeof(line) && line[len - 1] != '.')
			len += (size_t)snprintf(line + len, sizeof(line) - len, " ...");
	}
	/* Whole or not at all, like every marker. */
	if (have + len + 3 <= size)
		snprintf(markers + have, size - have, "%s]\n", line);
}

/* What the run was held to, and the limit that ended it: in the result and,
 * for a hit, a line after the markers. */
static void add_limits(struct run_state *r, struct sbx_result *res, char *markers, size_t size)
{
	const struct limits_report *rep = &r->limits.report;
	char line[160];
	size_t len;

	run_limits_finish(&r->limits, res->exited, res->exit_code, res->signal, res->err_text,
			  res->err_len);
	res->limits.processes = rep->processes;
	res->limits.memory = rep->memory;
	res->limits.file_size = rep->file_size;
	res->limits.cgroup = rep->cgroup;
	res->limits.hit = rep->hit;
	limit_hit_marker(rep, line, sizeof(line));
	len = strlen(markers);
	snprintf(markers + len, size - len, "%s", line);
}

int run_finish(struct run_state *r, struct sbx_result **result, struct sbx_error *err)
{
	struct sbx_result *res = calloc(1, sizeof(*res));
	char markers[2048];

	if (!res) {
		run_discard(r);
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	}
	if (WIFEXITED(r->wstatus)) {
		res->exited = true;
		res->exit_code = WEXITSTATUS(r->wstatus);
	} else if (WIFSIGNALED(r->wstatus)) {
		res->signal = WTERMSIG(r->wstatus);
	}
	res->timed_out = r->timed_out;
	res->cancelled = r->cancelled;
	res->duration_ms = (r->exit_ms ? r->exit_ms : run_now_ms()) - r->start_ms;
	stream_splice_finish(&r->out);
	stream_splice_finish(&r->err);
	res->out_text = stream_render(&r->out, &res->out_len);
	res->err_text = stream_render(&r->err, &res->err_len);
	stream_render_omitted(&r->out, &res->out_mid_at, &res->out_mid_len);
	stream_render_omitted(&r->err, &res->err_mid_at, &res->err_mid_len);
	res->out_bytes = r->out.total;
	res->err_bytes = r->err.total;
	res->truncated = stream_truncated(&r->out) || stream_truncated(&r->err);
	if (r->out.spill_path)
		res->spill_out = strdup(r->out.spill_path);
	if (r->err.spill_path)
		res->spill_err = strdup(r->err.spill_path);
	res->spill_stop_out = r->out.spill_stop;
	res->spill_stop_err = r->err.spill_stop;
	res->spilled_out = r->out.spilled;
	res->spilled_err = r->err.spilled;
	res->spill_errno_out = r->out.spill_errno;
	res->spill_errno_err = r->err.spill_errno;
	res->mode = r->mode;
	res->runner = r->runner ? r->runner->name : NULL;
	res->enforcement = r->runner ? r->runner->enforcement(&r->spec) : SBX_ENFORCEMENT_FULL;
	res->private_processes = r->runner && r->view.private_proc;
	/* Both, always: the sweep puts protected paths back. */
	bool refused = classify_run(r, res);
	bool reverted = sweep_protected(r, res);

	/* incomplete: a path the end could not put back, or keep to one name
	 * (the file system full): never "restored". */
	if (r->runner && r->mode == SBX_MODE_WORKSPACE_WRITE && (r->view.protect.n || r->protect.git))
		res->protected_how = r->protect.git_partial || r->protect.incomplete ? "partial"
				     : r->runner->protects_by_mounts ? "read-only"
				     : r->protect.partial	      ? "partial"
								      : "restored";
	bool failed = !res->exited || res->exit_code != 0;

	/* Calls the policy refused by seccomp (the rules' EPERM, the
	 * supervisor's EACCES) leave no runner dialect behind, often no path
	 * (a connect, a setgid bit, a nested user namespace): counted where
	 * they were refused, they make a failed run a denied one. */
	res->refused_calls = run_supervise_refusals(r);
	run_named_finish(r);
	/* Denied only if the run failed (CONTRACT section 5): a run that
	 * exited 0 did what it was asked, and an agent told "denied" would ask
	 * the user for a wider mode it does not need. What was put back after
	 * a successful run is reported by sandbox.reverted alone. */
	res->denied = (failed && reverted) || refused || (failed && res->refused_calls) ||
		      (failed && (r->named.seen ||
				  run_supervise_refusal_named(r, res->err_text, res->err_len) ||
				  run_supervise_refusal_named(r, res->out_text, res->out_len) ||
				  run_supervise_refusal_commanded(r, res->err_text, res->err_len) ||
				  run_supervise_refusal_commanded(r, res->out_text, res->out_len)));
	markers_build(markers, sizeof(markers), sbx_mode_name(r->mode), res->denied,
		      r->escalation, false);
	add_limits(r, res, markers, sizeof(markers));
	add_recovered(r, res, markers, sizeof(markers));
	res->markers = strdup(markers);
	run_discard(r);
	if (!res->out_text || !res->err_text || !res->markers || result_finish_text(res) < 0) {
		sbx_result_free(res);
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	}
	*result = res;
	return 0;
}

int sbx_run_execute(struct sbx_run *run, struct sbx_result **result, struct sbx_error *err)
{
	struct loop *loop;
	struct run_state *r;
	int rc;

	if (loop_collector_check(err) < 0)
		return -EINVAL;
	loop = loop_new(loop_prefer_poll(true));
	if (!loop)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	rc = run_start(run, loop, &r, err);
	if (rc < 0) {
		loop_free(loop);
		return rc;
	}
	while (!r->done) {
		rc = loop_wait(loop, run_next_timeout(r, run_now_ms()));
		if (rc < 0 && rc != -EINTR) {
			run_terminate(r);
			run_discard(r);
			loop_free(loop);
			return sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "event loop: %s",
					     strerror(-rc));
		}
		run_tick(r, run_now_ms());
	}
	rc = run_finish(r, result, err);
	loop_free(loop);
	/* The run's last helper may still be on its way out (reap.c): unless
	 * the caller reaps it after using the result (sbx run does, once its
	 * answer is out), it is reaped here. */
	if (!run->defer_reap)
		reap_all();
	return rc;
}

/* A running background task's output so far (serve's task_output). */
json_t *run_snapshot_json(const struct run_state *r)
{
	size_t out_len = 0, err_len = 0, clean_len;
	char *out = stream_render(&r->out, &out_len);
	char *errs = stream_render(&r->err, &err_len);
	json_t *o = json_object();

	if (out) {
		char *clean = utf8_sanitize(out, out_len, &clean_len);

		json_object_set_new(o, "stdout", clean ? json_stringn(clean, clean_len) : json_null());
		free(clean);
	}
	if (errs) {
		char *clean = utf8_sanitize(errs, err_len, &clean_len);

		json_object_set_new(o, "stderr", clean ? json_stringn(clean, clean_len) : json_null());
		free(clean);
	}
	json_object_set_new(o, "stdout_bytes", json_integer((json_int_t)r->out.total));
	json_object_set_new(o, "stderr_bytes", json_integer((json_int_t)r->err.total));
	json_object_set_new(o, "truncated",
			    json_boolean(stream_truncated(&r->out) || stream_truncated(&r->err)));
	json_object_set_new(o, "duration_ms", json_integer((json_int_t)(run_now_ms() - r->start_ms)));
	free(out);
	free(errs);
	return o;
}
