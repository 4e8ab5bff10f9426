/* SPDX-License-Identifier: MIT */
/* Tool caches of a workspace-write run (CONTRACT section 9): unless the caller
 * set them, the usual cache variables point into the workspace's tool-cache
 * directory, which the run may write and which lasts across its calls. A
 * tool's settings in $HOME (~/.gitconfig, ~/.config/pip) stay read-only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

static const struct {
	const char *name;
	const char *sub;    /* below the cache directory ("" for itself) */
} cache_vars[] = {
	{ "XDG_CACHE_HOME", "" },       { "GOCACHE", "/go-build" }, { "GOMODCACHE", "/go-mod" },
	{ "npm_config_cache", "/npm" }, { "PIP_CACHE_DIR", "/pip" }, { "CCACHE_DIR", "/ccache" },
};

static bool env_has(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return true;
	return false;
}

int env_add_cache_vars(char ***envp, const char *cache_dir)
{
	size_t n = 0, add = sizeof(cache_vars) / sizeof(cache_vars[0]);
	char **env = *envp;

	while (env[n])
		n++;
	env = realloc(env, (n + add + 1) * sizeof(*env));
	if (!env)
		return -1;
	*envp = env;
	for (size_t i = 0; i < add; i++) {
		if (env_has(env, cache_vars[i].name))
			continue;
		if (asprintf(&env[n], "%s=%s%s", cache_vars[i].name, cache_dir, cache_vars[i].sub) < 0) {
			env[n] = NULL;
			return -1;
		}
		env[++n] = NULL;
	}
	env[n] = NULL;
	return 0;
}
