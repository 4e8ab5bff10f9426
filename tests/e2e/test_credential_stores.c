/* SPDX-License-Identifier: MIT */
/* The default deny_read list holds the credential stores of the tools a
 * coding agent's user has (issue 29, finding 6): each store is readable by
 * the user outside, and unreadable from inside a confined run, in its
 * default place and where XDG_CONFIG_HOME, XDG_DATA_HOME or
 * XDG_RUNTIME_DIR move it. Both runners, as the caller and as nobody, read
 * from inside with cat. */
#define RUN_FIXTURE_SUITE credential_stores
#include "run_fixture.h"

/* Relative to the home, the moved config, data or runtime directory. */
static const char *const home_stores[] = {
	".config/git/credentials",
	".config/gh/hosts.yml",
	".codex/auth.json",
	".claude/.credentials.json",
	".cargo/credentials.toml",
	".cargo/credentials",
	".pgpass",
	".git-credentials",
	".netrc",
	".aws/credentials",
	".azure/msal_token_cache.json",
	".config/gcloud/credentials.db",
	".docker/config.json",
	".config/containers/auth.json",
	".npmrc",
	".pypirc",
	".gem/credentials",
	".gradle/gradle.properties",
	".m2/settings-security.xml",
	".kube/config",
	".kube/prod.yaml",
	".gnupg/private-keys-v1.d/A.key",
	".gnupg/secring.gpg",
	".local/share/keyrings/login.keyring",
	".ssh/id_ed25519",
	".my.cnf",
	".vault-token",
	".config/hub",
	".config/glab-cli/config.yml",
	".terraform.d/credentials.tfrc.json",
};
static const char *const config_stores[] = { "git/credentials", "gh/hosts.yml",
					     "gcloud/credentials.db", "containers/auth.json" };
static const char *const data_stores[] = { "keyrings/login.keyring" };
static const char *const runtime_stores[] = { "containers/auth.json" };

/* dir/rel with content "SECRET <rel>", made as who, with its directories. */
static char *plant(struct fx *f, const char *dir, const char *rel)
{
	char *path = e2e_fmt("%s/%s", dir, rel);
	char *d = strdup(path);

	for (char *s = strchr(d + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!e2e_exists(d))
			cr_assert(e2e_mkdir(f->p.who, d) == 0, "mkdir %s", d);
		*s = '/';
	}
	free(d);
	cr_assert(e2e_write_file(f->p.who, path, e2e_fmt("SECRET %s\n", rel)) == 0);
	cr_assert(chown(path, e2e_uid(f->p.who), e2e_gid(f->p.who)) == 0);
	return path;
}

static int run_env(struct fx *f, const char *mode, const char *cmd, char **env, struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--config", f->conf, "--runner",
			 f->p.runner, "--mode", (char *)mode, "--root", f->ws, "--", (char *)cmd,
			 NULL };

	return e2e_run(f->p.who, argv, env, o);
}

/* Each path: readable as the user outside, unreadable inside. */
static void check(struct fx *f, char **paths, size_t n, char **env)
{
	static const char *const modes[] = { "read-only", "workspace-write" };

	for (size_t i = 0; i < n; i++) {
		char *got = e2e_read_file(paths[i]);

		cr_assert(got && strncmp(got, "SECRET", 6) == 0, "%s %s unreadable outside", f->tag,
			  paths[i]);
	}
	for (size_t m = 0; m < 2; m++)
		for (size_t i = 0; i < n; i++) {
			struct e2e_out o;

			run_env(f, modes[m], e2e_fmt("cat '%s'; echo end", paths[i]), env, &o);
			cr_expect(exit_code(&o) == 0, "%s %s: %s", f->tag, modes[m], o.out);
			cr_expect(strstr(o.out, "\"stdout\":\"end") && !strstr(o.out, "SECRET"),
				  "%s %s: %s readable inside: %s", f->tag, modes[m], paths[i], o.out);
			e2e_out_free(&o);
		}
}

PARAMS(default_places, params_both);
ParameterizedTest(struct rp *p, credential_stores, default_places, .timeout = 300)
{
	size_t n = sizeof(home_stores) / sizeof(home_stores[0]);
	char *paths[sizeof(home_stores) / sizeof(home_stores[0])];
	struct fx f;

	fx_setup(&f, p);
	for (size_t i = 0; i < n; i++)
		paths[i] = plant(&f, f.home, home_stores[i]);
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	check(&f, paths, n, env);
}

/* XDG_CONFIG_HOME, XDG_DATA_HOME and XDG_RUNTIME_DIR, as the caller's
 * environment gives them, move the stores that follow them. */
PARAMS(xdg_places, params_both);
ParameterizedTest(struct rp *p, credential_stores, xdg_places, .timeout = 300)
{
	char *paths[16];
	size_t n = 0;
	struct fx f;

	fx_setup(&f, p);
	char *config = e2e_fmt("%s/xdg-config", f.base), *data = e2e_fmt("%s/xdg-data", f.base);
	char *runtime = e2e_fmt("%s/xdg-run", f.base);

	cr_assert(e2e_mkdir(p->who, config) == 0 && e2e_mkdir(p->who, data) == 0 &&
		  e2e_mkdir(p->who, runtime) == 0);
	for (size_t i = 0; i < sizeof(config_stores) / sizeof(config_stores[0]); i++)
		paths[n++] = plant(&f, config, config_stores[i]);
	for (size_t i = 0; i < sizeof(data_stores) / sizeof(data_stores[0]); i++)
		paths[n++] = plant(&f, data, data_stores[i]);
	for (size_t i = 0; i < sizeof(runtime_stores) / sizeof(runtime_stores[0]); i++)
		paths[n++] = plant(&f, runtime, runtime_stores[i]);
	/* The default places stay covered as well. */
	paths[n++] = plant(&f, f.home, ".config/gh/hosts.yml");
	paths[n++] = plant(&f, f.home, ".local/share/keyrings/login.keyring");
	char *env[] = { e2e_fmt("HOME=%s", f.home), e2e_fmt("XDG_CONFIG_HOME=%s", config),
			e2e_fmt("XDG_DATA_HOME=%s", data), e2e_fmt("XDG_RUNTIME_DIR=%s", runtime),
			NULL };

	check(&f, paths, n, env);
}
