/* SPDX-License-Identifier: MIT */
/* sbx serve, protocol 2: initialize, session/open, session/close, schema;
 * the runs are in serve_run.c. Every answer is a JSON-RPC result or error;
 * sbx's own error code is in error.data.code. */
#include <errno.h>
#include <string.h>

#include "probe.h"
#include "serve.h"

static void answer_error(struct rpc_server *s, struct rpc_msg *m, const struct sbx_error *err)
{
	rpc_send(s, rpc_error_sbx(json_incref(m->id), err));
}

static bool params_ok(struct rpc_server *s, struct rpc_msg *m, const struct rpc_field *fields)
{
	struct sbx_error err = { 0 };

	if (rpc_params_check(m->params, fields, "params", &err) == 0)
		return true;
	answer_error(s, m, &err);
	return false;
}

static void m_initialize(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	static const struct rpc_field fields[] = {
		{ "client", RPC_T_ANY, false, 0 },
		{ NULL, 0, false, 0 },
	};
	const struct sbx_config *cfg = sv->w.cfg;
	const json_t *facts;

	if (!params_ok(s, m, fields))
		return;
	facts = work_facts(&sv->w);
	rpc_send(s, rpc_result(json_incref(m->id),
			       json_pack("{s:s, s:i, s:o, s:s, s:b, s:b, s:i, s:I, s:I, s:O}",
					 "sbx_version", sbx_version(), "protocol", SERVE_PROTOCOL,
					 "runners", probe_usable_runners(facts), "mode",
					 sbx_mode_name(cfg->has_mode ? cfg->mode
								     : SBX_MODE_READ_ONLY),
					 "escalation_allowed",
					 !(cfg->has_escalation && !cfg->escalation),
					 "escalation_default",
					 cfg->has_escalation && cfg->escalation,
					 "max_background", (int)sv->w.max_background, "line_max",
					 (json_int_t)sv->w.line_max, "answer_max", (json_int_t)sv->w.answer_max,
					 "probe", facts)));
}

static void m_session_open(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	static const struct rpc_field fields[] = {
		{ "root", RPC_T_STRING, true, PATH_MAX - 1 },
		{ "mode", RPC_T_STRING, false, 32 },
		{ "escalation", RPC_T_BOOL, false, 0 },
		{ "cwd", RPC_T_STRING, false, PATH_MAX - 1 },
		{ NULL, 0, false, 0 },
	};
	struct sbx_error err = { 0 };
	struct work_session *sess;
	const char *mode_name;
	enum sbx_mode mode = SBX_MODE_READ_ONLY;
	json_t *esc;

	if (!params_ok(s, m, fields))
		return;
	mode_name = rpc_str(m->params, "mode");
	if (mode_name && sbx_mode_parse(mode_name, &mode) < 0) {
		sbx_error_set(&err, EINVAL, SBX_E_BAD_REQUEST,
			      "send mode as read-only, workspace-write or danger-full-access, or "
			      "leave it out for the config's mode",
			      "mode must be read-only, workspace-write or danger-full-access");
		answer_error(s, m, &err);
		return;
	}
	esc = json_object_get(m->params, "escalation");
	if (work_session_open(&sv->w, rpc_str(m->params, "root"), mode_name != NULL, mode,
			      esc != NULL, json_is_true(esc), rpc_str(m->params, "cwd"), &sess,
			      &err) < 0) {
		answer_error(s, m, &err);
		return;
	}
	rpc_send(s, rpc_result(json_incref(m->id),
			       json_pack("{s:s, s:s, s:s, s:b}", "session", sess->name, "root",
					 sess->root, "mode", sbx_mode_name(sess->mode),
					 "escalation", sess->escalation)));
}

static void m_session_close(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	static const struct rpc_field fields[] = {
		{ "session", RPC_T_STRING, true, 32 },
		{ NULL, 0, false, 0 },
	};
	struct work_session *sess;
	json_t *answer;

	if (!params_ok(s, m, fields) || !(sess = serve_session_of(s, sv, m)))
		return;
	answer = json_pack("{s:s, s:b}", "session", sess->name, "closed", 1);
	work_session_close(&sv->w, sess);
	rpc_send(s, rpc_result(json_incref(m->id), answer));
}

static void m_schema(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	static const struct rpc_field fields[] = {
		{ "session", RPC_T_STRING, true, 32 },
		{ NULL, 0, false, 0 },
	};
	struct work_session *sess;

	if (!params_ok(s, m, fields) || !(sess = serve_session_of(s, sv, m)))
		return;
	rpc_send(s, rpc_result(json_incref(m->id),
			       json_pack("{s:o}", "schema", work_bash_schema(sess))));
}

struct method {
	const char *name;
	void (*fn)(struct rpc_server *s, struct serve *sv, struct rpc_msg *m);
};

static const struct method methods[] = {
	{ "initialize", m_initialize },
	{ "session/open", m_session_open },
	{ "session/close", m_session_close },
	{ "run", serve_run },
	{ "task/output", serve_task_output },
	{ "task/kill", serve_task_kill },
	{ "schema", m_schema },
	{ NULL, NULL },
};

static void on_message(struct rpc_server *s, void *ctx, struct rpc_msg *m)
{
	struct serve *sv = ctx;
	char q[RPC_QUOTE_MAX + 4];

	sv->w.srv = s;
	if (strcmp(m->method, "$/cancel") == 0) {
		serve_cancel(s, sv, m);
		return;
	}
	if (m->kind != RPC_REQUEST)
		return; /* notifications we do not know, and responses: nothing to say */
	for (const struct method *me = methods; me->name; me++) {
		if (strcmp(me->name, m->method) == 0) {
			me->fn(s, sv, m);
			return;
		}
	}
	rpc_send(s, rpc_error(json_incref(m->id), RPC_METHOD_NOT_FOUND, "method not found",
			      json_pack("{s:s, s:s}", "code", SBX_E_BAD_REQUEST, "detail",
					rpc_quote(q, m->method, strlen(m->method)))));
}

/* End of input: background tasks end (each settles with a notification);
 * foreground runs go on and are answered. */
static void on_eof(struct rpc_server *s, void *ctx)
{
	struct serve *sv = ctx;

	sv->w.srv = s;
	work_close_all(&sv->w);
}

static void on_tick(struct rpc_server *s, void *ctx, uint64_t now_ms, int *timeout_ms)
{
	struct serve *sv = ctx;

	(void)s;
	work_spill_sweep(&sv->w, now_ms, timeout_ms);
}

int serve_main(const struct sbx_config *cfg, const struct serve_opts *o, int in_fd, int out_fd,
	       int cancel_fd, struct sbx_error *err)
{
	struct serve sv = { 0 };
	struct rpc_vocab v = { .ctx = &sv, .on_message = on_message, .on_eof = on_eof,
			       .on_tick = on_tick };
	struct rpc_server_opts ro = { .in_fd = in_fd, .out_fd = out_fd, .cancel_fd = cancel_fd,
				      .line_max = o->line_max };
	int rc;

	work_init(&sv.w, cfg);
	if (o->answer_max)
		sv.w.answer_max = o->answer_max;
	sv.w.line_max = o->line_max ? o->line_max : RPC_LINE_MAX_DEFAULT;
	sv.w.spill_dir = o->spill_dir;
	sv.w.spill_max_age_ms = o->spill_max_age_ms;
	rc = rpc_server_run(&ro, &v, err);
	work_free(&sv.w);
	return rc;
}
