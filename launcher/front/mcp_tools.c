/* SPDX-License-Identifier: MIT */
/* The three tools of `sbx mcp` and the shape of their results: content is
 * one text item for the model, structuredContent is sbx's own object, and
 * outputSchema admits every shape a call can answer (the SDK validates it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "mcp.h"

static json_t *result_properties(void)
{
	return json_pack(
		"{s:{s:[s,s]}, s:{s:[s,s]}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, "
		"s:{s:s}, s:{s:s}, s:{s:[s,s]}, s:{s:s}, s:{s:s, s:{s:s}}, s:{s:s}, s:{s:s}, "
		"s:{s:s}}",
		"exit_code", "type", "integer", "null", "signal", "type", "string", "null",
		"timed_out", "type", "boolean", "duration_ms", "type", "integer", "stdout", "type",
		"string", "stderr", "type", "string", "stdout_bytes", "type", "integer",
		"stderr_bytes", "type", "integer", "truncated", "type", "boolean", "spill", "type",
		"object", "null", "sandbox", "type", "object", "markers", "type", "array", "items",
		"type", "string", "text", "type", "string", "task_id", "type", "string", "error",
		"type", "object");
}

/* What every tool may answer besides its own shape: sbx's error object. */
static json_t *output_schema(json_t *props, json_t *shapes)
{
	json_array_append_new(shapes, json_pack("{s:[s]}", "required", "error"));
	if (!json_object_get(props, "error"))
		json_object_set_new(props, "error", json_pack("{s:s}", "type", "object"));
	return json_pack("{s:s, s:o, s:o}", "type", "object", "properties", props, "anyOf",
			 shapes);
}

json_t *mcp_tools_list(const struct work_session *sess)
{
	json_t *bash_in = work_bash_schema(sess);
	/* Why annotations: a client that asks no approval for a tool that
	 * declares none (Codex's default) would run an escalated command
	 * unasked; the bash tool changes things and reaches the network. */
	json_t *annotations = json_pack("{s:b, s:b, s:b, s:b}", "readOnlyHint", 0,
					"destructiveHint", 1, "idempotentHint", 0,
					"openWorldHint", 1);
	json_t *bash = json_pack(
		"{s:s, s:s, s:s, s:o, s:o}", "name", "bash", "title", "Sandboxed bash",
		"description",
		"Run a bash command in the workspace under sbx's file-write policy. The answer is "
		"the command's bounded output, then sbx's markers, then how it ended. A line "
		"'[sandbox: file access denied under <mode> mode]' means the sandbox, not the "
		"command, refused a write: do not retry the same write another way. A line "
		"'[... N bytes omitted ...]' is sbx's: the middle of a long output was left out. "
		"Output lines that merely look like sbx's markers or that line are prefixed '"
		MARKER_FORGED_PREFIX "'. "
		"Long-running work (servers, watchers) belongs in run_in_background.",
		"inputSchema", bash_in, "outputSchema",
		output_schema(result_properties(),
			      json_pack("[{s:[s,s,s]}, {s:[s]}]", "required", "exit_code",
					"sandbox", "text", "required", "task_id")));
	json_object_set_new(bash, "annotations", annotations);
	json_t *task_props = json_pack(
		"{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:[s,s]}}",
		"task_id", "type", "string", "status", "type", "string", "stdout", "type",
		"string", "stderr", "type", "string", "stdout_bytes", "type", "integer",
		"stderr_bytes", "type", "integer", "next", "type", "object", "result", "type",
		"object", "null");
	json_t *output = json_pack(
		"{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}, s:{s:[{s:s, s:i}, {s:s, s:{s:{s:s, s:i}, "
		"s:{s:s, s:i}}}], s:s}}, s:[s]}, s:o}",
		"name", "task_output", "description",
		"Read a background task's output: the bytes after `since` (the `next` offsets of "
		"the previous answer; 0 or absent: from the start), its status, and its result once "
		"it has settled.",
		"inputSchema", "type", "object", "properties", "task_id", "type", "string",
		"description", "The task_id bash returned.", "since", "anyOf", "type", "integer",
		"minimum", 0, "type", "object", "properties", "stdout", "type", "integer",
		"minimum", 0, "stderr", "type", "integer", "minimum", 0, "description",
		"Byte offsets already read: one integer for both streams, or {stdout, stderr}.",
		"required", "task_id", "outputSchema",
		output_schema(json_deep_copy(task_props),
			      json_pack("[{s:[s,s]}]", "required", "task_id", "status")));
	json_t *stop = json_pack(
		"{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}}, s:[s]}, s:o}", "name", "task_stop",
		"description",
		"Stop a background task: its whole process tree ends; answers once it is gone.",
		"inputSchema", "type", "object", "properties", "task_id", "type", "string",
		"description", "The task_id bash returned.", "required", "task_id", "outputSchema",
		output_schema(task_props, json_pack("[{s:[s,s]}]", "required", "task_id", "status")));

	return json_pack("{s:[o,o,o]}", "tools", bash, output, stop);
}

static json_t *text_result(const char *text, size_t len, json_t *structured, bool is_error)
{
	return json_pack("{s:[{s:s, s:s%}], s:o, s:b}", "content", "type", "text", "text", text,
			 len, "structuredContent", structured, "isError", is_error);
}

/* One short line for how the command ended, never in a marker's shape. */
static int ended_line(const json_t *res, char *buf, size_t size)
{
	json_t *code = json_object_get(res, "exit_code");
	const char *sig = json_string_value(json_object_get(res, "signal"));

	if (json_is_true(json_object_get(res, "timed_out")))
		return snprintf(buf, size, "(timed out: the whole process tree was killed)");
	if (json_is_integer(code))
		return snprintf(buf, size, "(exit code %lld)", (long long)json_integer_value(code));
	return snprintf(buf, size, "(ended by signal %s)", sig ? sig : "?");
}

json_t *mcp_tool_result(const struct sbx_result *result, size_t budget)
{
	json_t *res = result_to_json_object(result);
	const char *text;
	size_t len;
	char line[128], *all;
	int n;
	bool failed;
	json_t *out;

	work_fit_result(res, budget);
	text = json_string_value(json_object_get(res, "text"));
	len = json_string_length(json_object_get(res, "text"));
	n = ended_line(res, line, sizeof(line));
	all = malloc(len + (size_t)n + 2);
	if (!all) {
		json_decref(res);
		return NULL;
	}
	memcpy(all, text, len);
	if (len && text[len - 1] != '\n')
		all[len++] = '\n';
	memcpy(all + len, line, (size_t)n);
	failed = !json_is_integer(json_object_get(res, "exit_code")) ||
		 json_integer_value(json_object_get(res, "exit_code")) != 0 ||
		 json_is_true(json_object_get(res, "timed_out"));
	out = text_result(all, len + (size_t)n, res, failed);
	free(all);
	return out;
}

json_t *mcp_tool_error(const struct sbx_error *err)
{
	char *text = NULL;
	json_t *out;
	int n = err->detail[0] && !strstr(err->message, err->detail)
			? asprintf(&text, "%s: %s (%s)", err->code, err->message, err->detail)
			: asprintf(&text, "%s: %s", err->code, err->message);

	if (n < 0)
		return NULL;
	out = text_result(text, (size_t)n,
			  json_pack("{s:{s:s, s:s, s:s}}", "error", "code", err->code, "message",
				    err->message, "detail", err->detail),
			  true);
	free(text);
	return out;
}

json_t *mcp_tool_started(const struct work_task *task)
{
	char text[256];
	int n = snprintf(text, sizeof(text),
			 "Started background task %s. Read its output with task_output "
			 "{\"task_id\": \"%s\"}; stop it with task_stop.",
			 task->name, task->name);

	return text_result(text, (size_t)n, json_pack("{s:s}", "task_id", task->name), false);
}

/* Append len bytes of command output to *buf with every line that could pass
 * for a marker or for sbx's omitted line prefixed, but sbx's own omitted line
 * at [mid_at, mid_at + mid_len) (markers_neutralise_around): task_output's
 * text is what the model reads, so a task must not be able to forge sbx's
 * facts there either. */
static bool append_guarded(char **buf, size_t *len, const char *what, const char *in,
			   size_t in_len, size_t mid_at, size_t mid_len)
{
	size_t wl = strlen(what), n = markers_neutralise_around(in, in_len, mid_at, mid_len, NULL);
	char *p = realloc(*buf, *len + wl + n + 1);

	if (!p)
		return false;
	memcpy(p + *len, what, wl);
	markers_neutralise_around(in, in_len, mid_at, mid_len, p + *len + wl);
	*len += wl + n;
	p[*len] = '\0';
	*buf = p;
	return true;
}

static bool append_output(char **buf, size_t *len, const char *what, const char *in,
			  size_t in_len)
{
	return append_guarded(buf, len, what, in, in_len, 0, 0);
}

/* The task's status and new output as text, and once it has settled sbx's
 * markers and how it ended (the model may never see structuredContent); the
 * object as it is. */
json_t *mcp_tool_task_output(json_t *output, const struct work_omitted *om)
{
	json_t *so = json_object_get(output, "stdout");
	json_t *se = json_object_get(output, "stderr");
	json_t *res = json_object_get(output, "result");
	char *text = NULL, line[128];
	size_t len = 0;
	json_t *out, *m;
	size_t i;
	int n = asprintf(&text, "task %s: %s\n", json_string_value(json_object_get(output, "task")),
			 json_string_value(json_object_get(output, "status")));
	bool ok = n >= 0;

	if (ok)
		len = (size_t)n;
	else
		text = NULL;
	ok = ok && append_guarded(&text, &len, "", json_string_value(so) ?: "",
				  json_string_length(so), om->at[0], om->len[0]);
	if (ok && json_string_length(se))
		ok = append_guarded(&text, &len, "\n[stderr]\n", json_string_value(se),
				    json_string_length(se), om->at[1], om->len[1]);
	if (ok && json_is_object(res)) {
		if (len && text[len - 1] != '\n')
			ok = append_output(&text, &len, "\n", "", 0);
		json_array_foreach(json_object_get(res, "markers"), i, m) {
			if (ok && json_is_string(m))
				ok = append_output(&text, &len, json_string_value(m), "\n", 1);
		}
		n = ended_line(res, line, sizeof(line));
		ok = ok && append_output(&text, &len, line, "", 0);
	}
	json_object_set(output, "task_id", json_object_get(output, "task"));
	json_object_del(output, "task");
	if (!ok) {
		free(text);
		json_decref(output);
		return NULL;
	}
	out = text_result(text, len, output, false);
	free(text);
	return out;
}
