/* SPDX-License-Identifier: MIT */
/* launcher/front/serve_request.c: one `sbx serve` line -> a request (CONTRACT section 7). */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "serve_request.h"

static struct serve_request req;
static struct sbx_error err;
static json_t *id_out;

/* Each parse starts clean: the previous request and id are released. */
static int parse_n(const char *line, size_t len)
{
	serve_request_free(&req);
	json_decref(id_out);
	memset(&err, 0, sizeof(err));
	id_out = (json_t *)&err; /* must be overwritten */
	return serve_request_parse(line, len, &req, &id_out, &err);
}

static int parse(const char *line)
{
	return parse_n(line, strlen(line));
}

static void teardown(void)
{
	serve_request_free(&req);
	json_decref(id_out);
	id_out = NULL;
}

TestSuite(serve_request, .fini = teardown);

static bool streq_or_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* ---- good lines ---- */

#define NO_ID_INT (-999)

struct good {
	const char *line;
	long long id_int;  /* NO_ID_INT: the id is the string id_str */
	const char *id_str;
	enum serve_op op;
	const char *command, *root, *perms, *justification, *task;
	int mode;          /* -1: none */
	unsigned long long timeout;  /* 0: none */
	bool background;
};

static const struct good goods[] = {
	{ "{\"id\":1,\"op\":\"run\",\"command\":\"make\"}", 1, NULL, SERVE_OP_RUN, "make", NULL,
	  NULL, NULL, NULL, -1, 0, false },
	{ "{\"id\":1,\"op\":\"run\",\"command\":\"make\",\"session\":{\"root\":\"/p1\","
	  "\"mode\":\"workspace-write\"},\"sandbox_permissions\":\"danger-full-access\","
	  "\"timeout_ms\":60000,\"background\":false}",
	  1, NULL, SERVE_OP_RUN, "make", "/p1", "danger-full-access", NULL, NULL,
	  SBX_MODE_WORKSPACE_WRITE, 60000, false },
	{ "  {\"op\":\"run\",\"id\":\"req-7\",\"command\":\"ls -l\",\"justification\":\"need it\","
	  "\"sandbox_permissions\":\"workspace-write\",\"background\":true,\"timeout_ms\":1}\t\r",
	  NO_ID_INT, "req-7", SERVE_OP_RUN, "ls -l", NULL, "workspace-write", "need it", NULL,
	  -1, 1, true },
	{ "{\"id\":-3,\"op\":\"run\",\"command\":\"x\",\"session\":{},\"justification\":\"\","
	  "\"timeout_ms\":604800000}",
	  -3, NULL, SERVE_OP_RUN, "x", NULL, NULL, "", NULL, -1, 604800000, false },
	{ "{\"id\":0,\"op\":\"run\",\"command\":\"x\",\"session\":{\"mode\":\"read-only\"}}", 0,
	  NULL, SERVE_OP_RUN, "x", NULL, NULL, NULL, NULL, SBX_MODE_READ_ONLY, 0, false },
	{ "{\"id\":9007199254740993,\"op\":\"run\",\"command\":\"caf\\u00e9 \xe2\x82\xac\","
	  "\"session\":{\"mode\":\"danger-full-access\",\"root\":\"/w\"}}",
	  9007199254740993LL, NULL, SERVE_OP_RUN, "caf\xc3\xa9 \xe2\x82\xac", "/w", NULL, NULL,
	  NULL, SBX_MODE_DANGER_FULL_ACCESS, 0, false },
	{ "{\"id\":2,\"op\":\"task_output\",\"task\":\"t1\"}", 2, NULL, SERVE_OP_TASK_OUTPUT,
	  NULL, NULL, NULL, NULL, "t1", -1, 0, false },
	{ "{\"id\":\"k\",\"op\":\"kill\",\"task\":\"t12\"}", NO_ID_INT, "k", SERVE_OP_KILL, NULL,
	  NULL, NULL, NULL, "t12", -1, 0, false },
	{ "{\"id\":3,\"op\":\"capabilities\"}", 3, NULL, SERVE_OP_CAPABILITIES, NULL, NULL, NULL,
	  NULL, NULL, -1, 0, false },
	{ "{\"id\":4,\"op\":\"schema\"}", 4, NULL, SERVE_OP_SCHEMA, NULL, NULL, NULL, NULL, NULL,
	  -1, 0, false },
};

static void check_good(const struct good *g)
{
	int rc = parse(g->line);

	cr_assert_eq(rc, 0, "rejected %s: %s", g->line, err.message);
	cr_expect_null(id_out, "id_out set on success: %s", g->line);
	cr_assert_not_null(req.id, "%s", g->line);
	if (g->id_int == NO_ID_INT) {
		cr_expect(json_is_string(req.id) &&
				  strcmp(json_string_value(req.id), g->id_str) == 0,
			  "id: %s", g->line);
	} else {
		cr_expect(json_is_integer(req.id) && json_integer_value(req.id) == g->id_int,
			  "id: %s", g->line);
	}
	cr_expect_eq(req.op, g->op, "op: %s", g->line);
	cr_expect(streq_or_null(req.command, g->command), "command: %s", g->line);
	cr_expect(streq_or_null(req.session_root, g->root), "root: %s", g->line);
	cr_expect(streq_or_null(req.sandbox_permissions, g->perms), "perms: %s", g->line);
	cr_expect(streq_or_null(req.justification, g->justification), "just: %s", g->line);
	cr_expect(streq_or_null(req.task, g->task), "task: %s", g->line);
	cr_expect_eq(req.has_session_mode, g->mode >= 0, "has mode: %s", g->line);
	if (g->mode >= 0)
		cr_expect_eq((int)req.session_mode, g->mode, "mode: %s", g->line);
	cr_expect_eq(req.has_timeout, g->timeout > 0, "has timeout: %s", g->line);
	cr_expect_eq(req.timeout_ms, g->timeout, "timeout: %s", g->line);
	cr_expect_eq(req.background, g->background, "background: %s", g->line);
	serve_request_free(&req);
}

Test(serve_request, good_lines)
{
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++)
		check_good(&goods[i]);
}

Test(serve_request, free_twice_and_null)
{
	cr_assert_eq(parse("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"justification\":\"j\"}"), 0);
	serve_request_free(&req);
	serve_request_free(&req);
	serve_request_free(NULL);
}

Test(serve_request, limits_accepted)
{
	static char line[300 * 1024];
	char id[257], task[65];
	int n;

	memset(id, 'i', 256);
	id[256] = '\0';
	memset(task, 't', 64);
	task[64] = '\0';
	n = snprintf(line, sizeof(line), "{\"id\":\"%s\",\"op\":\"kill\",\"task\":\"%s\"}", id, task);
	cr_assert_eq(parse_n(line, (size_t)n), 0, "%s", err.message);
	cr_expect_eq(strlen(req.task), 64);
	cr_expect_eq(json_string_length(req.id), 256);
	serve_request_free(&req);

	n = snprintf(line, sizeof(line), "{\"id\":1,\"op\":\"run\",\"command\":\"");
	memset(line + n, 'c', 256 * 1024);
	n += 256 * 1024;
	n += snprintf(line + n, sizeof(line) - (size_t)n, "\"}");
	cr_assert_eq(parse_n(line, (size_t)n), 0, "%s", err.message);
	cr_expect_eq(strlen(req.command), 256 * 1024);
}

/* ---- bad lines ---- */

#define NO_ID LLONG_MIN

struct badline {
	const char *line;
	size_t len;         /* 0: strlen(line) */
	const char *needle; /* the message must contain this */
	long long id_int;   /* NO_ID: id_out NULL; NO_ID_INT: the string id_str */
	const char *id_str;
};

#define B(l, n, id) { l, 0, n, id, NULL }
#define BS(l, n, s) { l, 0, n, NO_ID_INT, s }
#define BN(l, n) { l, sizeof(l) - 1, n, NO_ID, NULL }

static const struct badline bads[] = {
	/* the line itself */
	B("", "empty line", NO_ID),
	B("   \t \r", "empty line", NO_ID),
	BN("{\"id\":1,\"op\":\"run\",\0\"command\":\"x\"}", "NUL byte in line at byte 19"),
	BN("\0", "NUL byte in line at byte 0"),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"a\\u0000b\"}", "NUL byte in a JSON string",
	  NO_ID),
	B("{\"id\":1,\"op\":\"run\",\"comm\\u0000and\":\"ab\"}", "NUL byte in a JSON object key",
	  NO_ID),
	B("{\"id\":\"a\\u0000\",\"op\":\"schema\"}", "NUL byte", NO_ID),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"\xff\"}", "invalid UTF-8", NO_ID),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"\xed\xa0\x80\"}", "invalid UTF-8", NO_ID),
	B("{\"id\":1,\"op\":\"schema\"} \xc3", "invalid UTF-8", NO_ID),
	B("{\"id\":1,\"op\":\"schema\"} x", "trailing data", NO_ID),
	B("{\"id\":1,\"op\":\"schema\"}{\"id\":2,\"op\":\"schema\"}", "trailing data", NO_ID),
	B("{\"id\":1,\"id\":2,\"op\":\"schema\"}", "duplicate key", NO_ID),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"a\",\"command\":\"b\"}", "duplicate key", NO_ID),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"a\",\"session\":{\"mode\":\"read-only\","
	  "\"mode\":\"read-only\"}}",
	  "duplicate key", NO_ID),
	B("{\"id\":1,\"op\":\"schema\"", "truncated JSON", NO_ID),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"a\tb\"}", "invalid JSON", NO_ID),
	B("{\"id\":1e999,\"op\":\"schema\"}", "number out of range", NO_ID),
	B("{\"id\":99999999999999999999,\"op\":\"schema\"}", "number out of range", NO_ID),
	B("[{\"id\":1,\"op\":\"schema\"}]", "must be a JSON object", NO_ID),
	B("\"id\"", "invalid JSON", NO_ID),
	B("null", "invalid JSON", NO_ID),
	/* id */
	B("{\"op\":\"run\"}", "missing field 'id'", NO_ID),
	B("{\"id\":null,\"op\":\"schema\"}", "id must be", NO_ID),
	B("{\"id\":1.5,\"op\":\"schema\"}", "id must be", NO_ID),
	B("{\"id\":\"\",\"op\":\"schema\"}", "id must be", NO_ID),
	B("{\"id\":true,\"op\":\"schema\"}", "id must be", NO_ID),
	B("{\"id\":[1],\"op\":\"schema\"}", "id must be", NO_ID),
	B("{\"id\":{},\"op\":\"schema\"}", "id must be", NO_ID),
	/* op */
	B("{\"id\":7,\"op\":\"nope\"}", "unknown op 'nope'", 7),
	B("{\"id\":7}", "missing field 'op'", 7),
	B("{\"id\":7,\"op\":1}", "op must be a string", 7),
	B("{\"id\":7,\"op\":\"RUN\"}", "unknown op 'RUN'", 7),
	B("{\"id\":7,\"op\":\"a\\u0001b\\nc\\u007f\\u0085\"}", "unknown op 'a?b?c?" "?'", 7),
	B("{\"id\":7,\"op\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xa9\xc3"
	  "\xa9\"}",
	  "unknown op 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xa9...'",
	  7),
	/* run */
	BS("{\"id\":\"r\",\"op\":\"run\"}", "missing field 'command' for op 'run'", "r"),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"\"}", "command must not be empty", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":7}", "command must be a string", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":null}", "command must be a string", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"sandbox_permission\":\"workspace-write\"}",
	  "unknown field 'sandbox_permission' for op 'run'", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"task\":\"t1\"}",
	  "unknown field 'task' for op 'run'", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"k\\u001b[31m\":1}",
	  "unknown field 'k?[31m' for op 'run'", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"sandbox_permissions\":\"read-only\"}",
	  "sandbox_permissions must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"sandbox_permissions\":true}",
	  "sandbox_permissions must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"sandbox_permissions\":\"Workspace-Write\"}",
	  "sandbox_permissions must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"justification\":3}",
	  "justification must be a string", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"timeout_ms\":1.5}", "timeout_ms must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"timeout_ms\":\"5\"}", "timeout_ms must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"timeout_ms\":-1}", "timeout_ms must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"timeout_ms\":0}", "timeout_ms must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"timeout_ms\":604800001}", "timeout_ms must be",
	  1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"timeout_ms\":null}", "timeout_ms must be", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"background\":\"yes\"}",
	  "background must be true or false", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"background\":1}",
	  "background must be true or false", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":\"/p\"}",
	  "session must be an object", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":null}", "session must be an object",
	  1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":{\"root\":\"\"}}",
	  "session.root must not be empty", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":{\"root\":1}}",
	  "session.root must be a string", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":{\"mode\":\"rw\"}}",
	  "session.mode 'rw' is not", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":{\"mode\":2}}",
	  "session.mode must be a string", 1),
	B("{\"id\":1,\"op\":\"run\",\"command\":\"x\",\"session\":{\"cwd\":\"/\"}}",
	  "unknown field 'cwd' in session", 1),
	/* task ops */
	B("{\"id\":2,\"op\":\"task_output\"}", "missing field 'task' for op 'task_output'", 2),
	B("{\"id\":2,\"op\":\"kill\",\"task\":\"\"}", "task must not be empty", 2),
	B("{\"id\":2,\"op\":\"kill\",\"task\":1}", "task must be a string", 2),
	B("{\"id\":2,\"op\":\"kill\",\"task\":\"t1\",\"command\":\"x\"}",
	  "unknown field 'command' for op 'kill'", 2),
	B("{\"id\":2,\"op\":\"kill\",\"task\":"
	  "\"ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt\"}",
	  "task is longer than 64 bytes", 2),
	/* capabilities, schema */
	B("{\"id\":3,\"op\":\"capabilities\",\"task\":\"t1\"}",
	  "unknown field 'task' for op 'capabilities'", 3),
	B("{\"id\":4,\"op\":\"schema\",\"x\":null}", "unknown field 'x' for op 'schema'", 4),
};

static bool printable_utf8(const char *s)
{
	json_t *j = json_string(s); /* NULL on invalid UTF-8 */
	bool ok = j != NULL;

	json_decref(j);
	for (const unsigned char *p = (const unsigned char *)s; ok && *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			ok = false;
	return ok;
}

static void check_bad(const struct badline *b)
{
	size_t len = b->len ? b->len : strlen(b->line);
	int rc = parse_n(b->line, len);

	cr_assert_eq(rc, -EINVAL, "accepted or wrong rc %d: %s", rc, b->line);
	cr_expect_str_eq(err.code, SBX_E_BAD_REQUEST, "%s", b->line);
	cr_expect(strstr(err.message, b->needle) != NULL, "line %s: message '%s' lacks '%s'",
		  b->line, err.message, b->needle);
	cr_expect(printable_utf8(err.message), "message not clean: %s", b->line);
	cr_expect_null(req.id, "%s", b->line);
	cr_expect(!req.command && !req.task && !req.session_root && !req.justification &&
			  !req.sandbox_permissions,
		  "partial request left: %s", b->line);
	if (b->id_int == NO_ID)
		cr_expect_null(id_out, "id recovered: %s", b->line);
	else if (b->id_int == NO_ID_INT)
		cr_expect(json_is_string(id_out) && strcmp(json_string_value(id_out), b->id_str) == 0,
			  "string id not recovered: %s", b->line);
	else
		cr_expect(json_is_integer(id_out) && json_integer_value(id_out) == b->id_int,
			  "id not recovered: %s", b->line);
	json_decref(id_out);
	id_out = NULL;
}

Test(serve_request, bad_lines)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++)
		check_bad(&bads[i]);
}

/* Lines too long for the table. */
static char *filled(const char *head, size_t n, char c, const char *tail, size_t *len)
{
	size_t h = strlen(head), t = strlen(tail);
	char *s = malloc(h + n + t + 1);

	cr_assert_not_null(s);
	memcpy(s, head, h);
	memset(s + h, c, n);
	memcpy(s + h + n, tail, t + 1);
	*len = h + n + t;
	return s;
}

Test(serve_request, huge_line)
{
	static const char head[] = "{\"id\":1,\"op\":\"run\",\"command\":\"x\"}";
	size_t len;
	/* valid JSON, one byte over the limit */
	char *s = filled(head, SERVE_LINE_MAX - strlen(head) + 1, ' ', "", &len);

	cr_assert_eq(len, (size_t)SERVE_LINE_MAX + 1);
	cr_assert_eq(parse_n(s, len), -EINVAL);
	cr_expect_str_eq(err.code, SBX_E_BAD_REQUEST);
	cr_expect(strstr(err.message, "line longer than") != NULL, "%s", err.message);
	cr_expect_null(id_out);
	/* exactly at the limit: fine */
	cr_assert_eq(parse_n(s, len - 1), 0, "%s", err.message);
	free(s);
}

Test(serve_request, id_too_long)
{
	size_t len;
	char *s = filled("{\"op\":\"schema\",\"id\":\"", 257, 'i', "\"}", &len);

	cr_assert_eq(parse_n(s, len), -EINVAL);
	cr_expect(strstr(err.message, "id must be") != NULL, "%s", err.message);
	cr_expect(strstr(err.message, "at most 256 bytes") != NULL, "%s", err.message);
	cr_expect_null(id_out);
	free(s);
}

Test(serve_request, command_too_long)
{
	size_t len;
	char *s = filled("{\"id\":5,\"op\":\"run\",\"command\":\"", 256 * 1024 + 1, 'c', "\"}", &len);

	cr_assert_eq(parse_n(s, len), -EINVAL);
	cr_expect(strstr(err.message, "command is longer than 262144 bytes") != NULL, "%s",
		  err.message);
	cr_expect(json_integer_value(id_out) == 5);
	free(s);
}

Test(serve_request, long_unknown_key_is_cut)
{
	size_t len;
	char *s = filled("{\"id\":5,\"op\":\"schema\",\"", 5000, 'k', "\":1}", &len);

	cr_assert_eq(parse_n(s, len), -EINVAL);
	cr_expect(strstr(err.message, "unknown field 'kkkk") != NULL, "%s", err.message);
	cr_expect(strstr(err.message, "kkk...' for op 'schema'") != NULL, "%s", err.message);
	cr_expect_lt(strlen(err.message), 120);
	free(s);
}

Test(serve_request, jansson_text_is_sanitized)
{
	/* jansson quotes the bad token; its control bytes must not reach the message */
	cr_assert_eq(parse("{\"id\":1,\"op\":tru\x01\x02\x1b}"), -EINVAL);
	cr_expect(printable_utf8(err.message), "%s", err.message);
	cr_assert_eq(parse("{\"id\":1,\"op\":\"x\"} \xe2\x82"), -EINVAL);
	cr_expect(printable_utf8(err.message), "%s", err.message);
}

Test(serve_request, null_arguments)
{
	json_t *id = NULL;

	memset(&err, 0, sizeof(err));
	cr_expect_eq(serve_request_parse(NULL, 0, &req, &id, &err), -EINVAL);
	cr_expect(strstr(err.message, "empty line") != NULL, "%s", err.message);
	cr_expect_eq(serve_request_parse(NULL, 5, &req, &id, &err), -EINVAL);
	cr_expect_null(id);
	/* id_out may be NULL */
	cr_expect_eq(serve_request_parse("{\"id\":7,\"op\":\"x\"}", 17, &req, NULL, &err), -EINVAL);
	cr_expect(strstr(err.message, "unknown op 'x'") != NULL, "%s", err.message);
}

Test(serve_request, id_reference_is_owned)
{
	/* the recovered id outlives the parsed document */
	cr_assert_eq(parse("{\"id\":\"abc\",\"op\":\"nope\"}"), -EINVAL);
	cr_assert(json_is_string(id_out));
	cr_expect_str_eq(json_string_value(id_out), "abc");
	cr_expect_eq(id_out->refcount, 1);
	cr_assert_eq(parse("{\"id\":\"abc\",\"op\":\"schema\"}"), 0);
	cr_expect_eq(req.id->refcount, 1);
}
