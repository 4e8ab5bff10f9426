/* SPDX-License-Identifier: MIT */
/* One line of `sbx serve` input (CONTRACT section 7) parsed into a request.
 *
 * Strict on purpose: a line is exactly one JSON object with an id, a known op
 * and only the keys that op takes, each of its declared type. Anything else is
 * a BAD_REQUEST whose message names the field and the problem; nothing is
 * guessed, defaulted from a wrong type or silently ignored. User text quoted in
 * a message is cut to SERVE_QUOTE_MAX bytes (on a character boundary) and its
 * control characters are replaced with '?', so a message is always printable,
 * valid UTF-8. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve_request.h"

#define SERVE_ID_MAX 256                   /* bytes of a string id */
#define SERVE_COMMAND_MAX (256 * 1024)     /* bytes of a command */
#define SERVE_TASK_MAX 64                  /* bytes of a task handle */
#define SERVE_TIMEOUT_MAX 604800000LL      /* one week, in ms */
#define SERVE_QUOTE_MAX 64                 /* bytes of user text in a message */
#define SERVE_QUOTE_BUF (SERVE_QUOTE_MAX + 4)

/* ---- messages ---- */

#define BAD(err, ...) sbx_error_set((err), EINVAL, SBX_E_BAD_REQUEST, NULL, __VA_ARGS__)

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

/* Copy src (n bytes, any content) into dst (size bytes, at least 4): controls
 * and invalid UTF-8 become '?'; a text longer than size - 4 bytes is cut on a
 * character boundary and ends in "...". */
static const char *quote(char *dst, size_t size, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t in = 0, out = 0, max = size - 4;

	while (in < n) {
		size_t len = s[in] < 0x80 ? 1 : utf8_seq_len(s + in, n - in);

		if (out + (len ? len : 1) > max)
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

static const char *quote_str(char *dst, const char *src)
{
	return quote(dst, SERVE_QUOTE_BUF, src, strlen(src));
}

static const char *quote_json(char *dst, const json_t *s)
{
	return quote(dst, SERVE_QUOTE_BUF, json_string_value(s), json_string_length(s));
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
	json_error_t jerr;
	char text[JSON_ERROR_TEXT_LENGTH + 4];
	json_t *root;

	if (len > SERVE_LINE_MAX)
		return BAD(err, "line longer than %d bytes", SERVE_LINE_MAX);
	if (len > 0 && memchr(line, '\0', len))
		return BAD(err, "NUL byte in line at byte %zu",
			   (size_t)((const char *)memchr(line, '\0', len) - line));
	if (is_blank(line, len))
		return BAD(err, "empty line");
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root && json_error_code(&jerr) == json_error_out_of_memory)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory reading line");
	if (!root)
		return BAD(err, "%s at byte %d: %s", json_problem(&jerr), jerr.position,
			   quote(text, sizeof(text), jerr.text, strlen(jerr.text)));
	if (!json_is_object(root)) {
		json_decref(root);
		return BAD(err, "line must be a JSON object");
	}
	*out = root;
	return 0;
}

/* ---- id and op ---- */

static int read_id(json_t *root, json_t **id, struct sbx_error *err)
{
	json_t *v = json_object_get(root, "id");

	if (!v)
		return BAD(err, "missing field 'id'");
	if (json_is_integer(v) ||
	    (json_is_string(v) && json_string_length(v) > 0 &&
	     json_string_length(v) <= SERVE_ID_MAX)) {
		*id = v;
		return 0;
	}
	return BAD(err, "id must be a JSON integer or a non-empty string of at most %d bytes",
		   SERVE_ID_MAX);
}

static const char *const op_names[] = {
	[SERVE_OP_RUN] = "run",
	[SERVE_OP_TASK_OUTPUT] = "task_output",
	[SERVE_OP_KILL] = "kill",
	[SERVE_OP_CAPABILITIES] = "capabilities",
	[SERVE_OP_SCHEMA] = "schema",
};

#define N_OPS (sizeof(op_names) / sizeof(op_names[0]))

static int read_op(json_t *root, enum serve_op *op, struct sbx_error *err)
{
	json_t *v = json_object_get(root, "op");
	char q[SERVE_QUOTE_BUF];

	if (!v)
		return BAD(err, "missing field 'op'");
	if (!json_is_string(v))
		return BAD(err, "op must be a string");
	for (size_t i = 0; i < N_OPS; i++) {
		if (strcmp(json_string_value(v), op_names[i]) == 0) {
			*op = (enum serve_op)i;
			return 0;
		}
	}
	return BAD(err, "unknown op '%s'", quote_json(q, v));
}

/* ---- one field each ---- */

/* A non-empty string of at most max bytes (max 0: any length), copied. */
static int take_string(json_t *v, const char *name, size_t max, bool empty_ok, char **out,
		       struct sbx_error *err)
{
	size_t len;

	if (!json_is_string(v))
		return BAD(err, "%s must be a string", name);
	len = json_string_length(v);
	if (len == 0 && !empty_ok)
		return BAD(err, "%s must not be empty", name);
	if (max && len > max)
		return BAD(err, "%s is longer than %zu bytes", name, max);
	*out = strdup(json_string_value(v));
	if (!*out)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory reading %s",
				     name);
	return 0;
}

static int f_command(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	return take_string(v, "command", SERVE_COMMAND_MAX, false, &req->command, err);
}

static int f_justification(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	return take_string(v, "justification", 0, true, &req->justification, err);
}

static int f_task(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	return take_string(v, "task", SERVE_TASK_MAX, false, &req->task, err);
}

static int f_sandbox_permissions(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	const char *s = json_string_value(v);

	if (!s || (strcmp(s, "workspace-write") != 0 && strcmp(s, "danger-full-access") != 0))
		return BAD(err,
			   "sandbox_permissions must be 'workspace-write' or 'danger-full-access'");
	return take_string(v, "sandbox_permissions", 0, false, &req->sandbox_permissions, err);
}

static int f_timeout_ms(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	json_int_t n;

	n = json_is_integer(v) ? json_integer_value(v) : 0;
	if (n < 1 || n > SERVE_TIMEOUT_MAX)
		return BAD(err, "timeout_ms must be an integer from 1 to %lld", SERVE_TIMEOUT_MAX);
	req->has_timeout = true;
	req->timeout_ms = (uint64_t)n;
	return 0;
}

static int f_background(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	if (!json_is_boolean(v))
		return BAD(err, "background must be true or false");
	req->background = json_is_true(v);
	return 0;
}

static int session_mode(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	char q[SERVE_QUOTE_BUF];

	if (!json_is_string(v))
		return BAD(err, "session.mode must be a string");
	if (sbx_mode_parse(json_string_value(v), &req->session_mode) != 0)
		return BAD(err,
			   "session.mode '%s' is not 'read-only', 'workspace-write' or "
			   "'danger-full-access'",
			   quote_json(q, v));
	req->has_session_mode = true;
	return 0;
}

static int f_session(json_t *v, struct serve_request *req, struct sbx_error *err)
{
	const char *key;
	json_t *val;
	char q[SERVE_QUOTE_BUF];
	int rc = 0;

	if (!json_is_object(v))
		return BAD(err, "session must be an object");
	json_object_foreach(v, key, val) {
		if (strcmp(key, "root") == 0)
			rc = take_string(val, "session.root", 0, false, &req->session_root, err);
		else if (strcmp(key, "mode") == 0)
			rc = session_mode(val, req, err);
		else
			rc = BAD(err, "unknown field '%s' in session", quote_str(q, key));
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the fields of each op ---- */

struct field {
	const char *name;
	bool required;
	int (*take)(json_t *v, struct serve_request *req, struct sbx_error *err);
};

static const struct field run_fields[] = {
	{ "command", true, f_command },
	{ "session", false, f_session },
	{ "sandbox_permissions", false, f_sandbox_permissions },
	{ "justification", false, f_justification },
	{ "timeout_ms", false, f_timeout_ms },
	{ "background", false, f_background },
	{ NULL, false, NULL },
};

static const struct field task_fields[] = {
	{ "task", true, f_task },
	{ NULL, false, NULL },
};

static const struct field no_fields[] = {
	{ NULL, false, NULL },
};

static const struct field *op_fields(enum serve_op op)
{
	switch (op) {
	case SERVE_OP_RUN:
		return run_fields;
	case SERVE_OP_TASK_OUTPUT:
	case SERVE_OP_KILL:
		return task_fields;
	default:
		return no_fields;
	}
}

static const struct field *find_field(const struct field *fields, const char *key)
{
	for (; fields->name; fields++)
		if (strcmp(fields->name, key) == 0)
			return fields;
	return NULL;
}

static int read_fields(json_t *root, struct serve_request *req, struct sbx_error *err)
{
	const struct field *fields = op_fields(req->op);
	const char *key;
	json_t *val;
	char q[SERVE_QUOTE_BUF];
	int rc;

	json_object_foreach(root, key, val) {
		const struct field *f;

		if (strcmp(key, "id") == 0 || strcmp(key, "op") == 0)
			continue;
		f = find_field(fields, key);
		if (!f)
			return BAD(err, "unknown field '%s' for op '%s'", quote_str(q, key),
				   op_names[req->op]);
		rc = f->take(val, req, err);
		if (rc)
			return rc;
	}
	for (; fields->name; fields++)
		if (fields->required && !json_object_get(root, fields->name))
			return BAD(err, "missing field '%s' for op '%s'", fields->name,
				   op_names[req->op]);
	return 0;
}

/* ---- entry points ---- */

int serve_request_parse(const char *line, size_t len, struct serve_request *req,
			json_t **id_out, struct sbx_error *err)
{
	json_t *root = NULL, *id = NULL;
	int rc;

	if (id_out)
		*id_out = NULL;
	if (!req || (!line && len))
		return BAD(err, "no request line");
	memset(req, 0, sizeof(*req));
	rc = load_object(line, len, &root, err);
	if (rc)
		return rc;
	rc = read_id(root, &id, err);
	if (rc == 0)
		rc = read_op(root, &req->op, err);
	if (rc == 0)
		rc = read_fields(root, req, err);
	if (rc == 0) {
		req->id = json_incref(id);
	} else {
		serve_request_free(req);
		if (id && id_out)
			*id_out = json_incref(id);
	}
	json_decref(root);
	return rc;
}

void serve_request_free(struct serve_request *req)
{
	if (!req)
		return;
	json_decref(req->id);
	free(req->command);
	free(req->session_root);
	free(req->sandbox_permissions);
	free(req->justification);
	free(req->task);
	memset(req, 0, sizeof(*req));
}
