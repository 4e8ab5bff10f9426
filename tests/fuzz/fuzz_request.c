/* SPDX-License-Identifier: MIT */
// libFuzzer target for the JSON-RPC line parser of `sbx serve` and `sbx mcp`
// (launcher/front/jsonrpc_msg.c) and the strict params check
// (jsonrpc_params.c) with serve's `run` and `task/output` fields.
//
// Build (one command) and run (scripts/fuzz.sh does both for every target):
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
//     -D_GNU_SOURCE -Iinclude -Ilauncher/front -Ilauncher/engine -Ilauncher/runners
//     -Ilauncher/kernel -Ipolicy -Iclassify tests/fuzz/fuzz_request.c
//     launcher/front/jsonrpc_msg.c launcher/front/jsonrpc_params.c
//     launcher/engine/error.c -ljansson -o /tmp/fuzz_request
//   /tmp/fuzz_request -max_total_time=60 CORPUS_DIR tests/fuzz/corpus_request
//
/* Besides "no crash, no leak", it checks the parser's promises: success is a
 * request, notification or response with exactly the members of its kind;
 * failure is a known JSON-RPC code, an empty message struct, a BAD_REQUEST
 * error with a printable message and at most a valid id to echo; the params
 * check accepts only what its table declares. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"

static const struct rpc_field run_fields[] = {
	{ "session", RPC_T_STRING, true, 32 },
	{ "command", RPC_T_STRING, true, 256 * 1024 },
	{ "cwd", RPC_T_STRING, false, 4095 },
	{ "timeout_ms", RPC_T_UINT, false, 604800000ULL },
	{ "sandbox_permissions", RPC_T_STRING, false, 32 },
	{ "justification", RPC_T_TEXT, false, 4096 },
	{ "background", RPC_T_BOOL, false, 0 },
	{ "since", RPC_T_SINCE, false, 0 },
	{ "id", RPC_T_ID, false, 0 },
	{ NULL, 0, false, 0 },
};

static void check_id(const json_t *id)
{
	if (json_is_integer(id))
		return;
	if (!json_is_string(id) || json_string_length(id) == 0 ||
	    json_string_length(id) > RPC_ID_MAX)
		abort();
}

/* Printable, valid UTF-8, non-empty. */
static void check_message(const char *msg)
{
	json_t *s = json_string(msg);

	if (!s || msg[0] == '\0')
		abort();
	json_decref(s);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			abort();
}

static void check_params(const json_t *params)
{
	struct sbx_error err = { 0 };
	int rc = rpc_params_check(params, run_fields, "params", &err);

	if (rc != 0) {
		if (rc != -EINVAL || strcmp(err.code, SBX_E_BAD_REQUEST) != 0)
			abort();
		check_message(err.message);
		return;
	}
	/* Accepted: every declared value is what the callers read. */
	const char *cmd = rpc_str(params, "command");
	uint64_t o, e;

	if (!cmd || !*cmd || strlen(cmd) > 256 * 1024 || !rpc_str(params, "session"))
		abort();
	if (json_object_get(params, "timeout_ms") &&
	    (rpc_uint(params, "timeout_ms", 0) < 1 || rpc_uint(params, "timeout_ms", 0) > 604800000ULL))
		abort();
	rpc_since(params, "since", &o, &e);
	(void)rpc_bool(params, "background", false);
}

static void check_ok(const struct rpc_msg *m, const json_t *id_out)
{
	if (id_out)
		abort();
	switch (m->kind) {
	case RPC_REQUEST:
		check_id(m->id);
		/* fall through */
	case RPC_NOTIFICATION:
		if (!m->method[0] || (m->kind == RPC_NOTIFICATION && m->id))
			abort();
		if (m->params && !json_is_object(m->params))
			abort();
		if (m->result || m->error)
			abort();
		if (m->params)
			check_params(m->params);
		break;
	case RPC_RESPONSE:
		check_id(m->id);
		if (!!m->result == !!m->error || m->params || m->method[0])
			abort();
		break;
	default:
		abort();
	}
}

static void check_failed(int rc, const struct rpc_msg *m, const json_t *id_out,
			 const struct sbx_error *err)
{
	static const struct rpc_msg empty;

	if (rc == RPC_INTERNAL_ERROR && strcmp(err->code, SBX_E_INTERNAL) == 0)
		return; /* out of memory: not a verdict on the line */
	if (rc != RPC_PARSE_ERROR && rc != RPC_INVALID_REQUEST && rc != RPC_INVALID_PARAMS)
		abort();
	if (strcmp(err->code, SBX_E_BAD_REQUEST) != 0)
		abort();
	check_message(err->message);
	if (memcmp(m, &empty, sizeof(empty)) != 0)
		abort();
	if (id_out)
		check_id(id_out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Heap-allocated and exactly sized, so ASan sees any read past the end
	 * (the line is not NUL-terminated, as the server's buffer need not be). */
	char *buf = malloc(size ? size : 1);
	struct rpc_msg m;
	struct sbx_error err;
	json_t *id_out = NULL;
	int rc;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	memset(&err, 0, sizeof(err));
	memset(&m, 0xa5, sizeof(m)); /* the parser must not rely on a zeroed message */
	rc = rpc_parse(buf, size, &m, &id_out, &err);
	if (rc == 0)
		check_ok(&m, id_out);
	else
		check_failed(rc, &m, id_out, &err);
	rpc_msg_free(&m);
	json_decref(id_out);
	free(buf);
	return 0;
}
