/* SPDX-License-Identifier: MIT */
/* Repositories a run hides where the git pass's walk did not look (issue
 * 29's adversarial pass, findings 2, 3 and 4): inside a git directory's
 * own directories (ROOT/proj/.git/objects/sub/.git), above a root under
 * the host's /tmp (landlock runner, workspace-write: /tmp/a/.git over a
 * root /tmp/a/b/proj), and past the walk's old bound of 200,000
 * directories. Each plants a hook or core.fsmonitor that the user's next
 * unconfined git runs where the user goes; every effect is looked at from
 * outside, with the user's own git. */
#define RUN_FIXTURE_SUITE git_hidden
#include "run_fixture.h"

#include <sched.h>
#include <sys/mount.h>

#define GIT "git -c user.email=t@t -c user.name=t -c init.defaultBranch=main"
/* A hook and core.fsmonitor in the repository of git directory $1 that
 * run PLANT. */
#define ARM                                                                                   \
	"arm() { printf '#!/bin/sh\\n%%s\\n' \"$PLANT\" > \"$1/hooks/pre-commit\" && "             \
	"chmod +x \"$1/hooks/pre-commit\" && git config -f \"$1/config\" core.fsmonitor \"$PLANT\"; }; "

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

/* The user's git status and commit in dir. */
static void user_works_in(struct fx *f, const char *dir)
{
	struct e2e_out o;

	user_sh(f, dir,
		"git status >/dev/null 2>&1; " GIT " commit -q --allow-empty -m x >/dev/null 2>&1; true",
		&o);
	e2e_out_free(&o);
}

/* ---- finding 2: a repository inside a git directory ---- */

PARAMS(inside_git_dir, params_both);
ParameterizedTest(struct rp *p, git_hidden, inside_git_dir, .timeout = 240)
{
	static const struct {
		const char *plant, *where;
	} attacks[] = {
		/* in the user's repository's objects/ */
		{ GIT " init -q proj/.git/objects/sub && arm proj/.git/objects/sub/.git",
		  "proj/.git/objects/sub" },
		/* in a bare repository's objects/, the run's own */
		{ GIT " init -q --bare X.git && " GIT " init -q X.git/objects/sub && "
		  "arm X.git/objects/sub/.git",
		  "X.git/objects/sub" },
		/* in refs/, deeper */
		{ GIT " init -q proj/.git/refs/heads/a/b && arm proj/.git/refs/heads/a/b/.git",
		  "proj/.git/refs/heads/a/b" },
		/* in a submodule's git directory's logs/ */
		{ "mkdir -p proj/.git/modules && " GIT " init -q --bare proj/.git/modules/m && "
		  "mkdir -p proj/.git/modules/m/logs && " GIT " init -q proj/.git/modules/m/logs/sub && "
		  "arm proj/.git/modules/m/logs/sub/.git",
		  "proj/.git/modules/m/logs/sub" },
	};

	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *proj = e2e_fmt("%s/proj", f.ws);

		cr_assert(e2e_mkdir(p->who, proj) == 0);
		user_ok(&f, proj, GIT " init -q . && " GIT " commit -q --allow-empty -m init");
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_x(&f, "workspace-write", NULL,
		      e2e_fmt("PLANT='touch %s'; " ARM "%s", witness, attacks[i].plant), &o);
		cr_expect(exit_code(&o) == 0, "%s attack %zu did not run: %s", f.tag, i, o.out);
		e2e_out_free(&o);
		char *where = e2e_fmt("%s/%s", f.ws, attacks[i].where);

		user_works_in(&f, where);
		cr_expect(!e2e_exists(witness), "%s attack %zu: the user's git in %s ran what the run "
			  "planted", f.tag, i, attacks[i].where);
		cr_expect(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", where)),
			  "%s attack %zu: the planted hook is still there", f.tag, i);
	}
}

/* ---- finding 3: a repository above a root under /tmp ---- */

/* sbx run --json on root (not f->ws), HOME=f->home. */
static void run_root(struct fx *f, const char *root, const char *cmd, struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--config", f->conf, "--runner",
			 f->p.runner, "--mode", "workspace-write", "--root", (char *)root, "--",
			 (char *)cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	e2e_run(f->p.who, argv, env, o);
}

/* The root is TOP/a/b/proj, TOP a directory of the user's in the host's
 * /tmp; no repository of its own. The landlock runner's command may write
 * the host's /tmp, so it can make TOP/a/.git (or TOP/.git, a gitfile in
 * TOP/a/b, TOP/a a git directory itself) that the user's next git in the
 * root finds; the namespace runner's /tmp is private, so its command
 * cannot. Either way nothing of it may be left, and a repository of the
 * user's above the root keeps what is theirs. */
PARAMS(above_root_in_tmp, params_both);
ParameterizedTest(struct rp *p, git_hidden, above_root_in_tmp, .timeout = 300)
{
	static const struct {
		const char *plant, *made;
		bool user_repo; /* TOP is the user's repository */
	} attacks[] = {
		{ "cd ../.. && " GIT " init -q . && arm .git", "a/.git", false },
		{ "cd ../../.. && " GIT " init -q . && arm .git", ".git", false },
		{ GIT " init -q --bare ../../../evil && git config -f ../../../evil/config core.bare false && "
		  "arm ../../../evil && printf 'gitdir: %s\\n' \"$(cd ../../../evil && pwd)\" > ../.git",
		  "a/b/.git", false },
		{ "cd ../.. && " GIT " init -q --bare . && git config -f config core.bare false && "
		  "git config -f config core.worktree \"$PWD\" && arm .",
		  "a/HEAD", false },
		{ "arm ../../../.git", NULL, true },
		/* The root itself renamed aside, a repository made at its name
		 * (adversarial pass 3, finding 04): its path is given back. */
		{ "cd .. && mv proj .proj-old && mkdir proj && cp -a .proj-old/. proj/ && cd proj && "
		  GIT " init -q . && arm .git",
		  NULL, false },
	};

	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *top = e2e_fmt("/tmp/sbx-e2e-above-%d-%zu-%s", (int)getpid(), i,
				    e2e_user_name(p->who));
		char *root = e2e_fmt("%s/a/b/proj", top);

		e2e_rm_rf(top);
		cr_assert(e2e_mkdir(p->who, top) == 0);
		user_ok(&f, top, "mkdir -p a/b/proj && echo x > a/b/proj/file");
		if (attacks[i].user_repo)
			user_ok(&f, top, GIT " init -q . && git config core.editor my-editor && "
					 "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-push && "
					 "chmod +x .git/hooks/pre-push && " GIT " commit -q --allow-empty -m u");
		char *witness = e2e_fmt("%s/planted-ran", f.base);

		run_root(&f, root, e2e_fmt("PLANT='touch %s'; " ARM "%s", witness, attacks[i].plant),
			 &o);
		cr_expect(strcmp(p->runner, "namespace") == 0 || exit_code(&o) == 0,
			  "%s attack %zu did not run: %s", f.tag, i, o.out);
		e2e_out_free(&o);
		user_works_in(&f, root);
		cr_expect(!e2e_exists(witness), "%s attack %zu: the user's git in the root ran what the "
			  "run planted above it", f.tag, i);
		if (attacks[i].made)
			cr_expect(!e2e_exists(e2e_fmt("%s/%s", top, attacks[i].made)),
				  "%s attack %zu: %s is still there", f.tag, i, attacks[i].made);
		if (attacks[i].user_repo) {
			cr_expect(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", top)),
				  "%s attack %zu: the planted hook is still there", f.tag, i);
			cr_expect(e2e_exists(e2e_fmt("%s/.git/hooks/pre-push", top)),
				  "%s attack %zu: the user's own hook went", f.tag, i);
			user_sh(&f, top, "test \"$(git config core.editor)\" = my-editor && "
					 "! git config core.fsmonitor", &o);
			cr_expect(o.status == 0, "%s attack %zu: the user's config was not kept: %s%s",
				  f.tag, i, o.out, o.err);
			e2e_out_free(&o);
		}
		/* In the host's /tmp: removed whatever the checks said. */
		e2e_rm_rf(top);
	}
}

/* ---- finding 4: past the walk's old bound ---- */

/* 200,001 directories (the walk stopped after 200,000) beside the
 * repositories the run plants, in the directory made first and in one it
 * makes last: whichever order the file system lists them in, one of the
 * two comes after the 200,001. A tmpfs, in a mount namespace of this
 * test's own (gone with it): making and removing that many directories
 * there is cheap. */
PARAMS(past_old_walk_bound, params_both);
ParameterizedTest(struct rp *p, git_hidden, past_old_walk_bound, .timeout = 300)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount("sbx-walk", f.ws, "tmpfs", 0,
			e2e_fmt("mode=0755,uid=%u,gid=%u,nr_inodes=400000", (unsigned)e2e_uid(p->who),
				(unsigned)e2e_gid(p->who))) == 0,
		  "mount: %s", strerror(errno));
	user_ok(&f, f.ws, "python3 -c 'import os\nos.makedirs(\"f/first\")\n"
			  "for i in range(200001): os.mkdir(\"f/d%d\" % i)'");
	char *witness = e2e_fmt("%s/planted-ran", f.base);

	run_x(&f, "workspace-write", NULL,
	      e2e_fmt("PLANT='touch %s'; " ARM GIT " init -q f/zz && arm f/zz/.git && " GIT
		      " init -q f/first && arm f/first/.git",
		      witness),
	      &o);
	cr_expect(exit_code(&o) == 0, "%s the plant failed: %s", f.tag, o.out);
	cr_expect(strstr(o.out, "\"protected\":\"partial\"") == NULL, "%s the walk stopped: %s",
		  f.tag, o.out);
	e2e_out_free(&o);
	user_works_in(&f, e2e_fmt("%s/f/zz", f.ws));
	user_works_in(&f, e2e_fmt("%s/f/first", f.ws));
	cr_expect(!e2e_exists(witness), "%s the user's git ran what the run planted past 200,000 "
		  "directories", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/f/zz/.git/hooks/pre-commit", f.ws)) &&
			  !e2e_exists(e2e_fmt("%s/f/first/.git/hooks/pre-commit", f.ws)),
		  "%s a planted hook is still there", f.tag);
}

/* Deeper than the walk holds handles for (48): reopened by path, a
 * repository planted at depth 100 is found too, and one beside a
 * directory the run closed to its owner there. */
PARAMS(deep_plant, params_both);
ParameterizedTest(struct rp *p, git_hidden, deep_plant, .timeout = 240)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *witness = e2e_fmt("%s/planted-ran", f.base);

	run_x(&f, "workspace-write", NULL,
	      e2e_fmt("PLANT='touch %s'; " ARM "d=.; for i in $(seq 100); do d=$d/a; done; "
		      "mkdir -p $d/closed/r && " GIT " init -q $d && arm $d/.git && " GIT
		      " init -q $d/closed/r && arm $d/closed/r/.git && chmod 100 $d/closed && echo $d",
		      witness),
	      &o);
	cr_assert(exit_code(&o) == 0, "%s the plant failed: %s", f.tag, o.out);
	e2e_out_free(&o);
	char *deep = f.ws;

	for (int i = 0; i < 100; i++)
		deep = e2e_fmt("%s/a", deep);
	user_works_in(&f, deep);
	user_works_in(&f, e2e_fmt("%s/closed/r", deep));
	cr_expect(!e2e_exists(witness), "%s the user's git ran what the run planted 100 deep", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", deep)) &&
			  !e2e_exists(e2e_fmt("%s/closed/r/.git/hooks/pre-commit", deep)),
		  "%s a planted hook is still there", f.tag);
}
