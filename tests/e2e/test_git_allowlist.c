/* SPDX-License-Identifier: MIT */
/* Git metadata as an allow-list in every repository under the root (issue
 * 29, findings 4 and 5, and the everyday breakage "git init at the root"):
 * what a run plants in a repository below the root, or in the root's own
 * (hooks, core.fsmonitor, a rebase or cherry-pick in progress), never runs
 * in the user's next unconfined git there, and what git's everyday commands
 * write (init, add, commit, clone, branches, stashes, merges, worktrees)
 * works confined and leaves a repository whose config holds only
 * allow-listed keys and whose hooks are only git's *.sample files. Both
 * runners, as the caller and as nobody; every effect is looked at from
 * outside, with the user's own git. */
#define RUN_FIXTURE_SUITE git_allowlist
#include "run_fixture.h"

#define GIT "git -c user.email=t@t -c user.name=t -c init.defaultBranch=main"

/* As the user under test, in dir (HOME=f->home): a shell line. */
static int user_sh(struct fx *f, const char *dir, const char *line, struct e2e_out *o)
{
	char *cmd = e2e_fmt("cd %s && %s", dir, line);
	char *argv[] = { "bash", "-c", cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true",
			NULL };

	return e2e_run(f->p.who, argv, env, o);
}

static void user_ok(struct fx *f, const char *dir, const char *line)
{
	struct e2e_out o;

	user_sh(f, dir, line, &o);
	cr_assert(o.status == 0, "%s user: %s: %s%s", f->tag, line, o.out, o.err);
	e2e_out_free(&o);
}

/* The user's repository at ws/rel (rel "." for the root), one commit. */
static char *user_repo(struct fx *f, const char *rel)
{
	char *dir = e2e_fmt("%s/%s", f->ws, rel);

	if (strcmp(rel, ".") != 0)
		cr_assert(e2e_mkdir(f->p.who, dir) == 0);
	user_ok(f, dir, GIT " init -q . && " GIT " commit -q --allow-empty -m init");
	return dir;
}

static bool has(const struct e2e_out *o, const char *s)
{
	return strstr(o->out, s) != NULL;
}

/* Every key of the repository's own config is on the allow-list, and its
 * hooks are git's *.sample files only. */
static void assert_clean_repo(struct fx *f, const char *gitdir)
{
	static const char *const ok[] = {
		"core.repositoryformatversion=", "core.filemode=", "core.bare=",
		"core.logallrefupdates=", "core.ignorecase=", "core.precomposeunicode=",
		"core.symlinks=", "remote.", "branch.", "user.name=", "user.email=",
		"init.defaultbranch=", "extensions.objectformat=", "submodule.",
	};
	struct e2e_out o;
	char *line, *save = NULL;

	user_sh(f, "/", e2e_fmt("git config -f %s/config --list", gitdir), &o);
	cr_assert(o.status == 0, "%s %s/config unreadable: %s", f->tag, gitdir, o.err);
	for (line = strtok_r(o.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool allowed = false;

		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			allowed = allowed || strncmp(line, ok[i], strlen(ok[i])) == 0;
		cr_expect(allowed, "%s %s/config keeps %s", f->tag, gitdir, line);
		if (strncmp(line, "remote.", 7) == 0 || strncmp(line, "branch.", 7) == 0)
			cr_expect(strstr(line, ".url=") || strstr(line, ".fetch=") ||
					  strstr(line, ".remote=") || strstr(line, ".merge="),
				  "%s %s/config keeps %s", f->tag, gitdir, line);
	}
	e2e_out_free(&o);
	user_sh(f, e2e_fmt("%s/hooks", gitdir), "ls -A | grep -v '\\.sample$' || true", &o);
	cr_expect(o.status == 0 && o.out[0] == '\0', "%s %s/hooks holds more than samples: %s%s",
		  f->tag, gitdir, o.out, o.err);
	e2e_out_free(&o);
}

/* ---- finding 4: repositories below the root ---- */

/* A hook and core.fsmonitor planted in ROOT/proj/.git run in the user's
 * next git status or commit in proj. */
PARAMS(nested_repo, params_both);
ParameterizedTest(struct rp *p, git_allowlist, nested_repo, .timeout = 240)
{
	static const char *const attacks[] = {
		"printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > proj/.git/hooks/pre-commit && "
		"chmod +x proj/.git/hooks/pre-commit",
		"git -C proj config core.fsmonitor \"$PLANT\"",
		"git -C proj config core.hooksPath ../evilhooks && mkdir evilhooks && "
		"printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > evilhooks/pre-commit && chmod +x evilhooks/pre-commit",
		/* deeper, and a hook directory replaced by a symlink */
		"mkdir -p a/b && mv proj a/b/ && ln -s a/b/proj proj && "
		"printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > a/b/proj/.git/hooks/post-commit && "
		"chmod +x a/b/proj/.git/hooks/post-commit",
		"mkdir evh && printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > evh/pre-commit && chmod +x "
		"evh/pre-commit && rm -rf proj/.git/hooks && ln -s ../../evh proj/.git/hooks",
		/* closed to its owner, so that no one may list it: git still
		 * opens what is in it by name */
		"git -C proj config core.fsmonitor \"$PLANT\" && chmod 100 proj/.git",
		"printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > proj/.git/hooks/pre-commit && "
		"chmod +x proj/.git/hooks/pre-commit && chmod 100 proj/.git/hooks",
	};

	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *proj = user_repo(&f, "proj");
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_x(&f, "workspace-write", NULL,
		      e2e_fmt("PLANT='touch %s'; %s", witness, attacks[i]), &o);
		cr_expect(exit_code(&o) == 0, "%s attack %zu did not run: %s", f.tag, i, o.out);
		/* It exited 0: not denied (CONTRACT section 5); what was put
		 * back is named. */
		cr_expect(has(&o, "\"denied\":false") && has(&o, "\"reverted\":["),
			  "%s attack %zu: not reported as put back (or called denied): %s", f.tag,
			  i, o.out);
		e2e_out_free(&o);
		user_sh(&f, proj, "git status >/dev/null 2>&1; " GIT " commit -q --allow-empty -m x",
			&o);
		e2e_out_free(&o);
		cr_expect(!e2e_exists(witness), "%s attack %zu: the user's git ran what the run planted",
			  f.tag, i);
	}
}

/* ---- finding 5: a rebase, a cherry-pick, an am in progress ---- */

/* An interactive rebase's todo list with an exec line, planted in the
 * root's repository and in one below it: the user's `git rebase
 * --continue` would run it. */
PARAMS(planted_rebase, params_both);
ParameterizedTest(struct rp *p, git_allowlist, planted_rebase, .timeout = 240)
{
	static const char *const where[] = { ".", "proj" };

	for (size_t i = 0; i < 2; i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *repo = user_repo(&f, where[i]);
		char *witness = e2e_fmt("%s/rebase-ran", f.base);

		run_x(&f, "workspace-write", NULL,
		      e2e_fmt("cd %s && d=$(git rev-parse --git-dir)/rebase-merge && mkdir -p $d && "
			      "echo 'exec touch %s' > $d/git-rebase-todo && git rev-parse HEAD > $d/onto && "
			      "git rev-parse HEAD > $d/orig-head && git symbolic-ref HEAD > $d/head-name && "
			      ": > $d/interactive && : > $d/done && git status | grep -q rebase",
			      where[i], witness),
		      &o);
		cr_expect(exit_code(&o) == 0, "%s %s: the plant failed: %s", f.tag, where[i], o.out);
		e2e_out_free(&o);
		cr_expect(!e2e_exists(e2e_fmt("%s/.git/rebase-merge", repo)),
			  "%s %s: .git/rebase-merge survived", f.tag, where[i]);
		user_sh(&f, repo, GIT " rebase --continue", &o);
		e2e_out_free(&o);
		cr_expect(!e2e_exists(witness), "%s %s: the user's rebase --continue ran the exec line",
			  f.tag, where[i]);
	}
}

/* A cherry-pick sequence planted in .git/sequencer: the user's `git
 * cherry-pick --continue` would apply a commit the run chose (here one
 * that adds a file; it could add .envrc or change a Makefile). */
PARAMS(planted_sequencer, params_both);
ParameterizedTest(struct rp *p, git_allowlist, planted_sequencer, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	user_repo(&f, ".");
	run_x(&f, "workspace-write", NULL,
	      GIT " switch -q -c side && echo x > picked && " GIT " add picked && " GIT
		  " commit -qm side && s=$(git rev-parse HEAD) && " GIT " switch -q main && "
		  GIT " branch -q -D side && mkdir -p .git/sequencer && "
		  "printf 'pick %s side\\npick %s side\\n' $s $s > .git/sequencer/todo && "
		  "git rev-parse HEAD > .git/sequencer/head && "
		  "git rev-parse HEAD > .git/sequencer/abort-safety && "
		  "printf '[options]\\n' > .git/sequencer/opts",
	      &o);
	cr_expect(exit_code(&o) == 0, "%s the plant failed: %s", f.tag, o.out);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/.git/sequencer", f.ws)), "%s .git/sequencer survived",
		  f.tag);
	user_sh(&f, f.ws, GIT " cherry-pick --continue", &o);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/picked", f.ws)),
		  "%s the user's cherry-pick --continue applied the planted commit", f.tag);
}

/* An am session (rebase-apply/) left by a run, and a revert sequence: gone. */
PARAMS(planted_am, params_both);
ParameterizedTest(struct rp *p, git_allowlist, planted_am, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	user_repo(&f, ".");
	user_ok(&f, f.ws, "echo one > f && " GIT " add f && " GIT " commit -qm one");
	run_x(&f, "workspace-write", NULL,
	      "p=$(mktemp -d) && echo two > f && " GIT " commit -qam two && " GIT
	      " format-patch -q -1 -o $p && " GIT " reset -q --hard HEAD~1 && echo other > f && "
	      GIT " commit -qam other && ! " GIT " am -q $p/*.patch >/dev/null 2>&1 && "
	      "rm -rf $p && test -d .git/rebase-apply",
	      &o);
	cr_expect(exit_code(&o) == 0, "%s no am session was left: %s", f.tag, o.out);
	cr_expect(has(&o, "\"denied\":false") && has(&o, "\"reverted\":["),
		  "%s not reported as put back (or called denied): %s", f.tag, o.out);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/.git/rebase-apply", f.ws)), "%s .git/rebase-apply survived",
		  f.tag);
}

/* ---- what git's everyday commands write works ---- */

/* git init, add, commit at the root and in a subdirectory: the first thing
 * an agent does in a new project. Not a denial; the repositories are kept,
 * clean, and the user's git uses them. */
PARAMS(init_commit, params_both);
ParameterizedTest(struct rp *p, git_allowlist, init_commit, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	run_x(&f, "workspace-write", NULL,
	      GIT " init -q . && echo a > a.txt && " GIT " add . && " GIT " commit -qm init && "
	      "mkdir lib && cd lib && " GIT " init -q && echo b > b.txt && " GIT " add . && " GIT
	      " commit -qm lib && " GIT " log --format=%s",
	      &o);
	cr_assert(exit_code(&o) == 0, "%s git init and commit failed: %s", f.tag, o.out);
	cr_expect(has(&o, "\"denied\":false"), "%s git init was marked a denial: %s", f.tag, o.out);
	cr_expect(!has(&o, "\"reverted\""), "%s something was put back: %s", f.tag, o.out);
	e2e_out_free(&o);
	assert_clean_repo(&f, e2e_fmt("%s/.git", f.ws));
	assert_clean_repo(&f, e2e_fmt("%s/lib/.git", f.ws));
	cr_expect(e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit.sample", f.ws)),
		  "%s git's sample hooks are gone", f.tag);
	user_ok(&f, f.ws, "git log --format=%s | grep -qx init && git status --short >/dev/null");
	user_ok(&f, e2e_fmt("%s/lib", f.ws), "git log --format=%s | grep -qx lib");
}

/* git clone of a local repository into the root, then branches, a stash,
 * a merge, a worktree, a bare clone pushed to: all work confined, none is
 * marked, and what is left is clean. */
PARAMS(clone_and_work, params_both);
ParameterizedTest(struct rp *p, git_allowlist, clone_and_work, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *src = e2e_fmt("%s/src", f.base);

	cr_assert(e2e_mkdir(p->who, src) == 0);
	user_ok(&f, src, GIT " init -q . && echo s > s.txt && " GIT " add . && " GIT
		" commit -qm src");
	run_x(&f, "workspace-write", NULL,
	      e2e_fmt(GIT " clone -q %s . && " GIT " switch -q -c feature && echo f > f.txt && "
		      GIT " add f.txt && " GIT " commit -qm feature && " GIT " switch -q main && "
		      "echo wip >> s.txt && " GIT " stash -q && " GIT " stash pop -q && " GIT
		      " commit -qam wip && " GIT " merge -q --no-edit feature && "
		      GIT " worktree add -q wt && " GIT " clone -q --bare . origin.git && "
		      GIT " push -q origin.git main:other && " GIT " log --format=%%s | head -n 1",
		      src),
	      &o);
	cr_assert(exit_code(&o) == 0, "%s clone and work failed: %s", f.tag, o.out);
	cr_expect(has(&o, "\"denied\":false") && !has(&o, "\"reverted\""),
		  "%s everyday git was marked or put back: %s", f.tag, o.out);
	e2e_out_free(&o);
	assert_clean_repo(&f, e2e_fmt("%s/.git", f.ws));
	assert_clean_repo(&f, e2e_fmt("%s/origin.git", f.ws));
	user_ok(&f, f.ws, e2e_fmt("git config --get remote.origin.url | grep -qx %s && "
				  "git log --format=%%s | grep -qx feature && git branch | grep -q feature",
				  src));
	user_ok(&f, e2e_fmt("%s/wt", f.ws), "git status --short >/dev/null && git log -1 >/dev/null");
	user_ok(&f, e2e_fmt("%s/origin.git", f.ws), "git log other -1 >/dev/null");
}

/* A repository the run made anywhere under the root that the user's git
 * could reach: a bare one the user's push runs the hooks of, a ".git"
 * file or symlink leading out of the root to one the run made there. */
PARAMS(made_elsewhere, params_both);
ParameterizedTest(struct rp *p, git_allowlist, made_elsewhere, .timeout = 240)
{
	static const char *const attacks[] = {
		/* a bare repository the user pushes to */
		GIT " init -q --bare x.git && printf '#!/bin/sh\\n%s\\n' \"$PLANT\" > "
		"x.git/hooks/pre-receive && chmod +x x.git/hooks/pre-receive",
		/* a gitfile to a repository out of the root (the host's /tmp is
		 * writable under the landlock runner) */
		"rm -rf .git && " GIT " init -q --bare \"$OUT\" && git -C \"$OUT\" config core.fsmonitor "
		"\"$PLANT\" && printf 'gitdir: %s\\n' \"$OUT\" > .git",
		"rm -rf .git && " GIT " init -q --bare \"$OUT\" && git -C \"$OUT\" config core.fsmonitor "
		"\"$PLANT\" && ln -s \"$OUT\" .git",
		/* the same through a symlink inside the root */
		"rm -rf .git && " GIT " init -q --bare \"$OUT\" && git -C \"$OUT\" config core.fsmonitor "
		"\"$PLANT\" && ln -s \"$(dirname \"$OUT\")\" out && printf 'gitdir: out/%s\\n' "
		"\"$(basename \"$OUT\")\" > .git",
		/* commondir to a repository the run made */
		"cp -a .git .evil && git config -f .evil/config core.fsmonitor \"$PLANT\" && "
		"echo ../.evil > .git/commondir",
	};

	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		user_repo(&f, ".");
		char *witness = e2e_fmt("%s/planted-ran", f.base);
		char *out = e2e_fmt("/tmp/sbx-e2e-gitout-%d-%zu", (int)getpid(), i);

		run_x(&f, "workspace-write", NULL,
		      e2e_fmt("PLANT='touch %s'; OUT=%s; %s", witness, out, attacks[i]), &o);
		e2e_out_free(&o);
		user_sh(&f, f.ws, "git status >/dev/null 2>&1; git push -q x.git HEAD:refs/heads/y", &o);
		e2e_out_free(&o);
		e2e_rm_rf(out);
		cr_expect(!e2e_exists(witness), "%s attack %zu: the user's git ran what the run planted",
			  f.tag, i);
	}
}

/* A repository the last run's end found is recorded when the next run
 * starts: a change to its config is put back whole, the user's own keys
 * (which no run may write) included, not only cut down. */
PARAMS(known_repo_put_back, params_both);
ParameterizedTest(struct rp *p, git_allowlist, known_repo_put_back, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *proj = user_repo(&f, "proj");

	user_ok(&f, proj, "git config core.editor my-editor && git config pull.rebase true");
	run_x(&f, "workspace-write", NULL, "true", &o);
	cr_expect(has(&o, "\"denied\":false"), "%s a run that did nothing: %s", f.tag, o.out);
	e2e_out_free(&o);
	run_x(&f, "workspace-write", NULL,
	      "git -C proj config core.fsmonitor 'touch /x' && git -C proj config core.editor evil",
	      &o);
	cr_expect(has(&o, "\"reverted\":[\"proj/.git/config\"]"), "%s not put back: %s", f.tag,
		  o.out);
	e2e_out_free(&o);
	user_ok(&f, proj, "test \"$(git config core.editor)\" = my-editor && "
			  "test \"$(git config pull.rebase)\" = true && ! git config core.fsmonitor");
}

/* A remote the run adds that names a repository where a run may write
 * outside the root (the host's /tmp under the landlock runner; the user's
 * `git push` runs that repository's hooks): dropped; a network URL stays. */
PARAMS(remote_urls, params_both);
ParameterizedTest(struct rp *p, git_allowlist, remote_urls, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	run_x(&f, "workspace-write", NULL,
	      GIT " init -q n && git -C n remote add tmp /tmp/sbx-e2e-evil.git && "
	      "git -C n remote add net https://example.com/x.git && "
	      "git -C n remote add helper 'ext::sh -c evil' && "
	      "git -C n config branch.main.remote /tmp/sbx-e2e-evil.git",
	      &o);
	cr_expect(exit_code(&o) == 0, "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	user_ok(&f, e2e_fmt("%s/n", f.ws),
		"! git config --get remote.tmp.url && ! git config --get remote.helper.url && "
		"! git config --get branch.main.remote && "
		"test \"$(git config --get remote.net.url)\" = https://example.com/x.git");
}
