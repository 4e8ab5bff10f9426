/* SPDX-License-Identifier: MIT */
/* sbx serve: one process, one event loop, many sessions. Each request is
 * resolved into its own policy (nothing global decides a root or a mode), runs
 * overlap on the loop, and answers go out in completion order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "run.h"
#include "serve.h"
#include "serve_answers.h"
#include "serve_out.h"
#include "serve_request.h"
#include "serve_tasks.h"

#define SERVE_READ_BUF 65536

struct serve_job {
	json_t *id;                 /* foreground: the id to answer; background: NULL */
	enum sbx_mode mode;         /* for the runner-failed marker */
	struct serve_task *task;    /* background: its task */
	struct run_state *run;
	struct serve_job *next;
};

struct serve {
	const struct sbx_config *cfg;
	struct serve_out out;
	struct loop *loop;
	struct serve_job *jobs;
	struct task_table tasks;
	unsigned max_background;
	json_t *facts;              /* probe facts, computed once on first use */
	struct loop_watch w_in;
	struct loop_watch w_cancel; /* SIGTERM/SIGINT/SIGHUP: stop as at end of input */
	char *line;
	size_t line_len;
	bool line_too_long;
	bool eof;
};

/* One answer, one line, queued for the writer thread: the loop never waits
 * for the client to read. */
static void emit(struct serve *s, json_t *answer)
{
	char *text = json_dumps(answer, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(answer);
	if (text)
		serve_out_push(&s->out, text, strlen(text));
	free(text);
}

static json_t *id_or_null(json_t *id)
{
	return id ? json_incref(id) : json_null();
}

static void emit_error(struct serve *s, json_t *id, const struct sbx_error *err)
{
	json_t *error = error_to_json_object(err);
	json_t *answer = json_pack("{s:o, s:O}", "id", id_or_null(id), "error",
				   json_object_get(error, "error"));

	json_decref(error);
	emit(s, answer);
}

static const json_t *facts(struct serve *s)
{
	if (!s->facts)
		s->facts = probe_facts();
	return s->facts;
}

static void op_capabilities(struct serve *s, const struct serve_request *req)
{
	json_t *answer = json_pack("{s:O}", "id", req->id);
	json_t *facts_json = serve_capabilities_json(s->cfg, facts(s), s->max_background);

	json_object_update(answer, facts_json);
	json_decref(facts_json);
	emit(s, answer);
}

static void op_schema(struct serve *s, const struct serve_request *req)
{
	emit(s, json_pack("{s:O, s:o}", "id", req->id, "schema", serve_schema_json(s->cfg)));
}

static int build_run(struct serve *s, const struct serve_request *req, struct sbx_run **out,
		     enum sbx_mode *mode, struct sbx_error *err)
{
	struct sbx_session session = {
		.root = req->session_root,
		.has_mode = req->has_session_mode,
		.mode = req->session_mode,
	};
	struct sbx_policy pol;
	struct sbx_run *run;
	int rc = policy_resolve(s->cfg, &session, req->sandbox_permissions, &pol, err);

	if (rc < 0)
		return rc;
	if (req->has_timeout)
		pol.timeout_ms = req->timeout_ms;
	run = sbx_run_new();
	if (!run)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	rc = run_apply_policy(run, &pol, err);
	if (rc == 0 && sbx_run_set_command(run, req->command) < 0)
		rc = sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	if (rc < 0) {
		sbx_run_free(run);
		return rc;
	}
	*mode = pol.mode;
	*out = run;
	return 0;
}

static void add_job(struct serve *s, json_t *id, struct serve_task *task, struct run_state *run,
		    enum sbx_mode mode)
{
	struct serve_job *job = calloc(1, sizeof(*job));

	if (!job) {
		run_terminate(run);
		run_discard(run);
		return;
	}
	job->id = id ? json_incref(id) : NULL;
	job->task = task;
	job->run = run;
	job->mode = mode;
	job->next = s->jobs;
	s->jobs = job;
	if (task)
		task->run = run;
}

static void op_run(struct serve *s, const struct serve_request *req)
{
	struct sbx_error err = { 0 };
	struct sbx_run *run = NULL;
	struct run_state *rs = NULL;
	enum sbx_mode mode;
	int rc;

	if (build_run(s, req, &run, &mode, &err) < 0) {
		emit_error(s, req->id, &err);
		return;
	}
	if (req->background && s->tasks.running >= s->max_background) {
		sbx_run_free(run);
		sbx_error_set(&err, EAGAIN, SBX_E_TOO_MANY, NULL,
			      "%u background tasks are running (max_background); wait for one to "
			      "settle or kill one", s->tasks.running);
		emit_error(s, req->id, &err);
		return;
	}
	rc = run_start(run, s->loop, &rs, &err);
	sbx_run_free(run);
	if (!req->background) {
		if (rc < 0)
			emit_error(s, req->id, &err);
		else
			add_job(s, req->id, NULL, rs, mode);
		return;
	}
	/* A request that could never run (bad root, usage) is an error, not a task. */
	if (rc < 0 && (strcmp(err.code, SBX_E_USAGE) == 0 || strcmp(err.code, SBX_E_CONFIG) == 0)) {
		emit_error(s, req->id, &err);
		return;
	}
	struct serve_task *task = task_new(&s->tasks);

	if (!task) {
		if (rs) {
			run_terminate(rs);
			run_discard(rs);
		}
		sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		emit_error(s, req->id, &err);
		return;
	}
	emit(s, json_pack("{s:O, s:s}", "id", req->id, "task", task->name));
	if (rc < 0)
		task_settle(&s->tasks, task, TASK_RUNNER_FAILED, serve_runner_failed_result(mode, &err));
	else
		add_job(s, NULL, task, rs, mode);
}

static void answer_task(struct serve *s, json_t *id, const struct serve_task *task)
{
	json_t *result = task->status == TASK_RUNNING ? run_snapshot_json(task->run)
						      : json_incref(task->result);

	emit(s, json_pack("{s:O, s:s, s:s, s:o}", "id", id, "task", task->name, "status",
			  task_status_name(task->status), "result", result ? result : json_null()));
}

static struct serve_task *find_task_or_answer(struct serve *s, const struct serve_request *req)
{
	struct serve_task *task = task_find(&s->tasks, req->task);

	if (!task) {
		struct sbx_error err;

		sbx_error_set(&err, ENOENT, SBX_E_NOT_FOUND, NULL, "no task '%.64s'", req->task);
		emit_error(s, req->id, &err);
	}
	return task;
}

static void op_task_output(struct serve *s, const struct serve_request *req)
{
	struct serve_task *task = find_task_or_answer(s, req);

	if (task)
		answer_task(s, req->id, task);
}

/* kill answers once the tree is really gone, with the settled status. */
static void op_kill(struct serve *s, const struct serve_request *req)
{
	struct serve_task *task = find_task_or_answer(s, req);

	if (!task)
		return;
	if (task->status != TASK_RUNNING) {
		emit(s, json_pack("{s:O, s:s, s:s}", "id", req->id, "task", task->name, "status",
				  task_status_name(task->status)));
		return;
	}
	task->kill_requested = true;
	json_array_append(task->kill_waiters, req->id);
	run_terminate(task->run);
}

static void handle_line(struct serve *s, const char *line, size_t len)
{
	struct serve_request req;
	struct sbx_error err = { 0 };
	json_t *id = NULL;

	if (serve_request_parse(line, len, &req, &id, &err) < 0) {
		emit_error(s, id, &err);
		json_decref(id);
		return;
	}
	switch (req.op) {
	case SERVE_OP_RUN: op_run(s, &req); break;
	case SERVE_OP_TASK_OUTPUT: op_task_output(s, &req); break;
	case SERVE_OP_KILL: op_kill(s, &req); break;
	case SERVE_OP_CAPABILITIES: op_capabilities(s, &req); break;
	case SERVE_OP_SCHEMA: op_schema(s, &req); break;
	}
	serve_request_free(&req);
}

/* Input arrives in chunks; a request is one line. An over-long line is
 * answered once, then skipped up to its newline. */
static void on_input(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct serve *s = w->ctx;

	if (n <= 0) {
		s->eof = true;
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (s->line_too_long) {
				struct sbx_error err;

				sbx_error_set(&err, E2BIG, SBX_E_BAD_REQUEST, NULL,
					      "request line longer than %d bytes", SERVE_LINE_MAX);
				emit_error(s, NULL, &err);
			} else {
				handle_line(s, s->line, s->line_len);
			}
			s->line_len = 0;
			s->line_too_long = false;
			continue;
		}
		if (s->line_too_long)
			continue;
		if (s->line_len == SERVE_LINE_MAX) {
			s->line_too_long = true;
			continue;
		}
		s->line[s->line_len++] = buf[i];
	}
}

static void settle_job(struct serve *s, struct serve_job *job)
{
	struct sbx_result *result = NULL;
	struct sbx_error err = { 0 };
	int rc = run_finish(job->run, &result, &err);
	json_t *res_json = rc < 0 ? NULL : result_to_json_object(result);

	if (job->id) {
		if (rc < 0)
			emit_error(s, job->id, &err);
		else
			emit(s, json_pack("{s:O, s:o}", "id", job->id, "result", res_json));
	} else if (job->task) {
		struct serve_task *task = job->task;
		enum task_status status = task->kill_requested ? TASK_KILLED : TASK_EXITED;
		size_t i;
		json_t *waiter;

		json_array_foreach(task->kill_waiters, i, waiter)
			emit(s, json_pack("{s:O, s:s, s:s}", "id", waiter, "task", task->name,
					  "status", task_status_name(status)));
		task_settle(&s->tasks, task,
			    rc < 0 ? TASK_RUNNER_FAILED : status,
			    rc < 0 ? serve_runner_failed_result(job->mode, &err) : res_json);
	}
	sbx_result_free(result);
	json_decref(job->id);
	free(job);
}

static int next_timeout(const struct serve *s)
{
	uint64_t now = run_now_ms();
	int best = -1;

	for (const struct serve_job *j = s->jobs; j; j = j->next) {
		int t = run_next_timeout(j->run, now);

		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

static void tick_jobs(struct serve *s)
{
	uint64_t now = run_now_ms();

	for (struct serve_job **p = &s->jobs; *p;) {
		struct serve_job *job = *p;

		run_tick(job->run, now);
		if (job->run->done) {
			*p = job->next;
			settle_job(s, job);
		} else {
			p = &job->next;
		}
	}
}

/* End of input: whatever still runs is ended, and nothing more is said. */
static void shutdown_jobs(struct serve *s)
{
	while (s->jobs) {
		struct serve_job *job = s->jobs;

		s->jobs = job->next;
		run_terminate(job->run);
		run_discard(job->run);
		json_decref(job->id);
		free(job);
	}
	tree_kill_orphans(NULL, 0);
}

static void on_cancel(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct serve *s = w->ctx;

	(void)buf;
	(void)n;
	loop_remove(s->loop, w);
	s->eof = true;
}

int serve_main(const struct sbx_config *cfg, int in_fd, int out_fd, int cancel_fd,
	       struct sbx_error *err)
{
	struct serve s = { .cfg = cfg };
	char *inbuf = malloc(SERVE_READ_BUF);
	int rc = 0;

	s.max_background = cfg->has_max_background ? cfg->max_background
						   : POLICY_DEFAULT_MAX_BACKGROUND;
	s.line = malloc(SERVE_LINE_MAX);
	s.loop = loop_new(false);
	if (!inbuf || !s.line || !s.loop) {
		rc = sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		goto out;
	}
	rc = serve_out_start(&s.out, out_fd);
	if (rc < 0) {
		sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "writer thread: %s", strerror(-rc));
		goto out;
	}
	tree_become_subreaper();
	s.w_in = (struct loop_watch){ .fd = in_fd, .buf = inbuf, .buf_size = SERVE_READ_BUF,
				      .cb = on_input, .ctx = &s };
	rc = loop_add(s.loop, &s.w_in);
	s.w_cancel = (struct loop_watch){ .fd = cancel_fd, .readiness = true, .cb = on_cancel,
					  .ctx = &s };
	if (rc == 0 && cancel_fd >= 0)
		rc = loop_add(s.loop, &s.w_cancel);
	if (rc < 0) {
		sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "event loop: %s", strerror(-rc));
		goto out;
	}
	/* A reader that went away ends the server: there is no one to answer. */
	while (!s.eof && !serve_out_error(&s.out)) {
		rc = loop_wait(s.loop, next_timeout(&s));
		if (rc < 0 && rc != -EINTR) {
			sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "event loop: %s", strerror(-rc));
			break;
		}
		rc = 0;
		tick_jobs(&s);
	}
	loop_remove(s.loop, &s.w_in);
	loop_remove(s.loop, &s.w_cancel);
	shutdown_jobs(&s);
out:
	serve_out_finish(&s.out);
	task_table_free(&s.tasks);
	json_decref(s.facts);
	loop_free(s.loop);
	free(s.line);
	free(inbuf);
	return rc;
}
