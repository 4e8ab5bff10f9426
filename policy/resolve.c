/* SPDX-License-Identifier: MIT */
/* Per-call resolution: deployment config + session + approved escalation ->
 * one policy value. Escalation replaces the mode and nothing else: a session
 * can never widen its root by asking for more permission. */
#include <errno.h>
#include <string.h>

#include "policy.h"

static bool mode_valid(enum sbx_mode mode)
{
	return mode == SBX_MODE_READ_ONLY || mode == SBX_MODE_WORKSPACE_WRITE ||
	       mode == SBX_MODE_DANGER_FULL_ACCESS;
}

static int resolve_mode(const struct sbx_config *cfg, const struct sbx_session *session,
			enum sbx_mode *out, struct sbx_error *err)
{
	enum sbx_mode mode = SBX_MODE_READ_ONLY;

	if (session && session->has_mode)
		mode = session->mode;
	else if (cfg && cfg->has_mode)
		mode = cfg->mode;
	if (!mode_valid(mode))
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL, "invalid mode %d", (int)mode);
	*out = mode;
	return 0;
}

static int resolve_root(const struct sbx_config *cfg, const struct sbx_session *session,
			char out[PATH_MAX], struct sbx_error *err)
{
	const char *root = NULL;

	if (session && session->root)
		root = session->root;
	else if (cfg && cfg->has_workspace_root)
		root = cfg->workspace_root;
	if (!root)
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL,
				     "no workspace root: give the session a root or set "
				     "workspace_root in the config");
	/* Relative roots would be resolved against whatever the server's cwd is:
	 * never what the session meant. Only the launcher touches the file system,
	 * so existence and symlinks are checked there, once. */
	if (root[0] != '/')
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, root,
				     "workspace root must be an absolute path: '%.200s'", root);
	size_t len = strlen(root);
	if (len >= PATH_MAX)
		return sbx_error_set(err, ENAMETOOLONG, SBX_E_USAGE, NULL,
				     "workspace root is too long (%zu bytes, max %d)", len,
				     PATH_MAX - 1);
	memcpy(out, root, len + 1);
	return 0;
}

/* An approved escalation names the mode the call may use instead. read-only
 * is not an escalation, and an unknown name must not fall back to anything. */
static int resolve_escalation(const char *escalation, enum sbx_mode *mode, struct sbx_error *err)
{
	if (!escalation)
		return 0;
	if (strcmp(escalation, "workspace-write") == 0)
		*mode = SBX_MODE_WORKSPACE_WRITE;
	else if (strcmp(escalation, "danger-full-access") == 0)
		*mode = SBX_MODE_DANGER_FULL_ACCESS;
	else
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, escalation,
				     "bad sandbox_permissions '%.100s' (expected workspace-write "
				     "or danger-full-access)",
				     escalation);
	return 0;
}

static void resolve_limits(const struct sbx_config *cfg, struct sbx_policy *out)
{
	out->runner = SBX_RUNNER_AUTO;
	out->escalation = false;
	out->output_limit = POLICY_DEFAULT_OUTPUT_LIMIT;
	out->timeout_ms = 0;
	out->net = SBX_NET_ALLOW;
	out->max_background = POLICY_DEFAULT_MAX_BACKGROUND;
	out->n_scrub = 0;
	out->spill_max_bytes = POLICY_DEFAULT_SPILL_MAX_BYTES;
	out->spill_max_age_ms = POLICY_DEFAULT_SPILL_MAX_AGE_MS;
	out->max_processes = 0;
	out->memory_limit = 0;
	out->file_size_limit = 0;
	out->tmp_size = 0;
	out->n_unix_sockets = 0;
	if (!cfg)
		return;
	if (cfg->has_spill_max_bytes)
		out->spill_max_bytes = cfg->spill_max_bytes;
	if (cfg->has_spill_max_age)
		out->spill_max_age_ms = cfg->spill_max_age_ms;
	if (cfg->has_runner)
		out->runner = cfg->runner;
	if (cfg->has_escalation)
		out->escalation = cfg->escalation;
	if (cfg->has_output_limit)
		out->output_limit = cfg->output_limit;
	if (cfg->has_timeout)
		out->timeout_ms = cfg->timeout_ms;
	if (cfg->has_net)
		out->net = cfg->net;
	if (cfg->has_max_background)
		out->max_background = cfg->max_background;
	if (cfg->has_max_processes)
		out->max_processes = cfg->max_processes;
	if (cfg->has_memory_limit)
		out->memory_limit = cfg->memory_limit;
	if (cfg->has_file_size_limit)
		out->file_size_limit = cfg->file_size_limit;
	if (cfg->has_tmp_size)
		out->tmp_size = cfg->tmp_size;
	size_t n = cfg->n_scrub <= POLICY_MAX_SCRUB ? cfg->n_scrub : POLICY_MAX_SCRUB;
	memcpy(out->scrub_env, cfg->scrub_env, n * sizeof(out->scrub_env[0]));
	out->n_scrub = n;
	out->has_protected_paths = cfg->has_protected_paths;
	out->protected_paths_none = cfg->protected_paths_none;
	out->n_protected = cfg->n_protected;
	out->protected_paths = (const char(*)[POLICY_PATH_ITEM_MAX])cfg->protected_paths;
	out->has_deny_read = cfg->has_deny_read;
	out->deny_read_none = cfg->deny_read_none;
	out->n_deny_read = cfg->n_deny_read;
	out->deny_read = (const char(*)[POLICY_PATH_ITEM_MAX])cfg->deny_read;
	out->cache_dir = cfg->has_cache_dir ? cfg->cache_dir : NULL;
	n = cfg->n_unix_sockets <= POLICY_MAX_UNIX_SOCKETS ? cfg->n_unix_sockets
							     : POLICY_MAX_UNIX_SOCKETS;
	memcpy(out->unix_sockets, cfg->unix_sockets, n * sizeof(out->unix_sockets[0]));
	out->n_unix_sockets = n;
}

int policy_resolve(const struct sbx_config *cfg, const struct sbx_session *session,
		   const char *escalation, struct sbx_policy *out, struct sbx_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->config_file = cfg && cfg->source[0] ? cfg->source : NULL;
	rc = resolve_mode(cfg, session, &out->mode, err);
	if (rc == 0)
		rc = resolve_root(cfg, session, out->root, err);
	if (rc == 0)
		rc = resolve_escalation(escalation, &out->mode, err);
	if (rc < 0) {
		/* Leave nothing that looks like a policy behind. */
		memset(out, 0, sizeof(*out));
		return rc;
	}
	resolve_limits(cfg, out);
	return 0;
}
