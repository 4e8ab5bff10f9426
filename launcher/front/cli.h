/* SPDX-License-Identifier: MIT */
/* launcher/front: what a caller talks to. The command line (cli_*.c: `sbx
 * run`, `sbx probe`), `sbx serve` (serve_*.c over the JSON-RPC engine,
 * jsonrpc_*.c) and `sbx mcp` (mcp_*.c), which share sessions, background
 * tasks and answers (work_*.c, work.h) and a spawner thread. The top layer:
 * it calls the engine through the same builder an embedder uses.
 *
 * The sbx command line: `sbx run`, `sbx serve`, `sbx mcp`, `sbx probe`. Only these and
 * main print or exit; the library returns errors. */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include "sbx.h"

#define SBX_EXIT_FAILURE 125

/* Print "sbx: CODE: message" (plus the detail when it adds something) on
 * stderr, or the JSON error on stdout when json is set; return 125. */
int cli_fail(const struct sbx_error *err, bool json);
int cli_run(int argc, char **argv);
/* Route SIGTERM/SIGINT/SIGHUP to a pipe; returns its read end (or -errno). */
int cli_cancel_install(void);
/* The first such signal received, or 0. */
int cli_cancel_signal(void);
int cli_serve(int argc, char **argv);
int cli_mcp(int argc, char **argv);
int cli_probe(int argc, char **argv);

#endif
