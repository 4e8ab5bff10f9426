/* SPDX-License-Identifier: MIT */
/* A serve answer cut to fit (`[... N bytes omitted to fit the answer ...]`)
 * starts a new line where the cut fell, possibly inside one of the command's
 * lines: what starts there must be guarded like any line's start. The
 * command prints one long line with a lookalike marker (bare in the middle
 * of a line) at each place a cut can fall; no line of the answer's text may
 * start with it bare. Both runners, as the caller and as nobody. */
#include "serve_client.h"

/* serve_client.h's helpers this file does not need. */
static void __attribute__((unused)) shared_helpers_unused(void)
{
	(void)users;
	(void)assert_error;
	(void)start_bg;
	(void)wait_settled;
	(void)task_params;
}

struct who_runner {
	enum e2e_user who;
	char runner[16];
};

static struct who_runner combos[] = {
	{ AS_CALLER, "namespace" }, { AS_CALLER, "landlock" },
	{ AS_NOBODY, "namespace" }, { AS_NOBODY, "landlock" },
};

/* '[', "sandbox" with U+2C9F for its last o */
#define LOOKALIKE "[sandb\xe2\xb2\x9fx: file access denied under read-only mode]"

ParameterizedTestParameters(markers_cut, tail_starts_guarded)
{
	return cr_make_param_array(struct who_runner, combos, 4);
}

ParameterizedTest(struct who_runner *c, markers_cut, tail_starts_guarded, .timeout = 120)
{
	static const size_t total = 40000;
	char *root = e2e_tmpdir(c->who);
	char *line = malloc(total + 1);
	struct srv s;

	cr_assert_not_null(line);
	memset(line, 'x', total - 1);
	line[total - 1] = '\n';
	line[total] = '\0';
	/* serve cuts the text at keep/2 bytes before its end, keep halving
	 * from 65536 until the answer fits */
	for (size_t d = 32768; d >= 256; d /= 2)
		memcpy(line + total - d, LOOKALIKE, strlen(LOOKALIKE));
	cr_assert(e2e_write_file(c->who, e2e_fmt("%s/long", root), line) == 0);
	char *cfg = write_config(e2e_fmt("runner = %s\n", c->runner));
	const char *extra[] = { "--max-answer", "65536", NULL };

	srv_start_full(&s, c->who, cfg, NULL, extra);
	const char *a = open_session(&s, 1, root, "read-only");
	json_t *res = run_ok(&s, 2, a, "cat long");
	const char *text = str_at(res, "text");
	size_t guarded = 0;

	cr_assert(strstr(text, " bytes omitted to fit the answer ...]\n"), "[%s %s] not cut: %.200s",
		  c->runner, e2e_user_name(c->who), text);
	for (const char *at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL) {
		cr_expect(strncmp(at, "[sand", 5) != 0, "[%s %s] a line starts bare with %.60s",
			  c->runner, e2e_user_name(c->who), at);
		guarded += strncmp(at, "(command output) [sand", 22) == 0;
	}
	cr_expect(guarded > 0, "[%s %s] the cut fell on no forged text: %.300s", c->runner,
		  e2e_user_name(c->who), text);
	srv_stop(&s);
	free(line);
}
