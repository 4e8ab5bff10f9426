/* SPDX-License-Identifier: MIT */
/* tools/call of `sbx mcp`: bash (foreground or background), task_output and
 * task_stop, cancellation and progress. A call that arrives before the
 * workspace root is pinned waits for it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

#define ENVELOPE 8192

static const struct rpc_field call_fields[] = {
	{ "name", RPC_T_STRING, true, 64 },
	{ "arguments", RPC_T_OBJECT, false, 0 },
	{ "_meta", RPC_T_OBJECT, false, 0 },
	{ "task", RPC_T_OBJECT, false, 0 },
	{ NULL, 0, false, 0 },
};

static const struct rpc_field bash_fields[] = {
	{ "command", RPC_T_STRING, true, 256 * 1024 },
	{ "timeout_ms", RPC_T_UINT, false, 604800000ULL },
	{ "workdir", RPC_T_STRING, false, PATH_MAX - 1 },
	{ "run_in_background", RPC_T_BOOL, false, 0 },
	{ "sandbox_permissions", RPC_T_STRING, false, 32 },
	{ "justification", RPC_T_TEXT, false, 4096 },
	{ NULL, 0, false, 0 },
};

/* What the bash tool takes in a server without escalation: the tool's
 * schema there offers neither sandbox_permissions nor justification. */
static const struct rpc_field bash_fields_plain[] = {
	{ "command", RPC_T_STRING, true, 256 * 1024 },
	{ "timeout_ms", RPC_T_UINT, false, 604800000ULL },
	{ "workdir", RPC_T_STRING, false, PATH_MAX - 1 },
	{ "run_in_background", RPC_T_BOOL, false, 0 },
	{ NULL, 0, false, 0 },
};

static const struct rpc_field task_fields[] = {
	{ "task_id", RPC_T_STRING, true, 32 },
	{ "since", RPC_T_SINCE, false, 0 },
	{ NULL, 0, false, 0 },
};

static struct mcp_call *call_new(struct mcp *mc, json_t *id, json_t *params)
{
	struct mcp_call *c = calloc(1, sizeof(*c));
	json_t *meta = json_object_get(params, "_meta");
	json_t *token = meta ? json_object_get(meta, "progressToken") : NULL;

	if (!c)
		return NULL;
	c->mc = mc;
	c->id = json_incref(id);
	if (json_is_string(token) || json_is_integer(token))
		c->progress_token = json_incref(token);
	c->next = mc->calls;
	mc->calls = c;
	return c;
}

static void call_free(struct mcp *mc, struct mcp_call *c)
{
	for (struct mcp_call **p = &mc->calls; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	json_decref(c->id);
	json_decref(c->params);
	json_decref(c->progress_token);
	free(c);
}

/* Answer a call (unless it was cancelled: then, as MCP asks, nothing). */
static void answer(struct rpc_server *s, struct mcp_call *c, json_t *result)
{
	if (!c->cancelled && result)
		rpc_send(s, rpc_result(json_incref(c->id), result));
	else
		json_decref(result);
	call_free(c->mc, c);
}

static void answer_protocol_error(struct rpc_server *s, struct mcp_call *c,
				  const struct sbx_error *err)
{
	if (!c->cancelled)
		rpc_send(s, rpc_error_sbx(json_incref(c->id), err));
	call_free(c->mc, c);
}

static void settle_task(struct rpc_server *s, struct mcp *mc, struct work_task *task,
			enum task_status status, json_t *res, struct stream_view *out,
			struct stream_view *errv)
{
	/* task_stop calls waiting for this task get its settled status. */
	for (struct mcp_call *c = mc->calls, *next; c; c = next) {
		next = c->next;
		if (c->task == task)
			answer(s, c, json_pack("{s:[{s:s, s:s}], s:{s:s, s:s}, s:b}", "content",
					       "type", "text", "text", "stopped",
					       "structuredContent", "task_id", task->name, "status",
					       work_task_status_name(status), "isError", 0));
	}
	work_task_settle(&mc->w, task, status, res, out, errv);
}

static void foreground_done(struct rpc_server *s, void *ctx, struct sbx_result *result,
			    const struct sbx_error *err, struct stream_view *out,
			    struct stream_view *errv)
{
	struct mcp_call *c = ctx;
	struct mcp *mc = c->mc;

	(void)out;
	(void)errv;
	if (result) {
		json_t *res = result_to_json_object(result);

		work_spill_note(mc->sess, res, mc->w.spill_dir == NULL);
		json_decref(res);
	}
	answer(s, c, result ? mcp_tool_result(result, (mc->w.answer_max - ENVELOPE) / 2)
			    : mcp_tool_error(err));
	/* The call kept the session alive (see call_bash). */
	mc->sess->busy--;
	work_session_reap(&mc->w);
}

struct task_ctx {
	struct mcp *mc;
	struct work_task *task;
	enum sbx_mode mode;
};

static void background_done(struct rpc_server *s, void *ctx, struct sbx_result *result,
			    const struct sbx_error *err, struct stream_view *out,
			    struct stream_view *errv)
{
	struct task_ctx *t = ctx;
	json_t *res;

	if (result) {
		res = result_to_json_object(result);
		work_spill_note(t->task->session, res, t->mc->w.spill_dir == NULL);
		work_fit_result(res, (t->mc->w.answer_max - ENVELOPE) / 2);
		settle_task(s, t->mc, t->task, t->task->kill_requested ? TASK_KILLED : TASK_EXITED,
			    res, out, errv);
	} else {
		settle_task(s, t->mc, t->task, TASK_RUNNER_FAILED,
			    work_runner_failed_result(t->mode, err), out, errv);
	}
	free(t);
}

static void start_background(struct rpc_server *s, struct mcp *mc, struct mcp_call *c,
			     struct sbx_run *run)
{
	struct sbx_error err = { 0 };
	struct task_ctx *t;
	struct work_task *task;

	if (mc->w.running >= mc->w.max_background) {
		sbx_error_set(&err, EAGAIN, SBX_E_TOO_MANY, NULL,
			      "%u background task(s) running (max_background); stop one with "
			      "task_stop first",
			      mc->w.running);
		answer(s, c, mcp_tool_error(&err));
		return;
	}
	t = calloc(1, sizeof(*t));
	task = t ? work_task_new(&mc->w, mc->sess) : NULL;
	if (!task) {
		free(t);
		sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		answer(s, c, mcp_tool_error(&err));
		return;
	}
	*t = (struct task_ctx){ .mc = mc, .task = task, .mode = run->mode };
	task->job = rpc_job_start(s, run, true, background_done, t, &err);
	if (!task->job) {
		work_task_drop(&mc->w, task);
		free(t);
		answer(s, c, mcp_tool_error(&err));
		return;
	}
	answer(s, c, mcp_tool_started(task));
}

static void call_bash(struct rpc_server *s, struct mcp *mc, struct mcp_call *c, json_t *args)
{
	struct sbx_error err = { 0 };
	struct sbx_run *run = NULL;
	struct work_call call;

	bool escalation = mc->sess->escalation;

	/* Asked of a server that offers none: the fix is how it is started. */
	if (!escalation && json_is_object(args) && json_object_get(args, "sandbox_permissions")) {
		sbx_error_set(&err, EPERM, SBX_E_BAD_REQUEST, mc->w.escalation_fix,
			      "sandbox_permissions: this server offers no escalation (%s)",
			      mc->w.escalation_fix);
		answer_protocol_error(s, c, &err);
		return;
	}
	if (rpc_params_check(args, escalation ? bash_fields : bash_fields_plain, "arguments",
			     &err) < 0) {
		answer_protocol_error(s, c, &err);
		return;
	}
	call = (struct work_call){
		.command = rpc_str(args, "command"),
		.cwd = rpc_str(args, "workdir"),
		.timeout_ms = rpc_uint(args, "timeout_ms", 0),
		.sandbox_permissions = rpc_str(args, "sandbox_permissions"),
		.justification = rpc_str(args, "justification"),
	};
	if (work_run_build(&mc->w, mc->sess, &call, &run, &err) < 0) {
		if (strcmp(err.code, SBX_E_BAD_REQUEST) == 0)
			answer_protocol_error(s, c, &err);
		else
			answer(s, c, mcp_tool_error(&err));
		return;
	}
	if (rpc_bool(args, "run_in_background", false)) {
		start_background(s, mc, c, run);
	} else {
		c->job = rpc_job_start(s, run, false, foreground_done, c, &err);
		/* SANDBOX_UNAVAILABLE and the like are tool results the model
		 * reads, not protocol errors. */
		if (!c->job) {
			answer(s, c, mcp_tool_error(&err));
		} else {
			mc->sess->busy++;
			if (c->progress_token)
				c->next_progress_ms = 1; /* at once */
		}
	}
	sbx_run_free(run);
}

static struct work_task *task_arg(struct rpc_server *s, struct mcp *mc, struct mcp_call *c,
				  json_t *args)
{
	struct sbx_error err = { 0 };
	struct work_task *task;
	const char *name;
	char q[RPC_QUOTE_MAX + 4];

	if (rpc_params_check(args, task_fields, "arguments", &err) < 0) {
		answer_protocol_error(s, c, &err);
		return NULL;
	}
	name = rpc_str(args, "task_id");
	task = work_task_find(mc->sess, name);
	if (!task) {
		sbx_error_set(&err, ENOENT, SBX_E_NOT_FOUND,
			      "use a task_id a bash call with run_in_background answered with",
			      "no task '%s'", rpc_quote(q, name, strlen(name)));
		answer(s, c, mcp_tool_error(&err));
	}
	return task;
}

static void call_task_output(struct rpc_server *s, struct mcp *mc, struct mcp_call *c,
			     json_t *args)
{
	struct work_task *task = task_arg(s, mc, c, args);
	uint64_t since_out, since_err;
	struct work_omitted om;

	if (!task)
		return;
	rpc_since(args, "since", &since_out, &since_err);
	/* The new bytes appear twice (content and structuredContent), each
	 * possibly escaped to six bytes per byte, next to the settled result. */
	answer(s, c,
	       mcp_tool_task_output(work_task_output(task, since_out, since_err,
						     (mc->w.answer_max - ENVELOPE) / 2 / 2 / 2 / 6,
						     &om),
				    &om));
}

static void call_task_stop(struct rpc_server *s, struct mcp *mc, struct mcp_call *c,
			   json_t *args)
{
	struct work_task *task = task_arg(s, mc, c, args);

	if (!task)
		return;
	if (task->status != TASK_RUNNING) {
		answer(s, c, json_pack("{s:[{s:s, s:s}], s:{s:s, s:s}, s:b}", "content", "type",
				       "text", "text", work_task_status_name(task->status),
				       "structuredContent", "task_id", task->name, "status",
				       work_task_status_name(task->status), "isError", 0));
		return;
	}
	c->task = task;
	task->kill_requested = true;
	rpc_job_end(task->job, false);
}

static void dispatch(struct rpc_server *s, struct mcp *mc, struct mcp_call *c)
{
	const char *name = json_string_value(json_object_get(c->params, "name"));
	json_t *args = json_object_get(c->params, "arguments");
	struct sbx_error err = { 0 };
	char q[RPC_QUOTE_MAX + 4];

	if (!mc->sess) {
		answer(s, c, mcp_tool_error(&mc->root_err));
		return;
	}
	if (strcmp(name, "bash") == 0)
		call_bash(s, mc, c, args);
	else if (strcmp(name, "task_output") == 0)
		call_task_output(s, mc, c, args);
	else if (strcmp(name, "task_stop") == 0)
		call_task_stop(s, mc, c, args);
	else {
		sbx_error_set(&err, EINVAL, SBX_E_BAD_REQUEST,
			      "tools/list names the tools: bash, task_output, task_stop",
			      "unknown tool '%s'", rpc_quote(q, name, strlen(name)));
		answer_protocol_error(s, c, &err);
	}
}

void mcp_call_start(struct rpc_server *s, struct mcp *mc, json_t *id, json_t *params)
{
	struct sbx_error err = { 0 };
	struct mcp_call *c;

	if (rpc_params_check(params, call_fields, "params", &err) < 0) {
		rpc_send(s, rpc_error_sbx(json_incref(id), &err));
		return;
	}
	c = call_new(mc, id, params);
	if (!c) {
		sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		rpc_send(s, rpc_error_sbx(json_incref(id), &err));
		return;
	}
	c->params = json_incref(params);
	if (!mc->root_tried)
		return; /* waits for the root (mcp_calls_release) */
	dispatch(s, mc, c);
}

void mcp_calls_release(struct rpc_server *s, struct mcp *mc)
{
	struct mcp_call *waiting[64];
	size_t n;

	/* Each dispatched call is answered (and freed) or started: repeat
	 * until none waits. Oldest first within a batch: the list is newest
	 * first. */
	do {
		n = 0;
		for (struct mcp_call *c = mc->calls; c && n < 64; c = c->next)
			if (!c->job && !c->task)
				waiting[n++] = c;
		for (size_t i = n; i > 0; i--)
			dispatch(s, mc, waiting[i - 1]);
	} while (n == 64);
}

/* notifications/cancelled: the call's process tree ends at once, and the
 * call gets no answer. A task_stop or an unknown id: nothing to end. */
void mcp_call_cancel(struct rpc_server *s, struct mcp *mc, const json_t *request_id)
{
	(void)s;
	for (struct mcp_call *c = mc->calls, *next; c; c = next) {
		next = c->next;
		if (!json_equal(c->id, (json_t *)request_id))
			continue;
		c->cancelled = true;
		if (c->job)
			rpc_job_end(c->job, true);
		else if (!c->task)
			call_free(mc, c); /* still waiting for the root */
	}
}

void mcp_calls_progress(struct rpc_server *s, struct mcp *mc, uint64_t now, int *timeout_ms)
{
	for (struct mcp_call *c = mc->calls; c; c = c->next) {
		uint64_t ms;
		char msg[96];

		if (!c->job || !c->progress_token || c->cancelled)
			continue;
		if (now >= c->next_progress_ms) {
			ms = rpc_job_elapsed_ms(c->job);
			snprintf(msg, sizeof(msg), "running for %llu s",
				 (unsigned long long)(ms / 1000));
			rpc_send(s, rpc_notification(
					    "notifications/progress",
					    json_pack("{s:O, s:I, s:s}", "progressToken",
						      c->progress_token, "progress",
						      (json_int_t)ms, "message", msg)));
			c->next_progress_ms = now + MCP_PROGRESS_MS;
		}
		if (*timeout_ms < 0 || c->next_progress_ms - now < (uint64_t)*timeout_ms)
			*timeout_ms = (int)(c->next_progress_ms - now);
	}
}
