/* SPDX-License-Identifier: MIT */
/* Strict params: only the declared fields, each of its declared type, and
 * every required one present. Nothing is guessed, defaulted from a wrong type
 * or silently ignored. Pure apart from jansson. */
#include <errno.h>
#include <string.h>

#include "jsonrpc.h"

#define BAD(err, ...) sbx_error_set((err), EINVAL, SBX_E_BAD_REQUEST, NULL, __VA_ARGS__)

static bool offset_ok(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static int check_since(const json_t *v, const char *name, struct sbx_error *err)
{
	const char *key;
	json_t *val;

	if (offset_ok(v))
		return 0;
	if (!json_is_object(v))
		goto bad;
	json_object_foreach((json_t *)v, key, val)
		if ((strcmp(key, "stdout") != 0 && strcmp(key, "stderr") != 0) || !offset_ok(val))
			goto bad;
	return 0;
bad:
	return BAD(err, "%s must be a byte offset (an integer >= 0) or "
		   "{\"stdout\": N, \"stderr\": N}", name);
}

static int check_one(const json_t *v, const struct rpc_field *f, struct sbx_error *err)
{
	json_int_t n;

	switch (f->type) {
	case RPC_T_STRING:
	case RPC_T_TEXT:
		if (!json_is_string(v))
			return BAD(err, "%s must be a string", f->name);
		if (f->type == RPC_T_STRING && json_string_length(v) == 0)
			return BAD(err, "%s must not be empty", f->name);
		if (strlen(json_string_value(v)) != json_string_length(v))
			return BAD(err, "%s must not hold a NUL character", f->name);
		if (f->max && json_string_length(v) > f->max)
			return BAD(err, "%s is longer than %llu bytes", f->name,
				   (unsigned long long)f->max);
		return 0;
	case RPC_T_BOOL:
		return json_is_boolean(v) ? 0 : BAD(err, "%s must be true or false", f->name);
	case RPC_T_UINT:
		n = json_is_integer(v) ? json_integer_value(v) : 0;
		if (n < 1 || (f->max && (uint64_t)n > f->max))
			return BAD(err, "%s must be an integer from 1 to %llu", f->name,
				   (unsigned long long)f->max);
		return 0;
	case RPC_T_OFFSET:
		return offset_ok(v) ? 0 : BAD(err, "%s must be an integer >= 0", f->name);
	case RPC_T_SINCE:
		return check_since(v, f->name, err);
	case RPC_T_ID:
		if (json_is_integer(v) || (json_is_string(v) && json_string_length(v) > 0 &&
					   json_string_length(v) <= RPC_ID_MAX))
			return 0;
		return BAD(err, "%s must be a request id (an integer or a short string)", f->name);
	case RPC_T_OBJECT:
		return json_is_object(v) ? 0 : BAD(err, "%s must be an object", f->name);
	case RPC_T_ANY:
		return 0;
	}
	return BAD(err, "%s: unknown type", f->name);
}

static int check_params(const json_t *params, const struct rpc_field *fields, const char *where,
			struct sbx_error *err)
{
	char q[RPC_QUOTE_MAX + 4];
	const char *key;
	json_t *val;

	if (params && !json_is_object(params))
		return BAD(err, "%s must be an object", where);
	if (params) {
		json_object_foreach((json_t *)params, key, val) {
			const struct rpc_field *f = fields;

			while (f->name && strcmp(f->name, key) != 0)
				f++;
			if (!f->name)
				return BAD(err, "unknown field '%s' in %s",
					   rpc_quote(q, key, strlen(key)), where);
			if (check_one(val, f, err) < 0)
				return -EINVAL;
		}
	}
	for (const struct rpc_field *f = fields; f->name; f++)
		if (f->required && !(params && json_object_get(params, f->name)))
			return BAD(err, "missing field '%s' in %s", f->name, where);
	return 0;
}

const char *rpc_str(const json_t *params, const char *name)
{
	return params ? json_string_value(json_object_get(params, name)) : NULL;
}

bool rpc_bool(const json_t *params, const char *name, bool dflt)
{
	json_t *v = params ? json_object_get(params, name) : NULL;

	return json_is_boolean(v) ? json_is_true(v) : dflt;
}

uint64_t rpc_uint(const json_t *params, const char *name, uint64_t dflt)
{
	json_t *v = params ? json_object_get(params, name) : NULL;

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v)
								  : dflt;
}

void rpc_since(const json_t *params, const char *name, uint64_t *out, uint64_t *err_off)
{
	json_t *v = params ? json_object_get(params, name) : NULL;

	*out = *err_off = 0;
	if (json_is_integer(v)) {
		*out = *err_off = (uint64_t)json_integer_value(v);
	} else if (json_is_object(v)) {
		*out = rpc_uint(v, "stdout", 0);
		*err_off = rpc_uint(v, "stderr", 0);
	}
}

/* The detail of a refusal: what the method takes, so the fix is in the
 * answer ("fields: session (required), command (required), cwd"). */
static void fields_detail(const struct rpc_field *fields, char *out, size_t size)
{
	size_t used = (size_t)snprintf(out, size, "fields:");

	if (!fields->name)
		snprintf(out, size, "no params");
	for (const struct rpc_field *f = fields; f->name && used < size; f++)
		used += (size_t)snprintf(out + used, size - used, "%s %s%s", f == fields ? "" : ",",
					 f->name, f->required ? " (required)" : "");
}

int rpc_params_check(const json_t *params, const struct rpc_field *fields, const char *where,
		     struct sbx_error *err)
{
	int rc = check_params(params, fields, where, err);

	if (rc < 0 && !err->detail[0])
		fields_detail(fields, err->detail, sizeof(err->detail));
	return rc;
}
