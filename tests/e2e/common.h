/* SPDX-License-Identifier: MIT */
/* Shared fixtures for the end-to-end tests: run the real sbx binary (and test
 * helpers) as the caller or as an unprivileged user, capture what they print,
 * and build private directories owned by that user. Effects are checked from
 * outside by the tests themselves (stat, read the file, /proc). */
#ifndef SBX_E2E_COMMON_H
#define SBX_E2E_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum e2e_user {
	AS_CALLER = 0, /* whoever runs the test (root in CI) */
	AS_NOBODY,     /* uid/gid 65534, no supplementary groups, no capabilities */
};

struct e2e_out {
	int status;     /* exit code, or 128+N if signal N ended it */
	char *out;      /* NUL-terminated copy of stdout (may contain NULs before) */
	size_t out_len;
	char *err;
	size_t err_len;
};

/* Absolute path of the sbx binary under test, in a directory every user can
 * reach (a private copy is made once if the build tree is not traversable). */
const char *e2e_sbx(void);
/* Absolute path of tests/helpers/NAME (same reachability rule). */
const char *e2e_helper(const char *name);

/* Run argv[0] with argv (no PATH search when argv[0] has a '/'; "bash" etc.
 * are searched in PATH) as `who`, stdin from /dev/null, capturing both
 * streams. Extra environment entries ("K=V", NULL-terminated, may be NULL)
 * are added to the inherited environment. Aborts the test on setup errors. */
int e2e_run(enum e2e_user who, char *const argv[], char *const extra_env[], struct e2e_out *out);
/* Convenience: e2e_run(who, {sbx, "run", args..., NULL}). args ends with NULL. */
int e2e_sbx_run(enum e2e_user who, struct e2e_out *out, ...) __attribute__((sentinel));
void e2e_out_free(struct e2e_out *out);

/* A fresh directory (mode 0755) owned by `who`, under a base directory that
 * every user can traverse; removed (recursively, as root) at process exit. */
char *e2e_tmpdir(enum e2e_user who);
/* Create/read files as `who` would see them: write_file writes content
 * (creating or truncating), chowned to who. Returns 0 or -errno. */
int e2e_write_file(enum e2e_user who, const char *path, const char *content);
/* Whole file content (malloc'd, NUL-terminated) or NULL if it cannot be read. */
char *e2e_read_file(const char *path);
bool e2e_exists(const char *path);

uid_t e2e_uid(enum e2e_user who);
gid_t e2e_gid(enum e2e_user who);
const char *e2e_user_name(enum e2e_user who);
/* The inner loop (scripts/check-fast.sh sets SBX_E2E_QUICK=1): a test that
 * repeats a race or a load many times repeats it fewer times, in fewer
 * configurations; its assertions are the same. make check runs it whole. */
bool e2e_quick(void);
/* The configurations a parameterized test runs in: all n entries of arr
 * (each `size` bytes), or in the inner loop (e2e_quick) only as many as
 * cover each runner and each user once (both runners x both users: the
 * diagonal, two of four), moved to arr's front. runner_of and who_of read
 * an entry's runner and user as small integers (0..31). */
size_t e2e_matrix(void *arr, size_t n, size_t size, int (*runner_of)(const void *),
		  int (*who_of)(const void *));

/* ---- additions (used by test_contain.c / test_failclosed.c) ---- */
/* e2e_run with the child's working directory set to dir ("/" if NULL). */
int e2e_run_in(enum e2e_user who, const char *dir, char *const argv[], char *const extra_env[],
	       struct e2e_out *out);
/* Start argv as who in dir (stdio on /dev/null) without waiting; returns the pid. */
pid_t e2e_spawn(enum e2e_user who, const char *dir, char *const argv[]);
/* mkdir 0755 owned by who. Returns 0 or -errno. */
int e2e_mkdir(enum e2e_user who, const char *path);
/* Recursive removal (no symlink following, stays on one file system). */
void e2e_rm_rf(const char *path);

/* The capability mask (as in /proc/PID/status) a confined command of `who`
 * keeps: a root caller's CAP_CHOWN, CAP_DAC_OVERRIDE and CAP_FOWNER as far
 * as this test process holds them (CONTRACT section 1), else nothing. */
unsigned long long e2e_caps_kept(enum e2e_user who);

/* fn(arg) in a child of the test, as who (dumpable again, as a process
 * started as nobody is: the namespace runner writes its maps in its /proc);
 * the child's exit status (5: it could not become who). For tests that run
 * the library itself as another user. */
int e2e_in_child_as(enum e2e_user who, int (*fn)(const void *), const void *arg);

/* printf into a fresh string (the test fails if that cannot be done). */
char *e2e_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

/* ---- what the kernel under test offers (real older kernels, emulations) ---- */
/* Whether runner ("namespace", "landlock") must work here: listed in
 * $SBX_E2E_RUNNERS (comma-separated, "none" for neither), which
 * scripts/vm-check.sh and scripts/kernel-matrix.sh set for the kernels they
 * test; unset: both (this machine's kernel has both). */
bool e2e_runner_expected(const char *runner);
/* A test about runner calls this first: where the runner is not expected,
 * it checks that sbx refuses it (exit 125, SANDBOX_UNAVAILABLE, the command
 * did not run) as who, and skips the rest of the test, saying why. */
void e2e_require_runner(enum e2e_user who, const char *runner);
/* The kernel's Landlock ABI, asked of the kernel (0: none). */
int e2e_landlock_abi(void);

#endif
