/* SPDX-License-Identifier: MIT */
/* launcher/engine: one run, from a builder (sbx_run_*) to a result. It
 * resolves the policy onto the run, picks a runner, prepares the view,
 * spawns the child, starts the supervisor, collects the output, owns the
 * process tree to its end, puts protected paths back, and builds the
 * result with the classifier's facts. It calls down into
 * launcher/supervisor, launcher/protect and launcher/output, then
 * launcher/runners and launcher/kernel, and into the pure policy/ and
 * classify/; nothing below calls it. This header holds the pieces one run
 * is made of; run.h the run's own state. */
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
#include "output.h"

#define SBX_MAX_PATTERNS 80
#define SBX_MAX_UNIX_SOCKETS 32

/* ---- the builder (sbx_run_*) ---- */
struct sbx_run {
	char *command;
	enum sbx_mode mode;
	char *root;
	int root_fd;            /* a pinned root (root_pin), borrowed; -1: none */
	char *cwd;
	const char *cwd_name;   /* what the caller calls cwd, for its messages ("--cwd",
				   "workdir"; a static string); NULL: "cwd" */
	enum sbx_runner runner;
	uint64_t timeout_ms;
	size_t output_limit;
	char *spill_dir;
	char *config_file;         /* the config this run's policy came from; NULL: none */
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
	char *protected_paths_add;  /* added to the list above; NULL: none */
	char *deny_read_add;
	char *cache_dir;            /* NULL: default */
	size_t n_unix_sockets;
	char *unix_sockets[SBX_MAX_UNIX_SOCKETS]; /* the supervisor's allow-list */
};

struct sbx_policy;
/* run_builder.c: a resolved policy onto a builder. */
int run_apply_policy(struct sbx_run *run, const struct sbx_policy *pol, struct sbx_error *err);
/* The run's working directory as its caller named it, for messages: the
 * front end's word (--cwd, workdir), "cwd", or "root" when none was given. */
const char *run_cwd_name(const struct sbx_run *run);

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
/* A run's scope thread (kernel/scope_thread.h) spawns that run: its children
 * are the run's first processes, passed by as serve's spawner's are, from
 * add until remove. */
void tree_spawner_add(pid_t tid);
void tree_spawner_remove(pid_t tid);
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
	/* where sbx's "[... N bytes omitted ...]" line is in each (len 0: none) */
	size_t out_mid_at, out_mid_len, err_mid_at, err_mid_len;
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
	size_t reverted_more;      /* put back too, past those listed */
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
