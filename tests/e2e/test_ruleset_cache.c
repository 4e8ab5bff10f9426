/* SPDX-License-Identifier: MIT */
/* serve keeps the landlock runner's ruleset for a policy and uses it again
 * (runners/landlock_cache.c). A ruleset names inodes, listed when it was
 * built: after the tree changes, a kept one could grant what a fresh build
 * would not. These runs change the tree between two runs of one serve and
 * check, from the command's own output, that the second run sees what a
 * fresh ruleset gives: a directory moved to a hidden name is hidden, a file
 * made since is readable. As the caller and as nobody. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
/* The shared client has more helpers than these tests need. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "serve_client.h"
#pragma GCC diagnostic pop

struct fx {
	struct srv s;
	const char *sess;
	char *base;  /* holds the hidden path and its neighbours */
	long long id;
};

static void fx_start(struct fx *f, enum e2e_user who)
{
	char *root = e2e_tmpdir(who);

	f->base = e2e_tmpdir(who);
	char *conf = write_config(e2e_fmt("runner = landlock\ndeny_read = %s/secret\n", f->base));
	srv_start(&f->s, who, conf);
	f->sess = open_session(&f->s, 1, root, "workspace-write");
	f->id = 2;
	free(conf);
	free(root);
}

static json_t *run(struct fx *f, const char *cmd)
{
	json_t *res = run_ok(&f->s, f->id++, f->sess, cmd);

	cr_assert_str_eq(str_at(json_object_get(res, "sandbox"), "runner"), "landlock");
	return res;
}

ParameterizedTestParameters(ruleset_cache, moved_to_a_hidden_name)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

/* pub/ is readable; renamed to the hidden name secret/, it is not. */
ParameterizedTest(enum e2e_user *who, ruleset_cache, moved_to_a_hidden_name, .timeout = 60)
{
	struct fx f;

	fx_start(&f, *who);
	cr_assert(e2e_mkdir(*who, e2e_fmt("%s/pub", f.base)) == 0);
	cr_assert(e2e_write_file(*who, e2e_fmt("%s/pub/key", f.base), "KEYTEXT\n") == 0);
	json_t *res = run(&f, e2e_fmt("cat %s/pub/key", f.base));
	cr_assert(strstr(str_at(res, "stdout"), "KEYTEXT"), "pub/key unreadable: %s",
		  str_at(res, "stderr"));
	/* twice: the second run is the kept ruleset's */
	res = run(&f, e2e_fmt("cat %s/pub/key", f.base));
	cr_assert(strstr(str_at(res, "stdout"), "KEYTEXT"));
	cr_assert(rename(e2e_fmt("%s/pub", f.base), e2e_fmt("%s/secret", f.base)) == 0);
	res = run(&f, e2e_fmt("cat %s/secret/key", f.base));
	cr_assert(!strstr(str_at(res, "stdout"), "KEYTEXT"),
		  "[%s] a directory moved to a hidden name was still read: %s",
		  e2e_user_name(*who), str_at(res, "stdout"));
	cr_assert_neq(exit_code(res), 0);
	srv_stop(&f.s);
}

ParameterizedTestParameters(ruleset_cache, made_since_is_readable)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

/* A file made beside the hidden path after the first run: readable (the
 * walk granted its neighbours one by one, so a kept ruleset has no rule for
 * it). */
ParameterizedTest(enum e2e_user *who, ruleset_cache, made_since_is_readable, .timeout = 60)
{
	struct fx f;

	fx_start(&f, *who);
	cr_assert(e2e_mkdir(*who, e2e_fmt("%s/secret", f.base)) == 0);
	json_t *res = run(&f, "true");
	res = run(&f, "true");
	cr_assert(e2e_write_file(*who, e2e_fmt("%s/later", f.base), "LATER\n") == 0);
	res = run(&f, e2e_fmt("cat %s/later", f.base));
	cr_assert(strstr(str_at(res, "stdout"), "LATER"),
		  "[%s] a file made since the ruleset was built is unreadable: %s",
		  e2e_user_name(*who), str_at(res, "stderr"));
	srv_stop(&f.s);
}

ParameterizedTestParameters(ruleset_cache, swapped_in_a_walked_directory)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

/* The hidden path exists from the start (its directory is walked); then a
 * readable directory takes its name. */
ParameterizedTest(enum e2e_user *who, ruleset_cache, swapped_in_a_walked_directory, .timeout = 60)
{
	struct fx f;

	fx_start(&f, *who);
	cr_assert(e2e_mkdir(*who, e2e_fmt("%s/secret", f.base)) == 0);
	cr_assert(e2e_mkdir(*who, e2e_fmt("%s/pub", f.base)) == 0);
	cr_assert(e2e_write_file(*who, e2e_fmt("%s/pub/key", f.base), "KEYTEXT\n") == 0);
	json_t *res = run(&f, e2e_fmt("cat %s/pub/key", f.base));
	cr_assert(strstr(str_at(res, "stdout"), "KEYTEXT"));
	res = run(&f, e2e_fmt("cat %s/pub/key", f.base));
	cr_assert(strstr(str_at(res, "stdout"), "KEYTEXT"));
	cr_assert(rename(e2e_fmt("%s/secret", f.base), e2e_fmt("%s/old", f.base)) == 0);
	cr_assert(rename(e2e_fmt("%s/pub", f.base), e2e_fmt("%s/secret", f.base)) == 0);
	res = run(&f, e2e_fmt("cat %s/secret/key", f.base));
	cr_assert(!strstr(str_at(res, "stdout"), "KEYTEXT"),
		  "[%s] a directory swapped in under a hidden name was still read: %s",
		  e2e_user_name(*who), str_at(res, "stdout"));
	srv_stop(&f.s);
}
