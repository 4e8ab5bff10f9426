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
#define POLICY_MAX_UNIX_SOCKETS 32         /* unix_sockets entries */
#define POLICY_SOCKET_PATTERN_MAX 256      /* bytes per entry, with the NUL */
#define POLICY_DEFAULT_OUTPUT_LIMIT 65536
#define POLICY_DEFAULT_MAX_BACKGROUND 16

/* Limits of the config syntax (policy/config.c). */
#define POLICY_MAX_OUTPUT_LIMIT ((size_t)1 << 30)          /* output_limit: 1 GiB */
#define POLICY_MAX_TIMEOUT_MS (7ULL * 24 * 3600 * 1000)    /* timeout: one week */
#define POLICY_MAX_BACKGROUND_LIMIT 1024u                  /* max_background: 1..1024 */
#define CONFIG_LINE_MAX 4096                               /* bytes per line, without EOL */
#define CONFIG_FILE_MAX (1024 * 1024)                      /* bytes per config file */

/* The deployment config (CONTRACT section 6). has_* says a key was given. */
struct sbx_config {
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
	size_t n_scrub;
	char scrub_env[POLICY_MAX_SCRUB][POLICY_PATTERN_MAX];
	size_t n_unix_sockets;
	char unix_sockets[POLICY_MAX_UNIX_SOCKETS][POLICY_SOCKET_PATTERN_MAX];
};

void config_init(struct sbx_config *cfg);
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
	size_t n_unix_sockets;      /* the supervisor's allow-list (config unix_sockets) */
	char unix_sockets[POLICY_MAX_UNIX_SOCKETS][POLICY_SOCKET_PATTERN_MAX];
};

/* Deployment config (fallback) + session + approved escalation
 * (sandbox_permissions, NULL if none). Escalation replaces the mode and nothing
 * else: the root stays attached. Errors: code USAGE (e.g. no root anywhere,
 * relative root, escalation to read-only or to an unknown mode). */
int policy_resolve(const struct sbx_config *cfg, const struct sbx_session *session,
		   const char *escalation, struct sbx_policy *out, struct sbx_error *err);

/* Shell-style name pattern, '*' matches any run of characters (also empty). */
bool pattern_match(const char *pattern, const char *name);

/* ---- supervise.c: the supervisor's pure decisions ---- */
#define SUPERVISE_MAX_WRITABLE 4
/* The writable set of a run as canonical paths in the command's view. */
struct supervise_writable {
	const char *dirs[SUPERVISE_MAX_WRITABLE];
	/* Only what lies below the directory, not the directory itself: /tmp's
	 * own mode and sticky bit belong to the host. */
	bool below_only[SUPERVISE_MAX_WRITABLE];
	size_t n;
};
/* path (canonical, absolute) is one of the directories or below one. */
bool supervise_in_writable(const struct supervise_writable *w, const char *path);
/* name ("/canonical/path" or "@abstract") matches an allow-list entry; '*'
 * matches any run of characters, '/' included. */
bool supervise_socket_listed(const char *const *patterns, size_t n, const char *name);
/* One unix_sockets entry [p, p+len): 0, or -1 with why filled. */
int unix_socket_pattern_check(const char *p, size_t len, char *why, size_t why_size);

#endif
