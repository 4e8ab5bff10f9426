/* SPDX-License-Identifier: MIT */
/* policy/resolve.c, policy/pattern.c, policy/modes.c. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

static struct sbx_config cfg;
static struct sbx_policy pol;
static struct sbx_error err;

static void load(const char *text)
{
	int rc = config_parse_buffer("t.conf", text, strlen(text), &cfg, &err);
	cr_assert_eq(rc, 0, "%s", err.message);
}

static void expect_usage(int rc, const char *message)
{
	cr_assert_lt(rc, 0);
	cr_assert_str_eq(err.code, "USAGE");
	cr_assert_str_eq(err.message, message);
	cr_assert_eq(pol.mode, SBX_MODE_READ_ONLY);
	cr_assert_str_eq(pol.root, "");
}

/* ---- resolution table ---- */

struct resolve_case {
	const char *config;
	const char *root;	/* session root, NULL: none */
	int mode;		/* session mode, -1: no override */
	const char *escalation;
	enum sbx_mode want_mode;
	const char *want_root;
};

static const struct resolve_case resolve_cases[] = {
	/* deployment only */
	{ "workspace_root = /srv/w", NULL, -1, NULL, SBX_MODE_READ_ONLY, "/srv/w" },
	{ "mode = workspace-write\nworkspace_root = /srv/w", NULL, -1, NULL,
	  SBX_MODE_WORKSPACE_WRITE, "/srv/w" },
	/* the session's root and mode win */
	{ "mode = workspace-write\nworkspace_root = /srv/w", "/p1", -1, NULL,
	  SBX_MODE_WORKSPACE_WRITE, "/p1" },
	{ "mode = workspace-write\nworkspace_root = /srv/w", "/p1", SBX_MODE_READ_ONLY, NULL,
	  SBX_MODE_READ_ONLY, "/p1" },
	{ "", "/p2", SBX_MODE_DANGER_FULL_ACCESS, NULL, SBX_MODE_DANGER_FULL_ACCESS, "/p2" },
	{ "", "/p2", -1, NULL, SBX_MODE_READ_ONLY, "/p2" },
	/* escalation replaces the mode and keeps the root */
	{ "", "/p1", SBX_MODE_READ_ONLY, "workspace-write", SBX_MODE_WORKSPACE_WRITE, "/p1" },
	{ "", "/p1", SBX_MODE_WORKSPACE_WRITE, "danger-full-access", SBX_MODE_DANGER_FULL_ACCESS,
	  "/p1" },
	{ "workspace_root = /srv/w", NULL, -1, "danger-full-access", SBX_MODE_DANGER_FULL_ACCESS,
	  "/srv/w" },
	/* an escalation to a narrower mode is what it says: the mode is replaced */
	{ "", "/p1", SBX_MODE_DANGER_FULL_ACCESS, "workspace-write", SBX_MODE_WORKSPACE_WRITE,
	  "/p1" },
	/* "/" is not refused here: the launcher does that after realpath */
	{ "", "/", SBX_MODE_WORKSPACE_WRITE, NULL, SBX_MODE_WORKSPACE_WRITE, "/" },
};

Test(resolve, table)
{
	for (size_t i = 0; i < sizeof(resolve_cases) / sizeof(resolve_cases[0]); i++) {
		const struct resolve_case *c = &resolve_cases[i];
		struct sbx_session s = { .root = c->root };
		if (c->mode >= 0) {
			s.has_mode = true;
			s.mode = (enum sbx_mode)c->mode;
		}
		load(c->config);
		int rc = policy_resolve(&cfg, &s, c->escalation, &pol, &err);
		cr_assert_eq(rc, 0, "case %zu: %s", i, err.message);
		cr_assert_eq(pol.mode, c->want_mode, "case %zu: mode %d", i, (int)pol.mode);
		cr_assert_str_eq(pol.root, c->want_root, "case %zu", i);
	}
}

Test(resolve, defaults)
{
	struct sbx_session s = { .root = "/p" };
	load("");
	cr_assert_eq(policy_resolve(&cfg, &s, NULL, &pol, &err), 0);
	cr_assert_eq(pol.mode, SBX_MODE_READ_ONLY);
	cr_assert_eq(pol.runner, SBX_RUNNER_AUTO);
	cr_assert_not(pol.escalation);
	cr_assert_eq(pol.output_limit, POLICY_DEFAULT_OUTPUT_LIMIT);
	cr_assert_eq(pol.timeout_ms, 0);
	cr_assert_eq(pol.net, SBX_NET_ALLOW);
	cr_assert_eq(pol.max_background, POLICY_DEFAULT_MAX_BACKGROUND);
	cr_assert_eq(pol.n_scrub, 0);

	/* No config at all and no session object mean the same defaults. */
	cr_assert_eq(policy_resolve(NULL, &s, NULL, &pol, &err), 0);
	cr_assert_eq(pol.output_limit, POLICY_DEFAULT_OUTPUT_LIMIT);
	cr_assert_eq(pol.max_background, POLICY_DEFAULT_MAX_BACKGROUND);
	load("workspace_root = /w");
	cr_assert_eq(policy_resolve(&cfg, NULL, NULL, &pol, &err), 0);
	cr_assert_str_eq(pol.root, "/w");
}

Test(resolve, config_values_carried)
{
	struct sbx_session s = { .root = "/p" };
	load("runner = namespace\nescalation = true\noutput_limit = 100\ntimeout = 2.5\n"
	     "net = none\nmax_background = 3\nscrub_env = *_API_KEY,*_SECRET*\n");
	cr_assert_eq(policy_resolve(&cfg, &s, "danger-full-access", &pol, &err), 0);
	cr_assert_eq(pol.runner, SBX_RUNNER_NAMESPACE);
	cr_assert(pol.escalation);
	cr_assert_eq(pol.output_limit, 100);
	cr_assert_eq(pol.timeout_ms, 2500);
	cr_assert_eq(pol.net, SBX_NET_NONE);
	cr_assert_eq(pol.max_background, 3);
	cr_assert_eq(pol.n_scrub, 2);
	cr_assert_str_eq(pol.scrub_env[0], "*_API_KEY");
	cr_assert_str_eq(pol.scrub_env[1], "*_SECRET*");
}

Test(resolve, bad_escalation)
{
	static const char *const bad[] = { "read-only", "", "Workspace-Write", "full",
					   "danger-full-access ", "workspace-write\n" };
	struct sbx_session s = { .root = "/p" };
	load("");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];
		snprintf(want, sizeof(want),
			 "bad sandbox_permissions '%s' (expected workspace-write or "
			 "danger-full-access)",
			 bad[i]);
		expect_usage(policy_resolve(&cfg, &s, bad[i], &pol, &err), want);
		cr_assert_str_eq(err.detail, bad[i]);
	}
}

Test(resolve, missing_root)
{
	struct sbx_session s = { .has_mode = true, .mode = SBX_MODE_WORKSPACE_WRITE };
	load("mode = workspace-write");
	expect_usage(policy_resolve(&cfg, &s, NULL, &pol, &err),
		     "no workspace root: give the session a root or set workspace_root in the "
		     "config");
	expect_usage(policy_resolve(&cfg, &s, "danger-full-access", &pol, &err),
		     "no workspace root: give the session a root or set workspace_root in the "
		     "config");
	expect_usage(policy_resolve(NULL, NULL, NULL, &pol, &err),
		     "no workspace root: give the session a root or set workspace_root in the "
		     "config");
}

Test(resolve, relative_root)
{
	struct sbx_session s = { .root = "work/p" };
	load("workspace_root = /srv/w");
	expect_usage(policy_resolve(&cfg, &s, NULL, &pol, &err),
		     "workspace root must be an absolute path: 'work/p'");
	s.root = "";
	expect_usage(policy_resolve(&cfg, &s, NULL, &pol, &err),
		     "workspace root must be an absolute path: ''");
	s.root = "./p";
	expect_usage(policy_resolve(&cfg, &s, "danger-full-access", &pol, &err),
		     "workspace root must be an absolute path: './p'");
}

Test(resolve, root_too_long)
{
	static char root[PATH_MAX + 1];
	memset(root, 'a', PATH_MAX);
	root[0] = '/';
	struct sbx_session s = { .root = root };
	int rc = policy_resolve(NULL, &s, NULL, &pol, &err);
	cr_assert_eq(rc, -ENAMETOOLONG);
	cr_assert_str_eq(err.code, "USAGE");
	root[PATH_MAX - 1] = '\0';
	cr_assert_eq(policy_resolve(NULL, &s, NULL, &pol, &err), 0);
	cr_assert_eq(strlen(pol.root), PATH_MAX - 1);
}

Test(resolve, invalid_session_mode)
{
	struct sbx_session s = { .root = "/p", .has_mode = true, .mode = (enum sbx_mode)7 };
	expect_usage(policy_resolve(NULL, &s, NULL, &pol, &err), "invalid mode 7");
}

/* ---- pattern_match ---- */

struct match_case {
	const char *pattern;
	const char *name;
	bool match;
};

static const struct match_case match_cases[] = {
	{ "*_API_KEY", "OPENAI_API_KEY", true },
	{ "*_API_KEY", "_API_KEY", true },
	{ "*_API_KEY", "API_KEY", false },
	{ "*_API_KEY", "OPENAI_API_KEY2", false },
	{ "*_API_KEY", "openai_api_key", false },
	{ "*_SECRET*", "AWS_SECRET_ACCESS_KEY", true },
	{ "*_SECRET*", "CLIENT_SECRET", true },
	{ "*_SECRET*", "SECRET", false },
	{ "*_SECRET*", "MY_SECRE", false },
	{ "*PASSWORD*", "PASSWORD", true },
	{ "*PASSWORD*", "DB_PASSWORD_FILE", true },
	{ "*PASSWORD*", "PASSWOR", false },
	{ "*PASSWORD*", "password", false },
	{ "GITHUB_TOKEN", "GITHUB_TOKEN", true },
	{ "GITHUB_TOKEN", "GITHUB_TOKENS", false },
	{ "GITHUB_TOKEN", "XGITHUB_TOKEN", false },
	{ "A*B*C", "ABC", true },
	{ "A*B*C", "AxxBxxC", true },
	{ "A*B*C", "AxxCxxB", false },
	{ "A*B*C", "ABCBC", true },
	{ "A*A", "A", false },
	{ "A*A", "AA", true },
	{ "*A*A*", "xAxAx", true },
	{ "*AB", "AAB", true },
	{ "*AAB", "AAAB", true },
	/* edges */
	{ "", "", true },
	{ "", "A", false },
	{ "A", "", false },
	{ "*", "", true },
	{ "*", "ANYTHING", true },
	{ "**", "", true },
	{ "**", "X", true },
	{ "A**", "A", true },
	{ "**A", "BA", true },
	{ "***A***", "A", true },
	{ "*", "*", true },
	{ "A", "*", false },
};

Test(pattern, table)
{
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *c = &match_cases[i];
		cr_assert_eq(pattern_match(c->pattern, c->name), c->match, "'%s' vs '%s'",
			     c->pattern, c->name);
	}
}

Test(pattern, null)
{
	cr_assert_not(pattern_match(NULL, "A"));
	cr_assert_not(pattern_match("A", NULL));
}

/* A pattern that would take exponential time with naive backtracking. */
Test(pattern, no_blowup, .timeout = 5)
{
	static char pat[POLICY_PATTERN_MAX], name[8192];
	for (size_t i = 0; i + 2 < sizeof(pat); i += 2) {
		pat[i] = '*';
		pat[i + 1] = 'A';
	}
	pat[sizeof(pat) - 2] = 'B';
	memset(name, 'A', sizeof(name) - 1);
	for (int i = 0; i < 100; i++)
		cr_assert_not(pattern_match(pat, name));
}

/* ---- names ---- */

Test(names, modes)
{
	enum sbx_mode m;
	for (int i = SBX_MODE_READ_ONLY; i <= SBX_MODE_DANGER_FULL_ACCESS; i++) {
		cr_assert_eq(sbx_mode_parse(sbx_mode_name((enum sbx_mode)i), &m), 0);
		cr_assert_eq(m, (enum sbx_mode)i);
	}
	cr_assert_str_eq(sbx_mode_name(SBX_MODE_WORKSPACE_WRITE), "workspace-write");
	cr_assert_str_eq(sbx_mode_name((enum sbx_mode)99), "unknown");
	cr_assert_eq(sbx_mode_parse("read_only", &m), -EINVAL);
	cr_assert_eq(sbx_mode_parse("", &m), -EINVAL);
	cr_assert_eq(sbx_mode_parse(NULL, &m), -EINVAL);
}

Test(names, runners)
{
	enum sbx_runner r;
	for (int i = SBX_RUNNER_AUTO; i <= SBX_RUNNER_LANDLOCK; i++) {
		cr_assert_eq(sbx_runner_parse(sbx_runner_name((enum sbx_runner)i), &r), 0);
		cr_assert_eq(r, (enum sbx_runner)i);
	}
	cr_assert_str_eq(sbx_runner_name(SBX_RUNNER_NONE), "none");
	cr_assert_str_eq(sbx_runner_name((enum sbx_runner)99), "unknown");
	cr_assert_eq(sbx_runner_parse("none", &r), -EINVAL);
	cr_assert_eq(sbx_runner_parse("Landlock", &r), -EINVAL);
}
