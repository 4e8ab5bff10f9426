/* SPDX-License-Identifier: MIT */
/* `sbx serve [--config FILE] [--spill-dir DIR] [--spill-max-age SECONDS]
 *            [--max-line BYTES] [--max-answer BYTES]` */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "policy.h"
#include "serve.h"

#define USAGE_SERVE                                                                         \
	"sbx serve [--config FILE] [--spill-dir DIR] [--spill-max-age SECONDS] "           \
	"[--max-line BYTES] [--max-answer BYTES]"

static const char serve_usage[] =
	"usage: " USAGE_SERVE "\n"
	"Serve every bash call of every session from one process: JSON-RPC 2.0, one\n"
	"message per line on stdin and stdout (see sbx(1), SERVE PROTOCOL, and\n"
	"docs/protocol.md).\n\n"
	"Options:\n"
	"  --config FILE           the config (default: $SBX_CONFIG, /etc/sbx.conf)\n"
	"  --spill-dir DIR         where streams past the output limit are kept whole\n"
	"  --spill-max-age SECONDS remove a session's spill files this long after they were\n"
	"                          made: 1 to 31536000, decimals allowed, or never\n"
	"                          (default: the config's spill_max_age; they also go\n"
	"                          when their session closes)\n"
	"  --max-line BYTES        the longest request line read (4k to 64M;\n"
	"                          default 1M)\n"
	"  --max-answer BYTES      the longest answer line written (64k to 64M;\n"
	"                          default 256k)\n"
	"  --help                  print this help and exit\n";

/* A size as everywhere in sbx (policy_parse_bytes): 65536, 64k, 1M. */
static int parse_size(const char *s, unsigned long long lo, unsigned long long hi,
		      unsigned long long *out)
{
	uint64_t v;

	if (policy_parse_bytes(s, hi, &v) < 0 || v < lo)
		return -EINVAL;
	*out = v;
	return 0;
}

/* What the flag takes, for its refusal: the one flag the user got wrong. */
static const char *accepted(const char *flag)
{
	if (strcmp(flag, "--spill-dir") == 0)
		return "an absolute directory sbx can write";
	if (strcmp(flag, "--spill-max-age") == 0)
		return "1 to 31536000 seconds, decimals allowed, or never: the config's "
		       "spill_max_age grammar, from 1 second as it is the session's own spills";
	if (strcmp(flag, "--max-line") == 0)
		return "4k to 64M bytes: digits, with one suffix k, m, g or t (powers of 1024)";
	return "64k to 64M bytes: digits, with one suffix k, m, g or t (powers of 1024)";
}

int cli_serve(int argc, char **argv)
{
	const char *config = NULL;
	struct serve_opts o = { 0 };
	bool has_age = false;
	struct sbx_config cfg;
	struct sbx_error err = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *name = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long long n;

		if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
			fputs(serve_usage, stdout);
			return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
		}
		if (!val || strncmp(name, "--", 2) != 0)
			goto usage;
		i++;
		if (!*val) {
			sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
				      "%s has an empty value (give one, or leave the option out)", name);
			return cli_fail(&err, false);
		}
		if (strcmp(name, "--config") == 0) {
			config = val;
		} else if (strcmp(name, "--spill-dir") == 0) {
			if (val[0] != '/' || access(val, W_OK | X_OK) < 0)
				goto bad;
			o.spill_dir = val;
		} else if (strcmp(name, "--spill-max-age") == 0) {
			uint64_t ms = 0;

			/* never: 0, a session's spills stay for the caller */
			if (strcmp(val, "never") != 0 &&
			    (policy_parse_seconds(val, &ms) < 0 || ms < 1000 || ms > 31536000000ULL))
				goto bad;
			o.spill_max_age_ms = ms;
			has_age = true;
		} else if (strcmp(name, "--max-line") == 0) {
			if (parse_size(val, 4096, 64ULL << 20, &n) < 0)
				goto bad;
			o.line_max = (size_t)n;
		} else if (strcmp(name, "--max-answer") == 0) {
			if (parse_size(val, 65536, 64ULL << 20, &n) < 0)
				goto bad;
			o.answer_max = (size_t)n;
		} else {
			goto usage;
		}
		continue;
bad:
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "bad %s '%s' (%s)", name, val,
			      accepted(name));
		return cli_fail(&err, false);
usage:
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
			      "unknown option '%s' (sbx serve --help lists them)", name);
		return cli_fail(&err, false);
	}
	/* A client that goes away must not kill us before we reap the trees. */
	signal(SIGPIPE, SIG_IGN);
	if (cli_load_config(config, &cfg, &err) < 0 || loop_collector_check(&err) < 0)
		return cli_fail(&err, false);
	/* One age for both: sbx's old spill directories removed at start, and
	 * a session's own spills while it lives. */
	if (!has_age)
		o.spill_max_age_ms = cfg.spill_max_age_ms;
	sbx_spill_cleanup(cfg.spill_max_age_ms);
	if (serve_main(&cfg, &o, STDIN_FILENO, STDOUT_FILENO, cli_cancel_install(), &err) < 0)
		return cli_fail(&err, false);
	return cli_cancel_signal() ? 128 + cli_cancel_signal() : 0;
}
