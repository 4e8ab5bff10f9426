/* SPDX-License-Identifier: MIT */
/* The result object (sbx(1), RESULT OBJECT), and the model's `text`. */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

void sbx_result_free(struct sbx_result *r)
{
	if (!r)
		return;
	free(r->out_text);
	free(r->err_text);
	free(r->spill_out);
	free(r->spill_err);
	free(r->markers);
	free(r->text);
	for (size_t i = 0; i < r->n_reverted; i++)
		free(r->reverted[i]);
	for (size_t i = 0; i < r->n_recovered; i++)
		free(r->recovered[i]);
	free(r);
}

int sbx_result_exit_status(const struct sbx_result *r)
{
	if (r->timed_out)
		return 124;
	if (r->exited)
		return r->exit_code;
	return 128 + r->signal;
}

bool sbx_result_cancelled(const struct sbx_result *r)
{
	return r->cancelled;
}

bool sbx_result_denied(const struct sbx_result *r)
{
	return r->denied;
}

const char *sbx_result_limit_hit(const struct sbx_result *r)
{
	return r->limits.hit;
}

const char *sbx_result_markers(const struct sbx_result *r)
{
	return r->markers ? r->markers : "";
}

const char *sbx_result_stdout(const struct sbx_result *r, size_t *len)
{
	if (len)
		*len = r->out_text ? r->out_len : 0;
	return r->out_text ? r->out_text : "";
}

const char *sbx_result_stderr(const struct sbx_result *r, size_t *len)
{
	if (len)
		*len = r->err_text ? r->err_len : 0;
	return r->err_text ? r->err_text : "";
}

const char *sbx_result_text(const struct sbx_result *r)
{
	return r->text ? r->text : "";
}

int sbx_result_signal(const struct sbx_result *r)
{
	return r->exited ? 0 : r->signal;
}

bool sbx_result_timed_out(const struct sbx_result *r)
{
	return r->timed_out;
}

/* text = stdout, then stderr, then the markers, each part starting on a line
 * of its own. Command output that could pass for a marker or for sbx's
 * omitted line is prefixed (markers_neutralise_around; sbx's own omitted
 * line between the head and the tail is left as it is): the model must be
 * able to tell sbx's facts from what the command printed, and the text never
 * ends in a marker sbx did not add. */
int result_finish_text(struct sbx_result *r)
{
	size_t ml = strlen(r->markers);
	size_t ol = markers_neutralise_around(r->out_text, r->out_len, r->out_mid_at,
					      r->out_mid_len, NULL);
	size_t el = markers_neutralise_around(r->err_text, r->err_len, r->err_mid_at,
					      r->err_mid_len, NULL);
	char *t = malloc(ol + el + ml + 3), *p;

	if (!t)
		return -ENOMEM;
	p = t;
	p += markers_neutralise_around(r->out_text, r->out_len, r->out_mid_at, r->out_mid_len, p);
	if (el) {
		if (p > t && p[-1] != '\n')
			*p++ = '\n';
		p += markers_neutralise_around(r->err_text, r->err_len, r->err_mid_at,
					       r->err_mid_len, p);
	}
	if (ml) {
		if (p > t && p[-1] != '\n')
			*p++ = '\n';
		memcpy(p, r->markers, ml);
		p += ml;
	}
	*p = '\0';
	r->text = t;
	r->text_len = (size_t)(p - t);
	return 0;
}

static json_t *json_bytes(const char *buf, size_t len)
{
	size_t clean_len;
	char *clean = utf8_sanitize(buf, len, &clean_len);
	json_t *j;

	if (!clean)
		return NULL;
	j = json_stringn(clean, clean_len);
	free(clean);
	return j;
}

static const char *signal_name(int sig)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(sig);

	if (!abbrev) {
		snprintf(buf, sizeof(buf), "SIG%d", sig);
		return buf;
	}
	snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	return buf;
}

static json_t *markers_array(const char *markers)
{
	json_t *a = json_array();

	for (const char *p = markers; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		json_array_append_new(a, json_stringn(p, len));
		p += len + (nl ? 1 : 0);
	}
	return a;
}

/* Which spill files do not hold their whole stream, and why; null when
 * every spill (if any) is whole. */
static json_t *spill_stopped_object(const struct sbx_result *r)
{
	const struct {
		const char *name;
		enum spill_stop stop;
		uint64_t bytes;
		int errnum;
	} s[] = {
		{ "stdout", r->spill_stop_out, r->spilled_out, r->spill_errno_out },
		{ "stderr", r->spill_stop_err, r->spilled_err, r->spill_errno_err },
	};
	json_t *o = NULL;

	for (size_t i = 0; i < 2; i++) {
		json_t *why;

		if (s[i].stop == SPILL_WHOLE)
			continue;
		if (!o)
			o = json_object();
		why = json_pack("{s:s, s:I}", "reason", spill_stop_name(s[i].stop), "bytes",
				(json_int_t)s[i].bytes);
		if (s[i].stop == SPILL_STOP_ERROR)
			json_object_set_new(why, "detail", json_string(strerror(s[i].errnum)));
		json_object_set_new(o, s[i].name, why);
	}
	return o ? o : json_null();
}

static json_t *sandbox_object(const struct sbx_result *r)
{
	json_t *o;

	if (r->mode == SBX_MODE_DANGER_FULL_ACCESS)
		return json_pack("{s:s, s:b}", "mode", sbx_mode_name(r->mode), "denied", 0);
	o = json_pack("{s:s, s:s, s:s, s:b, s:s}", "mode", sbx_mode_name(r->mode), "runner",
		      r->runner ? r->runner : "none", "enforcement",
		      r->enforcement == SBX_ENFORCEMENT_FULL ? "full" : "partial", "denied",
		      r->denied, "processes", r->private_processes ? "private" : "host");
	if (o && r->protected_how)
		json_object_set_new(o, "protected", json_string(r->protected_how));
	if (o && r->n_reverted) {
		json_t *a = json_array();

		for (size_t i = 0; i < r->n_reverted; i++)
			json_array_append_new(a, json_string(r->reverted[i]));
		json_object_set_new(o, "reverted", a);
		if (r->reverted_more)
			json_object_set_new(o, "reverted_more", json_integer((json_int_t)r->reverted_more));
	}
	if (o && r->refused_calls)
		json_object_set_new(o, "refused_calls", json_integer(r->refused_calls));
	if (o && r->n_recovered) {
		json_t *a = json_array();

		for (size_t i = 0; i < r->n_recovered; i++)
			json_array_append_new(a, json_string(r->recovered[i]));
		json_object_set_new(o, "recovered", a);
	}
	return o;
}

static json_t *limit_value(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

/* What this run was held to (null: not enforced here) and which limit ended
 * it (docs/limits.md). */
static json_t *limits_object(const struct sbx_result *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "processes", limit_value(r->limits.processes));
	json_object_set_new(o, "memory", limit_value(r->limits.memory));
	json_object_set_new(o, "file_size", limit_value(r->limits.file_size));
	json_object_set_new(o, "cgroup", json_boolean(r->limits.cgroup));
	json_object_set_new(o, "hit", r->limits.hit ? json_string(r->limits.hit) : json_null());
	return o;
}

json_t *result_to_json_object(const struct sbx_result *r)
{
	json_t *o = json_object();
	json_t *spill = json_null();

	if (r->spill_out || r->spill_err) {
		spill = json_object();
		json_object_set_new(spill, "stdout", r->spill_out ? json_string(r->spill_out) : json_null());
		json_object_set_new(spill, "stderr", r->spill_err ? json_string(r->spill_err) : json_null());
	}
	json_object_set_new(o, "exit_code", r->exited ? json_integer(r->exit_code) : json_null());
	json_object_set_new(o, "signal", r->exited ? json_null() : json_string(signal_name(r->signal)));
	json_object_set_new(o, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(o, "duration_ms", json_integer((json_int_t)r->duration_ms));
	json_object_set_new(o, "stdout", json_bytes(r->out_text, r->out_len));
	json_object_set_new(o, "stderr", json_bytes(r->err_text, r->err_len));
	json_object_set_new(o, "stdout_bytes", json_integer((json_int_t)r->out_bytes));
	json_object_set_new(o, "stderr_bytes", json_integer((json_int_t)r->err_bytes));
	json_object_set_new(o, "truncated", json_boolean(r->truncated));
	json_object_set_new(o, "spill", spill);
	json_object_set_new(o, "spill_stopped", spill_stopped_object(r));
	json_object_set_new(o, "sandbox", sandbox_object(r));
	json_object_set_new(o, "limits", limits_object(r));
	json_object_set_new(o, "markers", markers_array(r->markers));
	json_object_set_new(o, "text", json_bytes(r->text, r->text_len));
	json_object_set_new(o, "version", json_string(sbx_version()));
	return o;
}

static char *dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

char *sbx_result_to_json(const struct sbx_result *r)
{
	return dump(result_to_json_object(r));
}

json_t *error_to_json_object(const struct sbx_error *err)
{
	return json_pack("{s:{s:s, s:s, s:s}}", "error", "code", err->code, "message", err->message,
			 "detail", err->detail);
}

char *sbx_error_to_json(const struct sbx_error *err)
{
	return dump(error_to_json_object(err));
}
