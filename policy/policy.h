/* SPDX-License-Identifier: MIT */
/* policy/: what may be written. Pure: no system calls but reading the config
 * file. Turns a deployment config, a session and an approved escalation into
 * one resolved policy value that a run carries everywhere (no globals). */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

#define POLICY_MAX_SCRUB 64
#define POLICY_PATTERN_MAX 128
#define POLICY_MAX_PATHS 48
#define POLICY_PATH_ITEM_MAX 512
#define POLICY_MAX_UNIX_SOCKETS 32         /* unix_sockets entries */
#define POLICY_SOCKET_PATTERN_MAX 256      /* bytes per entry, with the NUL */
#define POLICY_DEFAULT_OUTPUT_LIMIT 65536
#define POLICY_DEFAULT_MAX_BACKGROUND 16
/* Spill files (docs/output.md): at most this much of one stream is kept on
 * disk, and sbx removes its own spill directories older than this. */
#define POLICY_DEFAULT_SPILL_MAX_BYTES ((uint64_t)1 << 30)       /* 1 GiB */
#define POLICY_DEFAULT_SPILL_MAX_AGE_MS (24ULL * 3600 * 1000)      /* one day */

/* Limits of the config syntax (policy/config.c). */
#define POLICY_MAX_OUTPUT_LIMIT ((size_t)1 << 30)          /* output_limit: 1 GiB */
#define POLICY_MAX_TIMEOUT_MS (7ULL * 24 * 3600 * 1000)    /* timeout: one week */
#define POLICY_MAX_BACKGROUND_LIMIT 1024u                  /* max_background: 1..1024 */
#define POLICY_MAX_SPILL_BYTES ((uint64_t)1 << 40)         /* spill_max_bytes: 0..1 TiB */
#define POLICY_MIN_SPILL_AGE_MS (60ULL * 1000)             /* spill_max_age: a minute .. */
#define POLICY_MAX_SPILL_AGE_MS (365ULL * 24 * 3600 * 1000) /* .. a year, or never */
#define CONFIG_LINE_MAX 4096                               /* bytes per line, without EOL */
#define CONFIG_FILE_MAX (1024 * 1024)                      /* bytes per config file */

/* Per-run resource limits (docs/limits.md). In a policy, 0 means "sbx's
 * default" (worked out by the launcher from the machine) and
 * POLICY_LIMIT_OFF means "none of ours: the caller's own limit stays". */
#define POLICY_LIMIT_OFF SBX_LIMIT_OFF
#define POLICY_MAX_PROCESSES_LIMIT 4194304ULL              /* PID_MAX_LIMIT on 64-bit */
#define POLICY_MIN_MEMORY_LIMIT (16ULL << 20)              /* bash itself needs a few MiB */
#define POLICY_MIN_TMP_SIZE (1ULL << 20)
#define POLICY_MAX_LIMIT_BYTES (1ULL << 60)

/* The deployment config (sbx.conf(5)). has_<key> says a key was given; the
 * keys themselves are a table (config_keys.h says how to add one). */
struct sbx_config {
	char source[PATH_MAX];        /* the file it was read from, resolved; "": none */
	bool has_mode;
	enum sbx_mode mode;
	bool has_workspace_root;
	char workspace_root[PATH_MAX];
	bool has_runner;
	enum sbx_runner runner;
	bool has_escalation;
	bool escalation;
	bool has_output_limit;
	size_t output_limit;
	bool has_timeout;
	uint64_t timeout_ms;          /* `timeout` is in seconds, decimals allowed */
	bool has_net;
	enum sbx_net net;
	bool has_max_background;
	unsigned max_background;
	bool has_scrub_env;
	size_t n_scrub;
	char scrub_env[POLICY_MAX_SCRUB][POLICY_PATTERN_MAX];
	/* Path lists: entries are added to sbx's default list, unless a line
	 * `none` came before them (then they are the whole list). */
	bool has_protected_paths;
	bool protected_paths_none;
	size_t n_protected;
	char protected_paths[POLICY_MAX_PATHS][POLICY_PATH_ITEM_MAX];
	bool has_deny_read;
	bool deny_read_none;
	size_t n_deny_read;
	char deny_read[POLICY_MAX_PATHS][POLICY_PATH_ITEM_MAX];
	bool has_cache_dir;
	char cache_dir[PATH_MAX];     /* a base directory, or "off" */
	bool has_spill_max_bytes;
	uint64_t spill_max_bytes;     /* 0: never spill */
	bool has_spill_max_age;
	uint64_t spill_max_age_ms;    /* 0: never remove old spills */
	bool has_max_processes;
	uint64_t max_processes;
	bool has_memory_limit;
	uint64_t memory_limit;        /* bytes, or POLICY_LIMIT_OFF */
	bool has_file_size_limit;
	uint64_t file_size_limit;     /* bytes, or POLICY_LIMIT_OFF */
	bool has_tmp_size;
	uint64_t tmp_size;            /* bytes */
	bool has_unix_sockets;
	size_t n_unix_sockets;
	char unix_sockets[POLICY_MAX_UNIX_SOCKETS][POLICY_SOCKET_PATTERN_MAX];
};

void config_init(struct sbx_config *cfg);

/* policy/path_lists.c: the syntax of a path list value (protected_paths:
 * relative to the root; deny_read: absolute or ~/). why gets the problem. */

enum policy_path_kind { POLICY_PATHS_IN_ROOT, POLICY_PATHS_ABSOLUTE };
/* One item of protected_paths (relative to the root) or deny_read
 * (absolute or ~/), as the config's list keys check it. */
bool policy_protected_item_ok(const char *item, size_t len);
bool policy_deny_read_item_ok(const char *item, size_t len);
bool policy_path_list_ok(enum policy_path_kind kind, const char *val, char *why,
			 size_t why_size);
/* Parse `key = value` lines. name is the file name used in error messages
 * ("FILE:LINE: ..."). Unknown keys, bad values, duplicates: error, code CONFIG. */
int config_parse_buffer(const char *name, const char *buf, size_t len, struct sbx_config *cfg,
			struct sbx_error *err);
int config_parse_file(const char *path, struct sbx_config *cfg, struct sbx_error *err);
/* Both parsers start from config_init(): one file is one whole config. On
 * error cfg is reset to config_init() so no half-read value survives, and the
 * caller must not run anything. */

/* One call's view: the session's root and mode override. */
struct sbx_session {
	const char *root;          /* NULL: config workspace_root, else error */
	bool has_mode;
	enum sbx_mode mode;
};

/* The resolved policy of one call. */
struct sbx_policy {
	enum sbx_mode mode;
	char root[PATH_MAX];        /* absolute, as given; the launcher resolves it once */
	enum sbx_runner runner;
	bool escalation;
	size_t output_limit;
	uint64_t timeout_ms;        /* 0: none */
	enum sbx_net net;
	unsigned max_background;
	size_t n_scrub;
	char scrub_env[POLICY_MAX_SCRUB][POLICY_PATTERN_MAX];
	/* Point into the config the policy came from (it outlives the policy). */
	bool has_protected_paths;
	bool protected_paths_none;  /* replace the default list, not add to it */
	size_t n_protected;
	const char (*protected_paths)[POLICY_PATH_ITEM_MAX];
	bool has_deny_read;
	bool deny_read_none;
	size_t n_deny_read;
	const char (*deny_read)[POLICY_PATH_ITEM_MAX];
	const char *cache_dir;      /* NULL: default */
	const char *config_file;    /* the config's own file; NULL: none */
	uint64_t spill_max_bytes;   /* per stream; 0: no spill file */
	uint64_t spill_max_age_ms;  /* removal of old spills at start; 0: never */
	/* Resource limits: 0 = sbx's default, POLICY_LIMIT_OFF = none. */
	uint64_t max_processes;
	uint64_t memory_limit;
	uint64_t file_size_limit;
	uint64_t tmp_size;
	size_t n_unix_sockets;      /* the supervisor's allow-list (config unix_sockets) */
	char unix_sockets[POLICY_MAX_UNIX_SOCKETS][POLICY_SOCKET_PATTERN_MAX];
};

/* Deployment config (fallback) + session + approved escalation
 * (sandbox_permissions, NULL if none). Escalation replaces the mode and nothing
 * else: the root stays attached. Errors: code USAGE (e.g. no root anywhere,
 * relative root, escalation to read-only or to an unknown mode). */
int policy_resolve(const struct sbx_config *cfg, const struct sbx_session *session,
		   const char *escalation, struct sbx_policy *out, struct sbx_error *err);

/* "1048576", "64M", "2g": decimal digits and at most one binary suffix
 * (k, m, g, t). 0, -EINVAL (not a size) or -ERANGE (above max). */
int policy_parse_bytes(const char *s, uint64_t max, uint64_t *out);
/* Seconds as the config writes them ("30", "1.5", ".5") in milliseconds:
 * 0 or -EINVAL. */
int policy_parse_seconds(const char *s, uint64_t *ms);

/* Shell-style name pattern, '*' matches any run of characters (also empty). */
bool pattern_match(const char *pattern, const char *name);

/* gitconfig.c: the config of a repository a confined run made or changed,
 * cut down to the allow-listed keys (docs/workspace.md), written afresh in
 * one canonical form; URLs must be network ones or local paths inside root
 * (absolute). *dropped: whether anything was left out (else the input
 * holds only what is kept, and may stay as it is). malloc'd, or NULL when
 * memory ran out. */
struct gitconfig_where {
	const char *root;       /* absolute, resolved */
	/* An absolute local path outside the root: may it stay? (NULL: no) */
	bool (*outside_ok)(const char *path, void *ctx);
	void *ctx;
	/* An absolute local path inside the root by its text: may it stay?
	 * (NULL: yes) It may lead out (a symlink, a gitfile on the way). */
	bool (*inside_ok)(const char *path, void *ctx);
};
char *gitconfig_filter(const char *in, size_t len, const struct gitconfig_where *w,
		       size_t *out_len, bool *dropped);
bool gitconfig_url_ok(const char *url, const struct gitconfig_where *w);
/* Each include.path and includeIf.*.path value of a git config, as
 * written (~/ and relative paths not resolved). */
void gitconfig_includes(const char *in, size_t len, void (*fn)(void *ctx, const char *path),
			void *ctx);

/* ---- supervise.c: the supervisor's pure decisions ---- */
#define SUPERVISE_MAX_WRITABLE 6
#define SUPERVISE_MAX_EXCEPT 2
/* The writable set of a run as canonical paths in the command's view. */
struct supervise_writable {
	const char *dirs[SUPERVISE_MAX_WRITABLE];
	/* Only what lies below the directory, not the directory itself: /tmp's
	 * own mode and sticky bit belong to the host. */
	bool below_only[SUPERVISE_MAX_WRITABLE];
	size_t n;
	/* Directories below one of those that are not writable (a home the
	 * namespace runner brings into its /tmp, read-only), except in a
	 * deeper writable directory (a root inside that home). */
	const char *except[SUPERVISE_MAX_EXCEPT];
	size_t n_except;
};
/* path (canonical, absolute) is one of the directories or below one, and
 * not in an exception that lies deeper than that directory. */
bool supervise_in_writable(const struct supervise_writable *w, const char *path);
/* The command's own language's texts of the errors a refusal leads to
 * (EROFS, EACCES, ENOENT, ENOTDIR as its C library prints them), matched
 * as they stand beside the English phrases; NULL or "" entries are none. */
#define SUPERVISE_LOCAL_MAX 4
struct supervise_local {
	const char *text[SUPERVISE_LOCAL_MAX];
};
/* A line of text (len bytes, not NUL-terminated) names path, or a path
 * below it, together with an error ("No such file or directory",
 * "Permission denied", EROFS, ..., one of local's texts, or words of
 * failure: "error", "unable to", "cannot", "failed"; not on a warning), or
 * right below a line ending in ':' that holds one: "open /r/.config/go/env: no such file or
 * directory" names /r/.config/go. path is absolute, or relative with a '/'
 * in it (src/x.log); never "/". */
bool supervise_error_names(const char *text, size_t len, const char *path,
			   const struct supervise_local *local);
/* The same for a bare name (no '/': "mkdir newdir"), which must stand as
 * a message puts a file name: from the line's start, a space, '(' or an
 * opening quote, to a '/', a colon or a closing quote ('newdir',
 * ‘newdir’, "cd: newdir: No such file", "open newdir/x: ENOENT"). */
bool supervise_error_names_bare(const char *text, size_t len, const char *name,
				const struct supervise_local *local);
/* A line of text holds one of the error phrases supervise_error_names asks
 * for: text without one names no refusal, whatever names are on it. */
bool supervise_error_phrase(const char *text, size_t len, const struct supervise_local *local);
/* command (a bash command line) names path as a word of its own, or in
 * quotes: "sqlite3 x.db 'insert ...'", "connect('/p/x.db')". path has at
 * least two bytes. */
bool supervise_command_names(const char *command, const char *path);
/* A line of text that is not a warning says something is read-only or
 * could not be opened ("readonly", "read-only", "read only", "unable to
 * open", "cannot open", ..., any case): sqlite's "attempt to write a
 * readonly database" and "unable to open database file", a tool's own
 * words for a write it was refused and reports with no system error text
 * and no file name. */
bool supervise_says_read_only(const char *text, size_t len);
/* Text holds Rust's Debug form of an OS error with this errno, which names
 * no path: "Os { code: 30, kind: ReadOnlyFilesystem, ... }" (what
 * `create_dir_all(..).unwrap()` panics with). */
bool supervise_error_is_rust_os(const char *text, size_t len, int code);
/* path (canonical, absolute) is one of paths or lies below one. */
bool supervise_in_paths(const char *const *paths, size_t n, const char *path);
/* name ("/canonical/path" or "@abstract") matches an allow-list entry; '*'
 * matches any run of characters, '/' included. */
bool supervise_socket_listed(const char *const *patterns, size_t n, const char *name);
/* One unix_sockets entry [p, p+len): 0, or -1 with why filled. */
int unix_socket_pattern_check(const char *p, size_t len, char *why, size_t why_size);

#endif
