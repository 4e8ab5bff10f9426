/* SPDX-License-Identifier: MIT */
/* The command's environment: sbx's own minus credentials (CONTRACT section 9). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "policy.h"

/* Matched against the upper-cased name, so `github_token` goes too. The
 * README lists these; keep the two in step. */
const char *const env_builtin_scrub[] = {
	"*_API_KEY", "*_API_KEY_*", "*_APIKEY", "*_TOKEN", "*_TOKEN_*", "*_SECRET*",
	"*PASSWORD*", "*PASSWD*", "*_ACCESS_KEY*", "*_PRIVATE_KEY*", "*_CREDENTIALS*",
	"*_AUTH_TOKEN*", "API_KEY", "TOKEN", "SECRET", NULL,
};

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

		if (!eq || eq == kv)
			continue;
		if (env_name_scrubbed(kv, (size_t)(eq - kv), extra, n_extra))
			continue;
		/* In confined modes /tmp is what the policy allows: point there. */
		if (confined && (size_t)(eq - kv) == 6 && strncmp(kv, "TMPDIR", 6) == 0)
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
