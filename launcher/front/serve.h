/* SPDX-License-Identifier: MIT */
/* `sbx serve`, protocol 2: sbx's own vocabulary over the JSON-RPC engine
 * (CONTRACT section 7). */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H

#include "jsonrpc.h"
#include "work.h"

#define SERVE_PROTOCOL 2
#define SERVE_COMMAND_MAX (256 * 1024)
#define SERVE_TIMEOUT_MAX 604800000ULL /* one week, in ms */

struct serve_opts {
	size_t line_max;            /* 0: RPC_LINE_MAX_DEFAULT */
	size_t answer_max;          /* 0: RPC_ANSWER_MAX_DEFAULT */
	const char *spill_dir;
	uint64_t spill_max_age_ms;
};

/* One run in flight: a foreground request (id) or a background task. */
struct serve_job {
	struct serve *sv;
	json_t *id;                 /* foreground: the request's id */
	json_t *start_id;           /* background: the request to answer once started */
	struct work_task *task;     /* background */
	struct rpc_job *job;
	struct work_session *sess;
	enum sbx_mode mode;
	struct serve_job *next;
};

struct serve {
	struct work w;
	struct serve_job *jobs;
};

/* Serve in_fd -> out_fd until end of input. cancel_fd (-1: none) readable:
 * end every run now and return. 0, or -errno with err filled. */
int serve_main(const struct sbx_config *cfg, const struct serve_opts *o, int in_fd, int out_fd,
	       int cancel_fd, struct sbx_error *err);

/* serve_run.c: run, task/output, task/kill, $/cancel */
void serve_run(struct rpc_server *s, struct serve *sv, struct rpc_msg *m);
void serve_task_output(struct rpc_server *s, struct serve *sv, struct rpc_msg *m);
void serve_task_kill(struct rpc_server *s, struct serve *sv, struct rpc_msg *m);
void serve_cancel(struct rpc_server *s, struct serve *sv, struct rpc_msg *m);
/* serve_session.c: the session a request names, or an error answered
 * (then NULL). */
struct work_session *serve_session_of(struct rpc_server *s, struct serve *sv,
				      struct rpc_msg *m);

#endif
