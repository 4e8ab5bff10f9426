/* SPDX-License-Identifier: MIT */
/* The fixed-shape answers both front ends give, built as JSON (no I/O). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "sbx.h"
#include "work.h"

#define MARKERS_TOLD                                                                          \
	"After the command's own output, sbx may add lines of its own, each starting with "    \
	"'[sandbox: ': '[sandbox: file access denied under <mode> mode]' means the sandbox, "    \
	"not the command, refused a write (the command failed because of the policy); "          \
	"'[sandbox: escalation available ...]' follows it when a wider mode may be asked "       \
	"for; '[sandbox: the sandbox runner itself failed ...]' means the command did not run "  \
	"at all. A line '[... N bytes omitted ...]' is sbx's too: the middle of a long output "  \
	"was left out. Output lines of the command that look like these are shown with the "   \
	"prefix "                                                                               \
	"'" MARKER_FORGED_PREFIX "': they are not sbx's."

json_t *work_bash_schema(const struct work_session *sess)
{
	json_t *props = json_pack(
		"{s:{s:s, s:s}, s:{s:s, s:i, s:s}, s:{s:s, s:s}, s:{s:s, s:s}}",
		"command", "type", "string", "description",
		"The bash command to run (bash -c COMMAND), in the workspace. " MARKERS_TOLD,
		"timeout_ms", "type", "integer", "minimum", 1, "description",
		"Kill the whole process tree after this many milliseconds.",
		"workdir", "type", "string", "description",
		"Working directory: absolute, or relative to the workspace root (default: the root).",
		"run_in_background", "type", "boolean", "description",
		"Start it as a background task and return its task_id at once; read its output "
		"with task_output, stop it with task_stop.");

	/* Only when the session may escalate, and there is something to
	 * escalate from: otherwise the model is not offered what it cannot have. */
	if (sess->escalation && sess->mode != SBX_MODE_DANGER_FULL_ACCESS) {
		json_object_set_new(
			props, "sandbox_permissions",
			json_pack("{s:s, s:[s,s], s:s}", "type", "string", "enum", "workspace-write",
				  "danger-full-access", "description",
				  "Only after a '[sandbox: escalation available ...]' marker: the "
				  "narrowest wider mode that lets this exact command succeed. The "
				  "user is asked to approve it."));
		json_object_set_new(
			props, "justification",
			json_pack("{s:s, s:s}", "type", "string", "description",
				  "With sandbox_permissions: why the command needs the wider mode, "
				  "shown to the user in the approval prompt."));
	}
	return json_pack("{s:s, s:o, s:[s]}", "type", "object", "properties", props, "required",
			 "command");
}

json_t *work_runner_failed_result(enum sbx_mode mode, const struct sbx_error *err)
{
	char markers[1024];
	size_t n = markers_build(markers, sizeof(markers), sbx_mode_name(mode), false, false, true);
	json_t *marker_list = json_array();

	if (n > 0 && markers[n - 1] == '\n')
		json_array_append_new(marker_list, json_stringn(markers, n - 1));
	/* Every key a result has (sbx(1) RESULT OBJECT): a harness reads a
	 * settled task's result the same way whatever ended it (new-user pass
	 * 8, finding 3). The sandbox is that of a run no runner confined. */
	return json_pack("{s:n, s:n, s:b, s:i, s:s, s:s, s:i, s:i, s:b, s:n, s:n, s:{s:s, s:b}, "
			 "s:{s:n, s:n, s:n, s:b, s:n}, s:o, s:s, s:s, s:o}",
			 "exit_code", "signal", "timed_out", 0, "duration_ms", 0, "stdout", "",
			 "stderr", "", "stdout_bytes", 0, "stderr_bytes", 0, "truncated", 0, "spill",
			 "spill_stopped", "sandbox", "mode", sbx_mode_name(mode), "denied", 0,
			 "limits", "processes", "memory", "file_size", "cgroup", 0, "hit",
			 "markers", marker_list, "text", markers, "version", sbx_version(), "error",
			 json_pack("{s:s, s:s, s:s}", "code", err->code, "message", err->message,
				   "detail", err->detail));
}

/* ---- answers that fit ---- */

static size_t dumped_size(const json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	size_t n = s ? strlen(s) : 0;

	free(s);
	return n;
}

/* Back off to the start of a UTF-8 character. */
static size_t char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* s (len bytes) cut to about keep bytes: head, an omitted line, tail. In
 * guarded text (a model reads it) the tail's first line, which may have
 * begun inside a line of the command's, is guarded as the start it now is. */
static json_t *cut(const char *s, size_t len, size_t keep, bool guarded)
{
	size_t head, tail_from;
	char mid[96];
	int m;
	char *buf;
	json_t *j;

	if (len <= keep)
		return json_stringn(s, len);
	head = char_start(s, keep / 2);
	tail_from = char_start(s, len - keep / 2);
	m = snprintf(mid, sizeof(mid), "\n[... %zu bytes omitted to fit the answer ...]\n",
		     tail_from - head);
	size_t tail = guarded ? markers_guard_cut(s + tail_from, len - tail_from, NULL)
			      : len - tail_from;

	buf = malloc(head + (size_t)m + tail);
	if (!buf)
		return json_string("");
	memcpy(buf, s, head);
	memcpy(buf + head, mid, (size_t)m);
	if (guarded)
		markers_guard_cut(s + tail_from, len - tail_from, buf + head + m);
	else
		memcpy(buf + head + m, s + tail_from, tail);
	j = json_stringn(buf, head + (size_t)m + tail);
	free(buf);
	return j;
}

/* Output is cut, halved each round, never the markers: they stay whole at
 * the end of text, as the model is told. Escaped JSON may take six bytes per
 * byte of output, so the size is measured, not computed. */
static size_t markers_len(const json_t *result)
{
	size_t i, n = 0;
	json_t *m;

	json_array_foreach(json_object_get(result, "markers"), i, m)
		n += json_string_length(m) + 1;
	return n;
}

/* An upper bound of the dumped size without dumping: six bytes per byte of
 * the long strings (\u00XX), plus room for the rest. */
static size_t size_bound(const json_t *result)
{
	static const char *const strings[] = { "stdout", "stderr", "text" };
	size_t n = 4096 + 2 * markers_len(result);

	for (size_t i = 0; i < 3; i++)
		n += 6 * json_string_length(json_object_get(result, strings[i]));
	return n;
}

void work_fit_result(json_t *result, size_t budget)
{
	static const char *const fields[] = { "stdout", "stderr" };
	size_t keep = 65536;

	/* The usual answer is far below the budget: no need to measure it. */
	if (size_bound(result) <= budget)
		return;
	while (keep >= 64 && dumped_size(result) > budget) {
		json_t *text = json_object_get(result, "text");
		size_t ml = markers_len(result);

		for (size_t i = 0; i < 2; i++) {
			json_t *v = json_object_get(result, fields[i]);

			if (json_is_string(v) && json_string_length(v) > keep)
				json_object_set_new(result, fields[i],
						    cut(json_string_value(v), json_string_length(v), keep, false));
		}
		if (json_is_string(text) && json_string_length(text) > ml + keep) {
			const char *t = json_string_value(text);
			size_t body = json_string_length(text) - ml;
			json_t *head = cut(t, body, keep, true);
			size_t hl = json_string_length(head);
			char *joined = malloc(hl + ml + 1);

			if (joined) {
				memcpy(joined, json_string_value(head), hl);
				memcpy(joined + hl, t + body, ml);
				json_object_set_new(result, "text", json_stringn(joined, hl + ml));
			}
			free(joined);
			json_decref(head);
		}
		json_object_set_new(result, "truncated", json_true());
		keep /= 2;
	}
}
