/* SPDX-License-Identifier: MIT */
/* The command's environment (engine/env.c): real-world credential names
 * that must not reach the command, names that must, URLs with a password
 * decided by value, and the shell start-up variables confined modes drop.
 * Table-driven: one row per name, checked through env_build, the function
 * the run uses. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

/* Whether NAME=VALUE survives env_build(confined). */
static bool passes(const char *name, const char *value, bool confined)
{
	char kv[512];
	char *in[] = { kv, NULL };
	char **out;
	bool found = false;

	snprintf(kv, sizeof(kv), "%s=%s", name, value);
	out = env_build(in, NULL, 0, confined);
	cr_assert_not_null(out);
	for (char **p = out; *p; p++)
		if (strcmp(*p, kv) == 0)
			found = true;
	env_free(out);
	return found;
}

/* Real-world names seen in CI systems, cloud SDKs and tool docs. */
static const char *const must_go[] = {
	"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_KEY", "AZURE_OPENAI_API_KEY",
	"OPENAI_KEY", "STRIPE_KEY", "GOOGLE_API_KEY", "MAPBOX_APIKEY", "api_key", "API_KEY",
	"GITHUB_TOKEN", "GH_TOKEN", "HF_TOKEN", "NPM_TOKEN", "github_token", "SLACK_BOT_TOKEN",
	"AWS_SESSION_TOKEN", "VAULT_TOKEN", "TOKEN", "CODECOV_TOKEN_V2",
	"npm_config__authToken", "npm_config_//registry.npmjs.org/:_authToken",
	"NPM_AUTH_TOKEN", "YARN_NPM_AUTH_TOKEN", "npm_config__auth", "BASIC_AUTH",
	"CI_JOB_JWT", "CI_JOB_JWT_V1", "CI_JOB_JWT_V2", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "JWT",
	"GITHUB_PAT", "GH_PAT", "AZURE_DEVOPS_EXT_PAT",
	"CLIENT_SECRET", "AZURE_CLIENT_SECRET", "SECRET_KEY_BASE", "DJANGO_SECRET_KEY",
	"AWS_SECRET_ACCESS_KEY", "SECRET",
	"DB_PASSWORD", "PGPASSWORD", "MYSQL_PWD", "MYSQL_ROOT_PASSWORD", "REDIS_PASSWD",
	"SMTP_PASS", "GPG_PASSPHRASE", "ANSIBLE_VAULT_PASSWORD_FILE",
	"AWS_ACCESS_KEY_ID", "SSH_PRIVATE_KEY", "GOOGLE_APPLICATION_CREDENTIALS",
	"AZURE_STORAGE_CONNECTION_STRING", "SESSION_COOKIE",
	/* adversarial pass 9, finding 04 */
	"DOCKER_AUTH_CONFIG", "BUNDLE_GEMS__CONTRIBSYS__COM", "BUNDLE_RUBYGEMS__PKG__GITHUB__COM",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_COUNT",
	NULL,
};

static const char *const must_pass[] = {
	"PATH", "HOME", "TERM", "KEYMAP", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "LANG", "LC_ALL",
	"LANGUAGE", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "EDITOR", "VISUAL", "PAGER",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
	"DBUS_SESSION_BUS_ADDRESS", "COLORTERM", "LS_COLORS", "TZ", "MANPATH", "INFOPATH",
	"GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "NODE_OPTIONS",
	"PYTHONPATH", "VIRTUAL_ENV", "JAVA_HOME", "KUBECONFIG", "AWS_PROFILE", "AWS_REGION",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GPG_TTY", "CI",
	"GITHUB_ACTIONS", "HOSTNAME", "SHLVL", "HISTFILE", "TOKENIZERS_PARALLELISM",
	"KEYBOARD_LAYOUT", "MONKEY", "PASSENGER_APP_ENV", "PROXY_BYPASS", "KEY_REPEAT",
	"HTTP_PROXY", "NO_PROXY", "PIP_INDEX_URL", "DATABASE_URL", "REDIS_URL",
	"BUNDLE_PATH", "BUNDLE_GEMFILE", "BUNDLE_WITHOUT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
	NULL,
};

Test(env, credential_names_are_dropped)
{
	for (const char *const *n = must_go; *n; n++) {
		cr_expect(!passes(*n, "value", true), "%s reached a confined command", *n);
		cr_expect(!passes(*n, "value", false), "%s reached an unconfined command", *n);
	}
}

Test(env, ordinary_names_pass)
{
	for (const char *const *n = must_pass; *n; n++) {
		cr_expect(passes(*n, "plain-value", true), "%s was dropped in a confined mode", *n);
		cr_expect(passes(*n, "plain-value", false), "%s was dropped unconfined", *n);
	}
}

static const struct {
	const char *value;
	bool password;
} urls[] = {
	{ "postgres://app:s3cret@db.internal:5432/app", true },
	{ "postgresql://user:p%40ss@localhost/db?sslmode=require", true },
	{ "mysql://root:root@127.0.0.1:3306/test", true },
	{ "redis://:hunter2@cache:6379/0", true },
	{ "mongodb+srv://u:p@cluster0.example.net/?retryWrites=true", true },
	{ "amqp://guest:guest@rabbit//", true },
	{ "http://proxyuser:proxypass@proxy.corp:3128", true },
	{ "https://__token__:pypi-AgEIcHlwaS5vcmc@upload.pypi.org/legacy/", true },
	{ "https://pypi.org/simple https://u:p@private.example/simple", true },
	{ "https://x-access-token:ghs_abc@github.com/org/repo.git", true },
	{ "https://pypi.org/simple", false },
	{ "http://proxy.corp:3128", false },
	{ "ssh://git@github.com/org/repo.git", false },
	{ "git@github.com:org/repo.git", false },
	{ "https://example.com/path?q=a:b@c", false },
	{ "unix:path=/run/user/1000/bus", false },
	{ "/usr/local/bin:/usr/bin:/bin", false },
	{ "", false },
};

Test(env, urls_with_a_password_are_dropped_by_value)
{
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		cr_expect_eq(env_value_has_password(urls[i].value), urls[i].password, "%s: %s",
			     urls[i].value, urls[i].password ? "not detected" : "false alarm");
		/* Whatever the name is called. */
		cr_expect_eq(passes("SOME_SETTING", urls[i].value, true), !urls[i].password,
			     "SOME_SETTING=%s", urls[i].value);
		cr_expect_eq(passes("DATABASE_URL", urls[i].value, false), !urls[i].password,
			     "DATABASE_URL=%s", urls[i].value);
	}
}

Test(env, shell_startup_dropped_in_confined_modes_only)
{
	static const char *const startup[] = {
		"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND",
		"BASH_FUNC_ls%%", "BASH_FUNC_x()", NULL,
	};

	for (const char *const *n = startup; *n; n++) {
		cr_expect(!passes(*n, "/work/evil.sh", true), "%s reached a confined command", *n);
		cr_expect(passes(*n, "/work/evil.sh", false),
			  "%s was dropped in danger-full-access (CONTRACT section 9: confined only)",
			  *n);
	}
	/* Near misses pass. */
	cr_expect(passes("ENVIRONMENT", "prod", true));
	cr_expect(passes("MY_ENV", "prod", true));
	cr_expect(passes("BASH_VERSION_PIN", "5", true));
}

Test(env, tmpdir_points_to_tmp_when_confined)
{
	char *in[] = { "TMPDIR=/home/u/tmp", "PATH=/bin", NULL };
	char **out = env_build(in, NULL, 0, true);
	bool tmp = false, path = false;

	cr_assert_not_null(out);
	for (char **p = out; *p; p++) {
		tmp |= strcmp(*p, "TMPDIR=/tmp") == 0;
		path |= strcmp(*p, "PATH=/bin") == 0;
		cr_expect(strcmp(*p, "TMPDIR=/home/u/tmp") != 0);
	}
	cr_expect(tmp && path);
	env_free(out);
}

Test(env, deployment_patterns_add_to_the_list)
{
	const char *extra[] = { "ACME_*" };
	char *in[] = { "ACME_THING=x", "acme_other=y", "PATH=/bin", NULL };
	char **out = env_build(in, extra, 1, true);
	size_t n = 0;

	cr_assert_not_null(out);
	for (char **p = out; *p; p++) {
		cr_expect(strncmp(*p, "ACME_", 5) != 0 && strncmp(*p, "acme_", 5) != 0, "%s", *p);
		n++;
	}
	cr_expect_eq(n, 2); /* PATH and TMPDIR */
	env_free(out);
}
