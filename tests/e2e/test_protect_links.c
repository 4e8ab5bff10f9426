/* SPDX-License-Identifier: MIT */
/* A protected file reachable by another name (issue 29, adversarial pass 3,
 * finding 09). The namespace runner's read-only binds guard a name, not the
 * inode: a hard link to .git/config or a hook, made by a landlock run (no
 * mounts there) or left between runs, let a later namespace run write the
 * user's config and hooks while the user's own git, in the workspace, ran
 * them unconfined. After every workspace-write run, and before its command
 * starts, a protected file with another name gets a copy of its own, so the
 * other name no longer reaches it. Effects are looked at from outside: the
 * inodes, the content, and the user's own git. */
#define RUN_FIXTURE_SUITE protect_links
#include "run_fixture.h"

#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#define GIT "git -c user.email=t@t -c user.name=t"
#define USER_HOOK "#!/bin/sh\nexit 0\n"

static int user_sh(struct fx *f, const char *line, struct e2e_out *o)
{
	char *cmd = e2e_fmt("cd %s && %s", f->ws, line);
	char *argv[] = { "bash", "-c", cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	return e2e_run(f->p.who, argv, env, o);
}

static void user_ok(struct fx *f, const char *line)
{
	struct e2e_out o;

	user_sh(f, line, &o);
	cr_assert(o.status == 0, "%s user: %s: %s%s", f->tag, line, o.out, o.err);
	e2e_out_free(&o);
}

/* The user's repository: a pre-commit hook of theirs, one commit. */
static void user_repo(struct fx *f)
{
	user_ok(f, "git init -q . && printf '" USER_HOOK "' > .git/hooks/pre-commit && "
		   "chmod 755 .git/hooks/pre-commit && echo a > f && git add f && " GIT
		   " commit -qm init");
}

/* The user's everyday git in the workspace: status (core.fsmonitor) and a
 * commit (hooks). Did it run the witness? */
static bool user_git_ran(struct fx *f, const char *witness)
{
	struct e2e_out o;

	user_sh(f, "git status >/dev/null 2>&1; echo b >> f; " GIT " commit -qam x >/dev/null 2>&1; true",
		&o);
	e2e_out_free(&o);
	return e2e_exists(witness);
}

/* What a run writes through the other names: a hook and an fsmonitor that
 * leave the witness. */
static char *hostile_writes(const char *witness)
{
	return e2e_fmt("printf '#!/bin/sh\\nid > %s\\n' > .l1; "
		       "printf '[core]\\n\\tfsmonitor = \"id >> %s; false\"\\n' > .l2",
		       witness, witness);
}

static struct stat lstat_of(struct fx *f, const char *rel)
{
	struct stat st;

	cr_assert(lstat(e2e_fmt("%s/%s", f->ws, rel), &st) == 0, "%s %s: %s", f->tag, rel,
		  strerror(errno));
	return st;
}

/* rel is the user's protected file with no other name, and alias (if it
 * exists) is another inode. */
static void assert_own_name(struct fx *f, const char *rel, const char *alias)
{
	struct stat p = lstat_of(f, rel), a;

	cr_expect(p.st_nlink == 1, "%s %s still has %ju names", f->tag, rel, (uintmax_t)p.st_nlink);
	if (lstat(e2e_fmt("%s/%s", f->ws, alias), &a) == 0)
		cr_expect(a.st_ino != p.st_ino || a.st_dev != p.st_dev, "%s %s still reaches %s",
			  f->tag, alias, rel);
}

/* Run 1 (either runner) links the user's hook and config to ordinary names
 * in the root. After it, neither name reaches them (a landlock run could
 * link; the namespace runner's binds refuse the link, EXDEV), the result
 * names them, and what is written through those names later (here by the
 * user, as a later run would) never runs in the user's git. */
PARAMS(linked_by_a_run, params_both);
ParameterizedTest(struct rp *p, protect_links, linked_by_a_run, .timeout = 180)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	user_repo(&f);
	char *config = e2e_read_file(e2e_fmt("%s/.git/config", f.ws));
	char *witness = e2e_fmt("%s/pwned", f.base);

	cr_assert(config);
	run_x(&f, "workspace-write", NULL, "ln .git/hooks/pre-commit .l1; ln .git/config .l2; true",
	      &o);
	cr_assert(exit_code(&o) == 0, "%s run 1: %s", f.tag, o.out);
	if (e2e_exists(e2e_fmt("%s/.l2", f.ws)))
		cr_expect(strstr(o.out, "\".git/config\"") && strstr(o.out, "\".git/hooks\""),
			  "%s the result does not name the linked paths: %s", f.tag, o.out);
	e2e_out_free(&o);
	assert_own_name(&f, ".git/config", ".l2");
	assert_own_name(&f, ".git/hooks/pre-commit", ".l1");
	user_ok(&f, e2e_fmt("touch .l1 .l2; %s", hostile_writes(witness)));
	cr_expect(!user_git_ran(&f, witness), "%s the user's git ran what was written through a "
		  "link the run made", f.tag);
	cr_expect_str_eq(e2e_read_file(e2e_fmt("%s/.git/hooks/pre-commit", f.ws)), USER_HOOK,
			 "%s the user's hook changed", f.tag);
	cr_expect_str_eq(e2e_read_file(e2e_fmt("%s/.git/config", f.ws)), config,
			 "%s the user's config changed", f.tag);
}

static pid_t spawn_run(struct fx *f, const char *out, const char *cmd)
{
	char *argv[] = { "sh", "-c", "out=$1; home=$2; shift 2; HOME=$home exec \"$@\" > \"$out\" 2>&1",
			 "sh", e2e_fmt("%s/%s", f->base, out), f->home, (char *)e2e_sbx(), "run",
			 "--json", "--config", f->conf, "--runner", f->p.runner, "--mode",
			 "workspace-write", "--root", f->ws, "--", (char *)cmd, NULL };

	return e2e_spawn(f->p.who, "/", argv);
}

static bool wait_file(const char *path, pid_t pid)
{
	for (int i = 0; i < 1200 && !e2e_exists(path); i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	return e2e_exists(path);
}

static int wait_pid(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		cr_assert(errno == EINTR);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The links are there before the run (left by an older sbx's landlock run,
 * or made by a tool of the user's: sbx cannot tell). A namespace run writes
 * through them and stays: while it is live, the user's hook and config
 * hold the user's, and the user's git runs nothing of the run's. The other
 * names stay (ordinary files in the root, the run's writes in them). */
PARAMS(linked_between_runs, params_ns);
ParameterizedTest(struct rp *p, protect_links, linked_between_runs, .timeout = 180)
{
	struct fx f;

	fx_setup(&f, p);
	user_repo(&f);
	user_ok(&f, "ln .git/hooks/pre-commit .l1 && ln .git/config .l2");
	char *config = e2e_read_file(e2e_fmt("%s/.git/config", f.ws));
	char *witness = e2e_fmt("%s/pwned", f.base);
	pid_t run = spawn_run(&f, "run.json",
			      e2e_fmt("%s; touch written; for i in $(seq 600); do [ -e go ] && "
				      "break; sleep 0.05; done",
				      hostile_writes(witness)));
	bool live = wait_file(e2e_fmt("%s/written", f.ws), run);

	if (!live)
		cr_assert_fail("%s the run ended before writing: %s", f.tag,
			       e2e_read_file(e2e_fmt("%s/run.json", f.base)));
	char *hook_now = e2e_read_file(e2e_fmt("%s/.git/hooks/pre-commit", f.ws));
	char *config_now = e2e_read_file(e2e_fmt("%s/.git/config", f.ws));
	bool ran = user_git_ran(&f, witness);

	cr_assert(e2e_write_file(p->who, e2e_fmt("%s/go", f.ws), "") == 0);
	cr_assert(wait_pid(run) == 0, "%s the run: %s", f.tag,
		  e2e_read_file(e2e_fmt("%s/run.json", f.base)));
	cr_expect_str_eq(hook_now, USER_HOOK, "%s the run wrote the user's hook through a link",
			 f.tag);
	cr_expect_str_eq(config_now, config, "%s the run wrote the user's config through a link",
			 f.tag);
	cr_expect(!ran, "%s the user's git ran what the run wrote through a link", f.tag);
	assert_own_name(&f, ".git/config", ".l2");
	assert_own_name(&f, ".git/hooks/pre-commit", ".l1");
	cr_expect(strstr(e2e_read_file(e2e_fmt("%s/.l2", f.ws)), "fsmonitor") != NULL,
		  "%s the other name is not the run's to write", f.tag);
}
