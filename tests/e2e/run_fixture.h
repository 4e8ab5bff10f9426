/* SPDX-License-Identifier: MIT */
/* The fixture of the tests that attack a run from inside and look from
 * outside: a private base with a home, a workspace and an empty config, made
 * as the user under test; `sbx run --json` on it under one runner; helpers
 * copied where the namespace runner's /tmp does not hide them. A file that
 * includes it defines RUN_FIXTURE_SUITE (its Criterion suite) first. */
#ifndef SBX_E2E_RUN_FIXTURE_H
#define SBX_E2E_RUN_FIXTURE_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

struct rp {
	char runner[16];
	enum e2e_user who;
};

static struct rp params_ns[] __attribute__((unused)) = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
};

static struct rp params_both[] __attribute__((unused)) = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

static int __attribute__((unused)) rp_runner(const void *e)
{
	return strcmp(((const struct rp *)e)->runner, "landlock") == 0;
}

static int __attribute__((unused)) rp_who(const void *e)
{
	return (int)((const struct rp *)e)->who;
}

/* Every entry of list, or the inner loop's diagonal of it (e2e_matrix). */
#define PARAMS(name, list)                                                                  \
	ParameterizedTestParameters(RUN_FIXTURE_SUITE, name)                                           \
	{                                                                                    \
		return cr_make_param_array(struct rp, list,                                  \
					   e2e_matrix(list, sizeof(list) / sizeof(list[0]),  \
						      sizeof(list[0]), rp_runner, rp_who)); \
	}

struct fx {
	struct rp p;
	char *base, *home, *ws, *conf;
	char tag[48];
};

static void fx_setup(struct fx *f, const struct rp *p)
{
	f->p = *p;
	/* The state directory follows $HOME (fixture-private) only. */
	unsetenv("XDG_CACHE_HOME");
	f->base = e2e_tmpdir(p->who);
	f->home = e2e_fmt("%s/home", f->base);
	f->ws = e2e_fmt("%s/ws", f->base);
	f->conf = e2e_fmt("%s/sbx.conf", f->base);
	cr_assert(e2e_mkdir(p->who, f->home) == 0);
	cr_assert(e2e_mkdir(p->who, f->ws) == 0);
	cr_assert(e2e_write_file(p->who, f->conf, "# none\n") == 0);
	snprintf(f->tag, sizeof(f->tag), "[%s %s]", p->runner, e2e_user_name(p->who));
}

/* A test helper, copied where the namespace runner's /tmp does not hide it. */
static __attribute__((unused)) char *helper(struct fx *f, const char *name)
{
	char *copy = e2e_fmt("%s/%s", f->base, name);
	char *argv[] = { "cp", (char *)e2e_helper(name), copy, NULL };
	struct e2e_out o;

	if (e2e_exists(copy))
		return copy;
	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0 && chmod(copy, 0755) == 0, "cp %s: %s", name, o.err);
	e2e_out_free(&o);
	return copy;
}

/* sbx run --json [extra] in mode on the workspace, HOME=f->home. */
static __attribute__((unused)) int run_x(struct fx *f, const char *mode, const char *extra, const char *cmd,
		 struct e2e_out *o)
{
	char *argv[16];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = "--config";
	argv[n++] = f->conf;
	argv[n++] = "--runner";
	argv[n++] = f->p.runner;
	if (extra)
		argv[n++] = (char *)extra;
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->ws;
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	return e2e_run(f->p.who, argv, env, o);
}

static __attribute__((unused)) int exit_code(const struct e2e_out *o)
{
	const char *p = strstr(o->out, "\"exit_code\":");

	return p ? atoi(p + strlen("\"exit_code\":")) : -1;
}

#endif
