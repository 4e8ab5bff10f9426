/* SPDX-License-Identifier: MIT */
/* `sbx serve [--config FILE]` */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "serve.h"

int cli_serve(int argc, char **argv)
{
	const char *config = NULL;
	struct sbx_config cfg;
	struct sbx_error err = { 0 };

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strncmp(argv[i], "--config=", 9) == 0) {
			config = argv[i] + 9;
		} else {
			sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
				      "unknown option '%s' (sbx serve [--config FILE])", argv[i]);
			return cli_fail(&err, false);
		}
	}
	/* A client that goes away must not kill us before we reap the trees. */
	signal(SIGPIPE, SIG_IGN);
	if (cli_load_config(config, &cfg, &err) < 0)
		return cli_fail(&err, false);
	if (serve_main(&cfg, STDIN_FILENO, STDOUT_FILENO, cli_cancel_install(), &err) < 0)
		return cli_fail(&err, false);
	return cli_cancel_signal() ? 128 + cli_cancel_signal() : 0;
}
