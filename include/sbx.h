/* SPDX-License-Identifier: MIT */
/* libsbx: run one shell command under a file-write policy and report what happened.
 *
 * Every function returns 0 or a negative errno; on failure it fills the
 * caller's struct sbx_error (code, message, detail). The library never exits
 * the process and never prints.
 *
 * Build against it with `cc prog.c $(pkg-config --cflags --libs sbx)`.
 * The result object, error codes, markers and exit statuses are those of
 * `sbx run --json`: see sbx(1), sbx.conf(5) and docs/ in the source tree. */
#ifndef SBX_H
#define SBX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here, and nothing else, is libsbx.so's interface. */
#pragma GCC visibility push(default)

enum sbx_mode {
	SBX_MODE_READ_ONLY = 0,
	SBX_MODE_WORKSPACE_WRITE,
	SBX_MODE_DANGER_FULL_ACCESS,
};

enum sbx_runner {
	SBX_RUNNER_AUTO = 0,
	SBX_RUNNER_NAMESPACE,
	SBX_RUNNER_LANDLOCK,
	SBX_RUNNER_NONE, /* an outcome, never a choice: what sbx_runner_name() names for a
			  * danger-full-access run, which asks no runner;
			  * sbx_run_set_runner() refuses it (-EINVAL), and
			  * ignores the runner of a danger-full-access run */
};

enum sbx_net {
	SBX_NET_ALLOW = 0,
	SBX_NET_NONE,
};

enum sbx_enforcement {
	SBX_ENFORCEMENT_FULL = 0,
	SBX_ENFORCEMENT_PARTIAL,
};

/* Error codes (sbx(1), EXIT STATUS and SERVE PROTOCOL). */
#define SBX_E_USAGE "USAGE"
#define SBX_E_CONFIG "CONFIG"
#define SBX_E_SANDBOX_UNAVAILABLE "SANDBOX_UNAVAILABLE"
#define SBX_E_SPAWN "SPAWN_FAILED"
#define SBX_E_INTERNAL "INTERNAL"
#define SBX_E_BAD_REQUEST "BAD_REQUEST"
#define SBX_E_TOO_MANY "TOO_MANY_PROCESSES"
#define SBX_E_NOT_FOUND "NOT_FOUND"

struct sbx_error {
	char code[32];
	char message[512];
	char detail[512];
};

/* Fill err (any of message/detail may be NULL). Returns -errnum if errnum > 0,
 * else -EINVAL, so callers can `return sbx_error_set(...)`. */
int sbx_error_set(struct sbx_error *err, int errnum, const char *code, const char *detail,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The library's version ("0.2.0"), from the file VERSION at build time. */
const char *sbx_version(void);

const char *sbx_mode_name(enum sbx_mode mode);
int sbx_mode_parse(const char *name, enum sbx_mode *out);
const char *sbx_runner_name(enum sbx_runner runner);
int sbx_runner_parse(const char *name, enum sbx_runner *out);

/* ---- one run: builder, execute, result ---- */

struct sbx_run;
struct sbx_result;

struct sbx_run *sbx_run_new(void);
void sbx_run_free(struct sbx_run *run);

int sbx_run_set_command(struct sbx_run *run, const char *command);
int sbx_run_set_mode(struct sbx_run *run, enum sbx_mode mode);
int sbx_run_set_root(struct sbx_run *run, const char *root);
int sbx_run_set_cwd(struct sbx_run *run, const char *cwd);
int sbx_run_set_runner(struct sbx_run *run, enum sbx_runner runner);
/* 0: none; at most 604800000 (a week, as --timeout), else -EINVAL. */
int sbx_run_set_timeout_ms(struct sbx_run *run, uint64_t timeout_ms);
/* Bytes of each stream the result keeps (head + tail): 2 to 1073741824 (1 GiB,
 * as --output-limit), else -EINVAL. */
int sbx_run_set_output_limit(struct sbx_run *run, size_t bytes);
int sbx_run_set_spill_dir(struct sbx_run *run, const char *dir);
int sbx_run_set_net(struct sbx_run *run, enum sbx_net net);
int sbx_run_set_escalation(struct sbx_run *run, bool available);
int sbx_run_set_landlock_abi(struct sbx_run *run, int max_abi); /* 0: the kernel's */
/* The command sees ENOSYS for every system call introduced after this kernel
 * release ("5.4"; NULL: off), for ABI compatibility testing. -EINVAL for a
 * release outside sbx's table (3.10 to 6.17), -ENOSYS on an architecture it
 * has no table for (x86_64 and aarch64 have one). See docs/kernels.md. */
int sbx_run_set_syscalls_as_of(struct sbx_run *run, const char *release);
/* Extra credential name patterns ('*' wildcard) added to the built-in list. */
int sbx_run_add_scrub_pattern(struct sbx_run *run, const char *pattern);
/* Paths inside the root that stay read-only in workspace-write: a
 * comma-separated list relative to the root, "none", or NULL for the default
 * (.git/hooks, .git/config, .gitmodules, .envrc, editor and agent settings,
 * shell rc files; see sbx(1)). */
int sbx_run_set_protected_paths(struct sbx_run *run, const char *list);
/* Paths added to the protected list, whatever it is (the default included):
 * comma-separated, relative to the root. Calls accumulate. */
int sbx_run_add_protected_paths(struct sbx_run *run, const char *list);
/* Paths the command cannot read: comma-separated, absolute or ~/..., "none",
 * or NULL for the default (the usual credential stores and sbx's own state). */
int sbx_run_set_deny_read(struct sbx_run *run, const char *list);
/* Paths added to the deny_read list, whatever it is (the default included):
 * comma-separated, absolute or ~/... Calls accumulate. */
int sbx_run_add_deny_read(struct sbx_run *run, const char *list);
/* Where the per-root tool-cache directories live (a base directory), "off",
 * or NULL for the default (sbx's state directory). */
int sbx_run_set_cache_dir(struct sbx_run *run, const char *dir);
/* Per-run resource limits (docs/limits.md). SBX_LIMIT_DEFAULT: sbx's default
 * for this machine; SBX_LIMIT_OFF: none of sbx's (the caller's own limit
 * stays). Processes count tasks (threads too); memory is the run's cgroup
 * memory.max where sbx has a cgroup v2 of its own, else RLIMIT_DATA per
 * process; file size is RLIMIT_FSIZE; tmp size is the namespace runner's
 * private /tmp and /dev/shm. */
#define SBX_LIMIT_DEFAULT 0
#define SBX_LIMIT_OFF UINT64_MAX
int sbx_run_set_max_processes(struct sbx_run *run, uint64_t n);          /* not OFF */
int sbx_run_set_memory_limit(struct sbx_run *run, uint64_t bytes);
int sbx_run_set_file_size_limit(struct sbx_run *run, uint64_t bytes);
int sbx_run_set_tmp_size(struct sbx_run *run, uint64_t bytes);           /* not OFF */
/* The supervisor's allow-list (config unix_sockets): a socket path or pattern
 * ('*' matches any run of characters, '/' included), or an abstract name
 * starting with '@', that a confined command may connect to although it lies
 * outside the run's writable set. */
int sbx_run_add_unix_socket_pattern(struct sbx_run *run, const char *pattern);
/* Human mode: copy both streams live to these fds as they arrive (-1: off).
 * With passthrough on, nothing is spilled: the caller already has every byte. */
int sbx_run_set_passthrough(struct sbx_run *run, int out_fd, int err_fd);

/* When fd becomes readable (a byte from a signal handler, say), the run is
 * cancelled: its whole tree gets SIGTERM, then SIGKILL after a short grace,
 * as on a timeout. -1: none. The fd is only watched, never read or closed, so
 * one fd can cancel many runs. The exit status is then 128+N of the signal
 * that ended bash (143, or 137 after the grace), not 124. An fd already
 * readable when sbx_run_execute() starts cancels the run at once, but the
 * command may have begun by then: not calling sbx_run_execute() is the only
 * way not to run it. An fd that is not open is not refused: it never
 * cancels. */
int sbx_run_set_cancel_fd(struct sbx_run *run, int fd);
/* Whether the run was cancelled through the cancel fd. */
bool sbx_result_cancelled(const struct sbx_result *result);

/* Run to completion. Returns 0 when the command ran (whatever its exit status)
 * and *result is set; a negative errno with err filled when sbx could not run it
 * (then the command did not run). Safe from several threads at once. Refused
 * (USAGE) while SIGCHLD is ignored (SIG_IGN or SA_NOCLDWAIT): exit statuses
 * would be lost; and (USAGE) while SBX_COLLECTOR holds anything but io_uring,
 * poll or nothing (sbx(1), ENVIRONMENT).
 *
 * Your process is left as it was found: a run waits for and signals only the
 * processes it started (through their pids and pidfds, never waitpid(-1)),
 * so your own children stay yours to wait for; it does not make your process
 * a subreaper, change its resource limits or its signal dispositions.
 * Whatever the command leaves behind (double-forked, setsid'd) is ended with
 * the run all the same: a run's own reaper process (a PID namespace's init,
 * or a keeper, `sbx-keeper`, between you and bash) holds it, and ends it when
 * the run ends or your process dies. sbx_process_opt_in() trades some of this
 * for speed: see there, and docs/embedding.md. */
int sbx_run_execute(struct sbx_run *run, struct sbx_result **result, struct sbx_error *err);

/* ---- process-wide changes, only when asked ----
 * SBX_PROCESS_SUBREAPER: your process becomes a child subreaper
 * (PR_SET_CHILD_SUBREAPER) and runs without a PID namespace need no keeper
 * process (a fork fewer per landlock-runner or danger-full-access run). The
 * price: a run's leftovers come back to your process, and the end of each
 * such run kills and reaps every child of your process that no live run of
 * libsbx started, yours included (waitpid on it then fails with ECHILD), and
 * a danger-full-access run is no longer ended when your process dies.
 * SBX_PROCESS_NOFILE_MARGIN: your soft RLIMIT_NOFILE is set 4096 below the
 * hard one (a quarter below a hard limit under 16384), raised or lowered, so
 * that commands passing fds (which sbx performs, counted against your soft
 * limit) cannot use up the room a later run's setup needs; every command
 * still gets your soft limit. sbx run, serve and mcp set both. Call before
 * the first run; there is no way back. 0, -EINVAL for an unknown flag, or
 * -errno from prctl. */
#define SBX_PROCESS_SUBREAPER 0x1u
#define SBX_PROCESS_NOFILE_MARGIN 0x2u
int sbx_process_opt_in(unsigned flags);

void sbx_result_free(struct sbx_result *result);
/* The exit status `sbx run` would give: the command's own, 128+N, or 124. */
int sbx_result_exit_status(const struct sbx_result *result);
bool sbx_result_denied(const struct sbx_result *result);
/* Which resource limit ended the run: "processes", "memory", "file_size", or
 * NULL. */
const char *sbx_result_limit_hit(const struct sbx_result *result);
/* The markers, each ending in '\n' (empty string if none). Owned by the result. */
const char *sbx_result_markers(const struct sbx_result *result);
/* What the result keeps of the command's stdout (stderr): the bounded
 * bytes as the command wrote them (head, a line "[... N bytes omitted ...]",
 * tail; not UTF-8-sanitised as the JSON's strings are), *len bytes (len may
 * be NULL) that may hold NULs, followed by a NUL. Owned by the result. The
 * whole stream's size is the JSON's stdout_bytes (stderr_bytes). */
const char *sbx_result_stdout(const struct sbx_result *result, size_t *len);
const char *sbx_result_stderr(const struct sbx_result *result, size_t *len);
/* What a model is shown (the JSON's "text"): the bounded output, then the
 * markers. NUL-terminated (a NUL the command wrote ends it early here; the
 * JSON keeps it as \u0000), owned by the result. */
const char *sbx_result_text(const struct sbx_result *result);
/* The signal that ended the command's bash (a timeout's SIGTERM, or
 * SIGKILL when it outlived the grace, ...), or 0 when it exited. */
int sbx_result_signal(const struct sbx_result *result);
/* Whether --timeout (sbx_run_set_timeout_ms) ended the run: an exit status
 * of 124 is a timeout only then. */
bool sbx_result_timed_out(const struct sbx_result *result);
/* The result object (sbx(1), RESULT OBJECT) as a malloc'd JSON string. */
char *sbx_result_to_json(const struct sbx_result *result);
/* {"error":{...}} as a malloc'd JSON string. */
char *sbx_error_to_json(const struct sbx_error *err);

/* ---- spill files ----
 * Without passthrough, a stream longer than the output limit is also written
 * whole to a spill file, named in the result's "spill" (see sbx(1),
 * --spill-dir). The files belong to the caller: remove them when done. */

/* At most this many bytes of each stream go to its spill file (default
 * 1 GiB; 0: no spill file); past that the spill stops and the result's
 * "spill_stopped" says so. */
int sbx_run_set_spill_max_bytes(struct sbx_run *run, uint64_t bytes);
/* Remove one spill file a result names and, with its last file, the run's
 * private spill directory. Only sbx's own spill files: -EINVAL for a path
 * that is not named like one, -EPERM for one that is not the caller's
 * regular file, -ENOENT when it is already gone. */
int sbx_spill_remove(const char *path);
/* Remove sbx's own spill directories (the caller's, nothing else in them)
 * that nothing touched for max_age_ms; 0 removes nothing. `sbx run --json`,
 * `sbx serve` and `sbx mcp` do this when they start, with spill_max_age. Returns how
 * many directories were removed. A run still going on another thread whose
 * output has been quiet for max_age_ms loses its spill directory too: call
 * this before runs start, or with an age longer than any run. */
int sbx_spill_cleanup(uint64_t max_age_ms);

/* Refuse to work from a setuid/setgid binary or one with file capabilities. */
int sbx_check_no_privilege(struct sbx_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
