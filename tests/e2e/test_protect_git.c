/* SPDX-License-Identifier: MIT */
/* Protected paths against git's own redirections: a repository whose
 * .git/commondir, ".git" file or symlink, or submodule leads elsewhere, and a
 * tree too deep for the sweep, must leave nothing that runs in the user's
 * next unconfined git. Both runners, as the caller and as nobody; the
 * effect is a witness file the user's own git would create. */
#define RUN_FIXTURE_SUITE protect_git
#include "run_fixture.h"

/* ---- protected paths ---- */

/* A repository in the workspace, made by who (git as who, HOME=f->home). */
static void git_repo(struct fx *f)
{
	char *cmd = e2e_fmt("cd %s && git init -q . && git -c user.email=t@t -c user.name=t "
			    "commit -q --allow-empty -m init",
			    f->ws);
	char *argv[] = { "bash", "-c", cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };
	struct e2e_out o;

	e2e_run(f->p.who, argv, env, &o);
	cr_assert(o.status == 0, "%s git init: %s", f->tag, o.err);
	e2e_out_free(&o);
}

/* The user's next unconfined git status in the workspace: does anything
 * planted run? (git runs core.fsmonitor on every status.) */
static bool user_git_ran_witness(struct fx *f, const char *witness)
{
	char *cmd = e2e_fmt("cd %s && git status >/dev/null 2>&1; true", f->ws);
	char *argv[] = { "bash", "-c", cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };
	struct e2e_out o;

	e2e_run(f->p.who, argv, env, &o);
	e2e_out_free(&o);
	return e2e_exists(witness);
}

/* git takes a repository's hooks and config from wherever .git/commondir
 * names, or from wherever a ".git" file (or symlink) put in place of the
 * directory leads. */
PARAMS(git_redirect, params_both);
ParameterizedTest(struct rp *p, protect_git, git_redirect, .timeout = 180)
{
	static const char *const attacks[] = {
		/* commondir: the whole repository's hooks and config */
		"cp -a .git .evil && git config -f .evil/config core.fsmonitor \"$PLANT\" && "
		"echo ../.evil > .git/commondir",
		/* the directory moved away, a gitfile in its place */
		"mv .git .g2; cp -a .git .g3 2>/dev/null || cp -a .g2 .g3; "
		"git config -f .g3/config core.fsmonitor \"$PLANT\" && rm -rf .git; "
		"echo 'gitdir: .g3' > .git",
		/* the directory emptied, a symlink in its place */
		"cp -a .git .g3 && git config -f .g3/config core.fsmonitor \"$PLANT\" && "
		"rm -rf .git; ln -s .g3 .git",
		/* a submodule's own git directory, whose fsmonitor the
		 * superproject's status runs */
		"mkdir -p sub && cd sub && git init -q . && git -c user.email=t@t -c user.name=t "
		"commit -q --allow-empty -m s && cd .. && git add sub 2>/dev/null; "
		"mkdir -p .git/modules && mv sub/.git .git/modules/sub && echo 'gitdir: "
		"../.git/modules/sub' > sub/.git && git config -f .git/modules/sub/config "
		"core.worktree ../../../sub && git config -f .git/modules/sub/config "
		"core.fsmonitor \"$PLANT\"",
	};

	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		git_repo(&f);
		char *witness = e2e_fmt("%s/planted-ran", f.base);
		char *cmd = e2e_fmt("PLANT='touch %s; false'; %s", witness, attacks[i]);

		run_x(&f, "workspace-write", NULL, cmd, &o);
		cr_expect(!user_git_ran_witness(&f, witness),
			  "%s attack %zu: the user's git ran what the run planted:\n%s\n%s", f.tag, i,
			  o.out, o.err);
		e2e_out_free(&o);
	}
}

/* A tree deeper than the sweep descends, at an absent protected path and in
 * an existing one (put back from its snapshot under the landlock runner). */
PARAMS(deep_tree, params_both);
ParameterizedTest(struct rp *p, protect_git, deep_tree, .timeout = 180)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	git_repo(&f);
	run_x(&f, "workspace-write", NULL,
	      "deep() { p=$1; for j in $(seq 80); do p=$p/a; done; mkdir -p $p && touch $p/f; }; "
	      "mkdir .vscode; for i in 0 1 2 3 4 5; do deep .vscode/d$i; done; "
	      "echo '{}' > .vscode/tasks.json; "
	      "for i in 0 1 2 3 4 5; do deep .git/hooks/d$i; done; "
	      "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; true",
	      &o);
	cr_expect(!e2e_exists(e2e_fmt("%s/.vscode", f.ws)), "%s .vscode survived the sweep:\n%s",
		  f.tag, o.out);
	cr_expect(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", f.ws)),
		  "%s a planted hook survived:\n%s", f.tag, o.out);
	cr_expect(!e2e_exists(e2e_fmt("%s/.git/hooks/d0", f.ws)), "%s .git/hooks/d0 survived:\n%s",
		  f.tag, o.out);
	cr_expect(e2e_exists(e2e_fmt("%s/.git/hooks/pre-push.sample", f.ws)),
		  "%s the hooks were not put back:\n%s", f.tag, o.out);
	e2e_out_free(&o);
}

/* The root's git directory under another name inside it (git init
 * --separate-git-dir=.repo: .git is a gitfile; or a symlink .git -> .repo):
 * its config and hooks are the user's, protected as .git's are. The command
 * wrote them, and the git rules then cut the user's own hook and config
 * (adversarial pass 6, finding 12). */
PARAMS(separate_git_dir_in_root, params_both);
ParameterizedTest(struct rp *p, protect_git, separate_git_dir_in_root, .timeout = 180)
{
	static const char *const layouts[] = { "gitfile", "symlink" };
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *base_ws = f.ws;

	for (size_t k = 0; k < 2; k++) {
		f.ws = e2e_fmt("%s/%s", base_ws, layouts[k]);
		cr_assert(e2e_mkdir(p->who, f.ws) == 0);
		char *setup = e2e_fmt(
			"cd %s && git init -q --separate-git-dir=%s/.repo . && %s"
			"git config core.hooksPath .repo/hooks && "
			"printf '#!/bin/sh\\necho mine\\n' > .repo/hooks/pre-commit && "
			"chmod +x .repo/hooks/pre-commit",
			f.ws, f.ws, k == 1 ? "rm .git && ln -s .repo .git && " : "");
		char *argv[] = { "bash", "-c", setup, NULL };
		char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

		e2e_run(p->who, argv, env, &o);
		cr_assert(o.status == 0, "%s %s setup: %s", f.tag, layouts[k], o.err);
		e2e_out_free(&o);
		run_x(&f, "workspace-write", NULL,
		      "echo '# touched' >> .repo/hooks/pre-commit; "
		      "printf '[core]\\n\\tfsmonitor = touch /x\\n' >> .repo/config; echo fine",
		      &o);
		cr_expect(strstr(o.out, "fine"), "%s %s: %s", f.tag, layouts[k], o.out);
		e2e_out_free(&o);
		char *hook = e2e_read_file(e2e_fmt("%s/.repo/hooks/pre-commit", f.ws));
		char *config = e2e_read_file(e2e_fmt("%s/.repo/config", f.ws));

		cr_expect(hook && strcmp(hook, "#!/bin/sh\necho mine\n") == 0,
			  "%s %s: the user's hook is now: %s", f.tag, layouts[k], hook ? hook : "(gone)");
		cr_expect(config && strstr(config, "hooksPath") && !strstr(config, "fsmonitor"),
			  "%s %s: the user's config is now: %s", f.tag, layouts[k],
			  config ? config : "(gone)");
	}
}
