/* SPDX-License-Identifier: MIT */
/* Putting protected paths back when the root's file system is full (issue
 * 29, adversarial pass 3, finding 06). A landlock run changes .git/hooks
 * and .git/config, then fills the file system: the put-back cannot be
 * written. It must leave nothing half written in the protected place, never
 * leave the run's version there for the user's git to run, say so
 * ("protected": "partial", the paths not named as put back), and keep what
 * it could not put back for the next run, which puts it back once there is
 * room (sandbox.recovered). A run that cannot give a linked protected file a
 * copy of its own (protect_alias.c) is refused rather than run.
 *
 * The root is a 1 MiB tmpfs mounted over the fixture's workspace in a mount
 * namespace of this test's own process (Criterion runs each test in a
 * process of its own), so no file system of the host fills up; sbx's state
 * stays on the host's, under the fixture's home. The test process is root
 * (the mount needs it); the runs and the user's git run as the user under
 * test. */
#define RUN_FIXTURE_SUITE putback_full
#include "run_fixture.h"

#include <sched.h>
#include <sys/mount.h>

#define GIT "git -c user.email=t@t -c user.name=t"
#define USER_HOOK "#!/bin/sh\necho guard: checking for secrets\nexit 0\n"
#define FILL "dd if=/dev/zero of=fill bs=4k 2>/dev/null; dd if=/dev/zero of=fill2 bs=1 2>/dev/null"

static struct rp params_landlock[] = {
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

/* The workspace becomes a small tmpfs of its own, owned by the user. */
static void small_root(struct fx *f)
{
	char *opts = e2e_fmt("size=1m,mode=0755,uid=%u,gid=%u", (unsigned)e2e_uid(f->p.who),
			     (unsigned)e2e_gid(f->p.who));

	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "private: %s",
		  strerror(errno));
	cr_assert(mount("sbx-full", f->ws, "tmpfs", 0, opts) == 0, "tmpfs: %s", strerror(errno));
}

static void small_root_gone(struct fx *f)
{
	umount2(f->ws, MNT_DETACH);
}

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

static bool has(const struct e2e_out *o, const char *s)
{
	return o->out && strstr(o->out, s);
}

/* path holds what it held (want), or nothing: never a part, never another. */
static void assert_whole_or_gone(struct fx *f, const char *rel, const char *want)
{
	char *path = e2e_fmt("%s/%s", f->ws, rel);
	struct stat st;

	if (lstat(path, &st) < 0) {
		cr_assert(errno == ENOENT, "%s %s: %s", f->tag, rel, strerror(errno));
		return;
	}
	cr_expect(S_ISREG(st.st_mode), "%s %s is not a file (mode %o)", f->tag, rel,
		  (unsigned)st.st_mode);
	cr_expect_str_eq(e2e_read_file(path), want, "%s %s holds neither the user's nor nothing",
			 f->tag, rel);
}

static void assert_no_leftovers(struct fx *f, const char *rel)
{
	struct e2e_out o;

	user_sh(f, e2e_fmt("ls -A %s", rel), &o);
	cr_expect(!strstr(o.out, ".sbx-"), "%s sbx left its temporary files in %s: %s", f->tag,
		  rel, o.out);
	e2e_out_free(&o);
}

/* The run deletes the user's hooks, puts a config naming a command of its
 * own at .git/config (a second name of a file it keeps, so that removing
 * .git/config frees no room), and fills the file system. */
PARAMS(restore_fails_when_full, params_landlock);
ParameterizedTest(struct rp *p, putback_full, restore_fails_when_full, .timeout = 180)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	small_root(&f);
	user_ok(&f, "git init -q . && git config user.name victim && printf '" USER_HOOK
		    "' > .git/hooks/pre-push && chmod 755 .git/hooks/pre-push");
	char *config = e2e_read_file(e2e_fmt("%s/.git/config", f.ws));
	char *witness = e2e_fmt("%s/pwned", f.base);

	cr_assert(config);
	run_x(&f, "workspace-write", NULL,
	      e2e_fmt("rm -rf .git/hooks; printf '[core]\\n\\tfsmonitor = \"touch %s; false\"\\n' > c; "
		      "ln -f c .git/config; " FILL "; true",
		      witness),
	      &o);
	cr_assert(exit_code(&o) == 0, "%s the run: %s", f.tag, o.out);
	cr_expect(has(&o, "\"protected\":\"partial\""), "%s a put-back that failed is not "
		  "reported: %s", f.tag, o.out);
	cr_expect(!has(&o, "\".git/hooks\"") && !has(&o, "\".git/config\""),
		  "%s paths named as put back that were not: %s", f.tag, o.out);
	e2e_out_free(&o);
	assert_whole_or_gone(&f, ".git/hooks/pre-push", USER_HOOK);
	assert_whole_or_gone(&f, ".git/config", config);
	assert_no_leftovers(&f, ".");
	assert_no_leftovers(&f, ".git");
	user_sh(&f, "git status >/dev/null 2>&1; true", &o);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(witness), "%s the user's git ran the run's config", f.tag);

	/* Still full: the next run cannot put them back either, and keeps
	 * them for a later one. */
	run_x(&f, "read-only", NULL, "true", &o);
	cr_assert(exit_code(&o) == 0, "%s the run while full: %s", f.tag, o.out);
	e2e_out_free(&o);

	/* Room again: the next run puts them back, and says so. */
	user_ok(&f, "rm -f fill fill2 c");
	run_x(&f, "read-only", NULL, "true", &o);
	cr_assert(exit_code(&o) == 0, "%s the run after: %s", f.tag, o.out);
	cr_expect(has(&o, "\"recovered\"") && has(&o, "\".git/hooks\""),
		  "%s the hooks were not put back once there was room: %s", f.tag, o.out);
	e2e_out_free(&o);
	cr_expect_str_eq(e2e_read_file(e2e_fmt("%s/.git/hooks/pre-push", f.ws)), USER_HOOK,
			 "%s the user's hook is not back", f.tag);
	cr_expect_str_eq(e2e_read_file(e2e_fmt("%s/.git/config", f.ws)), config,
			 "%s the user's config is not back", f.tag);
	small_root_gone(&f);
}

/* A protected file with another name (the user's, made between runs) that
 * sbx cannot give a copy of its own, the file system being full: the run
 * is refused, since the other name would stay writable. With room again,
 * the next run goes and the file has one name. */
PARAMS(link_refused_when_full, params_both);
ParameterizedTest(struct rp *p, putback_full, link_refused_when_full, .timeout = 180)
{
	struct fx f;
	struct e2e_out o;
	struct stat cfg, other;

	fx_setup(&f, p);
	small_root(&f);
	user_ok(&f, "git init -q . && " GIT " commit -q --allow-empty -m init && "
		    "ln .git/config .l2");
	char *config = e2e_read_file(e2e_fmt("%s/.git/config", f.ws));

	user_ok(&f, FILL "; true");
	run_x(&f, "workspace-write", NULL, "touch ran", &o);
	cr_expect(o.status == 125 && has(&o, "another name"),
		  "%s a run went with a protected file sbx could not unlink: %d %s", f.tag, o.status,
		  o.out);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/ran", f.ws)), "%s the command ran", f.tag);
	cr_expect_str_eq(e2e_read_file(e2e_fmt("%s/.git/config", f.ws)), config,
			 "%s the user's config changed", f.tag);

	user_ok(&f, "rm -f fill fill2");
	run_x(&f, "workspace-write", NULL, "touch ran", &o);
	cr_expect(exit_code(&o) == 0, "%s the run with room: %s", f.tag, o.out);
	e2e_out_free(&o);
	cr_assert(lstat(e2e_fmt("%s/.git/config", f.ws), &cfg) == 0);
	cr_assert(lstat(e2e_fmt("%s/.l2", f.ws), &other) == 0);
	cr_expect(cfg.st_nlink == 1 && cfg.st_ino != other.st_ino,
		  "%s .git/config still has another name", f.tag);
	cr_expect_str_eq(e2e_read_file(e2e_fmt("%s/.git/config", f.ws)), config,
			 "%s the user's config changed", f.tag);
	small_root_gone(&f);
}
