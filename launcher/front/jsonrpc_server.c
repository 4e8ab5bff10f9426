/* SPDX-License-Identifier: MIT */
/* The JSON-RPC line server: one process, one event loop, many runs. Input is
 * read in chunks and cut into lines (never more than line_max bytes kept);
 * each message goes to the front end's vocabulary; runs overlap on the loop
 * and their answers go out in completion order through the writer thread.
 *
 * End of input: no new messages; the vocabulary ends its background work;
 * runs in flight finish and are answered; then the server returns. A signal
 * (cancel_fd) or a reader that went away ends every run at once instead.
 *
 * A run's clean-up (its protected paths put back, its git pass: a tree of
 * any size the command left) runs on a thread of its own, never on the
 * loop: another session's command is answered as if it were not there. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "jsonrpc.h"
#include "run.h"
#include "serve_out.h"
#include "spawner.h"

#define RPC_READ_BUF 65536

struct rpc_job {
	struct run_state *run;      /* NULL while the spawner starts it */
	rpc_started_fn started;
	rpc_done_fn done;
	void *ctx;
	bool keep_output;
	bool end_asked, end_cancelled; /* rpc_job_end came before the run */
	bool finishing;             /* its clean-up is running off the loop */
	struct rpc_server *srv;
	struct rpc_job *next;
};

struct rpc_server {
	struct rpc_server_opts o;
	const struct rpc_vocab *v;
	struct serve_out out;
	struct loop *loop;
	struct rpc_job *jobs;
	struct loop_watch w_in, w_cancel, w_spawned, w_finished;
	struct spawner *spawner;
	/* Runs whose clean-up threads are running, and those that are done
	 * (handed back through finished_fd). */
	pthread_mutex_t fin_lock;
	struct rpc_job *finished;
	unsigned n_finishing;
	int finished_fd;
	char *line;
	size_t line_len;
	bool line_too_long;
	bool eof;
	int vocab_timeout;
};

void rpc_send(struct rpc_server *s, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(msg);
	if (text)
		serve_out_push(&s->out, text, strlen(text));
	free(text);
}

bool rpc_input_ended(const struct rpc_server *s)
{
	return s->eof;
}

/* ---- input ---- */

static void handle_line(struct rpc_server *s, const char *line, size_t len)
{
	struct sbx_error err = { 0 };
	struct rpc_msg m;
	json_t *id = NULL;
	int code = rpc_parse(line, len, &m, &id, &err);

	if (code != 0) {
		json_t *data = json_pack("{s:s, s:s}", "code", err.code, "detail", err.detail);

		rpc_send(s, rpc_error(id, code, err.message, data));
		return;
	}
	s->v->on_message(s, s->v->ctx, &m);
	rpc_msg_free(&m);
}

static void refuse_long_line(struct rpc_server *s)
{
	struct sbx_error err;

	sbx_error_set(&err, E2BIG, SBX_E_BAD_REQUEST,
		      "send each message on one line no longer than --max-line (sbx serve "
		      "--max-line BYTES raises it)",
		      "message line longer than %zu bytes: refused unread", s->o.line_max);
	/* An Invalid Request (-32600, protocol.md), not bad params: no
	 * request was read. */
	rpc_send(s, rpc_error(NULL, RPC_INVALID_REQUEST, err.message,
			      json_pack("{s:s, s:s}", "code", err.code, "detail", err.detail)));
}

static void input_ended(struct rpc_server *s)
{
	if (s->eof)
		return;
	s->eof = true;
	loop_remove(s->loop, &s->w_in);
	s->v->on_eof(s, s->v->ctx);
}

/* A line longer than line_max is answered once, then skipped up to its
 * newline: never read without bound. */
static void on_input(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct rpc_server *s = w->ctx;

	if (n <= 0) {
		/* A last line without its newline still counts. */
		if (s->line_too_long)
			refuse_long_line(s);
		else if (s->line_len)
			handle_line(s, s->line, s->line_len);
		s->line_len = 0;
		input_ended(s);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (s->line_too_long)
				refuse_long_line(s);
			else
				handle_line(s, s->line, s->line_len);
			s->line_len = 0;
			s->line_too_long = false;
			if (s->eof)
				return;
			continue;
		}
		if (s->line_too_long)
			continue;
		if (s->line_len == s->o.line_max) {
			s->line_too_long = true;
			continue;
		}
		s->line[s->line_len++] = buf[i];
	}
}

/* ---- jobs ---- */

struct rpc_job *rpc_job_start(struct rpc_server *s, const struct sbx_run *run, bool keep_output,
			      rpc_done_fn done, void *job_ctx, struct sbx_error *err)
{
	struct rpc_job *j = calloc(1, sizeof(*j));

	if (!j) {
		sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		return NULL;
	}
	if (run_start(run, s->loop, &j->run, err) < 0) {
		free(j);
		return NULL;
	}
	/* Its last helper is reaped on our loop, through its pidfd. */
	j->run->loop_persists = true;
	j->done = done;
	j->ctx = job_ctx;
	j->keep_output = keep_output;
	j->next = s->jobs;
	s->jobs = j;
	return j;
}

void rpc_job_end(struct rpc_job *j, bool cancelled)
{
	if (j->finishing)
		return; /* over already; its clean-up thread owns it */
	if (!j->run) {
		j->end_asked = true;
		j->end_cancelled |= cancelled;
		return;
	}
	if (cancelled && !j->run->bash_exited)
		j->run->cancelled = true;
	run_terminate(j->run);
}

int rpc_job_peek(const struct rpc_job *j, struct stream_view *out, struct stream_view *errv)
{
	if (!j->run) {
		*out = (struct stream_view){ 0 };
		*errv = (struct stream_view){ 0 };
		return 0;
	}
	if (stream_view_take(&j->run->out, out) < 0)
		return -ENOMEM;
	if (stream_view_take(&j->run->err, errv) < 0) {
		stream_view_free(out);
		return -ENOMEM;
	}
	return 0;
}

uint64_t rpc_job_elapsed_ms(const struct rpc_job *j)
{
	return j->run ? run_now_ms() - j->run->start_ms : 0;
}

static void unlink_job(struct rpc_server *s, struct rpc_job *j)
{
	for (struct rpc_job **p = &s->jobs; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			return;
		}
}

/* A start the spawner finished: collect it on our loop, or say why not. */
static void spawned(struct rpc_server *s, struct spawn_req *req)
{
	struct rpc_job *j = req->ctx;
	struct sbx_error err = req->err;

	if (req->run && run_attach(req->run, s->loop, &err) == 0) {
		j->run = req->run;
		if (j->end_asked)
			rpc_job_end(j, j->end_cancelled);
		if (j->started)
			j->started(s, j->ctx, NULL);
	} else {
		unlink_job(s, j);
		if (j->started)
			j->started(s, j->ctx, &err);
		else
			j->done(s, j->ctx, NULL, &err, NULL, NULL);
		free(j);
	}
	sbx_run_free(req->cfg);
	free(req);
}

static void on_spawned(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct rpc_server *s = w->ctx;

	(void)buf;
	(void)n;
	for (struct spawn_req *req = spawner_take(s->spawner), *next; req; req = next) {
		next = req->next;
		spawned(s, req);
	}
}

struct rpc_job *rpc_job_start_async(struct rpc_server *s, struct sbx_run *run, bool keep_output,
				    rpc_started_fn started, rpc_done_fn done, void *job_ctx,
				    struct sbx_error *err)
{
	struct rpc_job *j = calloc(1, sizeof(*j));
	struct spawn_req *req = calloc(1, sizeof(*req));

	if (!s->spawner && j && req) {
		int fd;

		s->spawner = spawner_start(&fd);
		if (s->spawner) {
			s->w_spawned = (struct loop_watch){ .fd = fd, .readiness = true,
							    .cb = on_spawned, .ctx = s };
			if (loop_add(s->loop, &s->w_spawned) < 0) {
				free(spawner_stop(s->spawner));
				s->spawner = NULL;
			}
		}
	}
	if (!j || !req || !s->spawner) {
		free(j);
		free(req);
		sbx_run_free(run);
		sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "unable to start the spawner");
		return NULL;
	}
	/* Its last helper is reaped on our loop, through its pidfd. */
	run->reap_in_loop = true;
	j->started = started;
	j->done = done;
	j->ctx = job_ctx;
	j->keep_output = keep_output;
	j->next = s->jobs;
	s->jobs = j;
	req->cfg = run;
	req->ctx = j;
	spawner_push(s->spawner, req);
	return j;
}

static void settle(struct rpc_server *s, struct rpc_job *j)
{
	struct stream_view out = { 0 }, errv = { 0 };
	struct sbx_result *result = NULL;
	struct sbx_error err = { 0 };
	bool views = j->keep_output && rpc_job_peek(j, &out, &errv) == 0;
	int rc = run_finish(j->run, &result, &err);

	j->done(s, j->ctx, rc < 0 ? NULL : result, &err, views ? &out : NULL,
		views ? &errv : NULL);
	sbx_result_free(result);
	free(j);
}

/* ---- clean-up off the loop ---- */

static void *finish_main(void *arg)
{
	struct rpc_job *j = arg;
	struct rpc_server *s = j->srv;
	uint64_t one = 1;

	run_protect_finish(j->run);
	pthread_mutex_lock(&s->fin_lock);
	j->next = s->finished;
	s->finished = j;
	pthread_mutex_unlock(&s->fin_lock);
	(void)!write(s->finished_fd, &one, sizeof(one));
	return NULL;
}

static void on_finished(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct rpc_server *s = w->ctx;
	struct rpc_job *list;
	uint64_t count;

	(void)buf;
	(void)n;
	(void)!read(s->finished_fd, &count, sizeof(count));
	pthread_mutex_lock(&s->fin_lock);
	list = s->finished;
	s->finished = NULL;
	pthread_mutex_unlock(&s->fin_lock);
	for (struct rpc_job *j = list, *next; j; j = next) {
		next = j->next;
		s->n_finishing--;
		settle(s, j);
	}
}

/* A run that is over: settled at once, or once its clean-up, which may
 * take long, is done on a thread of its own. Where no thread can be had,
 * on the loop, as before. */
static void run_over(struct rpc_server *s, struct rpc_job *j)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int rc;

	if (!run_protect_pending(j->run) || s->finished_fd < 0) {
		settle(s, j);
		return;
	}
	if (!s->w_finished.cb) {
		s->w_finished = (struct loop_watch){ .fd = s->finished_fd, .readiness = true,
						     .cb = on_finished, .ctx = s };
		if (loop_add(s->loop, &s->w_finished) < 0) {
			s->w_finished.cb = NULL;
			settle(s, j);
			return;
		}
	}
	j->finishing = true;
	j->srv = s;
	s->n_finishing++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Its signals are the loop's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, finish_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		j->finishing = false;
		s->n_finishing--;
		settle(s, j);
	}
}

/* Every clean-up thread done and its run settled (the server's end). */
static void wait_finishing(struct rpc_server *s)
{
	while (s->n_finishing) {
		struct pollfd p = { .fd = s->finished_fd, .events = POLLIN };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		on_finished(&s->w_finished, NULL, 0);
	}
}

static int next_timeout(const struct rpc_server *s)
{
	uint64_t now = run_now_ms();
	int best = s->vocab_timeout;

	for (const struct rpc_job *j = s->jobs; j; j = j->next) {
		int t = j->run ? run_next_timeout(j->run, now) : -1;

		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

static void tick(struct rpc_server *s)
{
	uint64_t now = run_now_ms();

	for (struct rpc_job **p = &s->jobs; *p;) {
		struct rpc_job *j = *p;

		if (!j->run) {
			p = &j->next;
			continue;
		}
		run_tick(j->run, now);
		if (j->run->done) {
			*p = j->next;
			run_over(s, j);
		} else {
			p = &j->next;
		}
	}
	s->vocab_timeout = -1;
	if (s->v->on_tick)
		s->v->on_tick(s, s->v->ctx, run_now_ms(), &s->vocab_timeout);
}

static void end_everything(struct rpc_server *s)
{
	input_ended(s);
	for (struct rpc_job *j = s->jobs; j; j = j->next)
		rpc_job_end(j, true);
}

static void on_cancel(struct loop_watch *w, const char *buf, ssize_t n)
{
	struct rpc_server *s = w->ctx;

	(void)buf;
	(void)n;
	loop_remove(s->loop, w);
	end_everything(s);
}

/* Every start still queued finishes first; a run it started after the
 * loop is gone ends at once. */
static void stop_spawner(struct rpc_server *s)
{
	struct spawn_req *left;

	if (!s->spawner)
		return;
	loop_remove(s->loop, &s->w_spawned);
	left = spawner_stop(s->spawner);
	s->spawner = NULL;
	for (struct spawn_req *req = left, *next; req; req = next) {
		next = req->next;
		if (req->run) {
			run_terminate(req->run);
			run_discard(req->run);
		}
		unlink_job(s, req->ctx);
		free(req->ctx);
		sbx_run_free(req->cfg);
		free(req);
	}
}

static int serve_loop(struct rpc_server *s, struct sbx_error *err)
{
	bool gone = false;

	tick(s);
	while (!(s->eof && !s->jobs && !s->n_finishing)) {
		int rc = loop_wait(s->loop, next_timeout(s));

		if (rc < 0 && rc != -EINTR) {
			sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "event loop: %s",
				      strerror(-rc));
			end_everything(s);
			stop_spawner(s);
			wait_finishing(s);
			while (s->jobs) {
				struct rpc_job *j = s->jobs;

				s->jobs = j->next;
				run_discard(j->run);
				free(j);
			}
			return rc;
		}
		/* A reader that went away: there is no one to answer. */
		if (!gone && serve_out_error(&s->out)) {
			gone = true;
			end_everything(s);
		}
		tick(s);
	}
	return 0;
}

int rpc_server_run(const struct rpc_server_opts *o, const struct rpc_vocab *v,
		   struct sbx_error *err)
{
	struct rpc_server s = { .o = *o, .v = v, .vocab_timeout = -1, .finished_fd = -1 };
	char *inbuf = malloc(RPC_READ_BUF);
	int rc;

	if (!s.o.line_max)
		s.o.line_max = RPC_LINE_MAX_DEFAULT;
	s.line = malloc(s.o.line_max);
	s.loop = loop_new(loop_prefer_poll(false));
	pthread_mutex_init(&s.fin_lock, NULL);
	s.finished_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!inbuf || !s.line || !s.loop) {
		rc = sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		goto out;
	}
	rc = serve_out_start(&s.out, o->out_fd);
	if (rc < 0) {
		sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "writer thread: %s", strerror(-rc));
		goto out;
	}
	/* The serving process is sbx's: its end kills every child of ours
	 * (tree_kill_orphans below), so it is their subreaper too. */
	(void)sbx_process_opt_in(SBX_PROCESS_SUBREAPER | SBX_PROCESS_NOFILE_MARGIN);
	runners_long_lived();
	s.w_in = (struct loop_watch){ .fd = o->in_fd, .buf = inbuf, .buf_size = RPC_READ_BUF,
				      .cb = on_input, .ctx = &s };
	s.w_cancel = (struct loop_watch){ .fd = o->cancel_fd, .readiness = true,
					  .cb = on_cancel, .ctx = &s };
	rc = loop_add(s.loop, &s.w_in);
	if (rc == 0 && o->cancel_fd >= 0)
		rc = loop_add(s.loop, &s.w_cancel);
	if (rc < 0)
		sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "event loop: %s", strerror(-rc));
	else
		rc = serve_loop(&s, err);
	loop_remove(s.loop, &s.w_in);
	loop_remove(s.loop, &s.w_cancel);
	wait_finishing(&s);
	if (s.w_finished.cb)
		loop_remove(s.loop, &s.w_finished);
	stop_spawner(&s);
	reap_all();
	tree_kill_orphans(NULL);
out:
	serve_out_finish(&s.out);
	loop_free(s.loop);
	if (s.finished_fd >= 0)
		close(s.finished_fd);
	pthread_mutex_destroy(&s.fin_lock);
	free(s.line);
	free(inbuf);
	return rc;
}
