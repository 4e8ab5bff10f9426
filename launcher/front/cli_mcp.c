/* SPDX-License-Identifier: MIT */
/* `sbx mcp [--root DIR] [--mode MODE] [--config FILE] [--escalation]` */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "mcp.h"

#define USAGE_MCP "sbx mcp [--root DIR] [--mode MODE] [--config FILE] [--escalation]"

static const char mcp_usage[] =
	"usage: " USAGE_MCP "\n"
	"A Model Context Protocol server on stdio with a sandboxed bash tool (and\n"
	"task_output, task_stop) for Claude Code, Codex, Cursor and any MCP client\n"
	"(see sbx(1), MCP, and docs/mcp.md).\n\n"
	"Options:\n"
	"  --root DIR      the workspace root (default: the client's first file:// root,\n"
	"                  else the current directory); pinned at start\n"
	"  --mode MODE     read-only, workspace-write or danger-full-access (default:\n"
	"                  the config's mode, else read-only)\n"
	"  --config FILE   the config (default: $SBX_CONFIG, /etc/sbx.conf)\n"
	"  --escalation    offer sandbox_permissions (within the config's escalation)\n"
	"  --help          print this help and exit\n";

int cli_mcp(int argc, char **argv)
{
	const char *config = NULL;
	struct mcp_opts o = { 0 };
	struct sbx_config cfg;
	struct sbx_error err = { 0 };
	char root[PATH_MAX], here[PATH_MAX];

	for (int i = 1; i < argc; i++) {
		const char *name = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
			fputs(mcp_usage, stdout);
			return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
		}
		if (strcmp(name, "--escalation") == 0) {
			o.escalation = true;
			continue;
		}
		if (!val)
			goto usage;
		i++;
		if (!*val) {
			sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
				      "%s has an empty value (give one, or leave the option out)", name);
			return cli_fail(&err, false);
		}
		if (strcmp(name, "--root") == 0) {
			o.root = val;
		} else if (strcmp(name, "--config") == 0) {
			config = val;
		} else if (strcmp(name, "--mode") == 0) {
			if (sbx_mode_parse(val, &o.mode) < 0) {
				sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
					      "--mode: bad value '%s' (expected read-only, "
					      "workspace-write or danger-full-access)", val);
				return cli_fail(&err, false);
			}
			o.has_mode = true;
		} else {
			goto usage;
		}
		continue;
usage:
		if (!val && (strcmp(name, "--root") == 0 || strcmp(name, "--config") == 0 ||
			     strcmp(name, "--mode") == 0))
			sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "%s needs a value (" USAGE_MCP ")",
				      name);
		else
			sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
				      "unknown option '%s' (sbx mcp --help lists them)", name);
		return cli_fail(&err, false);
	}
	/* A relative --root is taken from the current directory, as written. */
	if (o.root && o.root[0] != '/') {
		if (!getcwd(here, sizeof(here)) ||
		    snprintf(root, sizeof(root), "%s/%s", strcmp(here, "/") ? here : "", o.root) >=
			    (int)sizeof(root)) {
			sbx_error_set(&err, errno ? errno : ENAMETOOLONG, SBX_E_USAGE, NULL,
				      "root %s: cannot make it absolute", o.root);
			return cli_fail(&err, false);
		}
		o.root = root;
	}
	/* A client that goes away must not kill us before we reap the trees. */
	signal(SIGPIPE, SIG_IGN);
	if (cli_load_config(config, &cfg, &err) < 0 || loop_collector_check(&err) < 0)
		return cli_fail(&err, false);
	/* A bash call past the output limit spills, as serve's runs do: sbx's
	 * own old spill directories go when it starts, as with serve. */
	sbx_spill_cleanup(cfg.spill_max_age_ms);
	if (!o.has_mode && !cfg.has_mode) {
		o.has_mode = true;
		o.mode = SBX_MODE_READ_ONLY;
	}
	if (mcp_main(&cfg, &o, STDIN_FILENO, STDOUT_FILENO, cli_cancel_install(), &err) < 0)
		return cli_fail(&err, false);
	return cli_cancel_signal() ? 128 + cli_cancel_signal() : 0;
}
