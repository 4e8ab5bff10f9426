/* SPDX-License-Identifier: MIT */
/* Routes a hostile command that knows sbx's source found after issues 11,
 * 12, 19 and 20 were closed, each checked from outside (the file on disk,
 * the host's device nodes), as the caller and as nobody:
 *  - the namespace runner's /dev nodes are the host's: their metadata must
 *    not change (a root caller keeps CAP_FOWNER and CAP_CHOWN);
 *  - the PID namespace's init sits outside the command's filters: the
 *    command must not be able to ptrace it (below Landlock ABI 6 no domain
 *    of the command's stops it);
 *  - protected paths: a tree too deep for the sweep, and git's own
 *    redirections (.git/commondir, a .git file), must not leave anything
 *    that runs in the user's next unconfined git. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

struct rp {
	char runner[16];
	enum e2e_user who;
};

static struct rp params_ns[] = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
};

static struct rp params_both[] = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

#define PARAMS(name, list)                                                                  \
	ParameterizedTestParameters(redteam, name)                                           \
	{                                                                                    \
		return cr_make_param_array(struct rp, list, sizeof(list) / sizeof(list[0]));   \
	}

struct fx {
	struct rp p;
	char *base, *home, *ws, *conf;
	char tag[48];
};

static void fx_setup(struct fx *f, const struct rp *p)
{
	f->p = *p;
	/* The state directory follows $HOME (fixture-private) only. */
	unsetenv("XDG_CACHE_HOME");
	f->base = e2e_tmpdir(p->who);
	f->home = e2e_fmt("%s/home", f->base);
	f->ws = e2e_fmt("%s/ws", f->base);
	f->conf = e2e_fmt("%s/sbx.conf", f->base);
	cr_assert(e2e_mkdir(p->who, f->home) == 0);
	cr_assert(e2e_mkdir(p->who, f->ws) == 0);
	cr_assert(e2e_write_file(p->who, f->conf, "# none\n") == 0);
	snprintf(f->tag, sizeof(f->tag), "[%s %s]", p->runner, e2e_user_name(p->who));
}

/* A test helper, copied where the namespace runner's /tmp does not hide it. */
static char *helper(struct fx *f, const char *name)
{
	char *copy = e2e_fmt("%s/%s", f->base, name);
	char *argv[] = { "cp", (char *)e2e_helper(name), copy, NULL };
	struct e2e_out o;

	if (e2e_exists(copy))
		return copy;
	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0 && chmod(copy, 0755) == 0, "cp %s: %s", name, o.err);
	e2e_out_free(&o);
	return copy;
}

/* sbx run --json [extra] in mode on the workspace, HOME=f->home. */
static int run_x(struct fx *f, const char *mode, const char *extra, const char *cmd,
		 struct e2e_out *o)
{
	char *argv[16];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = "--config";
	argv[n++] = f->conf;
	argv[n++] = "--runner";
	argv[n++] = f->p.runner;
	if (extra)
		argv[n++] = (char *)extra;
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->ws;
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	return e2e_run(f->p.who, argv, env, o);
}

static int exit_code(const struct e2e_out *o)
{
	const char *p = strstr(o->out, "\"exit_code\":");

	return p ? atoi(p + strlen("\"exit_code\":")) : -1;
}

/* ---- the namespace runner's /dev nodes ---- */

PARAMS(dev_node_metadata, params_ns);
ParameterizedTest(struct rp *p, redteam, dev_node_metadata, .timeout = 120)
{
	static const char *const modes[] = { "read-only", "workspace-write" };
	struct fx f;
	struct stat before, after;

	fx_setup(&f, p);
	for (size_t m = 0; m < 2; m++) {
		struct e2e_out o;

		cr_assert(stat("/dev/full", &before) == 0);
		/* Harmless on the host even if they worked: the same mode and
		 * owner, and the times are put back below. What shows is the
		 * change time (any successful chmod, chown or utimes sets it)
		 * and the modification time. */
		run_x(&f, modes[m], NULL,
		      "chmod 0666 /dev/full; chown 0:0 /dev/full; touch -m -d @981173106 /dev/full;"
		      " echo ok > /dev/null && echo NULL_OK",
		      &o);
		cr_assert(stat("/dev/full", &after) == 0);
		if (after.st_mtime != before.st_mtime) {
			struct timespec ts[2] = { before.st_atim, before.st_mtim };

			utimensat(AT_FDCWD, "/dev/full", ts, 0);
		}
		cr_expect(after.st_mtime == before.st_mtime,
			  "%s %s: the host's /dev/full got new times", f.tag, modes[m]);
		cr_expect(after.st_ctim.tv_sec == before.st_ctim.tv_sec &&
				  after.st_ctim.tv_nsec == before.st_ctim.tv_nsec,
			  "%s %s: the host's /dev/full metadata changed:\n%s", f.tag, modes[m], o.out);
		/* Writes to the nodes themselves still work. */
		cr_expect(strstr(o.out, "NULL_OK") != NULL, "%s %s: /dev/null: %s", f.tag, modes[m],
			  o.out);
		e2e_out_free(&o);
	}
}

/* ---- device nodes outside /dev ---- */

/* A read-only mount does not stop a write to a device node, and /dev is not
 * the only place that holds them (a chroot's, a copy of a disk's node). A
 * loop device over a file stands in for the disk: its node is copied into
 * the workspace and beside it, and the file is checked afterwards. */
PARAMS(device_nodes, params_ns);
ParameterizedTest(struct rp *p, redteam, device_nodes, .timeout = 120)
{
	static const char *const modes[] = { "read-only", "workspace-write" };
	struct fx f;
	struct stat st;
	struct e2e_out o;
	char *argv[8];

	fx_setup(&f, p);
	if (geteuid() != 0)
		cr_skip("a loop device needs a root test process");
	char *img = e2e_fmt("%s/disk.img", f.base);
	cr_assert(e2e_write_file(AS_CALLER, img, "ORIGINAL") == 0 && truncate(img, 65536) == 0);
	argv[0] = "losetup", argv[1] = "-f", argv[2] = "--show", argv[3] = img, argv[4] = NULL;
	e2e_run(AS_CALLER, argv, NULL, &o);
	if (o.status != 0)
		cr_skip("no loop device here: %s", o.err);
	char *loop = strndup(o.out, strcspn(o.out, "\n"));
	e2e_out_free(&o);
	cr_assert(stat(loop, &st) == 0 && S_ISBLK(st.st_mode));
	char *nodes[] = { e2e_fmt("%s/disk", f.base), e2e_fmt("%s/disk", f.ws) };
	bool made = true;

	/* No assertion before the loop device is detached again. */
	for (size_t i = 0; i < 2; i++)
		made = made && mknod(nodes[i], S_IFBLK | 0600, st.st_rdev) == 0 &&
		       chown(nodes[i], e2e_uid(p->who), e2e_gid(p->who)) == 0;
	for (size_t m = 0; made && m < 2; m++) {
		run_x(&f, modes[m], NULL,
		      e2e_fmt("for n in %s %s; do printf HACKED__ | dd of=$n conv=notrunc "
			      "oflag=direct 2>&1; head -c 8 $n; echo; done",
			      nodes[0], nodes[1]),
		      &o);
		cr_expect(strstr(o.out, "ORIGINAL") == NULL, "%s %s: the disk could be read:\n%s",
			  f.tag, modes[m], o.out);
		e2e_out_free(&o);
	}
	argv[0] = "losetup", argv[1] = "-d", argv[2] = loop, argv[3] = NULL;
	e2e_run(AS_CALLER, argv, NULL, &o);
	e2e_out_free(&o);
	cr_assert(made, "%s mknod: %s", f.tag, strerror(errno));
	char *content = e2e_read_file(img);
	cr_assert(content);
	cr_expect(strncmp(content, "ORIGINAL", 8) == 0, "%s the disk was written: %.8s", f.tag,
		  content);
}

/* ---- the PID namespace's init ---- */

/* Below ABI 6 the namespace runner gives the command no Landlock domain (no
 * scopes to enforce), so only init's own dumpability keeps a same-uid ptrace
 * out. Simulated with --landlock-abi, and checked on the real ABI too. */
PARAMS(init_not_traceable, params_ns);
ParameterizedTest(struct rp *p, redteam, init_not_traceable, .timeout = 120)
{
	static const char *const abis[] = { "--landlock-abi=5", NULL };
	struct fx f;

	fx_setup(&f, p);
	char *victim = e2e_fmt("%s/victim", f.ws);
	char *tool = helper(&f, "ptinject");

	cr_assert(e2e_write_file(p->who, victim, "") == 0 && chmod(victim, 0644) == 0);
	for (size_t i = 0; i < 2; i++) {
		struct e2e_out o;
		struct stat st;

		/* init is pid 1 of the run's PID namespace. */
		run_x(&f, "workspace-write", abis[i], e2e_fmt("%s chmod 1 %s 4755", tool, victim), &o);
		cr_assert(stat(victim, &st) == 0);
		cr_expect((st.st_mode & 07777) == 0644,
			  "%s %s: a setuid bit minted through init (mode %o):\n%s", f.tag,
			  abis[i] ? abis[i] : "real ABI", st.st_mode & 07777, o.out);
		cr_expect(strstr(o.out, "ATTACH=0") == NULL, "%s %s: init could be traced:\n%s",
			  f.tag, abis[i] ? abis[i] : "real ABI", o.out);
		cr_expect(exit_code(&o) == 0, "%s: %s%s", f.tag, o.out, o.err);
		chmod(victim, 0644);
		e2e_out_free(&o);
	}
}

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
ParameterizedTest(struct rp *p, redteam, git_redirect, .timeout = 180)
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
ParameterizedTest(struct rp *p, redteam, deep_tree, .timeout = 180)
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

/* ---- sbx's own process ---- */

/* Under the landlock runner the command shares sbx's PID namespace and uid.
 * Landlock scopes signals (ABI 6+), not prlimit(2): RLIMIT_NOFILE 4 on sbx
 * left it unable to put the protected paths back after the run. */
static struct rp params_landlock[] = {
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

PARAMS(sbx_limits, params_landlock);
ParameterizedTest(struct rp *p, redteam, sbx_limits, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	run_x(&f, "workspace-write", NULL,
	      "echo 'export PLANTED=1' > .envrc; prlimit --pid $PPID --nofile=4:4 && echo LIMITED; "
	      "prlimit --nofile=64:64 true && echo SELF_OK",
	      &o);
	cr_expect(!e2e_exists(e2e_fmt("%s/.envrc", f.ws)), "%s .envrc survived:\n%s\n%s", f.tag,
		  o.out, o.err);
	cr_expect(strstr(o.out, "LIMITED") == NULL, "%s sbx's limits changed:\n%s", f.tag, o.out);
	cr_expect(strstr(o.out, "SELF_OK") != NULL, "%s own limits: %s", f.tag, o.out);
	e2e_out_free(&o);
}
