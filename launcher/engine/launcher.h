/* SPDX-License-Identifier: MIT */
/* Internal interfaces of launcher/: the pieces one run is made of. */
#ifndef SBX_LAUNCHER_H
#define SBX_LAUNCHER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "child.h"
#include "classify.h"
#include "sbx.h"
#include "spill.h"

#define SBX_MAX_PATTERNS 80
#define SBX_MAX_UNIX_SOCKETS 32

/* ---- the builder (sbx_run_*) ---- */
struct sbx_run {
	char *command;
	enum sbx_mode mode;
	char *root;
	int root_fd;            /* a pinned root (root_pin), borrowed; -1: none */
	char *cwd;
	enum sbx_runner runner;
	uint64_t timeout_ms;
	size_t output_limit;
	char *spill_dir;
	uint64_t spill_max_bytes;
	enum sbx_net net;
	bool escalation;
	int landlock_abi;
	unsigned syscalls_as_of;    /* KERNEL_RELEASE(); 0: off */
	int pass_out;
	int pass_err;
	int cancel_fd;
	uint64_t max_processes;    /* SBX_LIMIT_DEFAULT or a number */
	uint64_t memory_limit;     /* SBX_LIMIT_DEFAULT, SBX_LIMIT_OFF or bytes */
	uint64_t file_size_limit;
	uint64_t tmp_size;
	unsigned concurrent_runs;  /* max_background: how many runs may be alive */
	bool defer_reap;           /* sbx_run_execute leaves the helpers to reap_all() */
	bool reap_in_loop;         /* serve: helpers are reaped on its loop */
	size_t n_patterns;
	char *patterns[SBX_MAX_PATTERNS];
	char *protected_paths;      /* NULL: default */
	char *deny_read;            /* NULL: default */
	char *cache_dir;            /* NULL: default */
	size_t n_unix_sockets;
	char *unix_sockets[SBX_MAX_UNIX_SOCKETS]; /* the supervisor's allow-list */
};

struct sbx_policy;
/* run_builder.c: a resolved policy onto a builder. */
int run_apply_policy(struct sbx_run *run, const struct sbx_policy *pol, struct sbx_error *err);

/* ---- root_pin.c: the workspace root as a handle ---- */
/* Resolve given (absolute) once and open it O_PATH. Refused when a symlink on
 * the way lies where a confined command could have planted it (/tmp,
 * /dev/shm). resolved gets the real path; *fd an O_PATH|O_CLOEXEC handle. */
int root_pin(const char *given, char resolved[PATH_MAX], int *fd, struct sbx_error *err);
/* Whether resolved (followed without symlinks) still names the directory fd
 * holds; else an error (USAGE): it was moved, removed or replaced. */
int root_verify(const char *resolved, int fd, struct sbx_error *err);
/* Use a root pinned by the caller (serve's sessions): the run checks it with
 * root_verify and confines that handle. fd stays the caller's. */
int run_set_pinned_root(struct sbx_run *run, const char *resolved, int fd);

/* ---- env.c: the command's environment, credentials scrubbed ---- */
extern const char *const env_builtin_scrub[];
/* malloc'd NULL-terminated array of malloc'd "K=V" strings. */
char **env_build(char *const *environ_in, const char *const *extra_patterns, size_t n_extra,
		 bool confined);
bool env_name_scrubbed(const char *name, size_t name_len, const char *const *extra,
		       size_t n_extra);
/* A value holding a URL with a password (scheme://user:pass@host). */
bool env_value_has_password(const char *value);
/* BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PROMPT_COMMAND, BASH_FUNC_*: dropped
 * in confined modes. */
bool env_shell_startup(const char *name, size_t name_len);
void env_free(char **env);
/* env_cache.c: point the usual tool-cache variables the caller left unset
 * into cache_dir (realloc'ing *envp). 0 or -1 (out of memory). */
int env_add_cache_vars(char ***envp, const char *cache_dir);

/* ---- pipes.c ---- */
/* pipe2(O_CLOEXEC), enlarged to COLLECT_PIPE_SIZE where the per-user budget
 * allows. */
#define COLLECT_PIPE_SIZE (1 << 20)
int pipe_open_collect(int fds[2]);
/* write(2) until all of buf is written; 0 or -errno. */
int io_write_all(int fd, const char *buf, size_t len);

/* ---- stream.c: bounded head + tail, spill past the limit ---- */
struct stream {
	const char *name;       /* "stdout" / "stderr" */
	size_t limit;           /* head + tail kept */
	char *first;            /* the first `limit` bytes */
	size_t first_len;
	char *tail;             /* ring of the last limit/2 bytes once over */
	size_t tail_size;
	size_t tail_pos;
	bool tail_full;
	uint64_t total;
	int pass_fd;            /* live copy (human mode), -1: none */
	int error;              /* first passthrough error (errno), 0 if none */
	struct spill_place *spill; /* where past the limit goes; NULL: nowhere */
	bool spill_started;
	char *spill_path;       /* the file (whole or stopped), NULL: none */
	int spill_fd;
	uint64_t spilled;       /* bytes in the spill file */
	uint64_t next_room_check;
	enum spill_stop spill_stop;
	int spill_errno;        /* with SPILL_STOP_ERROR */
	/* stream_splice.c: past the head, spliced out, its tail kept in a pipe */
	bool spliced;
	int dup_r, dup_w, null_fd;
	size_t dup_len, dup_cap;
};
/* spill: the run's spill place (NULL: no spill, e.g. with passthrough). */
int stream_init(struct stream *s, const char *name, size_t limit, int pass_fd,
		struct spill_place *spill);
void stream_feed(struct stream *s, const char *buf, size_t len);
/* head, "\n[... N bytes omitted ...]\n", tail (or all when it fit). malloc'd. */
char *stream_render(const struct stream *s, size_t *len);
bool stream_truncated(const struct stream *s);
/* Bytes past the head, in order (the last tail_size of them are kept). */
void stream_set_tail(struct stream *s, const char *buf, size_t len);
/* stream_splice.c. Whether the passthrough can be spliced from the pipe src
 * (then src is made non-blocking); stream_pump moves what src holds: bytes
 * moved, 0 at its end, -EAGAIN when empty for now, -errno; buf is for the
 * head. stream_splice_finish reads the tail out at the end. */
bool stream_splice_open(struct stream *s, int src);
ssize_t stream_pump(struct stream *s, int src, char *buf, size_t buf_size);
void stream_splice_finish(struct stream *s);
void stream_close(struct stream *s); /* frees buffers, closes the spill fd, keeps spill_path */

/* ---- stream_view.c: what a stream keeps, read by byte offset ---- */
struct stream_view {
	char *head;             /* bytes [0, head_len) */
	size_t head_len;
	char *tail;             /* bytes [total - tail_len, total) */
	size_t tail_len;
	uint64_t total;
};
int stream_view_take(const struct stream *s, struct stream_view *v);
void stream_view_free(struct stream_view *v);
/* The bytes after since, at most max of them (plus one "[... N bytes omitted
 * ...]" line where the middle was not kept). malloc'd; *next is the offset
 * to ask from next time. */
char *stream_view_since(const struct stream_view *v, uint64_t since, size_t max, size_t *len,
			uint64_t *next);

/* ---- utf8.c ---- */
/* A valid UTF-8 copy (invalid sequences become U+FFFD; NULs kept). malloc'd. */
char *utf8_sanitize(const char *buf, size_t len, size_t *out_len);

/* ---- loop.c: one event loop, io_uring or poll behind it ---- */
struct loop;
struct loop_watch;
/* n > 0: bytes in buf (or, for a readiness watch, the fd is readable);
 * n == 0: end of file; n < 0: -errno. The watch is re-armed after the call
 * unless it was removed or hit EOF/error. */
typedef void (*loop_cb)(struct loop_watch *w, const char *buf, ssize_t n);
struct loop_watch {
	int fd;
	bool readiness;         /* only report readability (pidfd), do not read */
	char *buf;
	size_t buf_size;
	loop_cb cb;
	void *ctx;
	/* owned by the loop */
	bool active;
	bool in_flight;
	size_t slot;
};
enum loop_backend { LOOP_URING, LOOP_POLL };
/* io_uring when built and allowed (EPERM/ENOSYS -> poll); prefer_poll forces poll. */
struct loop *loop_new(bool prefer_poll);
/* prefer_poll for a loop of one run (one_shot) or of a whole serve. */
bool loop_prefer_poll(bool one_shot);
enum loop_backend loop_backend_of(const struct loop *l);
const char *loop_backend_name(const struct loop *l);
int loop_add(struct loop *l, struct loop_watch *w);
void loop_remove(struct loop *l, struct loop_watch *w);
/* Wait at most timeout_ms (-1: forever) and dispatch. Returns events handled or -errno. */
int loop_wait(struct loop *l, int timeout_ms);
void loop_free(struct loop *l);

struct loop_ops {
	int (*add)(struct loop *l, struct loop_watch *w);
	void (*remove)(struct loop *l, struct loop_watch *w);
	int (*wait)(struct loop *l, int timeout_ms);
	void (*free)(struct loop *l);
	const char *name;
	enum loop_backend backend;
};
struct loop {
	const struct loop_ops *ops;
};
struct loop *loop_poll_new(void);
#ifdef CONFIG_IO_URING
/* NULL with *err set when io_uring is refused (EPERM, ENOSYS, ...). */
struct loop *loop_uring_new(int *err);
#endif
/* Why io_uring is not used, or "" (filled by loop_new). */
const char *loop_uring_unavailable_reason(void);

/* ---- host_check.c: what a run needs of the file system sbx runs in ---- */
/* /dev/null (the null device), /proc, and /tmp for workspace-write: 0 with
 * *null_fd open on /dev/null (O_RDONLY, CLOEXEC), or an error naming every
 * missing piece and what to do (SANDBOX_UNAVAILABLE; SPAWN_FAILED for
 * danger-full-access). */
int host_check(enum sbx_mode mode, int *null_fd, struct sbx_error *err);

/* ---- process.c: what a run may change in the whole process ---- */
/* Whether sbx_process_opt_in(SBX_PROCESS_SUBREAPER) was called: then runs
 * without a PID namespace have no keeper, and their ends walk our children
 * (tree.c). */
bool process_is_subreaper(void);

/* ---- tree.c: the run's process tree ---- */
/* Signal pid and every descendant (read through /proc/PID/task/T/children);
 * with below, the descendants only (a run's keeper ends itself). */
void tree_signal(pid_t root, int sig, bool below);
/* What a walk of our children leaves alone: fills out (at most max pids),
 * returns how many. Asked at each look, under the gate below. */
typedef size_t (*tree_keep_fn)(pid_t *out, size_t max);
/* Kill every child of ours that keep_fn (NULL: none) does not name, and all
 * their descendants, and reap those that are our children. Bounded in time. */
void tree_kill_orphans(tree_keep_fn keep_fn);
/* Children of this thread (serve's spawner, 0: none) are never orphans. */
void tree_spawner_is(pid_t tid);
/* Whether any child of ours is named neither by keep_fn nor also_keep. */
bool tree_has_orphans(tree_keep_fn keep_fn, pid_t also_keep);
/* Around a run's start, from before its first fork until its processes are
 * listed live: walks wait (tree.c). Pass begin's value to end. */
bool tree_spawn_begin(void);
void tree_spawn_end(bool held);

/* ---- reap.c ---- */
/* Reap every finished run's last helper still on its way out (waiting, then
 * SIGKILL after a bound). sbx_run_execute calls it unless defer_reap. */
void reap_all(void);

/* ---- spawn.c ---- */
struct spawn_outcome {
	pid_t pid;
	int pidfd;
	/* set when the child did not reach exec */
	bool failed;
	struct child_status status;
	bool clone_failed;
	int clone_errno;
	/* PID namespace runs: pid is the namespace's init; how the command
	 * ended arrives on exit_fd (struct init_exit), -1 otherwise */
	int exit_fd;
	bool private_proc;
};
int spawn_child(struct child_spec *spec, int extra_clone_flags, struct spawn_outcome *out);

/* ---- exit_watch.c ---- */
/* Whether clone's CLONE_PIDFD gives a pollable pidfd here (5.3+). */
bool exit_watch_pidfd_usable(void);
/* Older kernels: an fd that turns readable when child pid exits (it is not
 * reaped), or -errno. */
int exit_watch_thread(pid_t pid);
const char *bash_path(void);
uint64_t signals_not_default(void);

/* ---- runners.c ---- */
struct runner_ops;
const struct runner_ops *runner_by_id(enum sbx_runner id);
/* This process runs many commands (serve, mcp): runners may keep what they
 * build for a policy (the landlock runner's rulesets). */
void runners_long_lived(void);
struct child_spec;
/* The run is over (or never started): what a runner kept from prepare
 * beyond the spawn ends (the landlock runner's pty pool and lent ruleset). */
void runners_run_over(struct child_spec *spec);
/* Runners compiled in, in `auto` order, NULL-terminated. */
extern const struct runner_ops *const runner_table[];

/* ---- writable.c ---- */
enum caller_access caller_could_write(const char *abs_path, void *ctx);

/* ---- privilege.c ---- */
int privilege_check_self(struct sbx_error *err);

/* ---- result.c ---- */
struct sbx_result {
	bool exited;
	int exit_code;
	int signal;
	bool timed_out;
	uint64_t duration_ms;
	char *out_text;
	size_t out_len;
	char *err_text;
	size_t err_len;
	uint64_t out_bytes;
	uint64_t err_bytes;
	bool truncated;
	char *spill_out;
	char *spill_err;
	enum spill_stop spill_stop_out, spill_stop_err;
	uint64_t spilled_out, spilled_err;
	int spill_errno_out, spill_errno_err;
	enum sbx_mode mode;
	const char *runner;        /* NULL for danger-full-access */
	enum sbx_enforcement enforcement;
	bool denied;
	bool private_processes;    /* the run saw only its own processes */
	const char *protected_how; /* "read-only", "restored", "partial"; NULL: none */
	char *reverted[16];        /* protected paths put back to the baseline after the run */
	size_t n_reverted;
	unsigned refused_calls;     /* calls the supervisor refused (sandbox.refused_calls) */
	char *recovered[16];       /* ... before it, to a baseline a dead sbx left */
	size_t n_recovered;
	bool runner_failed;
	bool cancelled;
	struct {
		uint64_t processes, memory, file_size; /* 0: not enforced */
		bool cgroup;
		const char *hit;
	} limits;
	char *markers;
	char *text;
	size_t text_len;
};
int result_finish_text(struct sbx_result *r);
#include <jansson.h>
json_t *result_to_json_object(const struct sbx_result *r);
json_t *error_to_json_object(const struct sbx_error *err);

#endif
