/* SPDX-License-Identifier: MIT */
/* The command's environment: sbx's own minus credentials (CONTRACT section 9). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "policy.h"

/* Matched against the upper-cased name, so `github_token` and
 * `npm_config__authToken` go too. docs/security.md lists these; keep the two
 * in step. Names that must pass (tests/unit/test_env.c): PATH, HOME, TERM,
 * KEYMAP, SSH_AUTH_SOCK (a path, not a secret), PWD, OLDPWD, LANG, ... */
const char *const env_builtin_scrub[] = {
	/* keys: OPENAI_API_KEY, AZURE_OPENAI_KEY, STRIPE_KEY, OPENAI_KEY */
	"*_API_KEY", "*_API_KEY_*", "*_APIKEY", "*_KEY", "API_KEY",
	/* tokens: GITHUB_TOKEN, HF_TOKEN, npm_config__authToken, NPM_AUTH_TOKEN */
	"*_TOKEN", "*_TOKEN_*", "TOKEN", "*_AUTHTOKEN", "*_AUTH_TOKEN*",
	/* npm_config__auth (base64 user:password), BASIC_AUTH, PROXY_AUTH */
	"*_AUTH",
	/* CI_JOB_JWT, CI_JOB_JWT_V2 */
	"*_JWT", "*_JWT_*", "JWT",
	/* personal access tokens: GITHUB_PAT, GH_PAT, AZURE_DEVOPS_EXT_PAT */
	"*_PAT",
	/* CLIENT_SECRET, SECRET_KEY_BASE, AWS_SECRET_ACCESS_KEY */
	"*SECRET*",
	/* DB_PASSWORD, MYSQL_PWD, SMTP_PASS, GPG_PASSPHRASE */
	"*PASSWORD*", "*PASSWD*", "*PASSPHRASE*", "*_PWD", "*_PASS",
	/* AWS_ACCESS_KEY_ID, *_PRIVATE_KEY_PATH, GOOGLE_APPLICATION_CREDENTIALS */
	"*_ACCESS_KEY*", "*_PRIVATE_KEY*", "*_CREDENTIALS*",
	/* AZURE_STORAGE_CONNECTION_STRING (carries AccountKey=), SESSION_COOKIE */
	"*CONNECTION_STRING*", "*_COOKIE",
	/* Registry logins and git's own config by environment (adversarial pass
	 * 9, finding 04): DOCKER_AUTH_CONFIG, Bundler's BUNDLE_<HOST> (user:pass,
	 * the host's dots as "__"; BUNDLE_PATH and its other settings stay),
	 * GIT_CONFIG_PARAMETERS and GIT_CONFIG_KEY_n/VALUE_n (an http.extraheader
	 * with a bearer token), with their COUNT, which git needs them for. */
	"*_AUTH_CONFIG", "BUNDLE_*__*", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_VALUE_*",
	"GIT_CONFIG_KEY_*", "GIT_CONFIG_COUNT",
	NULL,
};

/* In confined modes only: names whose value bash runs or obeys before the
 * command itself. A workspace file named by BASH_ENV (or ENV, for sh) would
 * run before every later command; SHELLOPTS/BASHOPTS switch on options such
 * as xtrace with a PS4 of the caller's; PROMPT_COMMAND and exported
 * functions (BASH_FUNC_name%%) are code. */
static const char *const shell_startup[] = {
	"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", NULL,
};
#define EXPORTED_FUNCTION_PREFIX "BASH_FUNC_"

bool env_name_scrubbed(const char *name, size_t name_len, const char *const *extra,
		       size_t n_extra)
{
	char upper[256];

	/* A name too long to check is not passed on: fail closed. */
	if (name_len >= sizeof(upper))
		return true;
	for (size_t i = 0; i < name_len; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[name_len] = '\0';
	for (const char *const *p = env_builtin_scrub; *p; p++)
		if (pattern_match(*p, upper))
			return true;
	for (size_t i = 0; i < n_extra; i++) {
		char name_copy[256];

		memcpy(name_copy, name, name_len);
		name_copy[name_len] = '\0';
		/* Deployment patterns are matched as written and upper-cased. */
		if (pattern_match(extra[i], name_copy) || pattern_match(extra[i], upper))
			return true;
	}
	return false;
}

/* A URL with a password in it, anywhere in the value: scheme://user:pass@host
 * (DATABASE_URL, REDIS_URL, HTTPS_PROXY, PIP_EXTRA_INDEX_URL, ...). Decided
 * by value, so the name does not matter. A user without a password
 * (ssh://git@host) is not a credential. */
bool env_value_has_password(const char *value)
{
	for (const char *s = strstr(value, "://"); s; s = strstr(s, "://")) {
		const char *auth = s + 3, *end = auth, *at = NULL;

		/* The authority ends at the path, query, fragment or a separator
		 * of a list of URLs; its userinfo ends at its last '@'. */
		while (*end && !strchr("/?#, \t\n;", *end)) {
			if (*end == '@')
				at = end;
			end++;
		}
		if (at && memchr(auth, ':', (size_t)(at - auth)))
			return true;
		s = end;
	}
	return false;
}

bool env_shell_startup(const char *name, size_t name_len)
{
	for (const char *const *p = shell_startup; *p; p++)
		if (strlen(*p) == name_len && strncmp(*p, name, name_len) == 0)
			return true;
	return name_len >= strlen(EXPORTED_FUNCTION_PREFIX) &&
	       strncmp(name, EXPORTED_FUNCTION_PREFIX, strlen(EXPORTED_FUNCTION_PREFIX)) == 0;
}

char **env_build(char *const *environ_in, const char *const *extra, size_t n_extra, bool confined)
{
	size_t n = 0, o = 0;
	char **env;

	while (environ_in && environ_in[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *kv = environ_in[i];
		const char *eq = strchr(kv, '=');
		size_t name_len = eq ? (size_t)(eq - kv) : 0;

		if (!eq || eq == kv)
			continue;
		if (env_name_scrubbed(kv, name_len, extra, n_extra) || env_value_has_password(eq + 1))
			continue;
		if (confined && env_shell_startup(kv, name_len))
			continue;
		/* In confined modes /tmp is what the policy allows: point there. */
		if (confined && name_len == 6 && strncmp(kv, "TMPDIR", 6) == 0)
			continue;
		env[o] = strdup(kv);
		if (!env[o])
			goto fail;
		o++;
	}
	if (confined) {
		env[o] = strdup("TMPDIR=/tmp");
		if (!env[o])
			goto fail;
		o++;
	}
	env[o] = NULL;
	return env;
fail:
	env_free(env);
	return NULL;
}

void env_free(char **env)
{
	if (!env)
		return;
	for (char **p = env; *p; p++)
		free(*p);
	free(env);
}
