/* SPDX-License-Identifier: MIT */
/* No run's clean-up on serve's loop (issue 29, finding 10): a run that
 * leaves 100,000 entries under a protected path that was absent (.vscode)
 * has them removed when it ends; meanwhile another session's command, on
 * another root, is answered as if the first did not exist: its answer comes
 * while the first run's clean-up still runs, before the first run's own
 * answer. Observed by order, never by a timed assert. */
/* The shared client: not every helper of it is used here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#include "serve_client.h"

struct combo {
	enum e2e_user who;
	char runner[16];
};

static struct combo combos[] = { { AS_CALLER, "namespace" }, { AS_CALLER, "landlock" },
				 { AS_NOBODY, "namespace" }, { AS_NOBODY, "landlock" } };

ParameterizedTestParameters(serve_cleanup, another_session_is_not_held)
{
	return cr_make_param_array(struct combo, combos, sizeof(combos) / sizeof(combos[0]));
}

static size_t arrival(struct srv *s, long long id)
{
	size_t i;
	json_t *a;

	json_array_foreach(s->answers, i, a)
		if (id_matches(a, id))
			return i;
	cr_assert_fail("no answer %lld", id);
	return 0;
}

ParameterizedTest(struct combo *c, serve_cleanup, another_session_is_not_held, .timeout = 600)
{
	char *ra = e2e_tmpdir(c->who), *rb = e2e_tmpdir(c->who);
	char *cfg = write_config(e2e_fmt("runner = %s\n", c->runner));
	char *made = e2e_fmt("%s/made", ra), *vscode = e2e_fmt("%s/.vscode", ra);
	struct srv s;

	srv_start(&s, c->who, cfg);
	const char *a = open_session(&s, 1, ra, "workspace-write");
	const char *b = open_session(&s, 2, rb, "workspace-write");

	/* The same command on the idle serve first: it answers. */
	cr_assert_str_eq(str_at(run_ok(&s, 3, b, "sleep 0.2; echo hi"), "stdout"), "hi\n");
	rpc_send(&s, 10, "run",
		 run_params(a, "python3 -c \"import os; os.mkdir('.vscode'); "
			       "[open('.vscode/%d' % i, 'w').close() for i in range(100000)]\" && "
			       "touch made"));
	for (long long deadline = now_ms() + 300000; !e2e_exists(made);) {
		cr_assert(now_ms() < deadline, "the first run made no entries");
		srv_pump(&s, 20, false);
	}
	/* Its command is over (or about to be): its clean-up starts. */
	rpc_send(&s, 11, "run", run_params(b, "sleep 0.2; echo hi"));
	json_t *hi = result_of(srv_wait(&s, 11, ANSWER_TIMEOUT_MS));
	bool still_cleaning = e2e_exists(vscode);
	json_t *big = result_of(srv_wait(&s, 10, 5 * ANSWER_TIMEOUT_MS));

	cr_assert_str_eq(str_at(hi, "stdout"), "hi\n");
	cr_assert_eq(exit_code(big), 0, "the first run failed: %s", json_dumps(big, 0));
	cr_assert(arrival(&s, 11) < arrival(&s, 10),
		  "[%s %s] the second session was answered only after the first run's clean-up",
		  c->runner, e2e_user_name(c->who));
	cr_assert(!e2e_exists(vscode), "the 100,000 entries were not removed");
	json_t *rev = json_object_get(json_object_get(big, "sandbox"), "reverted");

	cr_assert(json_is_array(rev) && json_array_size(rev) == 1 &&
			  strcmp(json_string_value(json_array_get(rev, 0)), ".vscode") == 0,
		  "reverted: %s", json_dumps(big, 0));
	cr_log_info("[%s %s] the second answer came %s the first clean-up ended", c->runner,
		    e2e_user_name(c->who), still_cleaning ? "before" : "after (fast machine)");
	srv_stop(&s);
}
