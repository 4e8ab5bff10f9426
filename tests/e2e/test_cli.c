/* SPDX-License-Identifier: MIT */
/* The command line's front door, run as a user would: --version and version
 * (from the file VERSION, also in the JSON result and probe --json), help
 * for sbx and each subcommand on stdout with exit 0, errors that say what to
 * do on stderr with exit 125, a config error naming file, line, key and the
 * allowed values (and the command not run), and sbx run --help listing
 * exactly the options sbx(1) documents. */
#include "common.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file of the source tree, found from this file's place in it. */
static char *source_file(const char *rel)
{
	const char *cut = strstr(__FILE__, "tests/e2e/test_cli.c");

	cr_assert_not_null(cut, "unexpected __FILE__ %s", __FILE__);
	char *path = e2e_fmt("%.*s%s", (int)(cut - __FILE__), __FILE__, rel);
	char *text = e2e_read_file(path);

	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	free(path);
	return text;
}

static char *version(void)
{
	char *v = source_file("VERSION");

	v[strcspn(v, "\n")] = '\0';
	return v;
}

static int sbx(struct e2e_out *o, char *const args[])
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return e2e_run(AS_CALLER, argv, NULL, o);
}

Test(cli, version)
{
	char *want = e2e_fmt("sbx %s\n", version());
	static char *const forms[][3] = { { "--version", NULL }, { "version", NULL } };

	for (size_t i = 0; i < 2; i++) {
		struct e2e_out o;

		cr_assert_eq(sbx(&o, forms[i]), 0, "%s: %s", forms[i][0], o.err);
		cr_assert_str_eq(o.out, want, "%s", forms[i][0]);
		cr_assert_eq(o.err_len, 0, "%s: %s", forms[i][0], o.err);
		e2e_out_free(&o);
	}
	free(want);
}

Test(cli, version_in_json)
{
	struct e2e_out o;
	json_error_t je;

	cr_assert_eq(sbx(&o, (char *[]){ "run", "--json", "--mode", "danger-full-access", "--",
					 "true", NULL }),
		     0);
	json_t *j = json_loads(o.out, 0, &je);

	cr_assert_str_eq(json_string_value(json_object_get(j, "version")), version());
	json_decref(j);
	e2e_out_free(&o);
	cr_assert_eq(sbx(&o, (char *[]){ "probe", "--json", NULL }), 0);
	j = json_loads(o.out, 0, &je);
	cr_assert_str_eq(json_string_value(json_object_get(j, "version")), version());
	json_decref(j);
	e2e_out_free(&o);
}

/* usage on stdout, nothing on stderr, exit 0 */
static char *help_of(char *const args[])
{
	struct e2e_out o;
	int rc = sbx(&o, args);

	cr_assert_eq(rc, 0, "%s %s: exit %d: %s", args[0], args[1] ? args[1] : "", rc, o.err);
	cr_assert_eq(o.err_len, 0, "%s: stderr %s", args[0], o.err);
	cr_assert(strncmp(o.out, "usage: sbx ", 11) == 0, "%s: %.100s", args[0], o.out);
	char *out = strdup(o.out);

	e2e_out_free(&o);
	return out;
}

Test(cli, help)
{
	char *top = help_of((char *[]){ "help", NULL });

	cr_assert_str_eq(help_of((char *[]){ "--help", NULL }), top);
	cr_assert_str_eq(help_of((char *[]){ "-h", NULL }), top);
	/* Every subcommand takes --help, version too (sbx(1) says so). */
	cr_assert_str_eq(help_of((char *[]){ "version", "--help", NULL }), top);
	for (const char *const *sub = (const char *const[]){ "run", "serve", "mcp", "probe", NULL };
	     *sub; sub++) {
		char *own = help_of((char *[]){ (char *)*sub, "--help", NULL });
		char *want = e2e_fmt("usage: sbx %s", *sub);

		cr_assert(strncmp(own, want, strlen(want)) == 0, "%s", own);
		cr_assert(strstr(top, want + 7), "sbx help does not mention %s", *sub);
		cr_assert_str_eq(help_of((char *[]){ "help", (char *)*sub, NULL }), own);
		cr_assert_str_eq(help_of((char *[]){ (char *)*sub, "-h", NULL }), own);
		free(want);
	}
	/* --help wins over the rest of the line, before `--` only. */
	cr_assert(strstr(help_of((char *[]){ "run", "--bogus", "--help", NULL }), "--timeout"));
	struct e2e_out o;

	cr_assert_eq(sbx(&o, (char *[]){ "run", "--mode", "danger-full-access", "--", "echo",
					 "--help", NULL }),
		     0);
	cr_assert_str_eq(o.out, "--help\n");
	e2e_out_free(&o);
}

/* The options sbx(1) documents for sbx run, and those sbx run --help lists,
 * are the same set. */
Test(cli, run_help_matches_man_page)
{
	char *man = source_file("man/sbx.1");
	char *help = help_of((char *[]){ "run", "--help", NULL });
	char *opts = strstr(man, "\n.SH OPTIONS");
	char *end = opts ? strstr(opts + 1, "\n.SH ") : NULL;
	size_t n_man = 0;

	cr_assert(opts && end);
	*end = '\0';
	for (char *p = opts; (p = strstr(p, "\n.TP\n")); p++) {
		char name[64];
		const char *q = strstr(p + 5, "\\-\\-");

		cr_assert_not_null(q);
		size_t k = 0;

		name[k++] = '-';
		name[k++] = '-';
		for (q += 4; k < sizeof(name) - 1 && (*q == '\\' || *q == '-' || (*q >= 'a' && *q <= 'z'));
		     q++)
			if (*q != '\\')
				name[k++] = *q;
		name[k] = '\0';
		char *line = e2e_fmt("\n  %s ", name);

		cr_assert(strstr(help, line), "sbx(1) documents %s, sbx run --help does not list it",
			  name);
		free(line);
		n_man++;
	}
	size_t n_help = 0;

	for (char *p = help; (p = strstr(p, "\n  --")); p++)
		n_help++;
	/* --help itself is in the help only. */
	cr_assert_eq(n_help, n_man + 1, "sbx run --help lists %zu options, sbx(1) %zu", n_help,
		     n_man);
}

/* Errors: exit 125, stdout empty, one "sbx: USAGE: ..." line that says what to do. */
static void usage_error(char *const args[], const char *says)
{
	struct e2e_out o;
	int rc = sbx(&o, args);

	cr_assert_eq(rc, 125, "exit %d", rc);
	cr_assert_eq(o.out_len, 0, "stdout: %s", o.out);
	cr_assert(strstr(o.err, says), "stderr lacks '%s': %s", says, o.err);
	e2e_out_free(&o);
}

Test(cli, errors_say_what_to_do)
{
	usage_error((char *[]){ NULL }, "sbx: USAGE: missing subcommand (run, serve, mcp, probe, version or help)");
	usage_error((char *[]){ "frobnicate", NULL },
		    "sbx: USAGE: unknown subcommand 'frobnicate' (run, serve, mcp, probe, version or help)");
	usage_error((char *[]){ "run", "--frob", "--", "true", NULL },
		    "sbx: USAGE: unknown option '--frob' (sbx run --help lists them)");
	usage_error((char *[]){ "run", "--timeout", NULL },
		    "sbx: USAGE: option '--timeout' needs a value (SECONDS)");
	/* A flag with a config key takes exactly the key's values, same message. */
	usage_error((char *[]){ "run", "--timeout", "1e3", "--", "true", NULL },
		    "sbx: USAGE: --timeout: bad value '1e3' (expected 0.001 to 604800 seconds)");
	usage_error((char *[]){ "run", "--output-limit", "1", "--", "true", NULL },
		    "sbx: USAGE: --output-limit: bad value '1' (expected 2 to 1G bytes (suffix k, m, "
		    "g or t: powers of 1024))");
	usage_error((char *[]){ "run", "--mode", "write", "--", "true", NULL },
		    "sbx: USAGE: --mode: bad value 'write' (expected read-only, workspace-write or "
		    "danger-full-access)");
	/* The working directory is named as the caller gave it: --cwd. */
	usage_error((char *[]){ "run", "--cwd", "/nonexistent-sbx-cwd", "--", "true", NULL },
		    "sbx: USAGE: --cwd /nonexistent-sbx-cwd: No such file or directory");
	usage_error((char *[]){ "run", "true", NULL },
		    "sbx: USAGE: missing '--' before the command (at 'true'): write sbx run [OPTIONS] -- COMMAND");
	usage_error((char *[]){ "serve", "--frob", NULL },
		    "sbx: USAGE: unknown option '--frob' (sbx serve --help lists them)");
	usage_error((char *[]){ "probe", "--frob", NULL },
		    "sbx: USAGE: unknown option '--frob' (sbx probe --help lists them)");
	usage_error((char *[]){ "mcp", "--frob", NULL },
		    "sbx: USAGE: unknown option '--frob' (sbx mcp --help lists them)");
	usage_error((char *[]){ "mcp", "--root", NULL }, "sbx: USAGE: --root needs a value");
	usage_error((char *[]){ "mcp", "--mode", "write", NULL },
		    "sbx: USAGE: --mode: bad value 'write' (expected read-only, workspace-write or "
		    "danger-full-access)");
	/* An empty value is never the option left out: a harness's `--root
	 * "$WS"` with WS unset ran a workspace-write run wherever it was
	 * (new-user pass 12, finding 4). */
	usage_error((char *[]){ "run", "--mode", "workspace-write", "--root", "", "--", "true", NULL },
		    "sbx: USAGE: option '--root' has an empty value (give DIR, or leave the option out)");
	usage_error((char *[]){ "run", "--root=", "--", "true", NULL },
		    "sbx: USAGE: option '--root' has an empty value");
	usage_error((char *[]){ "run", "--cwd", "", "--", "true", NULL },
		    "sbx: USAGE: option '--cwd' has an empty value");
	usage_error((char *[]){ "run", "--config", "", "--", "true", NULL },
		    "sbx: USAGE: option '--config' has an empty value");
	usage_error((char *[]){ "mcp", "--root", "", NULL },
		    "sbx: USAGE: --root has an empty value (give one, or leave the option out)");
	usage_error((char *[]){ "serve", "--config", "", NULL },
		    "sbx: USAGE: --config has an empty value");
	usage_error((char *[]){ "probe", "--config", "", NULL },
		    "sbx: USAGE: --config has an empty value (give a file, or leave the option out)");
	/* No --root from /: the message does not name a flag nobody gave
	 * (new-user pass 13, finding 10). (sbx() runs in /.) */
	usage_error((char *[]){ "run", "--mode", "workspace-write", "--", "true", NULL },
		    "if that is what you mean (the current directory: no --root was given)");
	usage_error((char *[]){ "run", "--mode", "workspace-write", "--root", "/", "--", "true", NULL },
		    "refusing root / with workspace-write: that is every file; give --root");
	usage_error((char *[]){ "help", "frob", NULL }, "sbx: USAGE: no help for 'frob'");
	usage_error((char *[]){ "version", "x", NULL }, "sbx: USAGE: 'version' takes no arguments");
}

/* With --json (run, probe) the usage error is also one JSON error object on
 * stdout (troubleshooting.md, choices.md); probe's said nothing there. */
static void usage_error_json(char *const args[], const char *says)
{
	struct e2e_out o;
	json_error_t je;
	int rc = sbx(&o, args);

	cr_assert_eq(rc, 125, "exit %d", rc);
	json_t *j = json_loads(o.out, 0, &je);
	cr_assert_not_null(j, "stdout is no JSON object (%s): '%s'", je.text, o.out);
	json_t *e = json_object_get(j, "error");
	cr_assert_str_eq(json_string_value(json_object_get(e, "code")), "USAGE");
	cr_assert(strstr(json_string_value(json_object_get(e, "message")), says), "%s", o.out);
	cr_assert(strstr(o.err, says), "stderr lacks '%s': %s", says, o.err);
	json_decref(j);
	e2e_out_free(&o);
}

Test(cli, json_usage_errors_are_json)
{
	usage_error_json((char *[]){ "run", "--json", "--frob", "--", "true", NULL },
			 "unknown option '--frob' (sbx run --help lists them)");
	usage_error_json((char *[]){ "probe", "--json", "--frob", NULL },
			 "unknown option '--frob' (sbx probe --help lists them)");
}

/* SBX_COLLECTOR takes io_uring or poll (sbx(1) ENVIRONMENT); any other
 * value is a usage error naming the variable, the value and what is
 * accepted, in every front end that collects output, before anything runs
 * (it was accepted in silence). */
Test(cli, bad_collector_is_refused, .timeout = 60)
{
	char *dir = e2e_tmpdir(AS_CALLER);
	char *cmd = e2e_fmt("touch %s/ran", dir);
	char *ran = e2e_fmt("%s/ran", dir);
	char *env[] = { "SBX_COLLECTOR=bogus", NULL };
	const char *says = "sbx: USAGE: SBX_COLLECTOR: bad value 'bogus' (expected io_uring or "
			   "poll, or unset for the default)";
	char *fronts[][10] = {
		{ (char *)e2e_sbx(), "run", "--mode", "danger-full-access", "--", cmd, NULL },
		{ (char *)e2e_sbx(), "run", "--json", "--mode", "danger-full-access", "--", cmd, NULL },
		{ (char *)e2e_sbx(), "serve", NULL },
		{ (char *)e2e_sbx(), "mcp", "--root", dir, NULL },
		{ (char *)e2e_sbx(), "probe", NULL },
	};
	for (size_t i = 0; i < sizeof(fronts) / sizeof(fronts[0]); i++) {
		struct e2e_out o;
		int rc = e2e_run(AS_CALLER, fronts[i], env, &o);

		cr_assert_eq(rc, 125, "%s: exit %d: %s", fronts[i][1], rc, o.err);
		cr_assert(strstr(o.err, says), "%s: stderr lacks '%s': %s", fronts[i][1], says, o.err);
		if (i == 1) {
			json_error_t je;
			json_t *j = json_loads(o.out, 0, &je);

			cr_assert_not_null(j, "run --json: stdout is no JSON (%s): '%s'", je.text, o.out);
			cr_assert_str_eq(json_string_value(json_object_get(
						 json_object_get(j, "error"), "code")), "USAGE");
			json_decref(j);
		} else {
			cr_assert_eq(o.out_len, 0, "%s: stdout: %s", fronts[i][1], o.out);
		}
		e2e_out_free(&o);
		cr_assert(!e2e_exists(ran), "%s: the command ran", fronts[i][1]);
	}
	/* the two values it takes are still taken */
	char *good[] = { "SBX_COLLECTOR=poll", NULL };
	struct e2e_out o;

	cr_assert_eq(e2e_run(AS_CALLER, fronts[0], good, &o), 0, "%s", o.err);
	e2e_out_free(&o);
	cr_assert(e2e_exists(ran));
	free(ran);
	free(cmd);
	free(dir);
}

/* A bad config value stops everything before the command: the message
 * names the file, the line, the key and what the key allows. */
Test(cli, config_error_names_file_line_key_range)
{
	static const struct {
		const char *text;
		const char *says; /* after "sbx: CONFIG: FILE:" */
	} cases[] = {
		{ "# the issue's example\noutput_limit = 1\n",
		  "2: output_limit: bad value '1' (expected 2 to 1G bytes (suffix k, m, g or t: powers "
		  "of 1024))" },
		{ "timeout = 1w\n", "1: timeout: bad value '1w' (expected 0.001 to 604800 seconds)" },
		{ "\n\nmode = write\n",
		  "3: mode: bad value 'write' (expected read-only, workspace-write or danger-full-access)" },
		{ "max_background = 0\n", "1: max_background: bad value '0' (expected 1 to 1024 tasks)" },
		{ "spill_max_age = 5\n",
		  "1: spill_max_age: bad value '5' (expected 60 to 31536000 seconds, or never)" },
		{ "outputlimit = 5\n",
		  "1: unknown key 'outputlimit' (did you mean 'output_limit'? see sbx.conf(5))" },
	};
	char *dir = e2e_tmpdir(AS_CALLER);
	char *conf = e2e_fmt("%s/sbx.conf", dir), *marker = e2e_fmt("%s/ran", dir);
	char *cmd = e2e_fmt("touch %s", marker);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct e2e_out o;
		char *want = e2e_fmt("sbx: CONFIG: %s:%s\n", conf, cases[i].says);

		cr_assert_eq(e2e_write_file(AS_CALLER, conf, cases[i].text), 0);
		int rc = sbx(&o, (char *[]){ "run", "--config", conf, "--mode", "danger-full-access",
					     "--", cmd, NULL });

		cr_assert_eq(rc, 125);
		cr_assert_str_eq(o.err, want);
		cr_assert_not(e2e_exists(marker), "the command ran despite the bad config");
		e2e_out_free(&o);

		/* With --json the same error is also a JSON object on stdout. */
		rc = sbx(&o, (char *[]){ "run", "--json", "--config", conf, "--", cmd, NULL });
		cr_assert_eq(rc, 125);
		json_error_t je;
		json_t *j = json_loads(o.out, 0, &je);
		json_t *e = json_object_get(j, "error");

		cr_assert_str_eq(json_string_value(json_object_get(e, "code")), "CONFIG");
		cr_assert(strstr(json_string_value(json_object_get(e, "message")), cases[i].says));
		json_decref(j);
		e2e_out_free(&o);
		free(want);
	}
}

/* A missing root that came from the config's workspace_root says so: the
 * path is on no command line the user can look at. */
Test(cli, config_root_is_named_as_the_configs)
{
	char *dir = e2e_tmpdir(AS_CALLER);
	char *conf = e2e_fmt("%s/sbx.conf", dir);
	struct e2e_out o;

	cr_assert_eq(e2e_write_file(AS_CALLER, conf, e2e_fmt("workspace_root = %s/gone\n", dir)), 0);
	cr_assert_eq(sbx(&o, (char *[]){ "run", "--config", conf, "--", "true", NULL }), 125);
	cr_assert(strstr(o.err, "(the config's workspace_root; --root overrides it)"), "%s", o.err);
	e2e_out_free(&o);
	/* A --root of the command line is not blamed on the config. */
	cr_assert_eq(sbx(&o, (char *[]){ "run", "--config", conf, "--root",
					 e2e_fmt("%s/alsogone", dir), "--", "true", NULL }),
		     125);
	cr_assert(strstr(o.err, "alsogone: No such file or directory\n"), "%s", o.err);
	cr_assert_not(strstr(o.err, "workspace_root"), "%s", o.err);
	e2e_out_free(&o);
}

/* A HOME under /tmp (a CI container's): the landlock runner cannot hide
 * sbx's state there in workspace-write, and no deny_read can take it out;
 * the refusal said to use "a deny_read without it" (new-user pass 2, issue
 * 32). It now names the way that works. */
Test(cli, state_in_tmp_refusal_names_the_fix)
{
	char tmpl[] = "/tmp/sbx-e2e-home-XXXXXX";
	struct e2e_out o;

	cr_assert(mkdtemp(tmpl));
	char *root = e2e_tmpdir(AS_CALLER);
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", "landlock", "--mode",
			 "workspace-write", "--root", root, "--", "true", NULL };
	char *env[] = { e2e_fmt("HOME=%s", tmpl), "XDG_CACHE_HOME=", NULL };
	int rc = e2e_run(AS_CALLER, argv, env, &o);

	cr_expect_eq(rc, 125, "exit %d: %s", rc, o.err);
	cr_expect(strstr(o.err, "(sbx's state)") &&
			  strstr(o.err, "a HOME and XDG_CACHE_HOME outside /tmp") &&
			  !strstr(o.err, "deny_read"),
		  "stderr: %s", o.err);
	e2e_out_free(&o);
	e2e_rm_rf(tmpl);
}

/* An XDG_CACHE_HOME in /tmp that did not exist yet: sbx's state directory
 * there was not made at the start of a landlock run, whose command could
 * write /tmp, so the command made it itself (0755, its own), and every
 * later landlock run was refused over it (new-user pass 2, finding 3). The
 * run now makes it first (0700), so the first run is refused as every
 * later one is, and the command never runs. */
/* A landlock workspace-write run whose command tries to make sbx's state
 * directory `state` itself (with `planted` in it) under the environment
 * env: refused before the command runs, the directory made by sbx (0700)
 * and nothing of the command's in it. */
static void expect_state_not_left(int who, char *const env[], const char *state,
				  const char *planted)
{
	char *root = e2e_tmpdir(who);
	char *cmd = e2e_fmt("mkdir -p %s/%s && touch %s/ran", state, planted, root);
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", "landlock", "--mode",
			 "workspace-write", "--root", root, "--", cmd, NULL };
	struct e2e_out o;
	struct stat st;
	int rc = e2e_run(who, argv, env, &o);

	cr_expect_eq(rc, 125, "[%s] exit %d: %s", e2e_user_name(who), rc, o.err);
	cr_expect(strstr(o.err, "(sbx's state)"), "[%s] stderr: %s", e2e_user_name(who), o.err);
	cr_expect_neq(access(e2e_fmt("%s/ran", root), F_OK), 0, "[%s] the command ran",
		      e2e_user_name(who));
	cr_assert_eq(lstat(state, &st), 0, "[%s] %s missing", e2e_user_name(who), state);
	cr_expect_eq(st.st_mode & 07777, 0700, "[%s] %s is %o: not made by sbx", e2e_user_name(who),
		     state, st.st_mode & 07777);
	cr_expect_eq(lstat(e2e_fmt("%s/%s", state, planted), &st), -1, "[%s] the command made %s/",
		     e2e_user_name(who), planted);
	e2e_out_free(&o);
}

Test(cli, missing_cache_home_in_tmp_is_not_left_to_the_command)
{
	for (int who = AS_CALLER; who <= AS_NOBODY; who++) {
		char tmpl[] = "/tmp/sbx-e2e-xdg-" "XXXXXX";

		cr_assert(mkdtemp(tmpl));
		cr_assert_eq(chmod(tmpl, 01777), 0);
		char *cache = e2e_fmt("%s/cache", tmpl);
		char *env[] = { e2e_fmt("HOME=%s", e2e_tmpdir(who)),
				e2e_fmt("XDG_CACHE_HOME=%s", cache), NULL };

		expect_state_not_left(who, env, e2e_fmt("%s/sbx", cache), "protect");
		e2e_rm_rf(tmpl);
	}
}

/* The same for a HOME not made yet below a directory of the caller's own in
 * /tmp (not one everyone may write): a landlock run's command made
 * HOME/.cache/sbx there, and every later landlock run was refused over it
 * (new-user pass 6, finding 1). */
Test(cli, missing_home_in_own_tmp_dir_is_not_left_to_the_command)
{
	for (int who = AS_CALLER; who <= AS_NOBODY; who++) {
		char *top = e2e_fmt("/tmp/sbx-e2e-ownhome-%d-%s", (int)getpid(), e2e_user_name(who));
		char *home = e2e_fmt("%s/home", top);
		char *env[] = { e2e_fmt("HOME=%s", home), "XDG_CACHE_HOME=", NULL };

		e2e_rm_rf(top);
		cr_assert_eq(e2e_mkdir(who, top), 0);
		expect_state_not_left(who, env, e2e_fmt("%s/.cache/sbx", home), "planted");
		e2e_rm_rf(top);
	}
}

/* A cache_dir the run cannot use was dropped without a word: the command
 * found no tool cache and no variable pointing to one (new-user pass 6,
 * finding 5). A missing one and one inside the root are refused, naming
 * the fix; one that works holds the root's cache. */
Test(cli, cache_dir_unusable_is_refused)
{
	for (int who = AS_CALLER; who <= AS_NOBODY; who++) {
		char *base = e2e_tmpdir(who), *root = e2e_fmt("%s/ws", base);
		char *inside = e2e_fmt("%s/cache", root), *good = e2e_fmt("%s/caches", base);
		const char *dirs[] = { e2e_fmt("%s/missing", base), inside, good };
		const char *says[] = { "No such file or directory: make the directory",
				       "lies inside the root", NULL };
		struct e2e_out o;

		cr_assert(e2e_mkdir(who, root) == 0 && e2e_mkdir(who, inside) == 0 &&
			  e2e_mkdir(who, good) == 0);
		for (int i = 0; i < 3; i++) {
			char *conf = e2e_fmt("%s/c%d.conf", base, i);

			cr_assert(e2e_write_file(who, conf, e2e_fmt("cache_dir = %s\n", dirs[i])) == 0);
			char *argv[] = { (char *)e2e_sbx(), "run", "--config", conf, "--mode",
					 "workspace-write", "--root", root, "--",
					 "echo cached > \"$XDG_CACHE_HOME/f\" && touch ran", NULL };
			int rc = e2e_run(who, argv, NULL, &o);

			if (says[i]) {
				cr_expect(rc == 125 && strstr(o.err, "CONFIG") &&
						  strstr(o.err, says[i]),
					  "[%s] cache_dir %s: exit %d: %s", e2e_user_name(who),
					  dirs[i], rc, o.err);
				cr_expect(!e2e_exists(e2e_fmt("%s/ran", root)),
					  "[%s] the command ran with cache_dir %s",
					  e2e_user_name(who), dirs[i]);
			} else {
				char *ls[] = { "sh", "-c", e2e_fmt("cat %s/*/f", good), NULL };
				struct e2e_out l;

				cr_expect_eq(rc, 0, "[%s] exit %d: %s", e2e_user_name(who), rc, o.err);
				e2e_run(AS_CALLER, ls, NULL, &l);
				cr_expect(strstr(l.out, "cached"), "[%s] nothing in %s: %s",
					  e2e_user_name(who), good, l.err);
				e2e_out_free(&l);
			}
			e2e_out_free(&o);
		}
	}
}

/* A config path from $SBX_CONFIG that cannot be read: the error said only
 * the path, which the user never typed (new-user pass 2, issue 32). */
Test(cli, config_from_env_named)
{
	struct e2e_out o;
	char *argv[] = { (char *)e2e_sbx(), "run", "--", "true", NULL };
	char *env[] = { "SBX_CONFIG=/nonexistent-sbx-config", NULL };
	int rc = e2e_run(AS_CALLER, argv, env, &o);

	cr_expect_eq(rc, 125, "exit %d: %s", rc, o.err);
	cr_expect(strstr(o.err, "/nonexistent-sbx-config") && strstr(o.err, "$SBX_CONFIG"),
		  "stderr: %s", o.err);
	e2e_out_free(&o);
}

/* A relative --root or --cwd taken from / was printed "//relative" in the
 * error (new-user pass 10): one slash, as the path is. */
Test(cli, relative_path_from_slash_has_one_slash)
{
	const char *cmds[] = {
		"cd / && exec \"$0\" run --root sbx-e2e-no-such-dir -- true",
		"cd / && exec \"$0\" run --root / --cwd sbx-e2e-no-such-dir -- true",
		"cd / && exec \"$0\" mcp --root sbx-e2e-no-such-dir </dev/null",
	};

	for (size_t i = 0; i < 3; i++) {
		char *argv[] = { "/bin/sh", "-c", (char *)cmds[i], (char *)e2e_sbx(), NULL };
		struct e2e_out o;
		int rc = e2e_run(AS_CALLER, argv, NULL, &o);

		cr_expect(rc != 0 && strstr(o.err, " /sbx-e2e-no-such-dir: No such file") &&
				  !strstr(o.err, "//"),
			  "%s: %d %s", cmds[i], rc, o.err);
		e2e_out_free(&o);
	}
}

/* serve's --spill-max-age takes the config key's grammar (decimals,
 * never), from 1 second: it took whole seconds only, where the key takes
 * both (new-user pass 10). */
Test(cli, serve_spill_max_age_takes_the_keys_grammar)
{
	const char *good[] = { "1.5", "never", "2", "31536000" };
	const char *bad[] = { "0.5", "x", "31536000.5", "-1" };

	for (size_t i = 0; i < 4; i++) {
		for (int b = 0; b < 2; b++) {
			const char *v = b ? bad[i] : good[i];
			char *argv[] = { "/bin/sh", "-c", "exec \"$0\" serve --spill-max-age \"$1\" </dev/null",
					 (char *)e2e_sbx(), (char *)v, NULL };
			struct e2e_out o;
			int rc = e2e_run(AS_CALLER, argv, NULL, &o);

			if (b)
				cr_expect(rc == 125 && strstr(o.err, "decimals allowed, or never"),
					  "--spill-max-age %s: %d %s", v, rc, o.err);
			else
				cr_expect(rc == 0, "--spill-max-age %s: %d %s", v, rc, o.err);
			e2e_out_free(&o);
		}
	}
}

/* The config's escalation = false is a ceiling for sbx run too: serve and
 * mcp refused --escalation past it, sbx run ran the command and offered
 * escalation (new-user pass 10). */
Test(cli, run_escalation_past_the_configs_ceiling_refused)
{
	char *base = e2e_tmpdir(AS_CALLER);
	char *conf = e2e_fmt("%s/sbx.conf", base), *ran = e2e_fmt("%s/ran", base);
	struct e2e_out o;

	cr_assert(e2e_write_file(AS_CALLER, conf, "escalation = false\n") == 0);
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", conf, "--escalation", "--root", base,
			 "--", e2e_fmt("touch %s", ran), NULL };
	int rc = e2e_run(AS_CALLER, argv, NULL, &o);

	cr_expect(rc == 125 && strstr(o.err, "sbx: CONFIG: --escalation: escalation is off"),
		  "%d %s", rc, o.err);
	cr_expect(!e2e_exists(ran), "the command ran");
	e2e_out_free(&o);
	argv[4] = "--json";
	rc = e2e_run(AS_CALLER, argv, NULL, &o);
	cr_expect(rc == 1 && !strstr(o.out, "escalation available"), "without it: %d %s", rc, o.out);
	e2e_out_free(&o);
}

/* sbx inside another sbx's run, as root: the probe blamed a container's
 * seccomp profile for the refused user namespace and the kernel's version
 * for openat2 on a kernel that has it (new-user pass 10). Both name the
 * outer sandbox now. A caller who is not root keeps nested user namespaces
 * (the outer run refuses them to root only): its probe says so. */
Test(cli, probe_inside_sbx_names_the_outer_sandbox, .timeout = 60)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--", e2e_fmt("%s probe", e2e_sbx()), NULL };
	struct e2e_out o;

	e2e_run(AS_CALLER, argv, NULL, &o);
	if (e2e_uid(AS_CALLER) != 0)
		cr_expect(strstr(o.out, "user namespaces: yes"), "%s", o.out);
	else
		cr_expect(strstr(o.out, "user namespaces: no:") && strstr(o.out, "an outer sbx's"),
			  "%s", o.out);
	cr_expect(!strstr(o.out, "(Linux 5.6+): not available") && !strstr(o.out, "(needs Linux"), "%s",
		  o.out);
	e2e_out_free(&o);
}

/* The same as nobody inside a namespace run (new-user pass 12, finding 3):
 * the inner namespace runner fails while setting up, the landlock runner
 * confines, and probe said "instead: none: no other runner can either"
 * beside "landlock runner: yes". It names the runner that works. Whether
 * the inner namespace runner fails here depends on the host's mounts at
 * the time (EBUSY): tests/unit/test_probe_explain.c holds the words
 * whatever the host does. */
Test(cli, probe_inside_sbx_names_the_runner_that_works, .timeout = 60)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", "namespace", "--",
			 e2e_fmt("%s probe", e2e_sbx()), NULL };
	struct e2e_out o;

	e2e_run(AS_NOBODY, argv, NULL, &o);
	cr_assert(strstr(o.out, "landlock runner: yes"), "the inner landlock runner: %s", o.out);
	cr_expect(!strstr(o.out, "no other runner can either"), "%s", o.out);
	cr_expect(!strstr(o.out, "namespace runner: no") || strstr(o.out, "--runner landlock"),
		  "%s", o.out);
	e2e_out_free(&o);
}

/* A workspace-write sbx inside another sbx's read-only run cannot record
 * itself in its state directory: that was an INTERNAL error, sbx's own
 * failure; it is the sandbox that cannot keep its promise there, and the
 * message says where to run (new-user pass 10). The command does not run. */
Test(cli, state_not_writable_is_sandbox_unavailable, .timeout = 60)
{
	char *base = e2e_tmpdir(AS_CALLER);
	char *inner = e2e_fmt("%s run --json --mode workspace-write --root %s -- 'touch %s/ran'",
			      e2e_sbx(), base, base);
	char *argv[] = { (char *)e2e_sbx(), "run", "--root", base, "--", inner, NULL };
	struct e2e_out o;
	int rc = e2e_run(AS_CALLER, argv, NULL, &o);

	cr_expect(rc == 125 && strstr(o.out, "\"SANDBOX_UNAVAILABLE\"") &&
			  strstr(o.out, "another sandbox's read-only view"),
		  "%d %s %s", rc, o.out, o.err);
	cr_expect(!e2e_exists(e2e_fmt("%s/ran", base)), "the command ran");
	e2e_out_free(&o);
}

/* Another user who made /var/tmp/sbx-UID first (adversarial pass 9,
 * finding 14): a caller whose home is the root (so ~/.cache/sbx is passed
 * over) had no state directory at all, and ran unrecorded: a git directory
 * staged by one run was moved in by the next. Refused, naming the squatted
 * directory; with a directory of the caller's own, the run goes. A uid of
 * its own (no passwd entry) so that no other test's state is touched. */
Test(cli, squatted_state_directory_is_sandbox_unavailable, .timeout = 60)
{
	const unsigned uid = 42425;
	char *home = e2e_tmpdir(AS_CALLER);
	char *squat = e2e_fmt("/var/tmp/sbx-%u", uid);
	char *run = e2e_fmt("setpriv --reuid=%u --regid=%u --clear-groups env -u XDG_CACHE_HOME "
			    "HOME=%s %s run --json --runner namespace --mode workspace-write --root %s "
			    "-- 'touch ran'",
			    uid, uid, home, e2e_sbx(), home);
	char *argv[] = { "sh", "-c", run, NULL };
	struct e2e_out o;

	cr_assert(chown(home, uid, uid) == 0 && chmod(home, 0755) == 0);
	cr_assert(system(e2e_fmt("rm -rf %s && mkdir -m 700 %s", squat, squat)) == 0);
	int rc = e2e_run(AS_CALLER, argv, NULL, &o);

	cr_expect(rc == 125 && strstr(o.out, "\"SANDBOX_UNAVAILABLE\"") && strstr(o.out, squat),
		  "%d %s %s", rc, o.out, o.err);
	cr_expect(!e2e_exists(e2e_fmt("%s/ran", home)), "the command ran, unrecorded");
	e2e_out_free(&o);
	cr_assert(system(e2e_fmt("rm -rf %s && mkdir -m 700 %s && chown %u:%u %s", squat, squat, uid,
				 uid, squat)) == 0);
	rc = e2e_run(AS_CALLER, argv, NULL, &o);
	cr_expect(rc == 0 && e2e_exists(e2e_fmt("%s/ran", home)), "with its own: %d %s %s", rc,
		  o.out, o.err);
	e2e_out_free(&o);
	cr_assert(system(e2e_fmt("rm -rf %s", squat)) == 0);
}
