/* SPDX-License-Identifier: MIT */
/* Parsing `sbx run` options into a resolved call: flags over the deployment
 * config over the defaults (CONTRACT sections 2 and 6). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_options.h"

#define bad(err, ...) sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL, __VA_ARGS__)

static int parse_seconds(const char *s, uint64_t *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 31536000.0)
		return -EINVAL;
	*ms = (uint64_t)(v * 1000.0 + 0.5);
	if (*ms == 0)
		*ms = 1;
	return 0;
}

static int parse_size(const char *s, size_t max, size_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

/* Load the deployment config: --config, else $SBX_CONFIG, else /etc/sbx.conf
 * if it exists. A bad config stops everything: nothing runs. */
int cli_load_config(const char *flag_path, struct sbx_config *cfg, struct sbx_error *err)
{
	const char *path = flag_path;

	config_init(cfg);
	if (!path)
		path = getenv("SBX_CONFIG");
	if (path && !*path)
		path = NULL;
	if (!path && access("/etc/sbx.conf", F_OK) == 0)
		path = "/etc/sbx.conf";
	if (!path)
		return 0;
	return config_parse_file(path, cfg, err);
}

static const char *const value_flags[] = {
	"--mode", "--root", "--cwd", "--runner", "--timeout", "--output-limit", "--spill-dir",
	"--net", "--config", "--landlock-abi", "--max-processes", "--memory", "--file-size",
	"--syscalls-as-of", NULL,
};

static bool takes_value(const char *name)
{
	for (size_t i = 0; value_flags[i]; i++)
		if (strcmp(value_flags[i], name) == 0)
			return true;
	return false;
}

/* --memory and --file-size: bytes ("64M" style) of at least min, or "off". */
static int parse_limit(const char *val, uint64_t min, uint64_t *out)
{
	if (strcmp(val, "off") == 0) {
		*out = POLICY_LIMIT_OFF;
		return 0;
	}
	if (policy_parse_bytes(val, POLICY_MAX_LIMIT_BYTES, out) < 0 || *out < min)
		return -EINVAL;
	return 0;
}

static int apply_limit(struct cli_options *o, const char *name, const char *val,
		       struct sbx_error *err)
{
	if (strcmp(name, "--max-processes") == 0) {
		size_t n;

		if (parse_size(val, POLICY_MAX_PROCESSES_LIMIT, &n) < 0)
			return bad(err, "bad --max-processes '%s': expected 1 to %llu", val,
				   POLICY_MAX_PROCESSES_LIMIT);
		o->max_processes = n;
		o->has_max_processes = true;
	} else if (strcmp(name, "--memory") == 0) {
		if (parse_limit(val, POLICY_MIN_MEMORY_LIMIT, &o->memory) < 0)
			return bad(err, "bad --memory '%s': expected bytes (e.g. 512M, 2G), at least "
				   "16M, or off", val);
		o->has_memory = true;
	} else if (strcmp(name, "--file-size") == 0) {
		if (parse_limit(val, 1, &o->file_size) < 0)
			return bad(err, "bad --file-size '%s': expected bytes (e.g. 100M), or off", val);
		o->has_file_size = true;
	}
	return 0;
}

static int apply(struct cli_options *o, const char *name, const char *val, struct sbx_error *err)
{
	if (strcmp(name, "--mode") == 0) {
		if (sbx_mode_parse(val, &o->mode) < 0)
			return bad(err, "unknown mode '%s' (read-only, workspace-write, danger-full-access)", val);
		o->has_mode = true;
	} else if (strcmp(name, "--root") == 0) {
		o->root = val;
	} else if (strcmp(name, "--cwd") == 0) {
		o->cwd = val;
	} else if (strcmp(name, "--runner") == 0) {
		if (sbx_runner_parse(val, &o->runner) < 0)
			return bad(err, "unknown runner '%s' (auto, namespace, landlock)", val);
		o->has_runner = true;
	} else if (strcmp(name, "--timeout") == 0) {
		if (parse_seconds(val, &o->timeout_ms) < 0)
			return bad(err, "bad --timeout '%s': expected seconds > 0", val);
		o->has_timeout = true;
	} else if (strcmp(name, "--output-limit") == 0) {
		if (parse_size(val, POLICY_MAX_OUTPUT_LIMIT, &o->output_limit) < 0 || o->output_limit < 2)
			return bad(err, "bad --output-limit '%s': expected bytes, 2 to 1 GiB", val);
		o->has_output_limit = true;
	} else if (strcmp(name, "--spill-dir") == 0) {
		if (val[0] != '/' || access(val, W_OK | X_OK) < 0)
			return bad(err, "bad --spill-dir '%s': %s", val,
				   val[0] != '/' ? "not an absolute path" : strerror(errno));
		o->spill_dir = val;
	} else if (strcmp(name, "--net") == 0) {
		if (strcmp(val, "allow") == 0)
			o->net = SBX_NET_ALLOW;
		else if (strcmp(val, "none") == 0)
			o->net = SBX_NET_NONE;
		else
			return bad(err, "bad --net '%s' (allow or none)", val);
		o->has_net = true;
	} else if (strcmp(name, "--config") == 0) {
		o->config = val;
	} else if (strcmp(name, "--landlock-abi") == 0) {
		size_t abi;

		if (parse_size(val, 64, &abi) < 0)
			return bad(err, "bad --landlock-abi '%s': expected a number >= 1", val);
		o->landlock_abi = (int)abi;
	} else if (strcmp(name, "--syscalls-as-of") == 0) {
		o->syscalls_as_of = val;
	} else {
		return apply_limit(o, name, val, err);
	}
	return 0;
}

int cli_parse_run(int argc, char **argv, struct cli_options *o, struct sbx_error *err)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		char name[32];
		const char *val = NULL;
		const char *eq;

		if (strcmp(arg, "--") == 0)
			break;
		if (strcmp(arg, "--json") == 0) {
			o->json = true;
			continue;
		}
		if (strcmp(arg, "--escalation") == 0) {
			o->escalation = true;
			continue;
		}
		if (strncmp(arg, "--", 2) != 0)
			return bad(err, "missing '--' before the command (at '%s'): write sbx run [OPTIONS] -- COMMAND", arg);
		eq = strchr(arg, '=');
		if (eq && (size_t)(eq - arg) < sizeof(name)) {
			memcpy(name, arg, (size_t)(eq - arg));
			name[eq - arg] = '\0';
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", arg);
		}
		if (!takes_value(name))
			return bad(err, "unknown option '%s'", arg);
		if (!val) {
			if (i + 1 >= argc)
				return bad(err, "option '%s' needs a value", name);
			val = argv[++i];
		}
		if (apply(o, name, val, err) < 0)
			return -EINVAL;
	}
	if (i >= argc)
		return bad(err, "missing '--' and a command: write sbx run [OPTIONS] -- COMMAND");
	if (i + 1 >= argc)
		return bad(err, "no command after '--'");
	o->command_argv = argv + i + 1;
	o->command_argc = argc - i - 1;
	return 0;
}

/* The words after `--` joined by single spaces, as bash -c sees them. */
char *cli_join_command(char **words, int n)
{
	size_t len = 1;
	char *cmd, *p;

	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	cmd = malloc(len);
	if (!cmd)
		return NULL;
	p = cmd;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(words[i]);

		if (i)
			*p++ = ' ';
		memcpy(p, words[i], l);
		p += l;
	}
	*p = '\0';
	return cmd;
}

/* Whether --json was asked for before `--`, even when the rest of the line is
 * bad: a harness reading JSON must get its error as JSON too. */
bool cli_wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			return true;
	return false;
}
