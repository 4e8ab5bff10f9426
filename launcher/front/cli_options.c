/* SPDX-License-Identifier: MIT */
/* Parsing `sbx run` options into a resolved call: flags over the deployment
 * config over the defaults (sbx(1) OPTIONS, sbx.conf(5)). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_options.h"
#include "config_keys.h"

#define bad(err, ...) sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL, __VA_ARGS__)

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
	bool from_env = false;
	int rc;

	config_init(cfg);
	if (path && !*path)
		return sbx_error_set(err, EINVAL, SBX_E_USAGE, NULL,
				     "--config has an empty value (give a file, or leave the option "
				     "out)");
	if (!path) {
		path = getenv("SBX_CONFIG");
		from_env = path && *path;
	}
	if (path && !*path)
		path = NULL;
	if (!path && access("/etc/sbx.conf", F_OK) == 0)
		path = "/etc/sbx.conf";
	if (!path)
		return 0;
	rc = config_parse_file(path, cfg, err);
	/* Where it lies decides which runs may use it (run.c). */
	if (rc == 0 && !realpath(path, cfg->source))
		snprintf(cfg->source, sizeof(cfg->source), "%s", path);
	/* A path nobody typed on this command line: say where it came from. */
	if (rc < 0 && from_env && err) {
		size_t n = strlen(err->message);

		snprintf(err->message + n, sizeof(err->message) - n,
			 " (the path is $SBX_CONFIG's: fix or unset it, or give --config)");
	}
	return rc;
}

/* Every option of `sbx run`, in the order --help lists them. metavar NULL:
 * a flag without a value. Adding an option: a row here and a case in apply(). */
static const struct run_option {
	const char *name;
	const char *metavar;
	const char *help;
} run_options[] = {
	{ "--mode", "MODE", "read-only (default), workspace-write, danger-full-access" },
	{ "--root", "DIR", "the workspace root (default: workspace_root, else .)" },
	{ "--cwd", "DIR", "the command's directory (relative: from the root)" },
	{ "--runner", "RUNNER", "auto (namespace, then landlock), namespace or landlock" },
	{ "--timeout", "SECONDS", "end the whole process tree after this long (exit 124)" },
	{ "--json", NULL, "print one JSON result object instead of streaming" },
	{ "--escalation", NULL, "the caller can offer escalation: a denial says so" },
	{ "--output-limit", "BYTES", "bytes of each stream --json keeps (2 to 1G; 64k, 1M)" },
	{ "--spill-dir", "DIR", "where --json keeps a stream past the limit whole" },
	{ "--net", "allow|none", "none: a new network namespace with only loopback" },
	{ "--config", "FILE", "the config (default: $SBX_CONFIG, /etc/sbx.conf)" },
	{ "--landlock-abi", "N", "use at most Landlock ABI N, as an older kernel would" },
	{ "--syscalls-as-of", "X.Y", "ENOSYS for every system call after kernel X.Y" },
	{ "--max-processes", "N", "at most N processes in the run (max_processes)" },
	{ "--memory", "BYTES", "the run's memory limit, e.g. 2G, or off (memory_limit)" },
	{ "--file-size", "BYTES", "the largest file it may write, or off (file_size_limit)" },
	{ "--help", NULL, "print this help and exit" },
};
#define N_RUN_OPTIONS (sizeof(run_options) / sizeof(run_options[0]))

void cli_run_usage(FILE *out)
{
	fputs("usage: sbx run [OPTIONS] -- COMMAND...\n"
	      "Run `bash -c COMMAND` (the words after -- joined by spaces) under a file-write\n"
	      "policy, stdin from /dev/null, and report what happened.\n\nOptions:\n",
	      out);
	for (size_t i = 0; i < N_RUN_OPTIONS; i++) {
		char left[40];

		snprintf(left, sizeof(left), "%s%s%s", run_options[i].name,
			 run_options[i].metavar ? " " : "",
			 run_options[i].metavar ? run_options[i].metavar : "");
		fprintf(out, "  %-20s %s\n", left, run_options[i].help);
	}
	fputs("\nExit status: the command's own; 128+N if signal N ended it; 124 after\n"
	      "--timeout; 125 if sbx itself failed (the command did not run).\n"
	      "See sbx(1) for the modes, the result object and the markers, sbx.conf(5)\n"
	      "for the config.\n",
	      out);
}

static const struct run_option *find_option(const char *name)
{
	for (size_t i = 0; i < N_RUN_OPTIONS; i++)
		if (strcmp(run_options[i].name, name) == 0)
			return &run_options[i];
	return NULL;
}

/* A flag that has a config key takes the key's values, checked by the same
 * table entry, so the two can never disagree: "--timeout: bad value '0'
 * (expected 0.001 to 604800 seconds)". */
static int via_key(const char *flag, const char *key, const char *val, struct sbx_config *scratch,
		   struct sbx_error *err)
{
	char why[400];

	if (config_key_apply(config_key_find(key), scratch, val, why, sizeof(why)) < 0)
		return bad(err, "%s: %s", flag, why);
	return 0;
}

static int apply(struct cli_options *o, const char *name, const char *val, struct sbx_error *err)
{
	struct sbx_config scratch;

	if (strcmp(name, "--mode") == 0) {
		if (via_key(name, "mode", val, &scratch, err) < 0)
			return -EINVAL;
		o->mode = scratch.mode;
		o->has_mode = true;
	} else if (strcmp(name, "--root") == 0) {
		o->root = val;
	} else if (strcmp(name, "--cwd") == 0) {
		o->cwd = val;
	} else if (strcmp(name, "--runner") == 0) {
		if (via_key(name, "runner", val, &scratch, err) < 0)
			return -EINVAL;
		o->runner = scratch.runner;
		o->has_runner = true;
	} else if (strcmp(name, "--timeout") == 0) {
		if (via_key(name, "timeout", val, &scratch, err) < 0)
			return -EINVAL;
		o->timeout_ms = scratch.timeout_ms;
		o->has_timeout = true;
	} else if (strcmp(name, "--output-limit") == 0) {
		if (via_key(name, "output_limit", val, &scratch, err) < 0)
			return -EINVAL;
		o->output_limit = scratch.output_limit;
		o->has_output_limit = true;
	} else if (strcmp(name, "--spill-dir") == 0) {
		if (val[0] != '/' || access(val, W_OK | X_OK) < 0)
			return bad(err, "--spill-dir: bad value '%s' (expected an absolute path to a "
				   "directory you can write%s%s)", val, val[0] == '/' ? ": " : "",
				   val[0] == '/' ? strerror(errno) : "");
		o->spill_dir = val;
	} else if (strcmp(name, "--net") == 0) {
		if (via_key(name, "net", val, &scratch, err) < 0)
			return -EINVAL;
		o->net = scratch.net;
		o->has_net = true;
	} else if (strcmp(name, "--config") == 0) {
		o->config = val;
	} else if (strcmp(name, "--json") == 0) {
		o->json = true;
	} else if (strcmp(name, "--escalation") == 0) {
		o->escalation = true;
	} else if (strcmp(name, "--max-processes") == 0) {
		if (via_key(name, "max_processes", val, &scratch, err) < 0)
			return -EINVAL;
		o->max_processes = scratch.max_processes;
		o->has_max_processes = true;
	} else if (strcmp(name, "--memory") == 0) {
		if (via_key(name, "memory_limit", val, &scratch, err) < 0)
			return -EINVAL;
		o->memory = scratch.memory_limit;
		o->has_memory = true;
	} else if (strcmp(name, "--file-size") == 0) {
		if (via_key(name, "file_size_limit", val, &scratch, err) < 0)
			return -EINVAL;
		o->file_size = scratch.file_size_limit;
		o->has_file_size = true;
	} else if (strcmp(name, "--landlock-abi") == 0) {
		size_t abi;

		if (parse_size(val, 64, &abi) < 0)
			return bad(err, "--landlock-abi: bad value '%s' (expected 1 to 64)", val);
		o->landlock_abi = (int)abi;
	} else if (strcmp(name, "--syscalls-as-of") == 0) {
		o->syscalls_as_of = val;
	}
	return 0;
}

int cli_parse_run(int argc, char **argv, struct cli_options *o, struct sbx_error *err)
{
	int i;

	memset(o, 0, sizeof(*o));
	/* --help wins over whatever else is wrong with the line. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			o->help = true;
			return 0;
		}
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		char name[32];
		const char *val = NULL;
		const char *eq;
		const struct run_option *opt;

		if (strcmp(arg, "--") == 0)
			break;
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
		opt = find_option(name);
		if (!opt)
			return bad(err, "unknown option '%s' (sbx run --help lists them)", arg);
		if (!opt->metavar && val)
			return bad(err, "option '%s' takes no value", name);
		if (opt->metavar && !val) {
			if (i + 1 >= argc)
				return bad(err, "option '%s' needs a value (%s)", name, opt->metavar);
			val = argv[++i];
		}
		/* why: an empty value ("--root $WS" with WS unset) is never
		 * taken as the option left out. */
		if (opt->metavar && !*val)
			return bad(err, "option '%s' has an empty value (give %s, or leave the option "
				   "out)", name, opt->metavar);
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
