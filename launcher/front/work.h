/* SPDX-License-Identifier: MIT */
/* What both front ends (serve, mcp) share over the JSON-RPC engine: sessions
 * with pinned roots, background tasks that belong to their session, a run
 * built from a session and a call, answers that fit a size, and the spill
 * files a closed session or task leaves behind. */
#ifndef SBX_WORK_H
#define SBX_WORK_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "jsonrpc.h"
#include "launcher.h"
#include "policy.h"

enum task_status { TASK_RUNNING, TASK_EXITED, TASK_KILLED, TASK_RUNNER_FAILED };

struct work_session;

struct work_task {
	char name[24];
	enum task_status status;
	struct rpc_job *job;        /* while running */
	json_t *result;             /* once settled */
	struct stream_view out, err; /* once settled: what task/output reads */
	bool kill_requested;
	bool starting;              /* its run not answered yet: not visible */
	json_t *kill_waiters;       /* request ids answered when it settles */
	struct work_session *session;
	struct work_task *next;
};

struct spill_note {
	char *path;
	uint64_t born_ms;
	bool private_dir;           /* in a directory of its own sbx made */
};

struct work_session {
	char name[24];
	char root[PATH_MAX];        /* resolved when it opened */
	int root_fd;                /* pinned: O_PATH on that directory */
	enum sbx_mode mode;
	bool escalation;
	char *cwd;                  /* default cwd of its runs (NULL: the root) */
	struct work_task *tasks;
	unsigned next_task;
	unsigned n_settled;
	unsigned running;           /* its tasks still running */
	unsigned busy;              /* its foreground runs in flight */
	bool closed;                /* closed: freed once its last task settles */
	struct spill_note *spills;
	size_t n_spills, cap_spills;
	struct work_session *next;
};

struct work {
	const struct sbx_config *cfg;
	struct rpc_server *srv;
	struct work_session *sessions;
	unsigned next_session;
	unsigned running;           /* background tasks running, every session */
	unsigned max_background;
	const char *spill_dir;      /* NULL: sbx's private default */
	uint64_t spill_max_age_ms;  /* 0: only when closed */
	size_t answer_max;          /* bytes of one answer line */
	size_t line_max;            /* bytes of one input line */
	json_t *facts;              /* probe facts, once */
	const char *escalation_fix; /* how this front end's caller gets escalation */
	const char *cwd_name;       /* its bash tool's name for cwd (mcp: workdir); NULL: cwd */
};

/* One call of the bash tool, as either front end received it. */
struct work_call {
	const char *command;
	const char *cwd;            /* NULL: the session's */
	uint64_t timeout_ms;        /* 0: the config's */
	const char *sandbox_permissions;
	const char *justification;
};

void work_init(struct work *w, const struct sbx_config *cfg);
void work_free(struct work *w);
const json_t *work_facts(struct work *w);

/* work_session.c */
/* Open a session: the root pinned now. has_escalation false: the config's
 * default; the config's `escalation = false` is a ceiling no session raises. */
int work_session_open(struct work *w, const char *root, bool has_mode, enum sbx_mode mode,
		      bool has_escalation, bool escalation, const char *cwd,
		      struct work_session **out, struct sbx_error *err);
struct work_session *work_session_find(struct work *w, const char *name);
/* End its tasks, delete its spill files; freed when its last task settled. */
void work_session_close(struct work *w, struct work_session *sess);
void work_close_all(struct work *w);
/* Free closed sessions whose last task has settled. */
void work_session_reap(struct work *w);
/* A run for this session and call (sbx_run_free it). Escalation is checked
 * here: sandbox_permissions needs the session's escalation, justification
 * needs sandbox_permissions. */
int work_run_build(struct work *w, const struct work_session *sess,
		   const struct work_call *call, struct sbx_run **out, struct sbx_error *err);

/* work_tasks.c */
struct work_task *work_task_new(struct work *w, struct work_session *sess);
struct work_task *work_task_find(struct work_session *sess, const char *name);
/* Undo work_task_new for a task that never started (its name unused). */
void work_task_drop(struct work *w, struct work_task *task);
/* Settle: keep the result (stolen) and the views (taken over; may be NULL),
 * free the place. Frees what a closed session no longer needs. */
void work_task_settle(struct work *w, struct work_task *task, enum task_status status,
		      json_t *result, struct stream_view *out, struct stream_view *errv);
const char *work_task_status_name(enum task_status status);
/* Where sbx's own "[... N bytes omitted ...]" line lies in the stdout [0]
 * and stderr [1] strings of a task's output (bytes; len 0: none there), for
 * a text a model reads to guard the command's lines and not sbx's. */
struct work_omitted {
	size_t at[2], len[2];
};
/* {"task","status","stdout","stderr","next":{"stdout","stderr"},"result"?}:
 * the bytes after the offsets, at most max of each stream. om (may be
 * NULL) gets where sbx's omitted lines are. */
json_t *work_task_output(const struct work_task *task, uint64_t since_out, uint64_t since_err,
			 size_t max, struct work_omitted *om);

/* work_answers.c */
/* The bash tool's input schema for a session (serve's schema, mcp's bash). */
json_t *work_bash_schema(const struct work_session *sess);
/* The settled result of a run whose runner failed: the third marker. */
json_t *work_runner_failed_result(enum sbx_mode mode, const struct sbx_error *err);
/* Cut stdout, stderr and text of a result object (in place) until its JSON
 * takes at most budget bytes; the markers stay whole at the end of text. */
void work_fit_result(json_t *result, size_t budget);

/* work_spill.c */
/* Note the spill files a result names (they are deleted with the session). */
void work_spill_note(struct work_session *sess, const json_t *result, bool private_dir);
void work_spill_delete_all(struct work_session *sess);
/* Delete spill files older than the configured age; *timeout_ms lowered to
 * the next one due. */
void work_spill_sweep(struct work *w, uint64_t now_ms, int *timeout_ms);

#endif
