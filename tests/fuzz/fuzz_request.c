/* SPDX-License-Identifier: MIT */
// libFuzzer target for the `sbx serve` request parser (launcher/front/serve_request.c).
//
// Build (one command) and run (scripts/fuzz.sh does both for every target):
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
//     -D_GNU_SOURCE -Iinclude -Ilauncher -Ipolicy -Iclassify tests/fuzz/fuzz_request.c
//     launcher/front/serve_request.c launcher/engine/error.c policy/modes.c -ljansson -o /tmp/fuzz_request
//   /tmp/fuzz_request -max_total_time=60 CORPUS_DIR tests/fuzz/corpus_request
//
/* Besides "no crash, no leak", it checks the parser's promises: success leaves
 * a request whose fields are all present, in range and only those of its op;
 * failure leaves an empty request, a BAD_REQUEST error with a clean message and
 * at most a valid id for the server to echo. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_request.h"

static void check_id(const json_t *id)
{
	if (json_is_integer(id))
		return;
	if (!json_is_string(id) || json_string_length(id) == 0 || json_string_length(id) > 256)
		abort();
}

static void check_len(const char *s, size_t min, size_t max)
{
	size_t len;

	if (!s)
		abort();
	len = strlen(s);
	if (len < min || len > max)
		abort();
}

static void check_run(const struct serve_request *req)
{
	check_len(req->command, 1, 256 * 1024);
	if (req->session_root)
		check_len(req->session_root, 1, SIZE_MAX);
	if (req->has_session_mode && (int)req->session_mode > SBX_MODE_DANGER_FULL_ACCESS)
		abort();
	if (req->sandbox_permissions && strcmp(req->sandbox_permissions, "workspace-write") != 0 &&
	    strcmp(req->sandbox_permissions, "danger-full-access") != 0)
		abort();
	if (req->has_timeout && (req->timeout_ms < 1 || req->timeout_ms > 604800000))
		abort();
	if (!req->has_timeout && req->timeout_ms)
		abort();
	if (req->task)
		abort();
}

static bool no_run_fields(const struct serve_request *req)
{
	return !req->command && !req->session_root && !req->has_session_mode &&
	       !req->sandbox_permissions && !req->justification && !req->has_timeout &&
	       !req->background;
}

static void check_ok(const struct serve_request *req, const json_t *id_out)
{
	if (id_out)
		abort();
	check_id(req->id);
	switch (req->op) {
	case SERVE_OP_RUN:
		check_run(req);
		break;
	case SERVE_OP_TASK_OUTPUT:
	case SERVE_OP_KILL:
		check_len(req->task, 1, 64);
		if (!no_run_fields(req))
			abort();
		break;
	case SERVE_OP_CAPABILITIES:
	case SERVE_OP_SCHEMA:
		if (req->task || !no_run_fields(req))
			abort();
		break;
	default:
		abort();
	}
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

static void check_failed(int rc, const struct serve_request *req, const json_t *id_out,
			 const struct sbx_error *err)
{
	static const struct serve_request empty;

	if (rc == -ENOMEM && strcmp(err->code, SBX_E_INTERNAL) == 0)
		return; /* out of memory: not a verdict on the line */
	if (rc != -EINVAL || strcmp(err->code, SBX_E_BAD_REQUEST) != 0)
		abort();
	check_message(err->message);
	if (memcmp(req, &empty, sizeof(empty)) != 0)
		abort();
	if (id_out)
		check_id(id_out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Heap-allocated and exactly sized, so ASan sees any read past the end
	 * (the line is not NUL-terminated, as the server's buffer need not be). */
	char *buf = malloc(size ? size : 1);
	struct serve_request req;
	struct sbx_error err;
	json_t *id_out = NULL;
	int rc;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	memset(&err, 0, sizeof(err));
	memset(&req, 0xa5, sizeof(req)); /* the parser must not rely on a zeroed request */
	rc = serve_request_parse(buf, size, &req, &id_out, &err);
	if (rc == 0)
		check_ok(&req, id_out);
	else
		check_failed(rc, &req, id_out, &err);
	serve_request_free(&req);
	json_decref(id_out);
	free(buf);
	return 0;
}
