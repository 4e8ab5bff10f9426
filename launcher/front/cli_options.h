/* SPDX-License-Identifier: MIT */
#ifndef SBX_CLI_OPTIONS_H
#define SBX_CLI_OPTIONS_H

#include <stdio.h>

#include "policy.h"
#include "sbx.h"

struct cli_options {
	bool has_mode;
	enum sbx_mode mode;
	const char *root;
	const char *cwd;
	bool has_runner;
	enum sbx_runner runner;
	bool has_timeout;
	uint64_t timeout_ms;
	bool help;
	bool json;
	bool escalation;
	bool has_output_limit;
	size_t output_limit;
	const char *spill_dir;
	bool has_net;
	enum sbx_net net;
	const char *config;
	int landlock_abi;
	const char *syscalls_as_of; /* a kernel release, NULL: off */
	bool has_max_processes;
	uint64_t max_processes;
	bool has_memory;
	uint64_t memory;           /* bytes or POLICY_LIMIT_OFF */
	bool has_file_size;
	uint64_t file_size;        /* bytes or POLICY_LIMIT_OFF */
	char **command_argv;
	int command_argc;
};

/* o->help set: print cli_run_usage() and stop; nothing else is parsed. */
int cli_parse_run(int argc, char **argv, struct cli_options *o, struct sbx_error *err);
void cli_run_usage(FILE *out);
int cli_load_config(const char *flag_path, struct sbx_config *cfg, struct sbx_error *err);
char *cli_join_command(char **words, int n);
bool cli_wants_json(int argc, char **argv);

#endif
