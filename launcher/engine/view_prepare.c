/* SPDX-License-Identifier: MIT */
/* The view's extras of one confined run (see view_prepare.h). Pure choices
 * (which lists) and a few directory operations in sbx's own state. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h" /* path_is_within */
#include "statedir.h"
#include "spill.h"
#include "mount_aliases.h"
#include "view_prepare.h"

/* Written by a command, these would run later outside any sandbox:
 * submodule URLs, direnv, editor tasks and settings, agent settings and MCP
 * servers, shell start-up files. The peers (Codex, sandbox-runtime) keep
 * the same. Git's own metadata (hooks, config, fsmonitor, aliases,
 * filters, rebase todo lists...) is an allow-list instead, in every
 * repository under the root (launcher/protect/protect_git.c): the root's
 * own .git entries are added to this list when the run starts. */
const char *const view_default_protected[] = {
	".gitmodules", ".envrc", ".vscode", ".idea", ".mcp.json",
	".claude", ".codex", ".agents", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
	".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
	/* What else a login, a shell or a session runs from $HOME (a root
	 * there): Debian's .bashrc sources .bash_aliases; fish, systemd's
	 * user units, desktop autostart, X session scripts, and the first
	 * directory of a user's PATH (a `git` there shadows git). */
	".bash_aliases", ".config/fish", ".config/systemd", ".config/autostart", ".xprofile",
	".xsessionrc", ".local/bin",
	/* Other agents' and editors' settings, and what an editor runs on
	 * opening the project (devcontainers' initializeCommand runs on the
	 * host; Neovim's exrc): adversarial pass 6, finding 08. */
	".cursor", ".gemini", ".roo", ".kiro", ".amazonq", ".zed", ".devcontainer", ".nvim.lua",
	/* What runs on entering or opening the project: mise's tasks and
	 * hooks, lazy.nvim's and Vim's local config, Mercurial's hooks
	 * (adversarial pass 7, finding 13). */
	"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise", ".config/mise",
	".config/mise.toml", ".lazy.lua", ".exrc", ".nvimrc", ".hg/hgrc",
	NULL,
};

/* A workspace's /tmp and tool cache not used for this long go (a few at
 * each start: statedir_expire). */
#define VIEW_TMP_MAX_AGE_S (7u * 24 * 3600)
#define VIEW_CACHE_MAX_AGE_S (30u * 24 * 3600)

/* The credential stores of the tools a user of a coding agent has, where
 * each keeps them: in $HOME, in the XDG config and data directories (both
 * the default place and where $XDG_CONFIG_HOME / $XDG_DATA_HOME move it),
 * or in $XDG_RUNTIME_DIR. A whole directory where the tool keeps nothing
 * else worth reading, else the file. docs/workspace.md says why each. */
const struct view_hidden view_default_hidden[] = {
	{ VIEW_HOME, ".ssh" },
	{ VIEW_HOME, ".netrc" },
	{ VIEW_HOME, ".git-credentials" },
	{ VIEW_CONFIG, "git/credentials" },
	{ VIEW_CONFIG, "gh" },
	{ VIEW_CONFIG, "hub" },
	{ VIEW_CONFIG, "glab-cli" },
	/* cloud CLIs */
	{ VIEW_HOME, ".aws" },
	{ VIEW_HOME, ".azure" },
	{ VIEW_CONFIG, "gcloud" },
	{ VIEW_CONFIG, "doctl" },
	{ VIEW_HOME, ".oci" },
	{ VIEW_HOME, ".terraform.d/credentials.tfrc.json" },
	{ VIEW_HOME, ".vault-token" },
	{ VIEW_HOME, ".kube" },
	/* container registries; Docker's TLS key (its certificates beside it
	 * are public), and its contexts' TLS material */
	{ VIEW_HOME, ".docker/config.json" },
	{ VIEW_HOME, ".docker/key.pem" },
	{ VIEW_HOME, ".docker/contexts/tls" },
	{ VIEW_CONFIG, "containers/auth.json" },
	{ VIEW_RUNTIME, "containers/auth.json" },
	/* package registries' tokens */
	{ VIEW_HOME, ".npmrc" },
	{ VIEW_HOME, ".pypirc" },
	{ VIEW_HOME, ".gem/credentials" },
	{ VIEW_HOME, ".cargo/credentials" },
	{ VIEW_HOME, ".cargo/credentials.toml" },
	{ VIEW_HOME, ".gradle/gradle.properties" },
	{ VIEW_HOME, ".m2/settings-security.xml" },
	/* keys and keyrings */
	{ VIEW_HOME, ".gnupg" },
	{ VIEW_DATA, "keyrings" },
	{ VIEW_DATA, "kwalletd" },
	/* agents */
	{ VIEW_HOME, ".codex/auth.json" },
	{ VIEW_HOME, ".claude/.credentials.json" },
	{ VIEW_HOME, ".gemini/oauth_creds.json" },
	{ VIEW_CONFIG, "github-copilot" },
	{ VIEW_DATA, "opencode/auth.json" },
	/* more package registries' and model hubs' tokens (adversarial pass
	 * 6, finding 13) */
	{ VIEW_HOME, ".yarnrc.yml" },
	{ VIEW_CONFIG, "composer/auth.json" },
	{ VIEW_HOME, ".composer/auth.json" },
	{ VIEW_HOME, ".cache/huggingface/token" },
	{ VIEW_HOME, ".huggingface/token" },
	/* databases */
	{ VIEW_HOME, ".pgpass" },
	{ VIEW_HOME, ".my.cnf" },
	/* object stores, infrastructure and data tools, tunnels (adversarial
	 * pass 9, finding 10) */
	{ VIEW_CONFIG, "rclone/rclone.conf" },
	{ VIEW_HOME, ".s3cfg" },
	{ VIEW_HOME, ".boto" },
	{ VIEW_HOME, ".terraformrc" },
	{ VIEW_HOME, ".databrickscfg" },
	{ VIEW_HOME, ".fly/config.yml" },
	{ VIEW_HOME, ".dbt/profiles.yml" },
	{ VIEW_CONFIG, "ngrok/ngrok.yml" },
	{ VIEW_HOME, ".wrangler/config/default.toml" },
	{ VIEW_CONFIG, ".wrangler/config/default.toml" },
	{ VIEW_HOME, ".aider.conf.yml" },
	{ VIEW_HOME, NULL },
};

/* Where a tool's own variable moves its store (docs/workspace.md): hidden
 * there as well as in the default place above. */
const struct view_env_hidden view_env_hidden[] = {
	{ "DOCKER_CONFIG", "config.json", false },
	{ "DOCKER_CONFIG", "key.pem", false },
	{ "DOCKER_CONFIG", "contexts/tls", false },
	{ "DOCKER_CERT_PATH", "key.pem", false },
	{ "AWS_SHARED_CREDENTIALS_FILE", NULL, false },
	{ "AWS_CONFIG_FILE", NULL, false },
	{ "KUBECONFIG", NULL, true },
	{ "CARGO_HOME", "credentials", false },
	{ "CARGO_HOME", "credentials.toml", false },
	{ "GNUPGHOME", "", false },
	/* npm reads its config variables in any case */
	{ "NPM_CONFIG_USERCONFIG", NULL, false },
	{ "npm_config_userconfig", NULL, false },
	{ "GH_CONFIG_DIR", "", false },
	{ "GLAB_CONFIG_DIR", "", false },
	{ "HUB_CONFIG", NULL, false },
	{ "AZURE_CONFIG_DIR", "", false },
	{ "CLOUDSDK_CONFIG", "", false },
	{ "REGISTRY_AUTH_FILE", NULL, false },
	{ "GRADLE_USER_HOME", "gradle.properties", false },
	{ "OCI_CLI_CONFIG_FILE", NULL, false },
	{ "PGPASSFILE", NULL, false },
	{ "NETRC", NULL, false },
	{ "CODEX_HOME", "auth.json", false },
	{ "CLAUDE_CONFIG_DIR", ".credentials.json", false },
	{ "GOOGLE_APPLICATION_CREDENTIALS", NULL, false },
	{ "HF_TOKEN_PATH", NULL, false },
	{ "COMPOSER_HOME", "auth.json", false },
	{ NULL, NULL, false },
};

static const char *keep(struct run_state *r, char *s)
{
	if (!s || r->n_view_strings >= RUN_VIEW_STRINGS) {
		free(s);
		return NULL;
	}
	r->view_strings[r->n_view_strings++] = s;
	return s;
}

/* Each path once: a file covered twice made the namespace runner fail (its
 * second cover is mounted on the first, whose root is the empty source, and
 * that source could not be removed), and npm and npx name ~/.npmrc in
 * npm_config_userconfig for what they start. Why a full list of hidden
 * paths refuses the run: a path left out of it would be readable. */
static void add(struct run_state *r, struct ns_path_list *l, char *s)
{
	const char *kept;

	for (size_t i = 0; s && i < l->n; i++)
		if (strcmp(l->path[i], s) == 0) {
			free(s);
			return;
		}
	kept = keep(r, s);

	if (kept && l->n < NS_VIEW_MAX_PATHS)
		l->path[l->n++] = kept;
	else if (s && l == &r->view.hide)
		r->view_full = true;
	else if (s && l == &r->view.protect)
		r->protect_full = true;
}

/* A hidden path and, when it is reached through a symlink (dotfiles kept
 * elsewhere: ~/.ssh -> ~/dotfiles/ssh), what it resolves to: the covers are
 * mounts on paths, and the target must not stay readable by its own name. */
static void add_hidden(struct run_state *r, char *s)
{
	char *real = s ? realpath(s, NULL) : NULL;

	add(r, &r->view.hide, s);
	if (real && s && strcmp(real, s) != 0)
		add(r, &r->view.hide, real);
	else
		free(real);
}

/* sbx's state: its way from the root stays in place (ns_hide.c), by its
 * name and by what it resolves to. */
static void add_pinned(struct run_state *r, const char *c)
{
	char *real = realpath(c, NULL);

	add(r, &r->view.pinned, strdup(c));
	if (real && strcmp(real, c) != 0)
		add(r, &r->view.pinned, real);
	else
		free(real);
}

/* The caller's home as the user database gives it (what OpenSSH reads its
 * keys from, whatever $HOME says). */
const char *view_passwd_home(void)
{
	struct passwd *pw;

#ifndef CONFIG_STATIC
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/')
		return pw->pw_dir;
#endif
	/* The static sbx loads no NSS module (they would have to come from the
	 * glibc it was built with): the passwd file itself, so the hidden
	 * paths under home still apply. */
	static char found[PATH_MAX];
	FILE *f = fopen("/etc/passwd", "re");

	found[0] = '\0';
	while (f && (pw = fgetpwent(f)))
		if (pw->pw_uid == getuid() && pw->pw_dir && pw->pw_dir[0] == '/') {
			snprintf(found, sizeof(found), "%s", pw->pw_dir);
			break;
		}
	if (f)
		fclose(f);
	return found[0] ? found : NULL;
}

static const char *home_dir(void)
{
	const char *home = getenv("HOME");

	return home && home[0] == '/' ? home : view_passwd_home();
}

/* The passwd home where it is not $HOME (sudo -E, su without -, a CI
 * runner or container that sets HOME to a work directory), or NULL. */
static const char *other_home(const char *home)
{
	const char *pw = view_passwd_home();

	return pw && home && strcmp(pw, home) != 0 ? pw : NULL;
}

static char *expand(const char *entry, size_t len, const char *home)
{
	char *s;

	if (entry[0] == '~') {
		if (!home)
			return NULL;
		return asprintf(&s, "%s%.*s", home, (int)len - 1, entry + 1) < 0 ? NULL : s;
	}
	return strndup(entry, len);
}

/* Each entry of a comma-separated list (syntax checked by the policy). */
static void add_list(struct run_state *r, struct ns_path_list *l, const char *list,
		     const char *home)
{
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end > p && l == &r->view.hide)
			add_hidden(r, expand(p, (size_t)(end - p), home));
		else if (end > p)
			add(r, l, expand(p, (size_t)(end - p), home));
		if (!comma)
			return;
		p = comma + 1;
	}
}

/* ssh's known_hosts and public keys stay readable in a hidden ~/.ssh: git
 * over ssh needs them, and they are not secrets. */
static void reveal_ssh(struct run_state *r, const char *home)
{
	char *dir;
	DIR *d;
	struct dirent *e;

	if (!home || asprintf(&dir, "%s/.ssh", home) < 0)
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *p;

		if (strcmp(e->d_name, "known_hosts") != 0 &&
		    !(n > 4 && strcmp(e->d_name + n - 4, ".pub") == 0))
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0)
			add(r, &r->view.reveal, p);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* An XDG base directory as the caller's environment gives it: absolute,
 * else not used (the spec says to ignore a relative one). */
static const char *xdg(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] == '/' ? v : NULL;
}

/* One absolute path (not "/" itself) of len bytes the variable gave, with rel
 * below it ("" the directory itself, NULL: the path is the store). */
static void add_moved(struct run_state *r, const char *p, size_t len, const char *rel)
{
	char *s;

	const char *home = home_dir();

	while (len > 1 && p[len - 1] == '/')
		len--;
	/* why "~/": the AWS CLI, gpg and others expand it themselves, so a
	 * store a variable names that way is read there (adversarial pass 6,
	 * finding 11). */
	if (len > 2 && p[0] == '~' && p[1] == '/' && home) {
		if (asprintf(&s, "%s%.*s%s%s", home, (int)len - 1, p + 1, rel && rel[0] ? "/" : "",
			     rel ? rel : "") >= 0)
			add_hidden(r, s);
		return;
	}
	if (len < 2 || p[0] != '/')
		return;
	if (asprintf(&s, "%.*s%s%s", (int)len, p, rel && rel[0] ? "/" : "", rel ? rel : "") >= 0)
		add_hidden(r, s);
}

/* The stores a tool's own variable moves, as the caller's environment gives
 * it (read once, here): a relative path is not used (where would it be?). */
static void add_env_hidden(struct run_state *r)
{
	for (size_t i = 0; view_env_hidden[i].var; i++) {
		const struct view_env_hidden *h = &view_env_hidden[i];
		const char *v = getenv(h->var);

		for (const char *p = v; p && *p;) {
			const char *end = h->list ? strchrnul(p, ':') : p + strlen(p);

			add_moved(r, p, (size_t)(end - p), h->rel);
			p = *end ? end + 1 : end;
		}
	}
}

/* Each default credential store: in its default place, and in the XDG
 * directory the caller's environment moves it to (read once, here). */
static void add_default_hidden(struct run_state *r, const char *home, bool home_only)
{
	const char *config = home_only ? NULL : xdg("XDG_CONFIG_HOME");
	const char *data = home_only ? NULL : xdg("XDG_DATA_HOME");
	const char *runtime = home_only ? NULL : xdg("XDG_RUNTIME_DIR");

	for (size_t i = 0; view_default_hidden[i].rel; i++) {
		const struct view_hidden *h = &view_default_hidden[i];
		char *dflt = NULL, *moved = NULL;
		int rc = 0;

		switch (h->base) {
		case VIEW_HOME:
			rc = home ? asprintf(&dflt, "%s/%s", home, h->rel) : 0;
			break;
		case VIEW_CONFIG:
			rc = home ? asprintf(&dflt, "%s/.config/%s", home, h->rel) : 0;
			if (rc >= 0 && config)
				rc = asprintf(&moved, "%s/%s", config, h->rel);
			break;
		case VIEW_DATA:
			rc = home ? asprintf(&dflt, "%s/.local/share/%s", home, h->rel) : 0;
			if (rc >= 0 && data)
				rc = asprintf(&moved, "%s/%s", data, h->rel);
			break;
		case VIEW_RUNTIME:
			rc = runtime ? asprintf(&dflt, "%s/%s", runtime, h->rel) : 0;
			break;
		}
		if (rc < 0)
			continue;
		if (dflt)
			add_hidden(r, dflt);
		if (moved && (!dflt || strcmp(moved, dflt) != 0))
			add_hidden(r, moved);
		else
			free(moved);
	}
}

/* The directory that holds path, or else the deepest directory of its way
 * that exists, resolved; NULL when that is "/". */
static char *holding_dir(const char *path)
{
	char *c = strdup(path), *slash;

	while (c && (slash = strrchr(c, '/')) && slash != c) {
		struct stat st;
		char *real;

		*slash = '\0';
		real = realpath(c, NULL);
		if (real && stat(real, &st) == 0 && S_ISDIR(st.st_mode) && strcmp(real, "/") != 0) {
			free(c);
			return real;
		}
		free(real);
	}
	free(c);
	return NULL;
}

/* The namespace runner shows the directory holding each credential store
 * (ns_rebuild.c) as it was when the run starts, so that a store made there
 * or renamed over the old one during the run is not in view. The landlock
 * runner needs no list: its walk grants what such a directory held, by
 * inode (landlock_ruleset.c). */
static void add_holding_dirs(struct run_state *r)
{
	for (size_t i = 0; i < r->view.hide.n; i++) {
		char *d = holding_dir(r->view.hide.path[i]);

		if (d)
			add(r, &r->view.rebuild, d);
	}
}

static int by_length(const void *a, const void *b)
{
	size_t la = strlen(*(const char *const *)a), lb = strlen(*(const char *const *)b);

	return la < lb ? -1 : la > lb;
}

/* Inside the root or a home brought into the namespace runner's /tmp. */
static bool in_root_or_home(const struct run_state *r, const char *path)
{
	if (path_is_within(path, r->root))
		return true;
	for (size_t i = 0; i < r->view.n_homes; i++)
		if (path_is_within(path, r->view.home_path[i]))
			return true;
	return false;
}

/* Once every hidden path is known: none inside one (it is covered whole),
 * and in workspace-write none inside the root or the host's /tmp (the root
 * is the command's to write: a directory there cannot be a frozen copy;
 * the host's /tmp is out of view), but in a home brought into the run's
 * /tmp (shown as it was there, as anywhere). Shallow first: one inside another is
 * made after it, on the entry bound back there. */
static void settle_holding_dirs(struct run_state *r)
{
	struct ns_path_list *l = &r->view.rebuild;
	size_t o = 0;

	for (size_t i = 0; i < l->n; i++) {
		bool drop = r->mode == SBX_MODE_WORKSPACE_WRITE &&
			    (path_is_within(l->path[i], r->root) ||
			     (path_is_within(l->path[i], "/tmp") && !in_root_or_home(r, l->path[i])));

		for (size_t k = 0; k < r->view.hide.n && !drop; k++)
			drop = path_is_within(l->path[i], r->view.hide.path[k]);
		if (!drop)
			l->path[o++] = l->path[i];
	}
	l->n = o;
	qsort((void *)l->path, l->n, sizeof(l->path[0]), by_length);
}

static void add_alias(void *ctx, const char *alias)
{
	struct run_state *r = ctx;

	add(r, &r->view.hide, strdup(alias));
}

/* The spill place in $XDG_RUNTIME_DIR (spill.c, for a caller whose home
 * has none): other runs' whole outputs, read by a run of the same user
 * (adversarial pass 7, finding 14). Hidden as sbx's other state is, and
 * made first if missing (what does not exist cannot be hidden), but only in
 * a runtime directory of the caller's own. */
static void hide_runtime_spill(struct run_state *r)
{
	char path[PATH_MAX], *slash;
	struct stat st;

	if (spill_runtime_path(path, sizeof(path)) < 0 || !(slash = strrchr(path, '/')))
		return;
	*slash = '\0';
	slash = strrchr(path, '/');
	*slash = '\0';
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return;
	*slash = '/';
	if ((mkdir(path, 0700) == 0 || errno == EEXIST) && lstat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		add_hidden(r, strdup(path));
}

/* Each hidden path that exists, where another mount of its file system
 * shows it too (a bind mount of $HOME or of a directory above a store, as
 * containers and dev VMs have): hidden there as well. Why: the covers and
 * Landlock's rules are on paths, and the store was read at the other one
 * (adversarial pass 3b, finding 01). The mount table says where to look;
 * each alias is the same inode, checked (mount_aliases.c). */
static void add_root_alias(void *ctx, const char *alias)
{
	struct run_state *r = ctx;
	struct protect_state *ps = &r->protect;
	const char *kept;

	struct stat a, root;

	if (ps->n_root_alias < PROTECT_ROOT_ALIASES && (kept = keep(r, strdup(alias)))) {
		ps->root_alias_whole[ps->n_root_alias] =
			stat(kept, &a) == 0 && r->root_fd >= 0 && fstat(r->root_fd, &root) == 0 &&
			a.st_dev == root.st_dev && a.st_ino == root.st_ino;
		ps->root_alias[ps->n_root_alias++] = kept;
	}
}

static void add_mount_aliases(struct run_state *r)
{
	struct mount_table *t = mount_table_read("");
	size_t n = r->view.hide.n;

	for (size_t i = 0; t && i < n; i++)
		mount_table_aliases(t, r->view.hide.path[i], add_alias, r);
	/* why: runs are told apart by their roots' paths (protect_runs.c); a
	 * root reached by a bind mount of it, or of a part of it, is the same
	 * directory by another name (adversarial pass 7, findings 15, 16). */
	if (t)
		mount_table_aliases(t, r->root, add_root_alias, r);
	mount_table_free(t);
}

static void prepare_hidden(struct run_state *r, const struct sbx_run *cfg, const char *base)
{
	const char *home = home_dir(), *pw = other_home(home);

	/* Both homes where they differ: the tools read their stores in
	 * $HOME, OpenSSH (and what else asks the user database) in the
	 * passwd home, and a key left readable there is a key read. */
	if (cfg->deny_read && strcmp(cfg->deny_read, "none") != 0) {
		add_list(r, &r->view.hide, cfg->deny_read, home);
		if (pw)
			add_list(r, &r->view.hide, cfg->deny_read, pw);
	} else if (!cfg->deny_read) {
		add_default_hidden(r, home, false);
		if (pw)
			add_default_hidden(r, pw, true);
		add_env_hidden(r);
	}
	if (cfg->deny_read_add) {
		add_list(r, &r->view.hide, cfg->deny_read_add, home);
		if (pw)
			add_list(r, &r->view.hide, cfg->deny_read_add, pw);
	}
	add_holding_dirs(r);
	/* sbx's own state: other roots' /tmp and caches, spill files. This
	 * run's own /tmp and cache are mounted back on top. Why every place a
	 * base may be: a run whose root holds ~/.cache/sbx keeps its own state
	 * elsewhere, and the other roots' state there must not be left in its
	 * view (nor another run's in /var/tmp in this one's). */
	if (base)
		add(r, &r->view.hide, strdup(base));
	for (unsigned i = 0; i < STATEDIR_CANDIDATES; i++) {
		char c[PATH_MAX];
		struct stat st;

		/* Made now if missing: what does not exist cannot be hidden.
		 * Why: a run that started before another run made
		 * /var/tmp/sbx-UID read that run's spill there later, and a
		 * workspace-write command whose root holds a missing one
		 * (root /var/tmp, or $HOME without ~/.cache/sbx) made it
		 * itself, as the caller's, and read and rewrote the spills
		 * (and /tmp and caches) of the user's runs that went on to
		 * use it. */
		statedir_make_candidate(i);
		if (statedir_candidate(i, c, sizeof(c)) < 0 || lstat(c, &st) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (!base || strcmp(c, base) != 0)
			add_hidden(r, strdup(c));
		add_pinned(r, c);
	}
	hide_runtime_spill(r);
	add_mount_aliases(r);
	reveal_ssh(r, home);
	if (pw)
		reveal_ssh(r, pw);
}

/* What a run may write outside the root: a repository there that a
 * run-made git config points to could be a run's (protect_git.c). */
static void add_writable_parent(struct run_state *r, const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (!path || snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		protect_add_writable(&r->protect, dir);
	}
}

static void prepare_writable(struct run_state *r)
{
	protect_add_writable(&r->protect, "/tmp");
	protect_add_writable(&r->protect, "/dev/shm");
	protect_add_writable(&r->protect, r->view.cache_dir);
	protect_add_writable(&r->protect, r->view.tmp_path);
	/* why: every root's private /tmp and tool cache, not only this
	 * one's: another root's run (or this root's under the other runner)
	 * wrote there, so a link or a local remote into one leads to a
	 * repository a run made (adversarial pass 6, finding 01). The kinds
	 * of every place sbx's state may be, and the cache_dir above this
	 * run's cache. */
	add_writable_parent(r, r->view.cache_dir);
	add_writable_parent(r, r->view.tmp_path);
	for (unsigned k = 0; k < STATEDIR_CANDIDATES; k++) {
		char c[PATH_MAX], kind[PATH_MAX + 8];

		if (statedir_candidate(k, c, sizeof(c)) < 0)
			continue;
		snprintf(kind, sizeof(kind), "%s/tmp", c);
		protect_add_writable(&r->protect, kind);
		snprintf(kind, sizeof(kind), "%s/cache", c);
		protect_add_writable(&r->protect, kind);
	}
}

/* Is uid the overflow uid of a user namespace that maps less than all
 * ids (the owner is outside it: a caller mapped to root by unshare
 * --map-root-user sees the host's /var/tmp/sbx-0 so)? In the initial
 * namespace 65534 is nobody, a user like any other. */
static bool owner_unmapped(uid_t uid)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long inside, outside, count;
	bool whole = false;

	if (!f)
		return false;
	if (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
		whole = inside == 0 && outside == 0 && count == 4294967295UL;
	fclose(f);
	return !whole && uid == 65534;
}

/* The record of confined runs' windows (protect_runs.c): in this run's
 * state directory (own, written there), and read in every other place a
 * state directory of the caller's may be (a run whose root holds
 * ~/.cache/sbx keeps its state in /var/tmp, and a run on a root below it
 * does not). */
static void prepare_runs(struct run_state *r, const char *own)
{
	struct protect_state *ps = &r->protect;
	char c[PATH_MAX];
	int fd;

	if (own && (fd = statedir_open_kind(own, "protect")) >= 0) {
		ps->runs_dir[ps->n_runs_dir++] = fd;
		ps->runs_own = true;
	}
	for (unsigned i = 0; i < STATEDIR_CANDIDATES && ps->n_runs_dir < PROTECT_RUNS_PLACES; i++) {
		if (statedir_candidate(i, c, sizeof(c)) < 0 || (own && strcmp(c, own) == 0))
			continue;
		fd = statedir_open_kind(c, "protect");
		if (fd >= 0)
			ps->runs_dir[ps->n_runs_dir++] = fd;
	}
}

static void add_git_entry(void *ctx, const char *rel)
{
	struct run_state *r = ctx;

	for (size_t i = 0; i < r->view.protect.n; i++)
		if (strcmp(r->view.protect.path[i], rel) == 0)
			return;
	add(r, &r->view.protect, strdup(rel));
}

static void protect_if_in_root(struct run_state *r, const char *abs);
static char *resolve_missing(const char *path);

#define INCLUDE_DEPTH_MAX 5
#define INCLUDE_READ_MAX (1u << 20)

struct include_walk {
	struct run_state *r;
	const char *dir; /* of the file that includes */
	int depth;
};

static void protect_config_file(struct run_state *r, const char *file, int depth);

/* One include.path of a user config: where git reads it (~/ from $HOME, a
 * relative path from the including file's directory), protected there if
 * the root holds it, and its own includes after it. */
static void protect_include(void *ctx, const char *path)
{
	struct include_walk *w = ctx;
	const char *home = getenv("HOME");
	char *abs = NULL, *real;

	if (strncmp(path, "~/", 2) == 0) {
		if (!home || home[0] != '/' || asprintf(&abs, "%s/%s", home, path + 2) < 0)
			return;
	} else if (path[0] == '/') {
		abs = strdup(path);
	} else if (asprintf(&abs, "%s/%s", w->dir, path) < 0) {
		return;
	}
	if (!abs)
		return;
	real = realpath(abs, NULL);
	if (!real)
		real = resolve_missing(abs);
	if (real) {
		protect_if_in_root(w->r, real);
		protect_config_file(w->r, real, w->depth + 1);
	}
	free(real);
	free(abs);
}

static void protect_config_file(struct run_state *r, const char *file, int depth)
{
	char *dir = strdup(file), *buf = NULL;
	struct stat st;
	size_t size = 0;
	ssize_t n;
	int fd;

	if (!dir || depth > INCLUDE_DEPTH_MAX) {
		free(dir);
		return;
	}
	*strrchr(dir, '/') = '\0';
	/* A regular file only, read at its size: this runs at every launch. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		size = st.st_size < INCLUDE_READ_MAX ? (size_t)st.st_size : INCLUDE_READ_MAX;
		buf = malloc(size);
	}
	if (buf) {
		struct include_walk w = { r, dir[0] ? dir : "/", depth };
		size_t got = 0;

		while (got < size && (n = read(fd, buf + got, size - got)) > 0)
			got += (size_t)n;
		gitconfig_includes(buf, got, protect_include, &w);
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	free(dir);
}

/* git's user-level config where the root holds it (the root is $HOME, or
 * holds $XDG_CONFIG_HOME or $GIT_CONFIG_GLOBAL): every git the user runs
 * reads it, anywhere, as a shell reads its start-up files; a run's
 * core.fsmonitor there would run in the user's next git status (issue 29,
 * finding 09). A protected path like the others: read-only under the
 * namespace runner, put back after the run. */
static void add_git_user_config(struct run_state *r)
{
	const char *home = home_dir(), *config = xdg("XDG_CONFIG_HOME");
	const char *global = getenv("GIT_CONFIG_GLOBAL");
	const char *base[3] = { home, config ? config : home, global };
	const char *rel[3] = { ".gitconfig", config ? "git/config" : ".config/git/config", NULL };

	for (int i = 0; i < 3; i++) {
		char real[PATH_MAX], *p = NULL;
		const char *b = base[i];

		if (!b || b[0] != '/')
			continue;
		/* The global file itself may not exist: its directory. */
		if (!rel[i]) {
			const char *slash = strrchr(b, '/');
			char dir[PATH_MAX];

			if (!slash || (size_t)(slash - b) >= sizeof(dir) || !slash[1])
				continue;
			snprintf(dir, sizeof(dir), "%.*s", slash == b ? 1 : (int)(slash - b), b);
			if (!realpath(dir, real) || asprintf(&p, "%s/%s", real, slash + 1) < 0)
				continue;
		} else if (!realpath(b, real) || asprintf(&p, "%s/%s", real, rel[i]) < 0) {
			continue;
		}
		protect_if_in_root(r, p);
		/* ~/.gitconfig -> ~/dotfiles/gitconfig: git reads the target. */
		if (realpath(p, real)) {
			protect_if_in_root(r, real);
			/* What it includes (include.path = ~/dotfiles/local),
			 * also where it does not exist yet (adversarial pass 7,
			 * finding 07; pass 6, finding 10). */
			protect_config_file(r, real, 0);
		}
		free(p);
	}
}

/* What the root's own repository's config includes (include.path =
 * ../.gitconfig, a tracked file: a common way to share aliases), where the
 * root holds it: git reads it as config at the user's next git status, so
 * a run's core.fsmonitor there would run (adversarial pass 9, finding 02).
 * Relative paths from the git directory, as git reads them. */
static void add_git_repo_includes(struct run_state *r)
{
	static const char *const names[] = { "config", "config.worktree" };
	char dotgit[PATH_MAX], line[PATH_MAX], gitdir[PATH_MAX], *file;
	struct stat st;

	if (snprintf(dotgit, sizeof(dotgit), "%s/.git", r->root) >= (int)sizeof(dotgit) ||
	    lstat(dotgit, &st) < 0)
		return;
	if (S_ISREG(st.st_mode)) {
		FILE *f = fopen(dotgit, "re");
		bool ok = f && fgets(line, sizeof(line), f) && strncmp(line, "gitdir: ", 8) == 0;

		if (f)
			fclose(f);
		if (!ok)
			return;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[8] == '/')
			snprintf(dotgit, sizeof(dotgit), "%s", line + 8);
		else if (snprintf(dotgit, sizeof(dotgit), "%s/%s", r->root, line + 8) >=
			 (int)sizeof(dotgit))
			return;
	} else if (!S_ISDIR(st.st_mode)) {
		return;
	}
	if (!realpath(dotgit, gitdir))
		return;
	for (size_t i = 0; i < 2; i++) {
		if (asprintf(&file, "%s/%s", gitdir, names[i]) < 0)
			continue;
		protect_config_file(r, file, 0);
		free(file);
	}
}

/* What a shell, a login, a desktop session or a user's PATH runs from a
 * home, beyond the list above (adversarial pass 6, finding 06): never
 * protected in a project (a project's `bin` is its build output), only at
 * a home's own place. */
static const char *const home_startup[] = {
	".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".xsession",
	".xinitrc", ".config/environment.d", ".local/share/systemd", ".local/share/applications",
	"bin",
	/* Sourced by bash-completion, Python's user site (a .pth runs at
	 * every python start), cargo's PATH and config, editors' and tmux's
	 * start-up (adversarial pass 7, finding 01). */
	".bash_completion", ".local/share/bash-completion", ".local/lib", ".cargo/bin",
	".cargo/config.toml", ".cargo/config", ".vimrc", ".vim", ".config/nvim", ".emacs",
	".emacs.d", ".config/emacs", ".tmux.conf", ".config/tmux", ".screenrc",
	/* What the user's pager, readline, debuggers, REPLs and shells read and
	 * run (adversarial pass 9, finding 01: ~/.lesskey's LESSOPEN runs at
	 * the next git log, ~/.inputrc rebinds Enter). */
	".lesskey", ".config/lesskey", ".inputrc", ".gdbinit", ".config/gdb", ".gradle/init.d",
	".gradle/init.gradle", ".ipython", ".psqlrc", ".sqliterc", ".irbrc", ".pryrc", ".Rprofile",
	".config/direnv", ".bashrc.d", ".hgrc", ".config/hg", ".yarnrc",
	".config/starship.toml", ".config/plasma-workspace", ".pythonrc", ".pythonstartup",
	/* What the user's next pip, curl and wget read (new-user pass 13,
	 * finding 7: a pip.conf index-url installs the next package from
	 * anywhere). */
	".config/pip", ".pip", ".curlrc", ".wgetrc", NULL,
};

/* abs, if it lies in the root below its top: protected there. */
static void protect_if_in_root(struct run_state *r, const char *abs)
{
	size_t rl = strlen(r->root);

	if (path_is_within(abs, r->root) && strlen(abs) > rl + 1 && abs[rl] == '/') {
		add_git_entry(r, abs + rl + 1);
		return;
	}
	/* why: the root by another name (a bind mount of it, identity-checked:
	 * add_root_alias) is the same directory; a home or an included config
	 * named through it lies in the root too (adversarial pass 8). */
	for (size_t i = 0; i < r->protect.n_root_alias; i++) {
		const char *a = r->protect.root_alias[i];
		size_t al = strlen(a);

		if (r->protect.root_alias_whole[i] && path_is_within(abs, a) &&
		    strlen(abs) > al + 1 && abs[al] == '/') {
			add_git_entry(r, abs + al + 1);
			return;
		}
	}
}

/* A path that does not exist, by the way to it that does, resolved, and
 * the rest as written ("/home/me/.ssh" with /home/me -> /data/me:
 * "/data/me/.ssh"). NULL: no part of it resolves. */
static char *resolve_missing(const char *path)
{
	char *way = strdup(path), *p = NULL;

	for (char *slash; way && (slash = strrchr(way, '/')) && slash != way;) {
		char *real;

		*slash = '\0';
		real = realpath(way, NULL);
		if (real) {
			if (asprintf(&p, "%s%s", strcmp(real, "/") ? real : "", path + (slash - way)) < 0)
				p = NULL;
			free(real);
			break;
		}
	}
	free(way);
	return p;
}

/* Where a dangling link leads (~/.bashrc -> dotfiles/bashrc, not made
 * yet): its directory resolved, and the last name; links in a chain
 * followed a few times. NULL: nowhere that can be named. */
static char *dangling_target(const char *link)
{
	char at[PATH_MAX], to[PATH_MAX], dir[PATH_MAX], *out = NULL;

	snprintf(at, sizeof(at), "%s", link);
	for (int hops = 0; hops < 8; hops++) {
		ssize_t n = readlink(at, to, sizeof(to) - 1);

		if (n <= 0)
			break;
		to[n] = '\0';
		if (to[0] == '/')
			snprintf(dir, sizeof(dir), "%s", to);
		else if (snprintf(dir, sizeof(dir), "%.*s/%s", (int)(strrchr(at, '/') - at), at,
				  to) >= (int)sizeof(dir))
			break;
		char *resolved = resolve_missing(dir);
		struct stat st;

		if (!resolved || snprintf(at, sizeof(at), "%s", resolved) >= (int)sizeof(at)) {
			free(resolved);
			break;
		}
		free(resolved);

		if (lstat(at, &st) < 0) {
			out = strdup(at);
			break;
		}
		if (!S_ISLNK(st.st_mode))
			break;
	}
	return out;
}

static void protect_home_entry(struct run_state *r, const char *home, const char *entry)
{
	char *path, target[PATH_MAX];

	if (asprintf(&path, "%s/%s", home, entry) < 0)
		return;
	protect_if_in_root(r, path);
	/* A start-up file kept in a dotfiles repository (~/.bashrc ->
	 * ~/dotfiles/bashrc) is read there: protected where it resolves
	 * (adversarial pass 6, finding 02), also where it does not exist
	 * yet: a run would make it there (pass 7, finding 11). */
	if (realpath(path, target)) {
		protect_if_in_root(r, target);
	} else {
		char *d = dangling_target(path);

		if (d)
			protect_if_in_root(r, d);
		free(d);
	}
	free(path);
}

/* Where the caller's environment moves a home's start-up files:
 * $XDG_CONFIG_HOME and $XDG_DATA_HOME the entries below .config/ and
 * .local/share/, $ZDOTDIR zsh's. Protected there too, wherever that lies in
 * the root: every login reads them from the moved place (adversarial pass
 * 7, finding 05). */
static void add_moved_startup(struct run_state *r)
{
	static const struct {
		const char *var, *prefix;
		bool keep; /* the prefix is part of the name there */
	} moves[] = {
		{ "XDG_CONFIG_HOME", ".config/", false },
		{ "XDG_DATA_HOME", ".local/share/", false },
		{ "ZDOTDIR", ".z", true },
	};
	const char *const *lists[2] = { view_default_protected, home_startup };

	for (size_t m = 0; m < sizeof(moves) / sizeof(moves[0]); m++) {
		const char *dir = xdg(moves[m].var);
		size_t pl = strlen(moves[m].prefix);
		char real[PATH_MAX];

		if (!dir || !realpath(dir, real))
			continue;
		for (int l = 0; l < 2; l++)
			for (size_t i = 0; lists[l][i]; i++)
				if (strncmp(lists[l][i], moves[m].prefix, pl) == 0)
					protect_home_entry(r, real,
							   lists[l][i] + (moves[m].keep ? 0 : pl));
	}
}

/* A home of the caller's ($HOME, the passwd home) and the root: the home's
 * start-up files and settings that lie in the root are protected there,
 * wherever the root is (the home itself, above it, ~/.config or ~/.local
 * inside it, a dotfiles repository their links lead to). Why: a shell, a
 * login or an agent the user starts reads them from the home (adversarial
 * pass 5, finding 03; pass 6, findings 02, 06, 07). */
static void add_homes_protected(struct run_state *r)
{
	const char *homes[2] = { getenv("HOME"), view_passwd_home() };

	for (int h = 0; h < 2; h++) {
		char real[PATH_MAX];

		if (!homes[h] || homes[h][0] != '/' || !realpath(homes[h], real))
			continue;
		for (size_t i = 0; view_default_protected[i]; i++)
			protect_home_entry(r, real, view_default_protected[i]);
		for (size_t i = 0; home_startup[i]; i++)
			protect_home_entry(r, real, home_startup[i]);
	}
	add_moved_startup(r);
}

/* The protected paths, and git's allow-list (on unless protected_paths is
 * none): the root's own .git entries that are not on it are protected
 * paths (read-only binds under the namespace runner, snapshots), every
 * repository under the root is held to it after the run. */
/* A hidden path in the root that does not exist (the root is the home:
 * ~/.ssh, ~/.aws, ~/.kube missing): nothing covers it, so a command could
 * make it (~/.ssh/authorized_keys, ~/.kube/config with an exec plugin, a
 * credential_process in ~/.aws/config) for the user's tools to run. It is a
 * protected path, absent: what a run makes there is taken away
 * (adversarial pass 6, finding 04). Whatever protected_paths says: it is
 * the hidden list's promise. */
static void protect_missing_hidden(struct run_state *r)
{
	for (size_t i = 0; i < r->view.hide.n; i++) {
		const char *h = r->view.hide.path[i];
		struct stat st;
		char *resolved;

		if (lstat(h, &st) == 0 || errno != ENOENT)
			continue;
		protect_if_in_root(r, h);
		/* why: the root is resolved, the store's name may not be ($HOME
		 * a symlink to the root, adversarial pass 7, finding 10): the
		 * same place by the way that exists, resolved. */
		resolved = resolve_missing(h);
		if (resolved)
			protect_if_in_root(r, resolved);
		free(resolved);
	}
}

static void prepare_protected(struct run_state *r, const struct sbx_run *cfg)
{
	protect_missing_hidden(r);
	if (cfg->protected_paths_add)
		add_list(r, &r->view.protect, cfg->protected_paths_add, NULL);
	if (cfg->protected_paths && strcmp(cfg->protected_paths, "none") == 0)
		return;
	if (cfg->protected_paths) {
		add_list(r, &r->view.protect, cfg->protected_paths, NULL);
	} else {
		for (size_t i = 0; view_default_protected[i]; i++)
			add(r, &r->view.protect, strdup(view_default_protected[i]));
		add_homes_protected(r);
	}
	r->protect.git = true;
	if (r->root_fd >= 0)
		protect_git_root_entries(r->root_fd, r->root, add_git_entry, r);
	add_git_user_config(r);
	add_git_repo_includes(r);
}

/* Drops the entries under /tmp, but those in the root or a home. */
static void drop_in_tmp(const struct run_state *r, struct ns_path_list *l)
{
	size_t o = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!path_is_within(l->path[i], "/tmp") || in_root_or_home(r, l->path[i]))
			l->path[o++] = l->path[i];
	l->n = o;
}

/* One home of the caller's, resolved, if it lies in the host's /tmp and the
 * namespace runner must bring it into the run's own /tmp (ns_view.c): not
 * /tmp itself (the run's /tmp is its own), not the root nor inside it
 * (attached already). A root inside it is attached on top of it. */
static void add_home(struct run_state *r, const char *home)
{
	char real[PATH_MAX];
	size_t n = r->view.n_homes;
	int fd;

	/* Vanished, or not a directory: left out, as before (the run's /tmp
	 * hides it, with whatever it holds). */
	if (!home || !realpath(home, real) || !path_is_within(real, "/tmp") ||
	    strcmp(real, "/tmp") == 0 || path_is_within(real, r->root))
		return;
	/* Why: the home's clone is taken below any cover, and one over it or
	 * a directory above it would not come along: a hidden home stays out. */
	for (size_t i = 0; i < r->view.hide.n; i++)
		if (path_is_within(real, r->view.hide.path[i]))
			return;
	for (size_t i = 0; i < n; i++)
		if (path_is_within(real, r->view.home_path[i]))
			return;
	fd = open(real, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* The other one inside this one comes along with it. */
	for (size_t i = 0; i < n; i++)
		if (path_is_within(r->view.home_path[i], real)) {
			const char *kept = keep(r, strdup(real));

			if (!kept) {
				close(fd);
				return;
			}
			close(r->view.home_fd[i]);
			r->view.home_path[i] = kept;
			r->view.home_fd[i] = fd;
			return;
		}
	if (n >= NS_VIEW_MAX_HOMES || !(r->view.home_path[n] = keep(r, strdup(real)))) {
		close(fd);
		return;
	}
	r->view.home_fd[n] = fd;
	r->view.n_homes = n + 1;
}

/* The first hidden path that exists under /tmp, outside the root. */
static const char *hidden_under_tmp(const struct run_state *r)
{
	struct stat st;

	for (size_t i = 0; i < r->view.hide.n; i++) {
		const char *h = r->view.hide.path[i];

		/* why /dev/shm: the landlock runner grants it whole too; sbx's
		 * state there (XDG_CACHE_HOME=/dev/shm/...) was the command's
		 * to rewrite (adversarial pass 6, finding 03). */
		if ((path_is_within(h, "/tmp") || path_is_within(h, "/dev/shm")) &&
		    !path_is_within(h, r->root) && lstat(h, &st) == 0)
			return h;
	}
	return NULL;
}

/* Allow-listed sockets (unix_sockets) under the host's /tmp: bound into the
 * namespace runner's own /tmp at the same path, so an ssh-agent or database
 * socket the deployment allows stays reachable there. Exact paths only: a
 * pattern names no file to bind. */
static void prepare_sockets(struct run_state *r, const struct sbx_run *cfg)
{
	for (size_t i = 0; i < cfg->n_unix_sockets; i++) {
		const char *p = cfg->unix_sockets[i];
		struct stat st;

		if (p[0] != '/' || strchr(p, '*') || !path_is_within(p, "/tmp") ||
		    lstat(p, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		add(r, &r->view.sockets, strdup(p));
	}
}

/* The workspace's /tmp (namespace runner), its tool cache, and the place of
 * its protected paths' baseline: directories of its own in sbx's state. The
 * first two last across calls. Without a state directory the run still
 * runs: a fresh /tmp, no cache, and its own view as its baseline. */
static void prepare_dirs(struct run_state *r, const struct sbx_run *cfg, const char *base)
{
	char path[PATH_MAX];
	struct sbx_error ignored;
	int fd;

	char key[96];

	statedir_key(r->root, key, sizeof(key));
	/* Only the namespace runner mounts it as the run's /tmp: a run pinned
	 * to the landlock runner has the host's /tmp and leaves it unmade. */
	if (base && cfg->runner != SBX_RUNNER_LANDLOCK &&
	    statedir_for_root(base, "tmp", r->root, 01777, path, sizeof(path), &fd,
			      &ignored) == 0) {
		r->view.tmp_path = keep(r, strdup(path));
		r->view.tmp_fd = r->view.tmp_path ? fd : (close(fd), -1);
		/* Touched, so that its age says when it was last used. */
		utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
		statedir_expire(base, "tmp", VIEW_TMP_MAX_AGE_S, key);
	}
	if (base && (r->view.protect.n || r->protect.git || r->protect.record)) {
		int rc = statedir_for_root(base, "protect", r->root, 0700, path, sizeof(path), &fd,
					   &ignored);

		if (rc == 0)
			r->protect.dir_fd = fd;
		else if (r->protect.git || r->protect.record)
			r->protect.runs_error = rc;
	}
	if (r->protect.git || r->protect.record) {
		prepare_runs(r, r->protect.dir_fd >= 0 ? base : NULL);
		/* A state directory that exists but cannot take the record
		 * (its file system full): the run is refused (protect_begin),
		 * not left out. Without any state directory there is no
		 * record to keep (docs/workspace.md). */
		if (base && !r->protect.runs_own && !r->protect.runs_error)
			r->protect.runs_error = -EIO;
	}
	if (cfg->cache_dir && strcmp(cfg->cache_dir, "off") == 0)
		return;
	if (!cfg->cache_dir && !base)
		return;
	if (statedir_for_root(cfg->cache_dir ? cfg->cache_dir : base,
			      cfg->cache_dir ? NULL : "cache", r->root, 0700, path, sizeof(path), &fd,
			      &ignored) == 0) {
		r->view.cache_dir = keep(r, strdup(path));
		r->view.cache_fd = r->view.cache_dir ? fd : (close(fd), -1);
		utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
		if (!cfg->cache_dir)
			statedir_expire(base, "cache", VIEW_CACHE_MAX_AGE_S, key);
	}
}

/* A baseline an sbx left when it died (protect_base.c) is put back by the
 * next run of the root in any confined mode: a read-only session after a
 * crash must not leave a planted hook for the user's next git. Looked up
 * where a workspace-write run keeps it, through handles that follow no
 * symlink; nothing is made when there is none. */
static void prepare_recovery(struct run_state *r, const struct sbx_run *cfg,
			     const char *const *avoid_ww)
{
	char base[PATH_MAX], key[96];
	struct sbx_error ignored;
	struct stat st;
	int fd, next;

	if (statedir_base(avoid_ww, base, sizeof(base), &ignored) < 0)
		return;
	statedir_key(r->root, key, sizeof(key));
	fd = open(base, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	next = fd < 0 ? -1 : openat(fd, "protect", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	fd = next < 0 ? -1 : openat(next, key, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next >= 0)
		close(next);
	if (fd < 0)
		return;
	if (fstatat(fd, "base", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	prepare_protected(r, cfg);
	/* Its command writes nothing: no git pass after it (the dead run's
	 * changes are made inert when the baseline is recovered), and no
	 * record of its own. */
	r->protect.git = false;
	prepare_writable(r);
	prepare_runs(r, NULL);
	r->protect.dir_fd = fd;
}

static void prepare_workspace(struct run_state *r, const struct sbx_run *cfg, const char *base)
{
	/* In workspace-write the host's /tmp is out of view (namespace runner:
	 * /tmp is the workspace's own) or writable (landlock runner: nothing
	 * can be hidden there): a hidden or revealed path there is dropped,
	 * noted first so the landlock runner is not used while one exists
	 * (run_pick.c). Why not those inside the root or a home brought in
	 * (below): a root under /tmp is bound into the private /tmp whole, a
	 * home too, so they are covered there as anywhere (a deny_read entry
	 * in a workspace under /tmp was readable and writable). */
	r->hidden_in_tmp = hidden_under_tmp(r);
	/* A home of the caller's there is brought into the namespace
	 * runner's /tmp (read-only), its hidden paths kept and covered there
	 * as anywhere: without it, ~ was missing from the run (new-user pass,
	 * issue 32). */
	if (cfg->runner != SBX_RUNNER_LANDLOCK) {
		const char *home = home_dir();

		add_home(r, home);
		add_home(r, other_home(home));
	}
	drop_in_tmp(r, &r->view.hide);
	drop_in_tmp(r, &r->view.reveal);
	prepare_protected(r, cfg);
	/* Every workspace-write run is in the runs record, also one without
	 * git's rules (protected_paths = none): what it links or renames in
	 * stays a run's for later runs (an allow-listed socket name). */
	r->protect.record = true;
	prepare_dirs(r, cfg, base);
	prepare_sockets(r, cfg);
	prepare_writable(r);
}

/* A cache_dir of the config's that the run cannot use is said, never
 * dropped: its command then found no tool cache and no variable pointing
 * to one, and nothing said why (new-user pass 6, finding 5). */
static int check_cache_dir(const struct run_state *r, const struct sbx_run *cfg,
			   struct sbx_error *err)
{
	char real[PATH_MAX];
	struct stat st;

	if (r->mode != SBX_MODE_WORKSPACE_WRITE || !cfg->cache_dir ||
	    strcmp(cfg->cache_dir, "off") == 0)
		return 0;
	errno = 0;
	if (!realpath(cfg->cache_dir, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = errno ? errno : ENOTDIR;

		return sbx_error_set(err, e, SBX_E_CONFIG, cfg->cache_dir,
				     "cache_dir %s: %s: make the directory, or set cache_dir = off",
				     cfg->cache_dir, strerror(e));
	}
	/* Every root's cache is a directory of it: inside this root they
	 * would all be this run's to read and change. */
	if (path_is_within(real, r->root))
		return sbx_error_set(err, EINVAL, SBX_E_CONFIG, cfg->cache_dir,
				     "cache_dir %s lies inside the root %s, where the caches of "
				     "every other root would be the command's to read and change: "
				     "choose a directory outside the root, or cache_dir = off",
				     cfg->cache_dir, r->root);
	return 0;
}

int view_prepare(struct run_state *r, const struct sbx_run *cfg, struct sbx_error *err)
{
	char base[PATH_MAX];
	struct sbx_error ignored;
	bool have_base;

	if (r->mode == SBX_MODE_DANGER_FULL_ACCESS)
		return 0;
	const char *const avoid_ww[] = { r->root, "/tmp", "/dev/shm", NULL };

	if (check_cache_dir(r, cfg, err) < 0)
		return -1;
	/* In workspace-write, not inside what the command may write. */
	have_base = statedir_base(r->mode == SBX_MODE_WORKSPACE_WRITE ? avoid_ww : NULL, base,
				  sizeof(base), &ignored) == 0;
	/* why: /var/tmp is everyone's. Another user who made /var/tmp/sbx-UID
	 * first would leave a caller whose home holds no state directory with
	 * none at all, and so without the runs record that holds a git
	 * directory staged by one run and moved in by the next (adversarial
	 * pass 9, finding 14). Refused, naming it, not run unrecorded. */
	if (!have_base && r->mode == SBX_MODE_WORKSPACE_WRITE) {
		char squat[PATH_MAX];
		struct stat st;

		if (statedir_candidate(2, squat, sizeof(squat)) == 0 && lstat(squat, &st) == 0 &&
		    st.st_uid != geteuid() && !owner_unmapped(st.st_uid))
			return sbx_error_set(err, EPERM, SBX_E_SANDBOX_UNAVAILABLE, squat,
					     "unable to start: sbx's state directory %s belongs to "
					     "uid %u, not to you, and no other is usable: this run "
					     "could not be recorded; set XDG_CACHE_HOME to a "
					     "directory of your own (and remove that one)",
					     squat, (unsigned)st.st_uid);
	}
	prepare_hidden(r, cfg, have_base ? base : NULL);
	if (r->mode != SBX_MODE_WORKSPACE_WRITE)
		prepare_recovery(r, cfg, avoid_ww);
	else
		prepare_workspace(r, cfg, have_base ? base : NULL);
	settle_holding_dirs(r);
	if (r->view_full)
		return sbx_error_set(err, E2BIG, SBX_E_CONFIG, NULL,
				     "unable to start: more than %d hidden paths (deny_read, the "
				     "stores the environment moves, sbx's state)",
				     NS_VIEW_MAX_PATHS);
	/* why: a protected path left out would be writable, silently. */
	if (r->protect_full)
		return sbx_error_set(err, E2BIG, SBX_E_CONFIG, NULL,
				     "unable to start: more than %d protected paths (protected_paths, "
				     "the root's .git entries, the start-up files of a home in the root)",
				     NS_VIEW_MAX_PATHS);
	return 0;
}

int view_protect_begin(struct run_state *r, struct sbx_error *err)
{
	int rc = protect_begin(&r->protect, r->root_fd, r->root, &r->view.protect);

	/* Not sbx's own failure: where it cannot write its state (inside
	 * another sandbox's read-only view, a full disk) the sandbox cannot
	 * keep its promise, and says where to run (new-user pass 10). */
	if (rc < 0 && r->protect.runs_failed)
		return sbx_error_set(err, -rc, SBX_E_SANDBOX_UNAVAILABLE, r->root,
				     "unable to start: this run cannot be recorded in sbx's state "
				     "directory (%s), and a run left out of the record could stage "
				     "a git directory or a socket for a later one; run sbx where "
				     "$XDG_CACHE_HOME, ~/.cache or /var/tmp is writable (not inside "
				     "another sandbox's read-only view)", strerror(-rc));
	if (rc < 0 && r->protect.aliased)
		return sbx_error_set(err, -rc, SBX_E_INTERNAL, r->root,
				     "unable to start: the protected path %s holds a file with "
				     "another name (a hard link), which a confined run could write "
				     "it through, and sbx could not give it a copy of its own (%s)",
				     r->protect.aliased, strerror(-rc));
	if (rc == -EWOULDBLOCK)
		return sbx_error_set(err, EWOULDBLOCK, SBX_E_INTERNAL, r->root,
				     "unable to start: another sbx has held the protected paths' "
				     "baseline of %s for too long", r->root);
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_INTERNAL, r->root,
				     "unable to record the protected paths of %s: %s", r->root,
				     strerror(-rc));
	return 0;
}

void view_release(struct run_state *r)
{
	if (r->view.tmp_fd >= 0)
		close(r->view.tmp_fd);
	if (r->view.cache_fd >= 0)
		close(r->view.cache_fd);
	r->view.tmp_fd = r->view.cache_fd = -1;
	for (size_t i = 0; i < r->view.n_homes; i++)
		close(r->view.home_fd[i]);
	r->view.n_homes = 0;
	for (size_t i = 0; i < r->n_view_strings; i++)
		free(r->view_strings[i]);
	r->n_view_strings = 0;
}
