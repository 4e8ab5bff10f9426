/* SPDX-License-Identifier: MIT */
/* `sbx serve [--config FILE] [--spill-dir DIR] [--spill-max-age SECONDS]
 *            [--max-line BYTES] [--max-answer BYTES]` */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "serve.h"

#define USAGE_SERVE                                                                         \
	"sbx serve [--config FILE] [--spill-dir DIR] [--spill-max-age SECONDS] "           \
	"[--max-line BYTES] [--max-answer BYTES]"

static int parse_count(const char *s, unsigned long long lo, unsigned long long hi,
		       unsigned long long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end || *out < lo || *out > hi ? -EINVAL : 0;
}

int cli_serve(int argc, char **argv)
{
	const char *config = NULL;
	struct serve_opts o = { 0 };
	struct sbx_config cfg;
	struct sbx_error err = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *name = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long long n;

		if (!val || strncmp(name, "--", 2) != 0)
			goto usage;
		i++;
		if (strcmp(name, "--config") == 0) {
			config = val;
		} else if (strcmp(name, "--spill-dir") == 0) {
			if (val[0] != '/' || access(val, W_OK | X_OK) < 0)
				goto bad;
			o.spill_dir = val;
		} else if (strcmp(name, "--spill-max-age") == 0) {
			if (parse_count(val, 1, 31536000ULL, &n) < 0)
				goto bad;
			o.spill_max_age_ms = n * 1000;
		} else if (strcmp(name, "--max-line") == 0) {
			if (parse_count(val, 4096, 64ULL << 20, &n) < 0)
				goto bad;
			o.line_max = (size_t)n;
		} else if (strcmp(name, "--max-answer") == 0) {
			if (parse_count(val, 65536, 64ULL << 20, &n) < 0)
				goto bad;
			o.answer_max = (size_t)n;
		} else {
			goto usage;
		}
		continue;
bad:
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL,
			      "bad %s '%s' (--spill-dir: an absolute, writable directory; "
			      "--spill-max-age: 1 to 31536000 seconds; --max-line: 4096 to 64 MiB; "
			      "--max-answer: 65536 to 64 MiB)",
			      name, val);
		return cli_fail(&err, false);
usage:
		sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "bad option '%s' (" USAGE_SERVE ")",
			      name);
		return cli_fail(&err, false);
	}
	/* A client that goes away must not kill us before we reap the trees. */
	signal(SIGPIPE, SIG_IGN);
	if (cli_load_config(config, &cfg, &err) < 0)
		return cli_fail(&err, false);
	if (serve_main(&cfg, &o, STDIN_FILENO, STDOUT_FILENO, cli_cancel_install(), &err) < 0)
		return cli_fail(&err, false);
	return cli_cancel_signal() ? 128 + cli_cancel_signal() : 0;
}
