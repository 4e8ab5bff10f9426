/* SPDX-License-Identifier: MIT */
/* `sbx serve [--config FILE]` */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "serve.h"

static const char serve_usage[] =
	"usage: sbx serve [--config FILE]\n"
	"Serve every bash call of every session from one process: one JSON request per\n"
	"line on stdin, one answer per line on stdout (see sbx(1), SERVE PROTOCOL).\n\n"
	"Options:\n"
	"  --config FILE        the config (default: $SBX_CONFIG, /etc/sbx.conf)\n"
	"  --help               print this help and exit\n";

int cli_serve(int argc, char **argv)
{
	const char *config = NULL;
	struct sbx_config cfg;
	struct sbx_error err = { 0 };

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(serve_usage, stdout);
			return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
		}
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strncmp(argv[i], "--config=", 9) == 0) {
			config = argv[i] + 9;
		} else {
			sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
				      "unknown option '%s' (sbx serve --help lists them)", argv[i]);
			return cli_fail(&err, false);
		}
	}
	/* A client that goes away must not kill us before we reap the trees. */
	signal(SIGPIPE, SIG_IGN);
	if (cli_load_config(config, &cfg, &err) < 0)
		return cli_fail(&err, false);
	sbx_spill_cleanup(cfg.spill_max_age_ms);
	if (serve_main(&cfg, STDIN_FILENO, STDOUT_FILENO, cli_cancel_install(), &err) < 0)
		return cli_fail(&err, false);
	return cli_cancel_signal() ? 128 + cli_cancel_signal() : 0;
}
