/* SPDX-License-Identifier: MIT */
/* The default deny_read list holds the credential stores of the tools a
 * coding agent's user has (issue 29, finding 6): each store is readable by
 * the user outside, and unreadable from inside a confined run, in its
 * default place, where XDG_CONFIG_HOME, XDG_DATA_HOME or XDG_RUNTIME_DIR
 * move it, and where the tool's own variable does (DOCKER_CONFIG,
 * KUBECONFIG, CARGO_HOME, GNUPGHOME, ...). Docker's TLS key is hidden, its
 * public certificates are not. Both runners, as the caller and as nobody,
 * read from inside with cat. */
#define RUN_FIXTURE_SUITE credential_stores
#include "run_fixture.h"

#include <sched.h>
#include <sys/mount.h>

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
	".docker/key.pem",
	".docker/contexts/tls/0123abcd/docker/key.pem",
	".gemini/oauth_creds.json",
	".config/github-copilot/hosts.json",
	".local/share/opencode/auth.json",
	".yarnrc.yml",
	".config/composer/auth.json",
	".composer/auth.json",
	".cache/huggingface/token",
	".huggingface/token",
	/* adversarial pass 9, finding 10 */
	".config/rclone/rclone.conf",
	".s3cfg",
	".boto",
	".terraformrc",
	".databrickscfg",
	".fly/config.yml",
	".dbt/profiles.yml",
	".config/ngrok/ngrok.yml",
	".wrangler/config/default.toml",
	".aider.conf.yml",
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

/* Each tool's own variable moves its store: the variable, the store below
 * the directory it names ("" for the file it names itself). */
static const struct {
	const char *var, *rel;
} env_stores[] = {
	{ "DOCKER_CONFIG", "config.json" },
	{ "DOCKER_CONFIG", "key.pem" },
	{ "DOCKER_CONFIG", "contexts/tls/0123abcd/docker/key.pem" },
	{ "DOCKER_CERT_PATH", "key.pem" },
	{ "AWS_SHARED_CREDENTIALS_FILE", "" },
	{ "AWS_CONFIG_FILE", "" },
	{ "CARGO_HOME", "credentials.toml" },
	{ "CARGO_HOME", "credentials" },
	{ "GNUPGHOME", "private-keys-v1.d/B.key" },
	{ "NPM_CONFIG_USERCONFIG", "" },
	{ "GH_CONFIG_DIR", "hosts.yml" },
	{ "GLAB_CONFIG_DIR", "config.yml" },
	{ "HUB_CONFIG", "" },
	{ "AZURE_CONFIG_DIR", "msal_token_cache.json" },
	{ "CLOUDSDK_CONFIG", "credentials.db" },
	{ "REGISTRY_AUTH_FILE", "" },
	{ "GRADLE_USER_HOME", "gradle.properties" },
	{ "PGPASSFILE", "" },
	{ "NETRC", "" },
	{ "OCI_CLI_CONFIG_FILE", "" },
	{ "CODEX_HOME", "auth.json" },
	{ "CLAUDE_CONFIG_DIR", ".credentials.json" },
	{ "GOOGLE_APPLICATION_CREDENTIALS", "" },
	{ "HF_TOKEN_PATH", "" },
	{ "COMPOSER_HOME", "auth.json" },
};

PARAMS(env_places, params_both);
ParameterizedTest(struct rp *p, credential_stores, env_places, .timeout = 300)
{
	size_t n_env = sizeof(env_stores) / sizeof(env_stores[0]);
	char *paths[sizeof(env_stores) / sizeof(env_stores[0]) + 4];
	char *env[sizeof(env_stores) / sizeof(env_stores[0]) + 3];
	size_t n = 0, e = 0;
	struct fx f;

	fx_setup(&f, p);
	env[e++] = e2e_fmt("HOME=%s", f.home);
	for (size_t i = 0; i < n_env; i++) {
		char *place = e2e_fmt("%s/moved-%zu", f.base, i);
		bool file = !env_stores[i].rel[0];
		char *var = NULL;

		/* one place per variable: the first row of it names it */
		for (size_t k = 0; k < e; k++)
			if (strncmp(env[k], env_stores[i].var, strlen(env_stores[i].var)) == 0 &&
			    env[k][strlen(env_stores[i].var)] == '=')
				var = env[k] + strlen(env_stores[i].var) + 1;
		if (!var) {
			env[e++] = e2e_fmt("%s=%s", env_stores[i].var, place);
			var = place;
			if (!file)
				cr_assert(e2e_mkdir(p->who, place) == 0);
		}
		if (file) {
			cr_assert(e2e_write_file(p->who, var, e2e_fmt("SECRET %s\n", var)) == 0);
			cr_assert(chown(var, e2e_uid(p->who), e2e_gid(p->who)) == 0);
			paths[n++] = strdup(var);
		} else {
			paths[n++] = plant(&f, var, env_stores[i].rel);
		}
	}
	/* KUBECONFIG: a list of files */
	char *k1 = e2e_fmt("%s/kube-a", f.base), *k2 = e2e_fmt("%s/kube-b", f.base);

	cr_assert(e2e_write_file(p->who, k1, "SECRET kube a\n") == 0 &&
		  e2e_write_file(p->who, k2, "SECRET kube b\n") == 0);
	env[e++] = e2e_fmt("KUBECONFIG=%s:%s", k1, k2);
	env[e] = NULL;
	paths[n++] = k1;
	paths[n++] = k2;
	check(&f, paths, n, env);
}

/* A variable that names its store with "~/" (the AWS CLI and gpg expand it
 * themselves): hidden there too (adversarial pass 6, finding 11). */
PARAMS(env_places_with_tilde, params_both);
ParameterizedTest(struct rp *p, credential_stores, env_places_with_tilde, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	char *creds = plant(&f, f.home, "elsewhere/aws-creds");
	char *gnupg = plant(&f, f.home, "keys/private-keys-v1.d/C.key");
	char *paths[] = { creds, gnupg };
	char *env[] = { e2e_fmt("HOME=%s", f.home), "AWS_SHARED_CREDENTIALS_FILE=~/elsewhere/aws-creds",
			"GNUPGHOME=~/keys", NULL };

	check(&f, paths, 2, env);
}

/* A store named twice is hidden once, and the run goes on: npm and npx set
 * npm_config_userconfig to ~/.npmrc, the default place, for what they start
 * (an MCP client launching `sbx mcp` through npx). */
PARAMS(named_twice, params_both);
ParameterizedTest(struct rp *p, credential_stores, named_twice, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	char *npmrc = plant(&f, f.home, ".npmrc");
	char *paths[] = { npmrc };
	char *env[] = { e2e_fmt("HOME=%s", f.home), e2e_fmt("npm_config_userconfig=%s", npmrc),
			e2e_fmt("NPM_CONFIG_USERCONFIG=%s/", npmrc), NULL };

	check(&f, paths, 1, env);
}

/* Docker's public certificates beside its key stay readable (TLS to a
 * daemon needs them, they are not secrets). */
PARAMS(docker_certificates_readable, params_both);
ParameterizedTest(struct rp *p, credential_stores, docker_certificates_readable, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	plant(&f, f.home, ".docker/ca.pem");
	plant(&f, f.home, ".docker/cert.pem");
	plant(&f, f.home, ".docker/key.pem");
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	run_env(&f, "read-only",
		e2e_fmt("cat %s/.docker/ca.pem %s/.docker/cert.pem; cat %s/.docker/key.pem; echo end",
			f.home, f.home, f.home),
		env, &o);
	cr_expect(strstr(o.out, "SECRET .docker/ca.pem") && strstr(o.out, "SECRET .docker/cert.pem") &&
			  !strstr(o.out, "SECRET .docker/key.pem") && strstr(o.out, "end"),
		  "%s %s", f.tag, o.out);
	e2e_out_free(&o);
}

/* The passwd home where $HOME is elsewhere (sudo -E, su without -, a CI
 * runner that sets HOME to a work directory): OpenSSH reads its keys from
 * the passwd home, and they were readable (adversarial pass 3b, finding
 * 02). The user database is changed in a mount namespace of this test's
 * own: a copy of /etc/passwd with who's home moved, bound over it. */
PARAMS(passwd_home_places, params_both);
ParameterizedTest(struct rp *p, credential_stores, passwd_home_places, .timeout = 300)
{
	static const char *const stores[] = { ".ssh/id_ed25519", ".netrc", ".aws/credentials",
					      ".config/gh/hosts.yml" };
	size_t n = sizeof(stores) / sizeof(stores[0]);
	char *paths[sizeof(stores) / sizeof(stores[0])];
	struct fx f;

	fx_setup(&f, p);
	char *pwhome = e2e_fmt("%s/pwhome", f.base), *passwd = e2e_fmt("%s/passwd", f.base);

	cr_assert(e2e_mkdir(p->who, pwhome) == 0);
	for (size_t i = 0; i < n; i++)
		paths[i] = plant(&f, pwhome, stores[i]);
	char *sh[] = { "sh", "-c",
		       e2e_fmt("awk -F: -v OFS=: -v u=%u -v h=%s '$3==u{$6=h}1' /etc/passwd > %s",
			       e2e_uid(p->who), pwhome, passwd),
		       NULL };
	struct e2e_out o;

	cr_assert(e2e_run(AS_CALLER, sh, NULL, &o) == 0, "passwd copy: %s", o.err);
	e2e_out_free(&o);
	cr_assert(chmod(passwd, 0644) == 0);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount(passwd, "/etc/passwd", NULL, MS_BIND, NULL) == 0, "bind: %s",
		  strerror(errno));
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	check(&f, paths, n, env);
}

/* A refused read of a hidden store is no denial under either runner, so no
 * escalation is offered for it (the namespace runner shows the store as
 * absent; the landlock runner's EACCES was taken for a sandbox refusal and
 * invited the model to ask for danger-full-access: new-user pass 6,
 * finding 2). A refused write outside the root still is one. */
PARAMS(hidden_read_offers_no_escalation, params_both);
ParameterizedTest(struct rp *p, credential_stores, hidden_read_offers_no_escalation, .timeout = 120)
{
	static const char *const modes[] = { "read-only", "workspace-write" };
	struct fx f;

	fx_setup(&f, p);
	char *key = plant(&f, f.home, ".ssh/id_ed25519");
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	for (size_t m = 0; m < 2; m++) {
		char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--escalation", "--config",
				 f.conf, "--runner", f.p.runner, "--mode", (char *)modes[m],
				 "--root", f.ws, "--", e2e_fmt("cat '%s'", key), NULL };
		struct e2e_out o;

		e2e_run(f.p.who, argv, env, &o);
		cr_expect(exit_code(&o) == 1, "%s %s: %s", f.tag, modes[m], o.out);
		cr_expect(strstr(o.out, "\"denied\":false") && !strstr(o.out, "[sandbox:") &&
				  !strstr(o.out, "SECRET"),
			  "%s %s: a hidden read reported as a denial: %s", f.tag, modes[m], o.out);
		e2e_out_free(&o);
		/* control: a write the mode refuses, on the caller's own file */
		argv[13] = e2e_fmt("echo x > '%s/outside'", f.base);
		e2e_run(f.p.who, argv, env, &o);
		cr_expect(strstr(o.out, "\"denied\":true") && strstr(o.out, "escalation available"),
			  "%s %s: control: %s", f.tag, modes[m], o.out);
		cr_expect(!e2e_exists(e2e_fmt("%s/outside", f.base)), "%s: written", f.tag);
		e2e_out_free(&o);
	}
}

/* A store reachable through a second mount of its file system (a bind
 * mount of the home, or of the store's own directory, as containers and
 * dev VMs have): unreadable there too, and still at its own path (the
 * landlock runner's walk granted the alias's tree, the namespace runner
 * covered only the store's own path: adversarial pass 3b, finding 01). The
 * binds are made in a mount namespace of this test's own. */
PARAMS(bind_alias_places, params_both);
ParameterizedTest(struct rp *p, credential_stores, bind_alias_places, .timeout = 300)
{
	struct fx f;

	fx_setup(&f, p);
	char *key = plant(&f, f.home, ".ssh/id_ed25519");
	char *netrc = plant(&f, f.home, ".netrc");
	char *aws = plant(&f, f.home, ".aws/credentials");
	char *whole = e2e_fmt("%s/whole", f.base), *awsdir = e2e_fmt("%s/awsdir", f.base);

	cr_assert(e2e_mkdir(p->who, whole) == 0 && e2e_mkdir(p->who, awsdir) == 0);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount(f.home, whole, NULL, MS_BIND, NULL) == 0, "bind: %s", strerror(errno));
	cr_assert(mount(e2e_fmt("%s/.aws", f.home), awsdir, NULL, MS_BIND, NULL) == 0, "bind: %s",
		  strerror(errno));
	char *paths[] = { key,
			  netrc,
			  aws,
			  e2e_fmt("%s/.ssh/id_ed25519", whole),
			  e2e_fmt("%s/.netrc", whole),
			  e2e_fmt("%s/.aws/credentials", whole),
			  e2e_fmt("%s/credentials", awsdir) };
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	check(&f, paths, sizeof(paths) / sizeof(paths[0]), env);
}

/* A mount that shows a part of a store elsewhere (a bind of ~/.ssh/keys, of
 * one key file): the store was hidden at its own path and at mounts of it
 * whole, not there (adversarial pass 7, finding 04). The binds are made in
 * a mount namespace of this test's own. */
PARAMS(bind_of_a_part_places, params_both);
ParameterizedTest(struct rp *p, credential_stores, bind_of_a_part_places, .timeout = 300)
{
	struct fx f;

	fx_setup(&f, p);
	plant(&f, f.home, ".ssh/keys/id_ed25519");
	plant(&f, f.home, ".aws/credentials");
	char *keys = e2e_fmt("%s/keys", f.base), *file = e2e_fmt("%s/creds", f.base);

	cr_assert(e2e_mkdir(p->who, keys) == 0);
	cr_assert(e2e_write_file(p->who, file, "") == 0);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount(e2e_fmt("%s/.ssh/keys", f.home), keys, NULL, MS_BIND, NULL) == 0,
		  "bind: %s", strerror(errno));
	cr_assert(mount(e2e_fmt("%s/.aws/credentials", f.home), file, NULL, MS_BIND, NULL) == 0,
		  "bind: %s", strerror(errno));
	char *paths[] = { e2e_fmt("%s/id_ed25519", keys), file };
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	check(&f, paths, 2, env);
}

/* A hidden path that holds the root (a deny_read entry above it; a store
 * that is a symlink to the home): the namespace runner's cover hid the
 * root too, and every run failed "chdir: No such file or directory"
 * (adversarial pass 7, finding 03). The namespace runner says why it is
 * not used; auto takes the landlock runner, which keeps the rest out. */
Test(credential_stores, hidden_path_holding_the_root, .timeout = 120)
{
	static const enum e2e_user who[] = { AS_CALLER, AS_NOBODY };

	for (size_t u = 0; u < 2; u++) {
		struct rp p = { "auto", who[u] };
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, &p);
		plant(&f, f.ws, "secret");
		cr_assert(e2e_write_file(who[u], f.conf, e2e_fmt("deny_read = %s\n", f.ws)) == 0);
		f.ws = e2e_fmt("%s/inner", f.ws);
		cr_assert(e2e_mkdir(who[u], f.ws) == 0);
		run_env(&f, "read-only", "pwd; cat ../secret; echo end", NULL, &o);
		cr_expect(exit_code(&o) == 0 && strstr(o.out, "/inner\\nend") &&
				  !strstr(o.out, "SECRET") && strstr(o.out, "\"runner\":\"landlock\""),
			  "%s auto: %s", f.tag, o.out);
		e2e_out_free(&o);
		snprintf(f.p.runner, sizeof(f.p.runner), "namespace");
		run_env(&f, "read-only", "true", NULL, &o);
		cr_expect(o.status == 125 && strstr(o.out, "holds the root"), "%s namespace: %d %s",
			  f.tag, o.status, o.out);
		e2e_out_free(&o);
	}
}

/* A name in the root that leads into a store (a symlink a repository ships,
 * /proc/self/root/...): under the landlock runner the read was refused
 * (EACCES) and marked a denial with the escalation marker, whose approval
 * would print the key (new-user pass 13, finding 1). Refused, and no
 * denial, under both runners. */
PARAMS(read_through_a_link_is_no_denial, params_both);
ParameterizedTest(struct rp *p, credential_stores, read_through_a_link_is_no_denial, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	char *key = plant(&f, f.home, ".ssh/id_ed25519");
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };
	char *link = e2e_fmt("%s/sshlink", f.ws);
	const char *cmds[] = { "cat sshlink", e2e_fmt("cat %s", link),
			       e2e_fmt("cat /proc/self/root%s", key) };

	cr_assert(symlink(key, link) == 0);
	for (size_t i = 0; i < 3; i++) {
		struct e2e_out o;
		char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--escalation", "--config",
				 f.conf, "--runner", f.p.runner, "--root", f.ws, "--",
				 (char *)cmds[i], NULL };

		e2e_run(f.p.who, argv, env, &o);
		cr_expect(!strstr(o.out, "SECRET"), "%s %s: the key was read: %s", f.tag, cmds[i],
			  o.out);
		cr_expect(strstr(o.out, "\"denied\":false") && !strstr(o.out, "escalation available"),
			  "%s %s: marked a denial, escalation offered: %s", f.tag, cmds[i], o.out);
		e2e_out_free(&o);
	}
}
