/* SPDX-License-Identifier: MIT */
/* One line <-> one JSON-RPC 2.0 message. Pure apart from jansson.
 *
 * Strict on purpose: a line is exactly one JSON object with "jsonrpc":"2.0"
 * and the members of a request, a notification or a response, nothing else.
 * Anything else is refused with a message naming the problem. User text in a
 * message is cut to RPC_QUOTE_MAX bytes on a character boundary, its control
 * characters replaced with '?', so a message is always printable UTF-8. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"

/* A malformed message: the detail shows the shape of a good one. */
#define BAD(err, ...)                                                                        \
	sbx_error_set((err), EINVAL, SBX_E_BAD_REQUEST,                                      \
		      "one JSON-RPC 2.0 object per line, e.g. {\"jsonrpc\":\"2.0\",\"id\":1,"   \
		      "\"method\":\"initialize\",\"params\":{}}",                              \
		      __VA_ARGS__)

/* ---- printable quotes ---- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

static bool is_control_seq(const unsigned char *s, size_t len)
{
	if (len == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return len == 2 && s[0] == 0xc2 && s[1] < 0xa0; /* C1 controls */
}

const char *rpc_quote(char dst[RPC_QUOTE_MAX + 4], const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t in = 0, out = 0;

	while (in < n) {
		size_t len = s[in] < 0x80 ? 1 : utf8_seq_len(s + in, n - in);

		if (out + (len ? len : 1) > RPC_QUOTE_MAX)
			break;
		if (len == 0 || is_control_seq(s + in, len)) {
			dst[out++] = '?';
			in += len ? len : 1;
			continue;
		}
		memcpy(dst + out, s + in, len);
		out += len;
		in += len;
	}
	if (in < n) {
		memcpy(dst + out, "...", 3);
		out += 3;
	}
	dst[out] = '\0';
	return dst;
}

/* ---- the line as JSON ---- */

static bool is_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n')
			return false;
	return true;
}

static const char *json_problem(const json_error_t *jerr)
{
	if (strncmp(jerr->text, "NUL byte in object key", 22) == 0)
		return "NUL byte in a JSON object key (\\u0000)";
	switch (json_error_code(jerr)) {
	case json_error_null_character:
		return "NUL byte in a JSON string (\\u0000)";
	case json_error_invalid_utf8:
		return "invalid UTF-8";
	case json_error_end_of_input_expected:
		return "trailing data after the JSON object";
	case json_error_duplicate_key:
		return "duplicate key";
	case json_error_premature_end_of_input:
		return "truncated JSON";
	case json_error_numeric_overflow:
		return "number out of range";
	default:
		return "invalid JSON";
	}
}

static int load_object(const char *line, size_t len, json_t **out, struct sbx_error *err)
{
	char q[RPC_QUOTE_MAX + 4];
	json_error_t jerr;
	const char *nul = len ? memchr(line, '\0', len) : NULL;
	json_t *root;

	if (nul)
		return BAD(err, "NUL byte in line at byte %zu", (size_t)(nul - line));
	if (is_blank(line, len))
		return BAD(err, "empty line");
	/* Any JSON value: a valid scalar ("42", "null") is an Invalid
	 * Request (-32600) by JSON-RPC 2.0, not a Parse error (-32700), and
	 * jansson refuses one without JSON_DECODE_ANY. */
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY,
			  &jerr);
	if (!root && json_error_code(&jerr) == json_error_out_of_memory)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory reading line");
	if (!root)
		return BAD(err, "%s at byte %d: %s", json_problem(&jerr), jerr.position,
			   rpc_quote(q, jerr.text, strlen(jerr.text)));
	*out = root;
	return 0;
}

/* ---- members ---- */

static bool id_valid(const json_t *v)
{
	return json_is_integer(v) || (json_is_string(v) && json_string_length(v) > 0 &&
				      json_string_length(v) <= RPC_ID_MAX);
}

static int check_members(json_t *root, const char *const *allowed, struct sbx_error *err)
{
	char q[RPC_QUOTE_MAX + 4];
	const char *key;
	json_t *val;

	json_object_foreach(root, key, val) {
		size_t i;

		for (i = 0; allowed[i] && strcmp(allowed[i], key) != 0; i++)
			;
		if (!allowed[i])
			return BAD(err, "unknown member '%s'", rpc_quote(q, key, strlen(key)));
	}
	return 0;
}

static int read_call(json_t *root, struct rpc_msg *m, struct sbx_error *err)
{
	static const char *const allowed[] = { "jsonrpc", "id", "method", "params", NULL };
	char q[RPC_QUOTE_MAX + 4];
	json_t *method = json_object_get(root, "method");
	json_t *params = json_object_get(root, "params");
	size_t len;

	if (!json_is_string(method))
		return BAD(err, "method must be a string");
	len = json_string_length(method);
	if (len == 0 || len >= sizeof(m->method) || strlen(json_string_value(method)) != len)
		return BAD(err, "unknown method '%s'",
			   rpc_quote(q, json_string_value(method), len));
	memcpy(m->method, json_string_value(method), len + 1);
	if (check_members(root, allowed, err) < 0)
		return RPC_INVALID_REQUEST;
	if (params && !json_is_object(params)) {
		BAD(err, "params must be an object");
		return RPC_INVALID_PARAMS;
	}
	m->kind = m->id ? RPC_REQUEST : RPC_NOTIFICATION;
	m->params = json_incref(params);
	return 0;
}

static int read_response(json_t *root, struct rpc_msg *m, struct sbx_error *err)
{
	static const char *const allowed[] = { "jsonrpc", "id", "result", "error", NULL };
	json_t *result = json_object_get(root, "result");
	json_t *error = json_object_get(root, "error");

	if (!m->id || (result && error) || (!result && !json_is_object(error)))
		return BAD(err, "a message needs a method, or an id with a result or an error");
	if (check_members(root, allowed, err) < 0)
		return -EINVAL;
	m->kind = RPC_RESPONSE;
	m->result = json_incref(result);
	m->error = json_incref(error);
	return 0;
}

int rpc_parse(const char *line, size_t len, struct rpc_msg *m, json_t **id_out,
	      struct sbx_error *err)
{
	json_t *root = NULL, *id, *version;
	int rc;

	if (id_out)
		*id_out = NULL;
	memset(m, 0, sizeof(*m));
	rc = load_object(line, len, &root, err);
	if (rc == -ENOMEM)
		return RPC_INTERNAL_ERROR;
	if (rc < 0)
		return RPC_PARSE_ERROR;
	if (!json_is_object(root)) {
		BAD(err, json_is_array(root) ? "batches are not supported: one message per line"
					     : "a message must be a JSON object");
		json_decref(root);
		return RPC_INVALID_REQUEST;
	}
	id = json_object_get(root, "id");
	version = json_object_get(root, "jsonrpc");
	if (id && !id_valid(id)) {
		rc = BAD(err, "id must be an integer or a non-empty string of at most %d bytes",
			 RPC_ID_MAX);
		id = NULL;
	} else if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0) {
		rc = BAD(err, "jsonrpc must be \"2.0\"");
	} else {
		m->id = json_incref(id);
		rc = json_object_get(root, "method") ? read_call(root, m, err)
						     : read_response(root, m, err);
	}
	if (rc != 0) {
		if (id && id_out)
			*id_out = json_incref(id);
		rpc_msg_free(m);
		rc = rc == RPC_INVALID_PARAMS ? RPC_INVALID_PARAMS : RPC_INVALID_REQUEST;
	}
	json_decref(root);
	return rc;
}

void rpc_msg_free(struct rpc_msg *m)
{
	if (!m)
		return;
	json_decref(m->id);
	json_decref(m->params);
	json_decref(m->result);
	json_decref(m->error);
	memset(m, 0, sizeof(*m));
}

/* ---- builders ---- */

json_t *rpc_result(json_t *id, json_t *result)
{
	return json_pack("{s:s, s:o, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "result", result ? result : json_object());
}

json_t *rpc_error(json_t *id, int code, const char *message, json_t *data)
{
	json_t *e = json_pack("{s:i, s:s}", "code", code, "message", message);

	if (data)
		json_object_set_new(e, "data", data);
	return json_pack("{s:s, s:o, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "error", e);
}

json_t *rpc_error_sbx(json_t *id, const struct sbx_error *err)
{
	int code = RPC_SBX_ERROR;

	if (strcmp(err->code, SBX_E_BAD_REQUEST) == 0)
		code = RPC_INVALID_PARAMS;
	else if (strcmp(err->code, SBX_E_INTERNAL) == 0)
		code = RPC_INTERNAL_ERROR;
	return rpc_error(id, code, err->message,
			 json_pack("{s:s, s:s}", "code", err->code, "detail", err->detail));
}

json_t *rpc_notification(const char *method, json_t *params)
{
	return json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params",
			 params ? params : json_object());
}

json_t *rpc_request(json_t *id, const char *method, json_t *params)
{
	return json_pack("{s:s, s:o, s:s, s:o}", "jsonrpc", "2.0", "id", id, "method", method,
			 "params", params ? params : json_object());
}
