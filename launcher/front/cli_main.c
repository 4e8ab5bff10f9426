/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"

static const char usage[] =
	"usage: sbx run [OPTIONS] -- COMMAND...   run one command under the policy\n"
	"       sbx serve [OPTIONS]               serve runs over JSON-RPC lines on stdin/stdout\n"
	"       sbx mcp [OPTIONS]                 a sandboxed bash tool for MCP clients (stdio)\n"
	"       sbx probe [--json]                what this kernel lets sbx do\n"
	"       sbx version                       print the version (also sbx --version)\n"
	"       sbx help [SUBCOMMAND]             this help, or a subcommand's\n"
	"Each subcommand takes --help. See sbx(1), sbx.conf(5) and docs/ in the source.\n";

static bool is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static int print_version(void)
{
	printf("sbx %s\n", sbx_version());
	return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
}

/* `sbx help [SUBCOMMAND]`: the same text as `sbx SUBCOMMAND --help`. */
static int help(int argc, char **argv)
{
	char *sub_argv[] = { argc > 2 ? argv[2] : NULL, "--help", NULL };

	if (argc <= 2) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[2], "run") == 0)
		return cli_run(2, sub_argv);
	if (strcmp(argv[2], "serve") == 0)
		return cli_serve(2, sub_argv);
	if (strcmp(argv[2], "mcp") == 0)
		return cli_mcp(2, sub_argv);
	if (strcmp(argv[2], "probe") == 0)
		return cli_probe(2, sub_argv);
	if (strcmp(argv[2], "version") == 0 || strcmp(argv[2], "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	struct sbx_error err = { 0 };

	fputs(usage, stderr);
	sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
		      "no help for '%s': not a subcommand (run, serve, mcp, probe, version, help)", argv[2]);
	return cli_fail(&err, false);
}

int main(int argc, char **argv)
{
	struct sbx_error err = { 0 };

	/* Before anything else: a privileged sbx is a bug, not a feature. A
	 * harness that asked for JSON (run, probe) reads its refusal there. */
	if (sbx_check_no_privilege(&err) < 0) {
		bool json = argc > 1 &&
			    (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "probe") == 0) &&
			    cli_wants_json(argc - 1, argv + 1);

		return cli_fail(&err, json);
	}
	/* Why: an ignored SIGCHLD survives execve, and a parent that ignored
	 * it had the kernel reap our children before we read their status: a
	 * command's `exit 42`, or a refused write, came back as exit 0. Ours
	 * to set: this process is sbx. */
	signal(SIGCHLD, SIG_DFL);
	if (argc < 2) {
		fputs(usage, stderr);
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
			      "missing subcommand (run, serve, mcp, probe, version or help)");
		return cli_fail(&err, false);
	}
	/* This process is sbx's own: it takes the process-wide changes a
	 * library caller is spared (sbx.h, sbx_process_opt_in), for runs
	 * without a keeper process and room for the commands' fd passing. */
	if (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "serve") == 0 ||
	    strcmp(argv[1], "mcp") == 0)
		(void)sbx_process_opt_in(SBX_PROCESS_SUBREAPER | SBX_PROCESS_NOFILE_MARGIN);
	if (strcmp(argv[1], "run") == 0)
		return cli_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "serve") == 0)
		return cli_serve(argc - 1, argv + 1);
	if (strcmp(argv[1], "mcp") == 0)
		return cli_mcp(argc - 1, argv + 1);
	if (strcmp(argv[1], "probe") == 0)
		return cli_probe(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		if (argc == 2)
			return print_version();
		if (argc == 3 && is_help(argv[2])) {
			fputs(usage, stdout);
			return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
		}
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "'%s' takes no arguments (got '%s')",
			      argv[1], argv[2]);
		return cli_fail(&err, false);
	}
	if (strcmp(argv[1], "help") == 0)
		return help(argc, argv);
	if (is_help(argv[1])) {
		fputs(usage, stdout);
		return 0;
	}
	fputs(usage, stderr);
	sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
		      "unknown subcommand '%s' (run, serve, mcp, probe, version or help)", argv[1]);
	return cli_fail(&err, false);
}
