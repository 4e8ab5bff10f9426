/* SPDX-License-Identifier: MIT */
/* The builder: setters record intent, sbx_run_execute acts on it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "policy.h"
#include "syscall_table.h"

struct sbx_run *sbx_run_new(void)
{
	struct sbx_run *run = calloc(1, sizeof(*run));

	if (!run)
		return NULL;
	run->mode = SBX_MODE_READ_ONLY;
	run->runner = SBX_RUNNER_AUTO;
	run->output_limit = POLICY_DEFAULT_OUTPUT_LIMIT;
	run->spill_max_bytes = POLICY_DEFAULT_SPILL_MAX_BYTES;
	run->net = SBX_NET_ALLOW;
	run->pass_out = -1;
	run->pass_err = -1;
	run->cancel_fd = -1;
	run->root_fd = -1;
	return run;
}

void sbx_run_free(struct sbx_run *run)
{
	if (!run)
		return;
	free(run->command);
	free(run->root);
	free(run->cwd);
	free(run->spill_dir);
	free(run->config_file);
	free(run->protected_paths);
	free(run->deny_read);
	free(run->protected_paths_add);
	free(run->deny_read_add);
	free(run->cache_dir);
	for (size_t i = 0; i < run->n_patterns; i++)
		free(run->patterns[i]);
	for (size_t i = 0; i < run->n_unix_sockets; i++)
		free(run->unix_sockets[i]);
	free(run);
}

static int set_string(char **dst, const char *value)
{
	char *copy;

	if (!value)
		return -EINVAL;
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(*dst);
	*dst = copy;
	return 0;
}

/* A path setter: "" names no place (and a harness's empty variable must
 * not become the current directory). */
static int set_path(char **dst, const char *value)
{
	return value && !*value ? -EINVAL : set_string(dst, value);
}

int sbx_run_set_command(struct sbx_run *run, const char *command)
{
	return set_string(&run->command, command);
}

int sbx_run_set_root(struct sbx_run *run, const char *root)
{
	return set_path(&run->root, root);
}

int sbx_run_set_cwd(struct sbx_run *run, const char *cwd)
{
	return set_path(&run->cwd, cwd);
}

const char *run_cwd_name(const struct sbx_run *run)
{
	return !run->cwd ? "root" : run->cwd_name ? run->cwd_name : "cwd";
}

int sbx_run_set_spill_dir(struct sbx_run *run, const char *dir)
{
	return set_path(&run->spill_dir, dir);
}

int sbx_run_set_spill_max_bytes(struct sbx_run *run, uint64_t bytes)
{
	run->spill_max_bytes = bytes;
	return 0;
}

int sbx_run_set_mode(struct sbx_run *run, enum sbx_mode mode)
{
	if (mode > SBX_MODE_DANGER_FULL_ACCESS)
		return -EINVAL;
	run->mode = mode;
	return 0;
}

int sbx_run_set_runner(struct sbx_run *run, enum sbx_runner runner)
{
	if (runner > SBX_RUNNER_LANDLOCK)
		return -EINVAL;
	run->runner = runner;
	return 0;
}

int sbx_run_set_timeout_ms(struct sbx_run *run, uint64_t timeout_ms)
{
	/* A week at most, as --timeout, timeout and serve's timeout_ms: past
	 * that the deadline (start + timeout) could wrap and end the run at
	 * once. */
	if (timeout_ms > 604800000ULL)
		return -EINVAL;
	run->timeout_ms = timeout_ms;
	return 0;
}

int sbx_run_set_output_limit(struct sbx_run *run, size_t bytes)
{
	/* Two bytes at least: one of head and one of tail; at most what
	 * --output-limit and sbx.conf take (1 GiB). */
	if (bytes < 2 || bytes > POLICY_MAX_OUTPUT_LIMIT)
		return -EINVAL;
	run->output_limit = bytes;
	return 0;
}

int sbx_run_set_net(struct sbx_run *run, enum sbx_net net)
{
	if (net > SBX_NET_NONE)
		return -EINVAL;
	run->net = net;
	return 0;
}

int sbx_run_set_escalation(struct sbx_run *run, bool available)
{
	run->escalation = available;
	return 0;
}

int sbx_run_set_landlock_abi(struct sbx_run *run, int max_abi)
{
	if (max_abi < 0)
		return -EINVAL;
	run->landlock_abi = max_abi;
	return 0;
}

int sbx_run_set_syscalls_as_of(struct sbx_run *run, const char *release)
{
	unsigned r;

	if (!release) {
		run->syscalls_as_of = 0;
		return 0;
	}
	if (syscall_arch_native() < 0)
		return -ENOSYS;
	if (kernel_release_parse(release, &r) < 0 || r < syscall_table_oldest() ||
	    r > syscall_table_newest())
		return -EINVAL;
	run->syscalls_as_of = r;
	return 0;
}

/* The bounds are the config's (policy.h), so every front end means the same. */
int sbx_run_set_max_processes(struct sbx_run *run, uint64_t n)
{
	if (n > POLICY_MAX_PROCESSES_LIMIT)
		return -EINVAL;
	run->max_processes = n;
	return 0;
}

int sbx_run_set_memory_limit(struct sbx_run *run, uint64_t bytes)
{
	if (bytes != SBX_LIMIT_DEFAULT && bytes != SBX_LIMIT_OFF &&
	    (bytes < POLICY_MIN_MEMORY_LIMIT || bytes > POLICY_MAX_LIMIT_BYTES))
		return -EINVAL;
	run->memory_limit = bytes;
	return 0;
}

int sbx_run_set_file_size_limit(struct sbx_run *run, uint64_t bytes)
{
	if (bytes != SBX_LIMIT_OFF && bytes > POLICY_MAX_LIMIT_BYTES)
		return -EINVAL;
	run->file_size_limit = bytes;
	return 0;
}

int sbx_run_set_tmp_size(struct sbx_run *run, uint64_t bytes)
{
	if (bytes != SBX_LIMIT_DEFAULT && (bytes < POLICY_MIN_TMP_SIZE || bytes > POLICY_MAX_LIMIT_BYTES))
		return -EINVAL;
	run->tmp_size = bytes;
	return 0;
}

int sbx_run_add_scrub_pattern(struct sbx_run *run, const char *pattern)
{
	if (!pattern || !*pattern)
		return -EINVAL;
	if (run->n_patterns >= SBX_MAX_PATTERNS)
		return -E2BIG;
	run->patterns[run->n_patterns] = strdup(pattern);
	if (!run->patterns[run->n_patterns])
		return -ENOMEM;
	run->n_patterns++;
	return 0;
}

int sbx_run_set_protected_paths(struct sbx_run *run, const char *list)
{
	char why[160];

	if (list && !policy_path_list_ok(POLICY_PATHS_IN_ROOT, list, why, sizeof(why)))
		return -EINVAL;
	if (!list) {
		free(run->protected_paths);
		run->protected_paths = NULL;
		return 0;
	}
	return set_string(&run->protected_paths, list);
}

int sbx_run_set_deny_read(struct sbx_run *run, const char *list)
{
	char why[160];

	if (list && !policy_path_list_ok(POLICY_PATHS_ABSOLUTE, list, why, sizeof(why)))
		return -EINVAL;
	if (!list) {
		free(run->deny_read);
		run->deny_read = NULL;
		return 0;
	}
	return set_string(&run->deny_read, list);
}

/* list appended to *to, comma-joined. */
static int append_list(char **to, const char *list)
{
	char *joined;

	if (!*to)
		return set_string(to, list);
	if (asprintf(&joined, "%s,%s", *to, list) < 0)
		return -ENOMEM;
	free(*to);
	*to = joined;
	return 0;
}

int sbx_run_add_protected_paths(struct sbx_run *run, const char *list)
{
	char why[160];

	if (!list || strcmp(list, "none") == 0 ||
	    !policy_path_list_ok(POLICY_PATHS_IN_ROOT, list, why, sizeof(why)))
		return -EINVAL;
	return append_list(&run->protected_paths_add, list);
}

int sbx_run_add_deny_read(struct sbx_run *run, const char *list)
{
	char why[160];

	if (!list || strcmp(list, "none") == 0 ||
	    !policy_path_list_ok(POLICY_PATHS_ABSOLUTE, list, why, sizeof(why)))
		return -EINVAL;
	return append_list(&run->deny_read_add, list);
}

int sbx_run_set_cache_dir(struct sbx_run *run, const char *dir)
{
	if (dir && strcmp(dir, "off") != 0 && dir[0] != '/')
		return -EINVAL;
	if (!dir) {
		free(run->cache_dir);
		run->cache_dir = NULL;
		return 0;
	}
	return set_string(&run->cache_dir, dir);
}

int sbx_run_add_unix_socket_pattern(struct sbx_run *run, const char *pattern)
{
	char why[200];

	if (!pattern || unix_socket_pattern_check(pattern, strlen(pattern), why, sizeof(why)) < 0)
		return -EINVAL;
	if (run->n_unix_sockets >= SBX_MAX_UNIX_SOCKETS)
		return -E2BIG;
	run->unix_sockets[run->n_unix_sockets] = strdup(pattern);
	if (!run->unix_sockets[run->n_unix_sockets])
		return -ENOMEM;
	run->n_unix_sockets++;
	return 0;
}

int sbx_run_set_passthrough(struct sbx_run *run, int out_fd, int err_fd)
{
	run->pass_out = out_fd;
	run->pass_err = err_fd;
	return 0;
}

/* A config list onto a builder: added to the default list, or, after a
 * `none` line, the whole list ("none" if nothing came after it). Why add:
 * a user who names their own token file must not lose ~/.ssh by it. */
static int apply_path_list(struct sbx_run *run, int (*set)(struct sbx_run *, const char *),
			   int (*add)(struct sbx_run *, const char *), bool has, bool none,
			   const char (*items)[POLICY_PATH_ITEM_MAX], size_t n)
{
	char *joined;
	size_t len = 1, pos = 0;
	int rc;

	if (!has)
		return 0;
	if (n == 0)
		return none ? set(run, "none") : 0;
	for (size_t i = 0; i < n; i++)
		len += strlen(items[i]) + 1;
	joined = malloc(len);
	if (!joined)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(items[i]);

		if (i)
			joined[pos++] = ',';
		memcpy(joined + pos, items[i], l);
		pos += l;
	}
	joined[pos] = '\0';
	rc = none ? set(run, joined) : add(run, joined);
	free(joined);
	return rc;
}

/* One resolved policy onto a builder: the single path from policy/ to a run,
 * used by `sbx run` and by every `serve` request alike. */
int run_apply_policy(struct sbx_run *run, const struct sbx_policy *pol, struct sbx_error *err)
{
	/* Each value was validated where it was read (config, flag, request);
	 * a refusal here names the setting so that a gap is easy to find. */
	const char *what = NULL;

	if (sbx_run_set_mode(run, pol->mode) < 0)
		what = "mode";
	else if (sbx_run_set_root(run, pol->root) < 0)
		what = "root";
	else if (sbx_run_set_runner(run, pol->runner) < 0)
		what = "runner";
	else if (sbx_run_set_timeout_ms(run, pol->timeout_ms) < 0)
		what = "timeout";
	else if (sbx_run_set_output_limit(run, pol->output_limit) < 0)
		what = "output_limit (2 bytes to 1 GiB)";
	else if (sbx_run_set_net(run, pol->net) < 0)
		what = "net";
	else if (sbx_run_set_escalation(run, pol->escalation) < 0)
		what = "escalation";
	else if (sbx_run_set_spill_max_bytes(run, pol->spill_max_bytes) < 0)
		what = "spill_max_bytes";
	else if (sbx_run_set_max_processes(run, pol->max_processes) < 0)
		what = "max_processes";
	else if (sbx_run_set_memory_limit(run, pol->memory_limit) < 0)
		what = "memory_limit";
	else if (sbx_run_set_file_size_limit(run, pol->file_size_limit) < 0)
		what = "file_size_limit";
	else if (sbx_run_set_tmp_size(run, pol->tmp_size) < 0)
		what = "tmp_size";
	else if (apply_path_list(run, sbx_run_set_protected_paths, sbx_run_add_protected_paths,
				 pol->has_protected_paths, pol->protected_paths_none,
				 pol->protected_paths, pol->n_protected) < 0)
		what = "protected_paths";
	else if (apply_path_list(run, sbx_run_set_deny_read, sbx_run_add_deny_read,
				 pol->has_deny_read, pol->deny_read_none, pol->deny_read,
				 pol->n_deny_read) < 0)
		what = "deny_read";
	else if (pol->cache_dir && sbx_run_set_cache_dir(run, pol->cache_dir) < 0)
		what = "cache_dir";
	else if (pol->config_file && !(run->config_file = strdup(pol->config_file)))
		what = "config";
	if (what)
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL, "invalid run setting: %s", what);
	run->concurrent_runs = pol->max_background;
	for (size_t i = 0; i < pol->n_scrub; i++)
		if (sbx_run_add_scrub_pattern(run, pol->scrub_env[i]) < 0)
			return sbx_error_set(err, EINVAL, SBX_E_CONFIG, NULL,
					     "bad scrub_env pattern '%s'", pol->scrub_env[i]);
	for (size_t i = 0; i < pol->n_unix_sockets; i++)
		if (sbx_run_add_unix_socket_pattern(run, pol->unix_sockets[i]) < 0)
			return sbx_error_set(err, EINVAL, SBX_E_CONFIG, NULL,
					     "bad unix_sockets entry '%s'", pol->unix_sockets[i]);
	return 0;
}

int sbx_run_set_cancel_fd(struct sbx_run *run, int fd)
{
	run->cancel_fd = fd;
	return 0;
}

int run_set_pinned_root(struct sbx_run *run, const char *resolved, int fd)
{
	if (fd < 0)
		return -EBADF;
	run->root_fd = fd;
	return set_string(&run->root, resolved);
}
