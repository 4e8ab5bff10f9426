/* SPDX-License-Identifier: MIT */
/* Helpers every sbx subcommand shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_fail(const struct sbx_error *err, bool json)
{
	if (json) {
		char *s = sbx_error_to_json(err);

		if (s) {
			fputs(s, stdout);
			fputc('\n', stdout);
			free(s);
			fflush(stdout);
		}
	}
	if (err->detail[0] && !strstr(err->message, err->detail))
		fprintf(stderr, "sbx: %s: %s (%s)\n", err->code, err->message, err->detail);
	else
		fprintf(stderr, "sbx: %s: %s\n", err->code, err->message);
	return SBX_EXIT_FAILURE;
}
