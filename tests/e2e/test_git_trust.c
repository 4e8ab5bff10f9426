/* SPDX-License-Identifier: MIT */
/* What git itself takes for a repository, and what a pointer out of the
 * root leads to (issue 29's second adversarial pass, findings 14, 01, 02,
 * 12, 04, 05, 15, 09): a git directory whose HEAD holds an upper-case
 * object id, or whose objects/ and refs/ are executable files; a remote URL
 * that names a path inside the root leading out of it (a symlink, a gitfile
 * under another name); a project directory or a submodule's git directory
 * replaced by a symlink to a repository the run made where it may write
 * outside the root; a .git the run closed to its owner; git's user-level
 * config when the root is $HOME. Each plants what the user's next
 * unconfined git runs; every effect is looked at from outside, with the
 * user's own git. */
#define RUN_FIXTURE_SUITE git_trust
#include "run_fixture.h"

#define GIT "git -c user.email=t@t -c user.name=t -c init.defaultBranch=main"
#define GITF GIT " -c protocol.file.allow=always"

static struct rp params_nobody[] = {
	{ "namespace", AS_NOBODY },
	{ "landlock", AS_NOBODY },
};

static int user_sh(struct fx *f, const char *dir, const char *line, struct e2e_out *o)
{
	char *cmd = e2e_fmt("cd %s && %s", dir, line);
	char *argv[] = { "bash", "-c", cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	return e2e_run(f->p.who, argv, env, o);
}

static void user_ok(struct fx *f, const char *dir, const char *line)
{
	struct e2e_out o;

	user_sh(f, dir, line, &o);
	cr_assert(o.status == 0, "%s user: %s: %s%s", f->tag, line, o.out, o.err);
	e2e_out_free(&o);
}

/* The user's git in dir, whatever it says. */
static void user_try(struct fx *f, const char *dir, const char *line)
{
	struct e2e_out o;

	user_sh(f, dir, e2e_fmt("(%s) >/dev/null 2>&1; true", line), &o);
	e2e_out_free(&o);
}

static void run_ok(struct fx *f, const char *cmd)
{
	struct e2e_out o;

	run_x(f, "workspace-write", NULL, cmd, &o);
	cr_assert(exit_code(&o) == 0, "%s the run failed: %s", f->tag, o.out);
	e2e_out_free(&o);
}

/* Where the run may write outside the root: the host's /tmp under the
 * landlock runner, the tool cache under the namespace runner. */
static char *out_dir(struct fx *f, size_t i)
{
	if (strcmp(f->p.runner, "landlock") == 0)
		return e2e_fmt("/tmp/sbx-e2e-trust-%d-%zu-%s", (int)getpid(), i,
			       e2e_user_name(f->p.who));
	return e2e_fmt("$XDG_CACHE_HOME/sbx-e2e-trust-%zu", i);
}

static void out_clean(struct fx *f, size_t i)
{
	if (strcmp(f->p.runner, "landlock") == 0)
		e2e_rm_rf(out_dir(f, i));
}

/* The root holds proj, the user's repository with the submodule lib (its
 * source in the fixture's base, out of every run's reach). */
static char *user_with_submodule(struct fx *f)
{
	user_ok(f, f->base, GIT " init -q libsrc && " GIT " -C libsrc commit -q --allow-empty -m l");
	user_ok(f, f->ws, GITF " init -q proj && cd proj && " GITF " commit -q --allow-empty -m i && "
			  GITF " submodule -q add " "../../libsrc lib && " GITF " commit -q -m sub");
	return e2e_fmt("%s/proj", f->ws);
}

/* ---- finding 14, 01: git directories git takes for one ---- */

/* The git directory of a submodule (.git/modules/lib) or a separate one
 * (a gitfile's target) whose HEAD the run rewrote in upper-case hex: git
 * still takes it for a git directory, so its config and hooks are held to
 * the allow-list. */
PARAMS(upper_case_head, params_both);
ParameterizedTest(struct rp *p, git_trust, upper_case_head, .timeout = 240)
{
	static const char *const plant =
		"h=$(git --git-dir=$M rev-parse HEAD | tr a-f A-F) && echo $h > $M/HEAD && "
		"git config -f $M/config core.fsmonitor \"$PLANT\" && "
		"printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > $M/hooks/pre-commit && "
		"chmod +x $M/hooks/pre-commit && git --git-dir=$M rev-parse HEAD";

	for (int separate = 0; separate < 2; separate++) {
		struct fx f;
		char *work, *m;

		fx_setup(&f, p);
		if (separate) {
			user_ok(&f, f.ws, "mkdir store && " GIT " init -q --separate-git-dir=$PWD/store/app.git "
					  "app && " GIT " -C app commit -q --allow-empty -m i");
			work = e2e_fmt("%s/app", f.ws);
			m = "store/app.git";
		} else {
			work = user_with_submodule(&f);
			m = "proj/.git/modules/lib";
		}
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_ok(&f, e2e_fmt("PLANT='touch %s'; M=%s; %s", witness, m, plant));
		user_try(&f, work, "git status");
		user_try(&f, separate ? work : e2e_fmt("%s/lib", work),
			 GIT " commit -q --allow-empty -m w");
		cr_expect(!e2e_exists(witness), "%s %s: the user's git ran what the run planted",
			  f.tag, m);
		cr_expect(!e2e_exists(e2e_fmt("%s/%s/hooks/pre-commit", f.ws, m)),
			  "%s %s: the planted hook is still there", f.tag, m);
	}
}

/* A bare repository git takes for one that the walk did not: HEAD in
 * upper-case hex, or objects/ and refs/ as executable files (git asks only
 * access(X_OK)). Its config keeps no command, its hooks only samples; the
 * user's push to it runs nothing of the run's. */
PARAMS(bare_git_takes, params_both);
ParameterizedTest(struct rp *p, git_trust, bare_git_takes, .timeout = 240)
{
	static const char *const shape[] = {
		"h=$(git -C docs.git rev-parse refs/heads/main | tr a-f A-F) && echo $h > docs.git/HEAD",
		"mv docs.git/objects docs.git/o && mv docs.git/refs docs.git/r && "
		"printf x > docs.git/objects && printf x > docs.git/refs && "
		"chmod +x docs.git/objects docs.git/refs",
	};

	for (size_t i = 0; i < 2; i++) {
		struct fx f;

		fx_setup(&f, p);
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_ok(&f, e2e_fmt("PLANT='touch %s'; " GIT " init -q --bare docs.git && "
				   GIT " init -q app && " GIT " -C app commit -q --allow-empty -m x && "
				   "git -C app push -q ../docs.git HEAD:refs/heads/main && "
				   "git -C app remote add origin \"$PWD/docs.git\" && "
				   "git config -f docs.git/config core.pager \"$PLANT\" && "
				   "git config -f docs.git/config alias.st \"!$PLANT\" && "
				   "printf '#!/bin/sh\\n%%s\\n' \"$PLANT\" > docs.git/hooks/pre-receive && "
				   "chmod +x docs.git/hooks/pre-receive && %s",
				   witness, shape[i]));
		char *docs = e2e_fmt("%s/docs.git", f.ws);

		if (i == 1)
			user_try(&f, docs, "git st");
		else
			user_try(&f, e2e_fmt("%s/app", f.ws),
				 GIT " commit -q --allow-empty -m w && git push -q origin HEAD:refs/heads/main");
		cr_expect(!e2e_exists(witness), "%s shape %zu: the user's git ran what the run planted",
			  f.tag, i);
		cr_expect(!e2e_exists(e2e_fmt("%s/hooks/pre-receive", docs)),
			  "%s shape %zu: the planted hook is still there", f.tag, i);
		struct e2e_out o;

		user_sh(&f, f.ws, "! git config -f docs.git/config core.pager && "
				  "! git config -f docs.git/config alias.st", &o);
		cr_expect(o.status == 0, "%s shape %zu: a command kept in docs.git/config: %s", f.tag,
			  i, o.out);
		e2e_out_free(&o);
	}
}

/* ---- findings 02, 12: a remote URL inside the root that leads out ---- */

/* remote.origin.url names a path in the root that is a symlink, or a
 * gitfile not called .git, leading to a repository the run made where it
 * may write outside the root: the user's push would run its hooks. The
 * remote goes; one inside the root stays. */
PARAMS(remote_url_leads_out, params_both);
ParameterizedTest(struct rp *p, git_trust, remote_url_leads_out, .timeout = 240)
{
	static const char *const how[] = {
		"ln -s \"$OUT/up.git\" upstream && U=\"$PWD/upstream\"",
		"printf 'gitdir: %s\\n' \"$OUT/up.git\" > upstream.git && U=\"$PWD/upstream.git\"",
		/* enter_repo's suffixes: "upstream" finds upstream.git */
		"printf 'gitdir: %s\\n' \"$OUT/up.git\" > upstream.git && U=\"$PWD/upstream\"",
		"mkdir -p d && ln -s \"$OUT\" d/x && U=\"$PWD/d/x/up.git\"",
		/* a symlink to a gitfile out of the root (a file: no link cut) */
		"printf 'gitdir: %s\\n' \"$OUT/up.git\" > \"$OUT/gf\" && ln -s \"$OUT/gf\" upstream.git && "
		"U=\"$PWD/upstream.git\"",
	};

	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		struct fx f;

		fx_setup(&f, p);
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_ok(&f, e2e_fmt("PLANT='touch %s'; OUT=%s; rm -rf \"$OUT\"; mkdir -p \"$OUT\" && "
				   GIT " init -q --bare \"$OUT/up.git\" && "
				   "printf '#!/bin/sh\\n%%s\\n' \"$PLANT\" > \"$OUT/up.git/hooks/pre-receive\" && "
				   "chmod +x \"$OUT/up.git/hooks/pre-receive\" && %s && " GIT " init -q lib && "
				   "git -C lib remote add origin \"$U\" && "
				   "git -C lib remote add inside \"$PWD/lib\"",
				   witness, out_dir(&f, i), how[i]));
		char *lib = e2e_fmt("%s/lib", f.ws);

		user_try(&f, lib, GIT " commit -q --allow-empty -m w && git push -q origin HEAD:refs/heads/main");
		out_clean(&f, i);
		cr_expect(!e2e_exists(witness), "%s case %zu: the user's push ran the run's hook", f.tag, i);
		struct e2e_out o;

		/* origin dropped, or where it led cut (the symlink goes too) */
		user_sh(&f, lib, "u=$(git config remote.origin.url); { test -z \"$u\" || "
				 "! test -e \"$u\"; } && git config remote.inside.url", &o);
		cr_expect(o.status == 0, "%s case %zu: origin still leads out, or inside gone: %s",
			  f.tag, i, o.out);
		e2e_out_free(&o);
	}
}

/* ---- finding 04: a project directory replaced by a symlink out ---- */

PARAMS(subdir_symlinked_out, params_both);
ParameterizedTest(struct rp *p, git_trust, subdir_symlinked_out, .timeout = 240)
{
	struct fx f;

	fx_setup(&f, p);
	user_ok(&f, f.ws, GIT " init -q . && mkdir src && echo x > src/a && git add . && "
			  GIT " commit -q -m init");
	/* The user's own link out, to a place no run may write: kept. */
	user_ok(&f, f.base, "mkdir shared && echo s > shared/s");
	user_ok(&f, f.ws, e2e_fmt("ln -s %s/shared shared", f.base));
	char *witness = e2e_fmt("%s/planted-ran", f.base);

	run_ok(&f, e2e_fmt("PLANT='touch %s'; OUT=%s; rm -rf \"$OUT\"; mkdir -p \"$OUT\" && "
			   "mv src \"$OUT/src\" && ln -s \"$OUT/src\" src && " GIT " init -q \"$OUT/src\" && "
			   "git -C \"$OUT/src\" config core.fsmonitor \"$PLANT\"",
			   witness, out_dir(&f, 0)));
	user_try(&f, e2e_fmt("%s/src", f.ws), "git status");
	out_clean(&f, 0);
	cr_expect(!e2e_exists(witness), "%s the user's git status in src ran the run's fsmonitor",
		  f.tag);
	cr_expect(e2e_exists(e2e_fmt("%s/shared/s", f.ws)), "%s the user's own link went", f.tag);
}

/* ---- finding 05: a submodule's git directory replaced by a symlink ---- */

PARAMS(modules_symlinked_out, params_both);
ParameterizedTest(struct rp *p, git_trust, modules_symlinked_out, .timeout = 240)
{
	struct fx f;

	fx_setup(&f, p);
	char *proj = user_with_submodule(&f);
	char *witness = e2e_fmt("%s/planted-ran", f.base);

	run_ok(&f, e2e_fmt("PLANT='touch %s'; O=%s; rm -rf \"$O\"; mkdir -p \"$O\" && "
			   "cp -a proj/.git/modules/lib \"$O/lib\" && "
			   "git config -f \"$O/lib/config\" core.worktree \"$PWD/proj/lib\" && "
			   "git config -f \"$O/lib/config\" core.fsmonitor \"$PLANT\" && "
			   "printf '#!/bin/sh\\n%%s\\n' \"$PLANT\" > \"$O/lib/hooks/post-checkout\" && "
			   "chmod +x \"$O/lib/hooks/post-checkout\" && rm -rf proj/.git/modules/lib && "
			   "ln -s \"$O/lib\" proj/.git/modules/lib",
			   witness, out_dir(&f, 0)));
	user_try(&f, proj, "git -c protocol.file.allow=always submodule update; git status");
	out_clean(&f, 0);
	cr_expect(!e2e_exists(witness), "%s the user's submodule update ran the run's hook", f.tag);
	struct stat st;

	cr_expect(lstat(e2e_fmt("%s/.git/modules/lib", proj), &st) < 0 || !S_ISLNK(st.st_mode),
		  "%s the symlink out is still there", f.tag);
}

/* ---- finding 15: a .git the run closed to its owner ---- */

/* A run of a caller who is not root takes read or write off its .git
 * (git needs only search on it to read its config): the owner's rights
 * come back, the config is cut down, and the result names the directory. */
PARAMS(gitdir_closed, params_nobody);
ParameterizedTest(struct rp *p, git_trust, gitdir_closed, .timeout = 240)
{
	static const char *const modes[] = { "511", "311", "300", "100", "500" };

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_x(&f, "workspace-write", NULL,
		      e2e_fmt(GIT " init -q app && git config -f app/.git/config core.fsmonitor "
			      "'touch %s' && chmod %s app/.git", witness, modes[i]),
		      &o);
		cr_expect(exit_code(&o) == 0, "%s mode %s: %s", f.tag, modes[i], o.out);
		cr_expect(strstr(o.out, "\"protected\":\"partial\"") == NULL,
			  "%s mode %s: left partial: %s", f.tag, modes[i], o.out);
		cr_expect(strstr(o.out, "\"app/.git\"") != NULL,
			  "%s mode %s: the result does not name app/.git: %s", f.tag, modes[i], o.out);
		e2e_out_free(&o);
		user_try(&f, e2e_fmt("%s/app", f.ws), "git status");
		cr_expect(!e2e_exists(witness), "%s mode %s: the user's git status ran the run's "
			  "fsmonitor", f.tag, modes[i]);
	}
}

/* ---- finding 09: the root is $HOME ---- */

/* sbx run on root $HOME as the user, HOME=f->home. */
static void run_home(struct fx *f, const char *cmd, struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--config", f->conf, "--runner",
			 f->p.runner, "--mode", "workspace-write", "--root", f->home, "--",
			 (char *)cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	e2e_run(f->p.who, argv, env, o);
}

/* git's user-level config (~/.gitconfig, ~/.config/git/config) is read by
 * every git the user runs: when the root holds it, it is protected like
 * the shell start-up files. The landlock runner refuses a root that holds
 * sbx's state directory ($HOME), so the namespace runner only. */
PARAMS(home_gitconfig, params_ns);
ParameterizedTest(struct rp *p, git_trust, home_gitconfig, .timeout = 240)
{
	for (int existed = 0; existed < 2; existed++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *proj = e2e_fmt("%s/proj", f.home);
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		cr_assert(e2e_mkdir(p->who, proj) == 0);
		user_ok(&f, proj, GIT " init -q . && " GIT " commit -q --allow-empty -m i");
		if (existed)
			user_ok(&f, f.home, "mkdir -p .config/git && git config --global core.editor mine && "
					    "git config -f .config/git/config core.editor mine");
		run_home(&f, e2e_fmt("mkdir -p ~/.config/git; for c in ~/.gitconfig ~/.config/git/config; "
				     "do git config -f $c core.fsmonitor 'touch %s'; done", witness),
			 &o);
		e2e_out_free(&o);
		user_try(&f, proj, "git status");
		cr_expect(!e2e_exists(witness), "%s (existed %d): the user's git status ran the run's "
			  "fsmonitor", f.tag, existed);
		if (existed)
			user_ok(&f, proj, "test \"$(git config --global core.editor)\" = mine && "
					  "test \"$(git config -f ~/.config/git/config core.editor)\" = mine");
	}
}
