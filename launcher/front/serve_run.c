/* SPDX-License-Identifier: MIT */
/* sbx serve, protocol 2: run (foreground or background), task/output,
 * task/kill, $/cancel, and the task/settled notification. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

#define ENVELOPE 8192 /* bytes of an answer that are not output */

static void answer_error(struct rpc_server *s, json_t *id, const struct sbx_error *err)
{
	rpc_send(s, rpc_error_sbx(json_incref(id), err));
}

static struct serve_job *job_new(struct serve *sv, json_t *id, struct work_session *sess,
				 enum sbx_mode mode)
{
	struct serve_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->sv = sv;
	j->id = json_incref(id);
	j->sess = sess;
	if (id)
		sess->busy++;
	j->mode = mode;
	j->next = sv->jobs;
	sv->jobs = j;
	return j;
}

/* A foreground run keeps its session alive (closed or not) until it is
 * answered: the answer still notes its spill files there. */
static void job_free(struct serve *sv, struct serve_job *j)
{
	for (struct serve_job **p = &sv->jobs; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	if (j->id) {
		j->sess->busy--;
		work_session_reap(&sv->w);
	}
	json_decref(j->id);
	free(j);
}

static json_t *result_json(struct serve *sv, struct work_session *sess,
			   const struct sbx_result *result, size_t budget)
{
	json_t *res = result_to_json_object(result);

	work_spill_note(sess, res, sv->w.spill_dir == NULL);
	work_fit_result(res, budget);
	return res;
}

static void foreground_done(struct rpc_server *s, struct serve_job *j,
			    const struct sbx_result *result, const struct sbx_error *err)
{
	struct serve *sv = j->sv;

	if (!result) {
		answer_error(s, j->id, err);
	} else if (result->cancelled) {
		/* Why an error: the request did not complete; the result so far
		 * is in the data for a client that wants it. */
		json_t *res = result_json(sv, j->sess, result, sv->w.answer_max - ENVELOPE);

		rpc_send(s, rpc_error(json_incref(j->id), RPC_CANCELLED, "cancelled",
				      json_pack("{s:s, s:s, s:o}", "code", "CANCELLED", "detail",
						"the run was cancelled ($/cancel); its whole process "
						"tree was ended",
						"result", res)));
	} else {
		rpc_send(s, rpc_result(json_incref(j->id),
				       result_json(sv, j->sess, result,
						   sv->w.answer_max - ENVELOPE)));
	}
}

static void settle_task(struct rpc_server *s, struct serve *sv, struct work_task *task,
			enum task_status status, json_t *res, struct stream_view *out,
			struct stream_view *errv)
{
	size_t i;
	json_t *waiter;

	json_array_foreach(task->kill_waiters, i, waiter)
		rpc_send(s, rpc_result(json_incref(waiter),
				       json_pack("{s:s, s:s}", "task", task->name, "status",
						 work_task_status_name(status))));
	rpc_send(s, rpc_notification(
			    "task/settled",
			    json_pack("{s:s, s:s, s:s, s:O}", "session", task->session->name, "task",
				      task->name, "status", work_task_status_name(status), "result",
				      res)));
	work_task_settle(&sv->w, task, status, res, out, errv);
}

static void job_done(struct rpc_server *s, void *ctx, struct sbx_result *result,
		     const struct sbx_error *err, struct stream_view *out, struct stream_view *errv)
{
	struct serve_job *j = ctx;
	struct serve *sv = j->sv;

	if (!j->task) {
		foreground_done(s, j, result, err);
	} else if (!result) {
		settle_task(s, sv, j->task, TASK_RUNNER_FAILED,
			    work_runner_failed_result(j->mode, err), out, errv);
	} else {
		json_t *res = result_json(sv, j->sess, result, (sv->w.answer_max - ENVELOPE) / 2);

		settle_task(s, sv, j->task, j->task->kill_requested ? TASK_KILLED : TASK_EXITED,
			    res, out, errv);
	}
	job_free(sv, j);
}

static const struct rpc_field run_fields[] = {
	{ "session", RPC_T_STRING, true, 32 },
	{ "command", RPC_T_STRING, true, SERVE_COMMAND_MAX },
	{ "cwd", RPC_T_STRING, false, PATH_MAX - 1 },
	{ "timeout_ms", RPC_T_UINT, false, SERVE_TIMEOUT_MAX },
	{ "sandbox_permissions", RPC_T_STRING, false, 32 },
	{ "justification", RPC_T_TEXT, false, 4096 },
	{ "background", RPC_T_BOOL, false, 0 },
	{ NULL, 0, false, 0 },
};

/* A background start that failed in the runner is a task that settles at
 * once with the third marker; anything else (a bad cwd, a transient
 * shortage) is an error for the request: nothing was started. Either way
 * the request is answered once the spawner is done with it. */
static void background_started(struct rpc_server *s, void *ctx, const struct sbx_error *err)
{
	struct serve_job *j = ctx;
	struct serve *sv = j->sv;
	struct work_task *task = j->task;

	if (err && strcmp(err->code, SBX_E_SANDBOX_UNAVAILABLE) != 0) {
		work_task_drop(&sv->w, task);
		answer_error(s, j->start_id, err);
		json_decref(j->start_id);
		job_free(sv, j);
		return;
	}
	task->starting = false;
	rpc_send(s, rpc_result(j->start_id,
			       json_pack("{s:s, s:s}", "session", j->sess->name, "task", task->name)));
	j->start_id = NULL;
	if (err) {
		task->job = NULL;
		settle_task(s, sv, task, TASK_RUNNER_FAILED, work_runner_failed_result(j->mode, err),
			    NULL, NULL);
		job_free(sv, j);
	}
}

static void start_background(struct rpc_server *s, struct serve *sv, struct rpc_msg *m,
			     struct work_session *sess, struct sbx_run **run)
{
	struct sbx_error err = { 0 };
	struct work_task *task;
	struct serve_job *j;

	if (sv->w.running >= sv->w.max_background) {
		sbx_error_set(&err, EAGAIN, SBX_E_TOO_MANY,
			      "wait for a task/settled notification, or end a task with task/kill, "
			      "then send the run again (the config's max_background sets how many)",
			      "%u background task%s running (max_background); wait for one to "
			      "settle or kill one",
			      sv->w.running, sv->w.running == 1 ? " is" : "s are");
		answer_error(s, m->id, &err);
		return;
	}
	task = work_task_new(&sv->w, sess);
	j = task ? job_new(sv, NULL, sess, (*run)->mode) : NULL;
	if (!j) {
		if (task)
			work_task_drop(&sv->w, task);
		sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		answer_error(s, m->id, &err);
		return;
	}
	j->task = task;
	task->starting = true;
	j->start_id = json_incref(m->id);
	j->job = rpc_job_start_async(s, *run, true, background_started, job_done, j, &err);
	*run = NULL;
	if (!j->job) {
		work_task_drop(&sv->w, task);
		json_decref(j->start_id);
		job_free(sv, j);
		answer_error(s, m->id, &err);
		return;
	}
	task->job = j->job;
}

void serve_run(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	struct sbx_error err = { 0 };
	struct work_session *sess;
	struct sbx_run *run = NULL;
	struct serve_job *j;
	struct work_call call;

	if (rpc_params_check(m->params, run_fields, "params", &err) < 0) {
		answer_error(s, m->id, &err);
		return;
	}
	if (!(sess = serve_session_of(s, sv, m)))
		return;
	call = (struct work_call){
		.command = rpc_str(m->params, "command"),
		.cwd = rpc_str(m->params, "cwd"),
		.timeout_ms = rpc_uint(m->params, "timeout_ms", 0),
		.sandbox_permissions = rpc_str(m->params, "sandbox_permissions"),
		.justification = rpc_str(m->params, "justification"),
	};
	if (work_run_build(&sv->w, sess, &call, &run, &err) < 0) {
		answer_error(s, m->id, &err);
		return;
	}
	if (rpc_bool(m->params, "background", false)) {
		start_background(s, sv, m, sess, &run);
	} else if (!(j = job_new(sv, m->id, sess, run->mode))) {
		sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		answer_error(s, m->id, &err);
	} else {
		/* Started on the spawner thread; a failed start is answered
		 * through job_done, as an error. */
		j->job = rpc_job_start_async(s, run, false, NULL, job_done, j, &err);
		run = NULL;
		if (!j->job) {
			answer_error(s, m->id, &err);
			job_free(sv, j);
		}
	}
	sbx_run_free(run);
}

static const struct rpc_field task_fields[] = {
	{ "session", RPC_T_STRING, true, 32 },
	{ "task", RPC_T_STRING, true, 32 },
	{ "since", RPC_T_SINCE, false, 0 },
	{ NULL, 0, false, 0 },
};

/* A task is looked up through its session only: another session's task of
 * the same name is simply not there. */
static struct work_task *task_of(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	struct sbx_error err = { 0 };
	struct work_session *sess;
	struct work_task *task;
	char q[RPC_QUOTE_MAX + 4];
	const char *name;

	if (rpc_params_check(m->params, task_fields, "params", &err) < 0) {
		answer_error(s, m->id, &err);
		return NULL;
	}
	if (!(sess = serve_session_of(s, sv, m)))
		return NULL;
	name = rpc_str(m->params, "task");
	task = work_task_find(sess, name);
	if (!task) {
		sbx_error_set(&err, ENOENT, SBX_E_NOT_FOUND,
			      "name a task this session's background run answered with "
			      "(run with background: true answers {\"task\": ...}), before "
			      "session/close",
			      "no task '%s' in session %s", rpc_quote(q, name, strlen(name)),
			      sess->name);
		answer_error(s, m->id, &err);
	}
	return task;
}

void serve_task_output(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	struct work_task *task = task_of(s, sv, m);
	uint64_t since_out, since_err;
	size_t per_stream = (sv->w.answer_max - ENVELOPE) / 2 / 2 / 6;

	if (!task)
		return;
	rpc_since(m->params, "since", &since_out, &since_err);
	rpc_send(s, rpc_result(json_incref(m->id),
			       work_task_output(task, since_out, since_err, per_stream, NULL)));
}

/* task/kill answers once the tree is really gone, with the settled status. */
void serve_task_kill(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	struct work_task *task = task_of(s, sv, m);

	if (!task)
		return;
	if (task->status != TASK_RUNNING) {
		rpc_send(s, rpc_result(json_incref(m->id),
				       json_pack("{s:s, s:s}", "task", task->name, "status",
						 work_task_status_name(task->status))));
		return;
	}
	task->kill_requested = true;
	json_array_append(task->kill_waiters, m->id);
	rpc_job_end(task->job, false);
}

/* $/cancel {id}: that foreground run's tree ends now; its own answer says
 * cancelled. Unknown or finished ids are ignored, as JSON-RPC's cancel
 * races with the answer by nature. */
void serve_cancel(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	static const struct rpc_field fields[] = {
		{ "id", RPC_T_ID, true, 0 },
		{ NULL, 0, false, 0 },
	};
	struct sbx_error err = { 0 };
	json_t *id = m->params ? json_object_get(m->params, "id") : NULL;
	bool found = false;

	if (rpc_params_check(m->params, fields, "params", &err) < 0) {
		if (m->kind == RPC_REQUEST)
			answer_error(s, m->id, &err);
		return;
	}
	for (struct serve_job *j = sv->jobs; j; j = j->next)
		if (!j->task && j->job && json_equal(j->id, id)) {
			rpc_job_end(j->job, true);
			found = true;
		}
	if (m->kind == RPC_REQUEST)
		rpc_send(s, rpc_result(json_incref(m->id), json_pack("{s:b}", "cancelled", found)));
}
