/* SPDX-License-Identifier: MIT */
/* One live run: spawned, collected by a loop, finished into a result. Used by
 * sbx_run_execute (one run, its own loop) and by serve (many runs, one loop). */
#ifndef SBX_RUN_H
#define SBX_RUN_H

#include <limits.h>
#include <linux/filter.h>

#include "launcher.h"
#include "locale_dialect.h"
#include "ns_view.h"
#include "policy.h"
#include "protect.h"
#include "runner.h"
#include "run_limits.h"
#include "run_named.h"

/* Per-stream read buffer. 64 KiB keeps the copy out of the pipe in cache: a
 * 256 KiB buffer measured 1.9x slower than `| cat` here, 64 KiB 0.8x. */
#define RUN_READ_BUF (64 * 1024)
#define RUN_DRAIN_MS 250       /* after bash exits, how long descendants may hold the pipes */
#define RUN_TERM_GRACE_MS 1000 /* SIGTERM, then SIGKILL after this */
#define RUN_SCRATCH_SIZE (256 * 1024)
#define RUN_DEADMAN_WAIT_MS 200 /* how long the dead-man helper may take to act */
#define RUN_END_WAIT_MS 5000   /* how long a PID namespace may take to end */

struct run_state {
	/* the resolved call */
	char *command;
	enum sbx_mode mode;
	char root[PATH_MAX];
	int root_fd;                /* O_PATH handle on root, opened once */
	char cwd[PATH_MAX];
	struct spill_place spill;   /* fixed at start (spill.c) */
	uint64_t timeout_ms;
	bool escalation;
	const struct runner_ops *runner; /* NULL: danger-full-access */
	struct child_spec spec;
	struct sock_fprog as_of;     /* --syscalls-as-of filter (filter NULL: none) */
	struct ns_view_spec view;   /* the namespace runner's extras */
	/* workspace-write: a hidden path that exists under the host's /tmp,
	 * outside the root (the landlock runner grants /tmp whole), or NULL */
	const char *hidden_in_tmp;
	bool view_full; /* a path list of the view overflowed: the run is refused */
	bool protect_full; /* so did the protected paths': refused too */
#define RUN_VIEW_STRINGS (4 * NS_VIEW_MAX_PATHS + 8)
	char *view_strings[RUN_VIEW_STRINGS]; /* owned by the run; view points here */
	size_t n_view_strings;
	struct protect_state protect;
	/* The protected paths' end (run_protect_finish): done, and what it
	 * put back (paths valid until protect_free). */
	bool protect_finished;
	const char *protect_reverted[PROTECT_REPORT_MAX];
	size_t n_protect_reverted;
	size_t protect_reverted_more; /* put back, past the list */
	struct run_limits limits;
	char *argv[4];
	char **envp;

	/* the live process */
	pid_t pid;
	int pidfd;
	int exit_fd;               /* PID namespace runs: init's report (-1: none) */
	bool init_empty;           /* init said: no process of the run is left but it */
	pid_t reap_pid;            /* the run's last helper, reaped after the run (0: none) */
	int reap_pidfd;
	int fd_out, fd_err;
	int deadman_w;             /* write end of the dead-man trigger, -1: none */
	pid_t deadman_pid;         /* its helper (0: none) */
	uint64_t netns_cookie;     /* landlock runner, --net none: the run's network
				    * namespace (SO_NETNS_COOKIE; 0: none, unknown) */
	struct supervisor *sup;    /* the syscall supervisor (NULL: none) */
	struct scope_thread *scope; /* spawns the run, starts its scoped calls (NULL: none) */
	bool scope_listed;         /* its children passed by the walks (tree.c) */
	int notify_sock[2];        /* its listener's way from the child */
	int opener_sock[2];        /* the opener's requests (runners/opener.h): [0] ours */
	pid_t opener_pid;          /* the opener, where it is our child (0: none) */
	struct loop *loop;         /* NULL until run_attach */
	int cancel_fd;
	bool loop_persists;        /* serve's loop: helpers are reaped on it */
	struct loop_watch w_out, w_err, w_pid, w_cancel;
	struct stream out, err;
	struct evidence ev;
	bool ev_pending;            /* ev waits for the dialect texts (first output) */
	struct run_named named;     /* whole lines that name a soft refusal */
	/* the command's language's texts of ENOENT, ENOTDIR, and the
	 * supervisor's phrases in it (run_evidence_ready) */
	char missing[LOCALE_MISSING][DIALECT_TEXT_MAX];
	struct supervise_local named_local;

	/* its clock */
	uint64_t start_ms;
	/* Before the command was spawned, one tick of the coarse clock back:
	 * a change at or after it may be the command's (supervisor). */
	struct timespec began;
	uint64_t exit_ms;          /* when bash exited (0: still running) */
	uint64_t timeout_at;       /* 0: no timeout */
	uint64_t kill_at;          /* SIGKILL after the grace (0: not yet) */
	uint64_t drain_until;      /* stop waiting for EOF after this */
	uint64_t drain_budget;     /* bytes still expected once orphans are killed */
	bool out_eof, err_eof;
	bool bash_exited;
	int wstatus;
	bool timed_out;
	bool cancelled;
	bool orphans_killed;
	bool done;
};

uint64_t run_now_ms(void);
/* Resolve, pick a runner, spawn, start collecting on loop. */
int run_start(const struct sbx_run *cfg, struct loop *loop, struct run_state **out,
	      struct sbx_error *err);
/* The same in two steps: run_spawn on any one thread (serve's spawner: the
 * loop keeps serving while a child builds its sandbox), then run_attach on
 * the loop's own thread. */
int run_spawn(const struct sbx_run *cfg, struct run_state **out, struct sbx_error *err);
int run_attach(struct run_state *r, struct loop *loop, struct sbx_error *err);
/* Milliseconds until this run needs attention (-1: only on I/O). */
int run_next_timeout(const struct run_state *r, uint64_t now);
/* Timers and completion; sets r->done when the run is over. */
void run_tick(struct run_state *r, uint64_t now);
/* SIGTERM to the whole tree, SIGKILL after the grace (timeout, cancel). */
void run_stop_gently(struct run_state *r, uint64_t now);
/* End the whole tree now (serve's kill op, end of stdin). */
void run_terminate(struct run_state *r);
/* The evidence's dialects and local texts, on first need (cached lookup). */
void run_evidence_ready(struct run_state *r);
/* Classify and build the result; frees r. */
int run_finish(struct run_state *r, struct sbx_result **result, struct sbx_error *err);
/* After the run is done, before run_finish: whether its protected paths
 * are still to be put back (and its git pass done), and doing that. The
 * latter may take long (a tree the command left, a big workspace) and may
 * run on any thread while nothing else touches r: serve runs it off its
 * loop; run_finish does it itself when it was not done. */
bool run_protect_pending(const struct run_state *r);
void run_protect_finish(struct run_state *r);
void run_discard(struct run_state *r);
/* Pids of every run still alive in this process (bash pids). */
size_t run_live_pids(pid_t *out, size_t max);

/* reap.c: the run's last helper (pid; its pidfd, or -1), told to go, is
 * reaped later: on loop (serve's, which persists) through its pidfd, or by
 * reap_all(). It takes the run's cgroup along (removed once it is reaped). */
void reap_defer(pid_t pid, int pidfd, struct run_limits *limits, struct loop *loop);
size_t reap_pending_pids(pid_t *out, size_t max);

/* A live run's output so far, as a JSON object (caller owns it). */
json_t *run_snapshot_json(const struct run_state *r);

/* run_pick.c */
int run_pick_and_spawn(struct run_state *r, const struct sbx_run *cfg, struct sbx_error *err);
/* Whether a failure to start (this errno) can pass by itself: a shortage a
 * command may cause, never remembered. */
bool run_failure_is_transient(int err);

#endif
