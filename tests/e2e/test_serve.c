/* SPDX-License-Identifier: MIT */
/* End-to-end tests of `sbx serve`, protocol 2 (CONTRACT section 7): a real
 * serve child driven over pipes, as the caller and as nobody. Effects are
 * checked from outside: files on disk, processes in /proc, the lines on
 * stdout. The attack cases of issue 15 are in test_serve_attacks.c. */
#include "serve_client.h"

/* ---- 1. many overlapping runs, two sessions, one serve ---- */

#define N_RUNS 60

ParameterizedTestParameters(serve, two_sessions_overlap)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, two_sessions_overlap, .timeout = 240)
{
	char *r1 = e2e_tmpdir(*who); /* workspace-write */
	char *r2 = e2e_tmpdir(*who); /* read-only */
	struct srv s;
	srv_start(&s, *who, NULL);
	const char *s1 = open_session(&s, 1, r1, "workspace-write");
	const char *s2 = open_session(&s, 2, r2, "read-only");

	/* Every request is written before any answer is read. */
	for (int id = 100; id < 100 + N_RUNS; id++) {
		bool in_r1 = id % 2;
		const char *own = in_r1 ? r1 : r2, *other = in_r1 ? r2 : r1;
		char *cmd = e2e_fmt("%secho %d > %s/f%d; echo %d > %s/x%d",
				    id % 3 == 0 ? "sleep 0.05; " : "", id, own, id, id, other, id);
		rpc_send(&s, id, "run", run_params(in_r1 ? s1 : s2, cmd));
		free(cmd);
	}
	for (int id = 100; id < 100 + N_RUNS; id++) {
		bool in_r1 = id % 2;
		json_t *a = srv_wait(&s, id, 120000);
		json_t *res = result_of(a);
		const char *mode = in_r1 ? "workspace-write" : "read-only";
		char marker[128];
		snprintf(marker, sizeof(marker), DENIED_FMT, mode);
		cr_assert_str_eq(str_at(json_object_get(res, "sandbox"), "mode"), mode, "id %d", id);
		cr_assert(denied(res) && has_marker(res, marker), "id %d lacks '%s'", id, marker);
		cr_assert(strstr(str_at(res, "text"), marker), "id %d: marker not in text", id);
		cr_assert_eq(exit_code(res), 1, "id %d", id);
	}
	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 10000), 0, "serve did not exit 0 at EOF");
	cr_assert_eq(json_array_size(s.answers), (size_t)N_RUNS + 2, "answers: %zu",
		     json_array_size(s.answers));
	for (int id = 100; id < 100 + N_RUNS; id++) {
		char *p = e2e_fmt("%s/f%d", r1, id);
		cr_assert_eq(e2e_exists(p), (bool)(id % 2), "%s", p);
		free(p);
	}
	cr_assert_eq(count_entries(r1), (size_t)(N_RUNS / 2), "R1 has extra entries");
	cr_assert_eq(count_entries(r2), 0, "R2 (read-only, and R1's neighbour) was written");
	srv_stop(&s);
	free(r1);
	free(r2);
}

/* ---- 2. escalation is the session's, under the deployment's ceiling ---- */

ParameterizedTestParameters(serve, escalation)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, escalation, .timeout = 120)
{
	char *root = e2e_tmpdir(*who);
	char *outside = e2e_tmpdir(AS_NOBODY);
	struct srv s;
	srv_start(&s, *who, NULL);
	const char *plain = open_session(&s, 1, root, "read-only");
	const char *esc = open_session_esc(&s, 2, root, "read-only", 1);
	char *cmd = e2e_fmt("echo a > %s/plain", root);

	/* without escalation: denied, no escalation marker, and asking for it
	 * is refused before anything runs */
	json_t *res = run_ok(&s, 3, plain, cmd);
	cr_assert(denied(res) && json_array_size(json_object_get(res, "markers")) == 1);
	json_t *p = run_params(plain, cmd);
	json_object_set_new(p, "sandbox_permissions", json_string("workspace-write"));
	assert_error(rpc_call(&s, 4, "run", p), "BAD_REQUEST");
	char *path = e2e_fmt("%s/plain", root);
	cr_assert(!e2e_exists(path));

	/* with escalation: the denial offers it, and an approved one runs */
	res = run_ok(&s, 5, esc, cmd);
	cr_assert(denied(res) && json_array_size(json_object_get(res, "markers")) == 2);
	p = run_params(esc, cmd);
	json_object_set_new(p, "sandbox_permissions", json_string("workspace-write"));
	json_object_set_new(p, "justification", json_string("write plain"));
	res = result_of(rpc_call(&s, 6, "run", p));
	cr_assert_eq(exit_code(res), 0);
	cr_assert(e2e_exists(path), "the approved escalation did not write");
	/* workspace-write escalation still cannot write outside the root */
	char *out_cmd = e2e_fmt("echo w > %s/ww_out", outside);
	p = run_params(esc, out_cmd);
	json_object_set_new(p, "sandbox_permissions", json_string("workspace-write"));
	cr_assert(denied(result_of(rpc_call(&s, 7, "run", p))));
	/* a sandbox_permissions outside its enum is a bad param (-32602, as
	 * the protocol's table says), not a refusal of sbx's, and nothing runs */
	char *bad_cmd = e2e_fmt("echo b > %s/bad_perm", root);
	p = run_params(esc, bad_cmd);
	json_object_set_new(p, "sandbox_permissions", json_string("read-only"));
	json_object_set_new(p, "justification", json_string("why"));
	json_t *e = assert_error(rpc_call(&s, 12, "run", p), "BAD_REQUEST");
	cr_assert_eq(json_integer_value(json_object_get(e, "code")), -32602);
	char *bad_path = e2e_fmt("%s/bad_perm", root);
	cr_assert(!e2e_exists(bad_path));
	free(bad_path);
	free(bad_cmd);
	/* justification alone is refused */
	p = run_params(esc, "true");
	json_object_set_new(p, "justification", json_string("why"));
	assert_error(rpc_call(&s, 8, "run", p), "BAD_REQUEST");
	/* danger-full-access writes outside, cwd is still the root */
	char *dfa = e2e_fmt("echo d > %s/esc_dfa && pwd", outside);
	p = run_params(esc, dfa);
	json_object_set_new(p, "sandbox_permissions", json_string("danger-full-access"));
	res = result_of(rpc_call(&s, 9, "run", p));
	char *want = e2e_fmt("%s\n", root);
	cr_assert_str_eq(str_at(res, "stdout"), want);
	json_t *want_sb = json_pack("{s:s, s:b}", "mode", "danger-full-access", "denied", 0);
	cr_assert(json_equal(json_object_get(res, "sandbox"), want_sb));
	json_decref(want_sb);
	/* the schema follows the session */
	json_t *props = json_object_get(json_object_get(
		result_of(rpc_call(&s, 10, "schema", json_pack("{s:s}", "session", esc))), "schema"),
		"properties");
	cr_assert_not_null(json_object_get(props, "sandbox_permissions"));
	props = json_object_get(json_object_get(
		result_of(rpc_call(&s, 11, "schema", json_pack("{s:s}", "session", plain))), "schema"),
		"properties");
	cr_assert_null(json_object_get(props, "sandbox_permissions"));
	cr_assert_not_null(json_object_get(props, "command"));
	cr_assert_not_null(json_object_get(props, "workdir"));
	cr_assert_not_null(json_object_get(props, "run_in_background"));
	srv_stop(&s);
	free(want);
	free(dfa);
	free(out_cmd);
	free(path);
	free(cmd);
	free(root);
	free(outside);
}

/* ---- 3. bad input ---- */

Test(serve, bad_input, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	struct srv s;
	const char *extra[] = { "--max-line", "8192", NULL };
	srv_start_full(&s, AS_CALLER, NULL, NULL, extra);
	const char *sess = open_session(&s, 1, root, "read-only");
	struct {
		const char *line;
		long long id;     /* -1: null */
		int code;
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":", -1, -32700 },
		{ "[1,2,3]", -1, -32600 },
		{ "{\"id\":3,\"method\":\"initialize\"}", 3, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"frobnicate\"}", 4, -32601 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"run\",\"params\":[1]}", 5, -32602 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"run\",\"params\":{\"session\":\"s1\"}}", 6, -32602 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"run\",\"params\":{\"session\":\"s1\",\"command\":\"true\",\"colour\":1}}", 7, -32602 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"run\",\"params\":{\"session\":\"s1\",\"command\":\"a\\u0000b\"}}", 8, -32602 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"run\",\"params\":{\"session\":\"s1\",\"command\":\"true\",\"timeout_ms\":\"5\"}}", 9, -32602 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"schema\"}", -1, -32600 },
		/* valid JSON that is no object: Invalid Request, not Parse error */
		{ "42", -1, -32600 },
		{ "\"initialize\"", -1, -32600 },
		{ "null", -1, -32600 },
		{ " true ", -1, -32600 },
		{ "[]", -1, -32600 },
		{ "4 2", -1, -32700 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"run\",\"params\":{\"session\":\"s99\",\"command\":\"true\"}}", 10, -32000 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		srv_send_raw(&s, cases[k].line, strlen(cases[k].line));
		srv_send_raw(&s, "\n", 1);
		json_t *a = srv_wait(&s, cases[k].id, ANSWER_TIMEOUT_MS);
		json_t *e = json_object_get(a, "error");
		char *text = json_dumps(a, JSON_COMPACT);
		cr_assert(e, "case %zu: no error: %s", k, text);
		cr_assert_eq(json_integer_value(json_object_get(e, "code")), cases[k].code,
			     "case %zu: %s", k, text);
		/* Every refusal says how to fix it (the detail was empty). */
		const char *detail =
			json_string_value(json_object_get(json_object_get(e, "data"), "detail"));
		cr_assert(detail && *detail, "case %zu: no detail: %s", k, text);
		free(text);
	}
	/* a line past --max-line is refused unread, and the server goes on */
	char *big = malloc(20000);
	memset(big, 'A', 20000);
	srv_send_raw(&s, big, 20000);
	srv_send_raw(&s, "\n", 1);
	free(big);
	json_t *longer = assert_error(srv_wait(&s, -1, ANSWER_TIMEOUT_MS), "BAD_REQUEST");
	const char *how = json_string_value(json_object_get(json_object_get(longer, "data"), "detail"));

	/* -32600 (protocol.md), with a detail naming the fix (new-user pass
	 * 8, finding 1: -32602 and none) */
	cr_assert_eq(json_integer_value(json_object_get(longer, "code")), -32600);
	cr_assert(how && strstr(how, "--max-line"), "no detail: %s", how ? how : "(none)");
	cr_assert_str_eq(str_at(run_ok(&s, 11, sess, "echo ok"), "stdout"), "ok\n");
	/* a notification of an unknown method gets no answer at all */
	rpc_notify(&s, "nothing/here", json_object());
	cr_assert_str_eq(str_at(run_ok(&s, 12, sess, "echo ok"), "stdout"), "ok\n");
	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 10000), 0);
	cr_assert_eq(json_array_size(s.answers), 1 + 17 + 1 + 2, "an answer too many or few");
	srv_stop(&s);
	free(root);
}

/* Every refusal of a well-formed request says how to fix it in data.detail
 * (protocol.md, Messages): these said nothing there. Each names the fix. */
Test(serve, refusals_say_how_to_fix, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	char *cfg = write_config("escalation = false\n");
	struct srv s;
	srv_start(&s, AS_CALLER, cfg);
	const char *sess = open_session(&s, 1, root, "read-only");
	struct {
		const char *method;
		json_t *params;
		const char *code;
		const char *fix; /* a phrase of the detail */
	} cases[] = {
		{ "run", json_pack("{s:s, s:s, s:s}", "session", sess, "command", "true",
				   "justification", "why"),
		  "BAD_REQUEST", "sandbox_permissions" },
		{ "task/output", json_pack("{s:s, s:s}", "session", sess, "task", "t99"),
		  "NOT_FOUND", "background" },
		{ "task/kill", json_pack("{s:s, s:s}", "session", sess, "task", "t99"),
		  "NOT_FOUND", "background" },
		{ "session/open", json_pack("{s:s}", "root", "relative"), "BAD_REQUEST", "absolute" },
		{ "session/open", json_pack("{s:s, s:b}", "root", root, "escalation", 1),
		  "BAD_REQUEST", "escalation" },
		{ "session/open", json_pack("{s:s, s:s}", "root", root, "mode", "write"),
		  "BAD_REQUEST", "workspace-write" },
		{ "session/open", json_pack("{s:s, s:s}", "root", "/", "mode", "workspace-write"),
		  "USAGE", "danger-full-access" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		json_t *e = assert_error(rpc_call(&s, 10 + (long long)k, cases[k].method,
						  cases[k].params), cases[k].code);
		char *text = json_dumps(e, JSON_COMPACT);
		const char *detail = str_at(json_object_get(e, "data"), "detail");

		cr_assert(detail && *detail, "case %zu (%s): no detail: %s", k, cases[k].method,
			  text);
		cr_assert(strstr(detail, cases[k].fix), "case %zu (%s): the detail does not say "
			  "how to fix it (%s): %s", k, cases[k].method, cases[k].fix, text);
		free(text);
	}
	srv_stop(&s);
	free(cfg);
	free(root);
}

/* ---- 4. initialize, version, schema ---- */

Test(serve, initialize, .timeout = 60)
{
	struct srv s;
	char *cfg = write_config("mode = workspace-write\nescalation = false\nmax_background = 3\n");
	srv_start(&s, AS_CALLER, cfg);
	json_t *res = result_of(rpc_call(&s, 1, "initialize", json_pack("{s:{s:s}}", "client", "name", "t")));
	char *version = e2e_read_file("VERSION");
	cr_assert_not_null(version);
	version[strcspn(version, "\n")] = '\0';
	cr_assert_str_eq(str_at(res, "sbx_version"), version);
	cr_assert_eq(json_integer_value(json_object_get(res, "protocol")), 2);
	cr_assert_str_eq(str_at(res, "mode"), "workspace-write");
	cr_assert(json_is_false(json_object_get(res, "escalation_allowed")));
	cr_assert_eq(json_integer_value(json_object_get(res, "max_background")), 3);
	cr_assert_eq(json_integer_value(json_object_get(res, "answer_max")), 262144);
	cr_assert(json_array_size(json_object_get(res, "runners")) >= 1);
	cr_assert(json_is_object(json_object_get(res, "probe")));
	srv_stop(&s);
	free(version);
	free(cfg);
}

/* ---- 5. background tasks: per session, since offsets, notifications ---- */

ParameterizedTestParameters(serve, background_lifecycle)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, background_lifecycle, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	struct srv s;
	srv_start(&s, *who, NULL);
	const char *a = open_session(&s, 1, root, "workspace-write");
	const char *b = open_session(&s, 2, root, "read-only");
	long long id = 3;
	char m1[64], cmd[256];

	snprintf(m1, sizeof(m1), "sleep 30.%u", marker_seq());
	snprintf(cmd, sizeof(cmd), "echo one; %s", m1);
	const char *t1 = start_bg(&s, id++, a, cmd);
	wait_proc(m1);
	/* the task belongs to session a: b gets an error for it, and cannot kill it */
	assert_error(rpc_call(&s, id++, "task/output", task_params(b, t1)), "NOT_FOUND");
	assert_error(rpc_call(&s, id++, "task/kill", task_params(b, t1)), "NOT_FOUND");
	cr_assert(proc_with(m1), "another session's task/kill ended the task");
	/* output so far, then only what is new after `since` */
	long long deadline = now_ms() + 20000;
	json_t *out;
	for (;;) {
		out = result_of(rpc_call(&s, id++, "task/output", task_params(a, t1)));
		if (str_at(out, "stdout") && strcmp(str_at(out, "stdout"), "one\n") == 0)
			break;
		cr_assert(now_ms() < deadline, "the task's output never showed");
		usleep(50 * 1000);
	}
	cr_assert_str_eq(str_at(out, "status"), "running");
	json_t *next = json_deep_copy(json_object_get(out, "next"));
	cr_assert_eq(json_integer_value(json_object_get(next, "stdout")), 4);
	json_t *p = task_params(a, t1);
	json_object_set_new(p, "since", next);
	out = result_of(rpc_call(&s, id++, "task/output", p));
	cr_assert_str_eq(str_at(out, "stdout"), "");
	p = task_params(a, t1);
	json_object_set_new(p, "since", json_integer(2));
	cr_assert_str_eq(str_at(result_of(rpc_call(&s, id++, "task/output", p)), "stdout"), "e\n");
	/* kill answers once the tree is gone; a notification says it settled */
	json_t *k = result_of(rpc_call(&s, id++, "task/kill", task_params(a, t1)));
	cr_assert_str_eq(str_at(k, "status"), "killed");
	cr_assert(!proc_with(m1), "'%s' still runs after kill answered", m1);
	json_t *n = wait_settled(&s, t1);
	cr_assert_str_eq(str_at(n, "status"), "killed");
	cr_assert_str_eq(str_at(n, "session"), a);
	/* an ordinary task settles as exited, with a notification and its result */
	const char *t2 = start_bg(&s, id++, b, "echo hi; exit 3");
	cr_assert_str_eq(t2, "t1", "task names are per session");
	n = wait_settled(&s, t2);
	cr_assert_str_eq(str_at(n, "status"), "exited");
	cr_assert_eq(exit_code(json_object_get(n, "result")), 3);
	out = result_of(rpc_call(&s, id++, "task/output", task_params(b, t2)));
	cr_assert_str_eq(str_at(out, "status"), "exited");
	cr_assert_str_eq(str_at(out, "stdout"), "hi\n");
	cr_assert_eq(exit_code(json_object_get(out, "result")), 3);
	/* kill ends a setsid'd double fork too */
	char m_in[64], m_out[64];
	unsigned q = marker_seq();
	snprintf(m_in, sizeof(m_in), "sleep 33.%u", q);
	snprintf(m_out, sizeof(m_out), "sleep 34.%u", q);
	snprintf(cmd, sizeof(cmd), "(setsid %s &); %s", m_out, m_in);
	const char *t3 = start_bg(&s, id++, a, cmd);
	wait_proc(m_in);
	wait_proc(m_out);
	cr_assert_str_eq(str_at(result_of(rpc_call(&s, id++, "task/kill", task_params(a, t3))), "status"),
			 "killed");
	cr_assert(!proc_with(m_in) && !proc_with(m_out), "the tree outlived kill");
	/* session/close ends its tasks, each with a notification */
	char m2[64];
	snprintf(m2, sizeof(m2), "sleep 35.%u", marker_seq());
	const char *t4 = start_bg(&s, id++, a, m2);
	wait_proc(m2);
	result_of(rpc_call(&s, id++, "session/close", json_pack("{s:s}", "session", a)));
	cr_assert_str_eq(str_at(wait_settled(&s, t4), "status"), "killed");
	cr_assert(!proc_with(m2), "a closed session's task still runs");
	assert_error(rpc_call(&s, id++, "run", run_params(a, "true")), "NOT_FOUND");
	srv_stop(&s);
	free(root);
}

ParameterizedTestParameters(serve, background_limit)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, background_limit, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	char *cfg = write_config("max_background = 2\n");
	struct srv s;
	srv_start(&s, *who, cfg);
	const char *a = open_session(&s, 1, root, "workspace-write");
	long long id = 2;
	char m1[64], m2[64], m3[64];
	snprintf(m1, sizeof(m1), "sleep 30.%u", marker_seq());
	snprintf(m2, sizeof(m2), "sleep 30.%u", marker_seq());
	snprintf(m3, sizeof(m3), "sleep 30.%u", marker_seq());
	const char *t1 = start_bg(&s, id++, a, m1);
	start_bg(&s, id++, a, m2);
	json_t *p = run_params(a, m3);
	json_object_set_new(p, "background", json_true());
	json_t *e = assert_error(rpc_call(&s, id++, "run", p), "TOO_MANY_PROCESSES");
	/* the detail says how to get a place (protocol.md: it was empty) */
	cr_assert(strstr(str_at(json_object_get(e, "data"), "detail"), "task/kill"));
	cr_assert_str_eq(str_at(run_ok(&s, id++, a, "echo fg"), "stdout"), "fg\n");
	wait_proc(m1);
	result_of(rpc_call(&s, id++, "task/kill", task_params(a, t1)));
	const char *t5 = start_bg(&s, id++, a, "exit 0");
	cr_assert_str_eq(str_at(wait_settled(&s, t5), "status"), "exited");
	start_bg(&s, id++, a, "exit 0");
	srv_stop(&s);
	cr_assert(!proc_with(m2), "tasks outlived serve");
	cr_assert(!proc_with(m3), "the refused task ran");
	free(cfg);
	free(root);
}

ParameterizedTestParameters(serve, background_runner_failed)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, background_runner_failed, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	char *cfg = write_config("max_background = 1\n");
	const char *wrap[] = { e2e_helper("nofeature"), "userns,landlock", "--", NULL };
	struct srv s;
	srv_start_wrapped(&s, *who, cfg, wrap);
	const char *a = open_session(&s, 1, root, "read-only");
	long long id = 2;
	char *proof = e2e_fmt("%s/ran", root), *cmd = e2e_fmt("touch %s", proof);

	for (int k = 0; k < 2; k++) { /* the second shows the first freed its place */
		const char *t = start_bg(&s, id++, a, cmd);
		json_t *n = wait_settled(&s, t);
		cr_assert_str_eq(str_at(n, "status"), "runner_failed");
		json_t *res = json_object_get(n, "result");
		cr_assert(has_marker(res, RUNNER_FAILED_RO), "third marker missing");
		cr_assert(strstr(str_at(res, "text"), RUNNER_FAILED_RO));
		/* every key of a result (sbx(1) RESULT OBJECT): a harness reads
		 * result.limits.hit of any settled task (new-user pass 8) */
		static const char *const keys[] = { "exit_code", "signal", "timed_out", "duration_ms",
						    "stdout", "stderr", "stdout_bytes", "stderr_bytes",
						    "truncated", "spill", "spill_stopped", "sandbox",
						    "limits", "markers", "text", "version", "error" };
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			cr_assert(json_object_get(res, keys[i]), "no %s in %s", keys[i],
				  json_dumps(res, JSON_COMPACT));
		cr_assert(json_object_get(json_object_get(res, "limits"), "hit"), "no limits.hit");
		cr_assert(!e2e_exists(proof), "the command ran although the runner failed");
	}
	assert_error(rpc_call(&s, id++, "run", run_params(a, cmd)), "SANDBOX_UNAVAILABLE");
	cr_assert(!e2e_exists(proof));
	srv_stop(&s);
	free(cmd);
	free(proof);
	free(cfg);
	free(root);
}

/* ---- 6. cancel, cwd, bounded answers, spill files ---- */

ParameterizedTestParameters(serve, cancel_foreground)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, cancel_foreground, .timeout = 120)
{
	char *root = e2e_tmpdir(*who);
	struct srv s;
	srv_start(&s, *who, NULL);
	const char *a = open_session(&s, 1, root, "read-only");
	char m[64], *cmd;
	snprintf(m, sizeof(m), "sleep 36.%u", marker_seq());
	cmd = e2e_fmt("(setsid %s &); %s", m, m);
	rpc_send(&s, 7, "run", run_params(a, cmd));
	wait_proc(m);
	rpc_notify(&s, "$/cancel", json_pack("{s:i}", "id", 7));
	json_t *e = assert_error(srv_wait(&s, 7, ANSWER_TIMEOUT_MS), "CANCELLED");
	cr_assert_eq(json_integer_value(json_object_get(e, "code")), -32800);
	cr_assert(json_is_object(json_object_get(json_object_get(e, "data"), "result")));
	cr_assert(!proc_with(m), "the cancelled run's tree is still there");
	srv_stop(&s);
	free(cmd);
	free(root);
}

Test(serve, cwd_and_bounded_answers, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	char *sub = e2e_fmt("%s/sub", root);
	cr_assert(e2e_mkdir(AS_CALLER, sub) == 0);
	struct srv s;
	srv_start(&s, AS_CALLER, NULL);
	const char *a = open_session(&s, 1, root, "read-only");
	json_t *p = run_params(a, "pwd");
	json_object_set_new(p, "cwd", json_string("sub"));
	char *want = e2e_fmt("%s\n", sub);
	cr_assert_str_eq(str_at(result_of(rpc_call(&s, 2, "run", p)), "stdout"), want);
	/* a cwd that does not exist is named as the request named it: cwd */
	p = run_params(a, "true");
	json_object_set_new(p, "cwd", json_string("nope"));
	json_t *e = assert_error(rpc_call(&s, 4, "run", p), "USAGE");
	char *says = e2e_fmt("cwd %s/nope: No such file or directory", root);
	cr_assert_str_eq(json_string_value(json_object_get(e, "message")), says);
	free(says);
	/* control characters escape to six bytes each in JSON: the answer
	 * would pass 256 KiB without the cut */
	json_t *res = run_ok(&s, 3, a,
			     "head -c 300000 /dev/zero | tr '\\0' '\\1'; head -c 300000 /dev/zero | "
			     "tr '\\0' '\\2' >&2; echo x > /proc/nope");
	cr_assert(json_is_true(json_object_get(res, "truncated")));
	size_t i;
	json_t *ans;
	json_array_foreach(s.answers, i, ans) {
		char *line = json_dumps(ans, JSON_COMPACT);
		cr_assert(strlen(line) < 256 * 1024, "answer %zu is %zu bytes", i, strlen(line));
		free(line);
	}
	srv_stop(&s);
	free(want);
	free(sub);
	free(root);
}

/* A background run whose start fails (a cwd that does not exist) leaves no
 * task behind: a task/kill or task/output sent for its name before the
 * start was answered is answered at once (NOT_FOUND), never left waiting on
 * a task that cannot settle (new-user pass 7, finding 1: the kill was never
 * answered), and the next task gets the name. */
Test(serve, failed_background_start_leaves_no_task, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	struct srv s;

	srv_start(&s, AS_CALLER, NULL);
	const char *a = open_session(&s, 1, root, "read-only");
	for (int round = 0; round < 3; round++) {
		long long id = 10 + round * 10;
		json_t *p = run_params(a, "sleep 5");

		json_object_set_new(p, "cwd", json_string("nope"));
		json_object_set_new(p, "background", json_true());
		rpc_send(&s, id, "run", p);
		rpc_send(&s, id + 1, "task/kill", json_pack("{s:s, s:s}", "session", a, "task", "t1"));
		rpc_send(&s, id + 2, "task/output", json_pack("{s:s, s:s}", "session", a, "task", "t1"));
		assert_error(srv_wait(&s, id, ANSWER_TIMEOUT_MS), "USAGE");
		json_t *k = srv_wait(&s, id + 1, 10000);

		cr_assert_not_null(k, "round %d: task/kill of a task whose start failed: no answer", round);
		assert_error(k, "NOT_FOUND");
		assert_error(srv_wait(&s, id + 2, 10000), "NOT_FOUND");
	}
	json_t *p = run_params(a, "echo fine");

	json_object_set_new(p, "background", json_true());
	json_t *r = result_of(rpc_call(&s, 50, "run", p));

	cr_assert_str_eq(str_at(r, "task"), "t1", "the failed starts used names");
	srv_stop(&s);
	free(root);
}

/* A --spill-dir a workspace-write session's commands could write (in /tmp,
 * in its root) is refused when the session opens, naming the fix, where
 * each run of it was refused before, even `echo hi` (new-user pass 8,
 * finding 4); a read-only session on it opens and runs. */
Test(serve, writable_spill_dir_refused_at_open, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	char *spill = e2e_fmt("/tmp/sbx-e2e-spill-%d", (int)getpid());
	char *inside = e2e_fmt("%s/spills", root);
	const char *places[] = { spill, inside };

	cr_assert(e2e_mkdir(AS_CALLER, spill) == 0 || errno == EEXIST);
	cr_assert(e2e_mkdir(AS_CALLER, inside) == 0);
	for (size_t i = 0; i < 2; i++) {
		const char *extra[] = { "--spill-dir", places[i], NULL };
		struct srv s;

		srv_start_full(&s, AS_CALLER, NULL, NULL, extra);
		json_t *e = assert_error(rpc_call(&s, 1, "session/open",
						  json_pack("{s:s, s:s}", "root", root, "mode",
							    "workspace-write")),
					 "USAGE");
		cr_assert(strstr(str_at(e, "message"), places[i]), "%s", str_at(e, "message"));
		const char *a = open_session(&s, 2, root, "read-only");

		cr_assert_str_eq(str_at(run_ok(&s, 3, a, "echo hi"), "stdout"), "hi\n");
		srv_stop(&s);
	}
	e2e_rm_rf(spill);
	free(inside);
	free(spill);
	free(root);
}

/* The config in the root of a workspace-write session: its commands could
 * rewrite the policy of every later run (adversarial pass 7, finding 08).
 * Refused at open, naming it; a read-only session on it opens and runs. */
Test(serve, writable_config_refused_at_open, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	char *conf = e2e_fmt("%s/sbx.conf", root);
	const char *extra[] = { "--config", conf, NULL };
	struct srv s;

	cr_assert(e2e_write_file(AS_CALLER, conf, "timeout = 60\n") == 0);
	srv_start_full(&s, AS_CALLER, NULL, NULL, extra);
	json_t *e = assert_error(rpc_call(&s, 1, "session/open",
					  json_pack("{s:s, s:s}", "root", root, "mode",
						    "workspace-write")),
				 "USAGE");
	cr_assert(strstr(str_at(e, "message"), conf), "%s", str_at(e, "message"));
	const char *a = open_session(&s, 2, root, "read-only");

	cr_assert_str_eq(str_at(run_ok(&s, 3, a, "echo hi"), "stdout"), "hi\n");
	srv_stop(&s);
	free(conf);
	free(root);
}

Test(serve, spill_files_go_with_the_session, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	char *spill = e2e_tmpdir(AS_CALLER);
	const char *extra[] = { "--spill-dir", spill, NULL };
	struct srv s;
	srv_start_full(&s, AS_CALLER, NULL, NULL, extra);
	const char *a = open_session(&s, 1, root, "read-only");
	json_t *res = run_ok(&s, 2, a, "head -c 200000 /dev/zero");
	const char *path = str_at(json_object_get(res, "spill"), "stdout");
	cr_assert(path && e2e_exists(path), "no spill file");
	char *copy = strdup(path);
	cr_assert(strncmp(copy, spill, strlen(spill)) == 0, "spill %s not under --spill-dir", copy);
	result_of(rpc_call(&s, 3, "session/close", json_pack("{s:s}", "session", a)));
	cr_assert(!e2e_exists(copy), "spill file %s outlived its session", copy);
	srv_stop(&s);
	free(copy);
	free(spill);
	free(root);
}

Test(serve, spill_files_go_after_their_age, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	const char *extra[] = { "--spill-max-age", "1", NULL };
	struct srv s;
	srv_start_full(&s, AS_CALLER, NULL, NULL, extra);
	const char *a = open_session(&s, 1, root, "read-only");
	json_t *res = run_ok(&s, 2, a, "head -c 200000 /dev/zero");
	char *path = strdup(str_at(json_object_get(res, "spill"), "stdout"));
	cr_assert(e2e_exists(path), "no spill file");
	/* The session stays open: only the age removes it. */
	long long deadline = now_ms() + 30000;
	while (e2e_exists(path)) {
		cr_assert(now_ms() < deadline, "spill file %s outlived --spill-max-age", path);
		srv_pump(&s, 200, false);
	}
	cr_assert_str_eq(str_at(run_ok(&s, 3, a, "echo alive"), "stdout"), "alive\n");
	srv_stop(&s);
	free(path);
	free(root);
}

/* ---- 7. a client that does not read does not stall the server ---- */

Test(serve, slow_reader_loses_nothing, .timeout = 180)
{
	enum { RUNS = 12, BYTES = 900000 };
	char *root = e2e_tmpdir(AS_CALLER);
	struct srv s;
	srv_start(&s, AS_CALLER, NULL);
	const char *a = open_session(&s, 1, root, "read-only");
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "head -c %d /dev/zero | tr '\\0' a", BYTES);
	for (long long id = 10; id < 10 + RUNS; id++)
		rpc_send(&s, id, "run", run_params(a, cmd));
	for (long long id = 10; id < 10 + RUNS; id++) {
		usleep(300 * 1000);
		json_t *res = result_of(srv_wait(&s, id, ANSWER_TIMEOUT_MS));
		cr_expect_eq(json_integer_value(json_object_get(res, "stdout_bytes")), BYTES);
		const char *spill = str_at(json_object_get(res, "spill"), "stdout");
		struct stat st;
		cr_assert(spill && stat(spill, &st) == 0, "id %lld: no spill file", id);
		cr_expect_eq(st.st_size, BYTES);
	}
	srv_stop(&s);
	free(root);
}
