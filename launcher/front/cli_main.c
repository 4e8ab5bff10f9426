/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: sbx run [OPTIONS] -- COMMAND...\n"
	"       sbx serve [--config FILE]\n"
	"       sbx probe [--json] [--config FILE]\n"
	"Run `man sbx` or see the README for every option.\n";

int main(int argc, char **argv)
{
	struct sbx_error err = { 0 };

	/* Before anything else: a privileged sbx is a bug, not a feature. */
	if (sbx_check_no_privilege(&err) < 0)
		return cli_fail(&err, false);
	if (argc < 2) {
		fputs(usage, stderr);
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "missing subcommand (run, serve or probe)");
		return cli_fail(&err, false);
	}
	if (strcmp(argv[1], "run") == 0)
		return cli_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "serve") == 0)
		return cli_serve(argc - 1, argv + 1);
	if (strcmp(argv[1], "probe") == 0)
		return cli_probe(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	fputs(usage, stderr);
	sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "unknown subcommand '%s'", argv[1]);
	return cli_fail(&err, false);
}
