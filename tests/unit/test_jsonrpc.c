/* SPDX-License-Identifier: MIT */
/* launcher/front/jsonrpc_msg.c and jsonrpc_params.c: one line -> one
 * JSON-RPC 2.0 message, and strict params. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "jsonrpc.h"

static struct rpc_msg m;
static struct sbx_error err;
static json_t *id_out;

static int parse(const char *line)
{
	rpc_msg_free(&m);
	json_decref(id_out);
	id_out = NULL;
	memset(&err, 0, sizeof(err));
	return rpc_parse(line, strlen(line), &m, &id_out, &err);
}

static void teardown(void)
{
	rpc_msg_free(&m);
	json_decref(id_out);
	id_out = NULL;
}

TestSuite(jsonrpc, .fini = teardown);

Test(jsonrpc, request_notification_response)
{
	cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"run\",\"params\":{\"a\":1}}"), 0);
	cr_assert_eq(m.kind, RPC_REQUEST);
	cr_assert_str_eq(m.method, "run");
	cr_assert_eq(json_integer_value(m.id), 7);
	cr_assert(json_is_object(m.params));
	cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel\",\"params\":{\"id\":\"x\"}}"), 0);
	cr_assert_eq(m.kind, RPC_NOTIFICATION);
	cr_assert_null(m.id);
	cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":{\"roots\":[]}}"), 0);
	cr_assert_eq(m.kind, RPC_RESPONSE);
	cr_assert(json_is_object(m.result));
	cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"error\":{\"code\":1,\"message\":\"m\"}}"), 0);
	cr_assert(json_is_object(m.error));
}

struct bad {
	const char *line;
	int code;
	long long id; /* -1: none readable */
};

Test(jsonrpc, refusals)
{
	static const struct bad bad[] = {
		{ "", RPC_PARSE_ERROR, -1 },
		{ "   ", RPC_PARSE_ERROR, -1 },
		{ "{\"jsonrpc\":\"2.0\",", RPC_PARSE_ERROR, -1 },
		{ "{} trailing", RPC_PARSE_ERROR, -1 },
		{ "{\"a\":1,\"a\":2}", RPC_PARSE_ERROR, -1 },
		{ "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}]", RPC_INVALID_REQUEST, -1 },
		/* valid JSON, but no object: Invalid Request (JSON-RPC 2.0 section 5) */
		{ "42", RPC_INVALID_REQUEST, -1 },
		{ "null", RPC_INVALID_REQUEST, -1 },
		{ "\"x\"", RPC_INVALID_REQUEST, -1 },
		{ "true", RPC_INVALID_REQUEST, -1 },
		{ "[]", RPC_INVALID_REQUEST, -1 },
		{ "4 2", RPC_PARSE_ERROR, -1 },
		{ "{\"id\":1,\"method\":\"x\"}", RPC_INVALID_REQUEST, 1 },
		{ "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"x\"}", RPC_INVALID_REQUEST, 2 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":5}", RPC_INVALID_REQUEST, 3 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"x\",\"extra\":1}", RPC_INVALID_REQUEST, 4 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"params\":[1]}", RPC_INVALID_PARAMS, 5 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}", RPC_INVALID_REQUEST, -1 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}", RPC_INVALID_REQUEST, -1 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":6}", RPC_INVALID_REQUEST, 6 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":1,\"error\":{}}", RPC_INVALID_REQUEST, 7 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"\"}", RPC_INVALID_REQUEST, 8 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].line);

		cr_assert_eq(rc, bad[i].code, "'%s': %d", bad[i].line, rc);
		cr_assert_str_eq(err.code, SBX_E_BAD_REQUEST, "'%s'", bad[i].line);
		cr_assert(err.message[0], "'%s': no message", bad[i].line);
		if (bad[i].id < 0)
			cr_assert_null(id_out, "'%s'", bad[i].line);
		else
			cr_assert_eq(json_integer_value(id_out), bad[i].id, "'%s'", bad[i].line);
		cr_assert_eq(m.kind, 0);
		cr_assert_null(m.id);
	}
	/* a raw NUL byte in the line */
	rpc_msg_free(&m);
	cr_assert_eq(rpc_parse("{\"jsonrpc\":\"2.0\"\0}", 18, &m, &id_out, &err), RPC_PARSE_ERROR);
	cr_assert(strstr(err.message, "NUL"));
}

Test(jsonrpc, messages_quote_user_text)
{
	char long_method[200];

	memset(long_method, 0, sizeof(long_method));
	strcpy(long_method, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"\\u0007");
	memset(long_method + strlen(long_method), 'k', 100);
	strcat(long_method, "\":1}");
	cr_assert_eq(parse(long_method), RPC_INVALID_REQUEST);
	for (const char *p = err.message; *p; p++)
		cr_assert((unsigned char)*p >= 0x20, "control character in '%s'", err.message);
	cr_assert(strstr(err.message, "..."), "%s", err.message);
}

static const struct rpc_field fields[] = {
	{ "command", RPC_T_STRING, true, 8 },
	{ "why", RPC_T_TEXT, false, 0 },
	{ "bg", RPC_T_BOOL, false, 0 },
	{ "timeout_ms", RPC_T_UINT, false, 1000 },
	{ "since", RPC_T_SINCE, false, 0 },
	{ "id", RPC_T_ID, false, 0 },
	{ NULL, 0, false, 0 },
};

static int check(const char *params)
{
	json_t *p = json_loads(params, JSON_ALLOW_NUL, NULL);
	int rc;

	cr_assert_not_null(p, "%s", params);
	memset(&err, 0, sizeof(err));
	rc = rpc_params_check(p, fields, "params", &err);
	json_decref(p);
	return rc;
}

Test(jsonrpc, params)
{
	cr_assert_eq(check("{\"command\":\"ls\"}"), 0);
	cr_assert_eq(check("{\"command\":\"ls\",\"why\":\"\",\"bg\":true,\"timeout_ms\":1000,"
			   "\"since\":{\"stdout\":3},\"id\":\"x\"}"), 0);
	cr_assert_eq(check("{\"command\":\"ls\",\"since\":5}"), 0);
	static const char *const bad[] = {
		"{}", "{\"command\":\"\"}", "{\"command\":\"123456789\"}", "{\"command\":1}",
		"{\"command\":\"a\\u0000b\"}", "{\"command\":\"ls\",\"x\":1}",
		"{\"command\":\"ls\",\"bg\":\"yes\"}", "{\"command\":\"ls\",\"timeout_ms\":0}",
		"{\"command\":\"ls\",\"timeout_ms\":1001}", "{\"command\":\"ls\",\"since\":-1}",
		"{\"command\":\"ls\",\"since\":{\"stdin\":1}}", "{\"command\":\"ls\",\"id\":[1]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(check(bad[i]), -EINVAL, "%s", bad[i]);
		cr_assert_str_eq(err.code, SBX_E_BAD_REQUEST);
	}
	cr_assert_eq(rpc_params_check(NULL, fields, "params", &err), -EINVAL, "missing command");
}

Test(jsonrpc, since_values)
{
	json_t *p = json_pack("{s:{s:i}}", "since", "stderr", 9);
	uint64_t o, e;

	rpc_since(p, "since", &o, &e);
	cr_assert(o == 0 && e == 9);
	json_object_set_new(p, "since", json_integer(4));
	rpc_since(p, "since", &o, &e);
	cr_assert(o == 4 && e == 4);
	json_decref(p);
}

Test(jsonrpc, builders)
{
	struct sbx_error e = { 0 };
	json_t *a;

	sbx_error_set(&e, ENOENT, SBX_E_NOT_FOUND, "d", "no task");
	a = rpc_error_sbx(json_integer(3), &e);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(a, "error"), "code")),
		     RPC_SBX_ERROR);
	cr_assert_str_eq(json_string_value(json_object_get(
		json_object_get(json_object_get(a, "error"), "data"), "code")), "NOT_FOUND");
	json_decref(a);
	sbx_error_set(&e, EINVAL, SBX_E_BAD_REQUEST, NULL, "bad");
	a = rpc_error_sbx(NULL, &e);
	cr_assert(json_is_null(json_object_get(a, "id")));
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(a, "error"), "code")),
		     RPC_INVALID_PARAMS);
	json_decref(a);
}
