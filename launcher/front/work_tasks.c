/* SPDX-License-Identifier: MIT */
/* Background tasks: a name unique in its session, a status, and once
 * settled the result and what each stream kept, read by byte offset. A task
 * belongs to its session: it is only ever looked up through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

/* Settled tasks a session keeps for task/output; older ones are forgotten. */
#define TASKS_KEPT_SETTLED 64

struct work_task *work_task_new(struct work *w, struct work_session *sess)
{
	struct work_task *task = calloc(1, sizeof(*task));

	if (!task)
		return NULL;
	task->kill_waiters = json_array();
	if (!task->kill_waiters) {
		free(task);
		return NULL;
	}
	snprintf(task->name, sizeof(task->name), "t%u", ++sess->next_task);
	task->status = TASK_RUNNING;
	task->session = sess;
	task->next = sess->tasks;
	sess->tasks = task;
	sess->running++;
	w->running++;
	return task;
}

struct work_task *work_task_find(struct work_session *sess, const char *name)
{
	/* A task whose start is not answered yet is no task: its start may
	 * still fail, and a request about it would wait on one that never
	 * settles (new-user pass 7, finding 1: a task/kill then was never
	 * answered). */
	for (struct work_task *t = sess->tasks; t; t = t->next)
		if (!t->starting && strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

void work_task_drop(struct work *w, struct work_task *task)
{
	struct work_session *sess = task->session;

	for (struct work_task **p = &sess->tasks; *p; p = &(*p)->next)
		if (*p == task) {
			*p = task->next;
			break;
		}
	/* Its name is given again only if no later task has one. */
	char last[sizeof(task->name)];

	snprintf(last, sizeof(last), "t%u", sess->next_task);
	if (strcmp(last, task->name) == 0)
		sess->next_task--;
	sess->running--;
	w->running--;
	json_decref(task->kill_waiters);
	free(task);
}

static void forget_oldest_settled(struct work_session *sess)
{
	struct work_task **oldest = NULL;

	/* Newest first: the last settled one is the oldest. */
	for (struct work_task **p = &sess->tasks; *p; p = &(*p)->next)
		if ((*p)->status != TASK_RUNNING)
			oldest = p;
	if (oldest) {
		struct work_task *gone = *oldest;

		*oldest = gone->next;
		json_decref(gone->result);
		json_decref(gone->kill_waiters);
		stream_view_free(&gone->out);
		stream_view_free(&gone->err);
		free(gone);
		sess->n_settled--;
	}
}

void work_task_settle(struct work *w, struct work_task *task, enum task_status status,
		      json_t *result, struct stream_view *out, struct stream_view *errv)
{
	struct work_session *sess = task->session;

	if (task->status == TASK_RUNNING) {
		sess->running--;
		w->running--;
	}
	task->status = status;
	task->job = NULL;
	json_decref(task->result);
	task->result = result;
	if (out)
		task->out = *out;
	if (errv)
		task->err = *errv;
	sess->n_settled++;
	while (sess->n_settled > TASKS_KEPT_SETTLED)
		forget_oldest_settled(sess);
	work_session_reap(w);
}

const char *work_task_status_name(enum task_status status)
{
	switch (status) {
	case TASK_RUNNING: return "running";
	case TASK_EXITED: return "exited";
	case TASK_KILLED: return "killed";
	case TASK_RUNNER_FAILED: return "runner_failed";
	}
	return "unknown";
}

/* The bytes as a JSON string (invalid UTF-8 as U+FFFD), each of the three
 * parts on its own (before sbx's omitted line, the line, after it), so
 * that *mid_at says where the line is in the string. */
static json_t *bytes_json(const char *buf, size_t len, size_t *mid_at, size_t mid_len)
{
	size_t cut[4] = { 0, *mid_at, *mid_at + mid_len, len }, n = 0;
	char *str = NULL;
	json_t *j = NULL;

	for (int i = 0; i < 3; i++) {
		size_t clean_len;
		char *clean = utf8_sanitize(buf + cut[i], cut[i + 1] - cut[i], &clean_len);
		char *grown = clean ? realloc(str, n + clean_len + 1) : NULL;

		if (!grown) {
			free(clean);
			goto out;
		}
		str = grown;
		if (i == 1)
			*mid_at = n;
		memcpy(str + n, clean, clean_len);
		n += clean_len;
		free(clean);
	}
	j = json_stringn(str ? str : "", n);
out:
	free(str);
	return j ? j : json_string("");
}

static void slice(json_t *o, json_t *next, const char *name, const struct stream_view *v,
		  uint64_t since, size_t max, size_t *mid_at, size_t *mid_len)
{
	uint64_t at = since;
	size_t len = 0;
	char *bytes = v->head ? stream_view_since(v, since, max, &len, &at, mid_at, mid_len) : NULL;

	if (!bytes)
		*mid_at = *mid_len = 0;
	json_object_set_new(o, name, bytes_json(bytes ? bytes : "", len, mid_at, *mid_len));
	json_object_set_new(next, name, json_integer((json_int_t)at));
	free(bytes);
}

json_t *work_task_output(const struct work_task *task, uint64_t since_out, uint64_t since_err,
			 size_t max, struct work_omitted *om)
{
	struct work_omitted none;
	struct stream_view live_out = { 0 }, live_err = { 0 };
	const struct stream_view *out = &task->out, *errv = &task->err;
	json_t *o = json_pack("{s:s, s:s}", "task", task->name, "status",
			      work_task_status_name(task->status));
	json_t *next = json_object();

	if (task->status == TASK_RUNNING && rpc_job_peek(task->job, &live_out, &live_err) == 0) {
		out = &live_out;
		errv = &live_err;
	}
	if (!om)
		om = &none;
	slice(o, next, "stdout", out, since_out, max, &om->at[0], &om->len[0]);
	slice(o, next, "stderr", errv, since_err, max, &om->at[1], &om->len[1]);
	json_object_set_new(o, "stdout_bytes", json_integer((json_int_t)out->total));
	json_object_set_new(o, "stderr_bytes", json_integer((json_int_t)errv->total));
	json_object_set_new(o, "next", next);
	if (task->status == TASK_RUNNING)
		json_object_set_new(o, "duration_ms",
				    json_integer((json_int_t)rpc_job_elapsed_ms(task->job)));
	else
		json_object_set(o, "result", task->result ? task->result : json_null());
	stream_view_free(&live_out);
	stream_view_free(&live_err);
	return o;
}
