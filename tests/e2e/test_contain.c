/* SPDX-License-Identifier: MIT */
/* The containment matrix: every write route out of the workspace, for both
 * runners and both users, with the effect checked from outside the sandbox.
 *
 * Fixture (per test, private): B = e2e_tmpdir(who)
 *   R = B/ws              the workspace root
 *   O = B/outside         O/f = "orig\n", O/d/ (empty)
 *   S = B/ws-sibling      S/f = "orig\n"  (shares R's prefix)
 * all owned by `who`, so without the sandbox the user could write them (the
 * control test proves it with danger-full-access). */
#include "common.h"
#include "runner_params.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const dialect[] = {"Read-only file system", "Permission denied"};

static struct cp ns_params[] = {{NAMESPACE, AS_CALLER}, {NAMESPACE, AS_NOBODY}};
static struct cp ll_params[] = {{LANDLOCK, AS_CALLER}, {LANDLOCK, AS_NOBODY}};

#define PARAMS_ALL(name)                                                                   \
	ParameterizedTestParameters(contain, name)                                          \
	{                                                                                   \
		return cr_make_param_array(struct cp, all_params,                           \
					   sizeof all_params / sizeof all_params[0]);       \
	}
#define PARAMS_NS(name)                                                                    \
	ParameterizedTestParameters(contain, name)                                          \
	{                                                                                   \
		return cr_make_param_array(struct cp, ns_params,                            \
					   sizeof ns_params / sizeof ns_params[0]);         \
	}
#define PARAMS_LL(name)                                                                    \
	ParameterizedTestParameters(contain, name)                                          \
	{                                                                                   \
		return cr_make_param_array(struct cp, ll_params,                            \
					   sizeof ll_params / sizeof ll_params[0]);         \
	}

struct fx {
	enum runner runner;
	enum e2e_user who;
	char *B, *R, *O, *Of, *Od, *S, *Sf;
	char tag[64];
};

static char *cat(const char *a, const char *b)
{
	char *s = NULL;
	cr_assert(asprintf(&s, "%s%s", a, b) > 0);
	return s;
}

static void fx_setup(struct fx *f, const struct cp *p)
{
	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s]", runner_name[f->runner],
		 e2e_user_name(f->who));
	e2e_require_runner(f->who, runner_name[f->runner]);
	f->B = e2e_tmpdir(f->who);
	f->R = cat(f->B, "/ws");
	f->O = cat(f->B, "/outside");
	f->Of = cat(f->O, "/f");
	f->Od = cat(f->O, "/d");
	f->S = cat(f->B, "/ws-sibling");
	f->Sf = cat(f->S, "/f");
	cr_assert(e2e_mkdir(f->who, f->R) == 0, "fixture: mkdir %s", f->R);
	cr_assert(e2e_mkdir(f->who, f->O) == 0, "fixture: mkdir %s", f->O);
	cr_assert(e2e_mkdir(f->who, f->Od) == 0, "fixture: mkdir %s", f->Od);
	cr_assert(e2e_mkdir(f->who, f->S) == 0, "fixture: mkdir %s", f->S);
	cr_assert(e2e_write_file(f->who, f->Of, "orig\n") == 0, "fixture: write %s", f->Of);
	cr_assert(e2e_write_file(f->who, f->Sf, "orig\n") == 0, "fixture: write %s", f->Sf);
}

/* Run `sbx run --runner R --mode MODE --root ROOT [extra...] -- CMD` as f->who. */
static int sbx_cmd(struct fx *f, const char *mode, const char *const extra[], struct e2e_out *o,
		   const char *cmd)
{
	char *argv[32];
	size_t n = 0;
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--runner";
	argv[n++] = (char *)runner_name[f->runner];
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	for (size_t i = 0; extra && extra[i]; i++)
		argv[n++] = (char *)extra[i];
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	return e2e_run(f->who, argv, NULL, o);
}

/* The command ran (sbx itself did not fail) and exited with a failure. */
static void assert_denied_status(struct fx *f, const char *cmd, const struct e2e_out *o)
{
	cr_assert(o->status != 0, "%s `%s` should have been refused but exited 0\nstderr:\n%s",
		  f->tag, cmd, o->err);
	cr_assert(o->status != 125 && strncmp(o->err, "sbx: ", 5) != 0 &&
			  strstr(o->err, "\nsbx: ") == NULL,
		  "%s `%s`: sbx itself failed (status %d), the command never ran\nstderr:\n%s",
		  f->tag, cmd, o->status, o->err);
}

static void assert_content(struct fx *f, const char *path, const char *want, const char *cmd,
			   const struct e2e_out *o)
{
	char *got = e2e_read_file(path);
	cr_assert(got != NULL, "%s after `%s`: %s is gone (or unreadable)\nstderr:\n%s", f->tag,
		  cmd, path, o->err);
	cr_assert(strcmp(got, want) == 0,
		  "%s after `%s`: %s holds \"%s\", expected \"%s\" (exit %d)\nstderr:\n%s", f->tag,
		  cmd, path, got, want, o->status, o->err);
	free(got);
}

/* Names in dir, sorted and joined by ',' */
static char *listing(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return strdup("<unreadable>");
	char *s = strdup("");
	for (int i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;
		if (strcmp(d, ".") && strcmp(d, "..")) {
			char *ns = e2e_fmt("%s%s%s", s, *s ? "," : "", d);
			free(s);
			s = ns;
		}
		free(ents[i]);
	}
	free(ents);
	return s;
}

static void assert_listing(struct fx *f, const char *dir, const char *want, const char *cmd,
			   const struct e2e_out *o)
{
	char *got = listing(dir);
	cr_assert(strcmp(got, want) == 0,
		  "%s after `%s`: %s contains {%s}, expected {%s} (exit %d)\nstderr:\n%s", f->tag,
		  cmd, dir, got, want, o->status, o->err);
	free(got);
}

/* Everything outside R is exactly as the fixture made it. */
static void assert_outside_intact(struct fx *f, const char *cmd, const struct e2e_out *o)
{
	assert_content(f, f->Of, "orig\n", cmd, o);
	assert_content(f, f->Sf, "orig\n", cmd, o);
	assert_listing(f, f->O, "d,f", cmd, o);
	assert_listing(f, f->Od, "", cmd, o);
	assert_listing(f, f->S, "f", cmd, o);
	struct stat st;
	cr_assert(lstat(f->Of, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1,
		  "%s after `%s`: %s is no longer a plain file with one link (nlink %lu)\nstderr:\n%s",
		  f->tag, cmd, f->Of, (unsigned long)st.st_nlink, o->err);
}

/* Run cmd under workspace-write, expect failure and an untouched outside. */
static void expect_denied(struct fx *f, const char *cmd)
{
	struct e2e_out o;
	sbx_cmd(f, "workspace-write", NULL, &o, cmd);
	assert_denied_status(f, cmd, &o);
	assert_outside_intact(f, cmd, &o);
	e2e_out_free(&o);
}

static void expect_ok(struct fx *f, const char *mode, const char *cmd, struct e2e_out *o)
{
	sbx_cmd(f, mode, NULL, o, cmd);
	cr_assert(o->status == 0, "%s `%s` under %s should succeed, exit %d\nstderr:\n%s", f->tag,
		  cmd, mode, o->status, o->err);
}

/* ---- control: without the sandbox the user can write all of it ---- */

PARAMS_ALL(control_outside_writable)
ParameterizedTest(struct cp *p, contain, control_outside_writable)
{
	struct fx f;
	fx_setup(&f, p);
	char *cmd = e2e_fmt("echo x >> %s && echo x > %s && touch %s/new && mkdir %s/x", f.Of, f.Sf,
			f.O, f.O);
	struct e2e_out o;
	expect_ok(&f, "danger-full-access", cmd, &o);
	assert_content(&f, f.Of, "orig\nx\n", cmd, &o);
	assert_content(&f, f.Sf, "x\n", cmd, &o);
	assert_listing(&f, f.O, "d,f,new,x", cmd, &o);
	e2e_out_free(&o);
}

/* ---- denied: direct writes outside ---- */

PARAMS_ALL(denied_dialect)
ParameterizedTest(struct cp *p, contain, denied_dialect)
{
	struct fx f;
	fx_setup(&f, p);
	char *cmd = e2e_fmt("touch %s/new", f.O);
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", NULL, &o, cmd);
	assert_denied_status(&f, cmd, &o);
	assert_outside_intact(&f, cmd, &o);
	cr_assert(strstr(o.err, dialect[f.runner]) != NULL,
		  "%s `%s`: stderr should contain \"%s\"\nstderr:\n%s", f.tag, cmd,
		  dialect[f.runner], o.err);
	e2e_out_free(&o);
}

PARAMS_ALL(denied_direct)
ParameterizedTest(struct cp *p, contain, denied_direct)
{
	struct fx f;
	fx_setup(&f, p);
	const char *O = f.O, *Of = f.Of;
	char *cmds[] = {
		e2e_fmt("touch %s/new", O),
		e2e_fmt("echo x > %s/new", O),
		e2e_fmt("echo x >> %s", Of),
		e2e_fmt("truncate -s0 %s", Of),
		e2e_fmt("perl -e 'truncate(\"%s\", 0) or die \"truncate: $!\\n\"'", Of),
		e2e_fmt(": > %s", Of),
		e2e_fmt("rm -f %s", Of),
		e2e_fmt("mkdir %s/x", O),
		e2e_fmt("rmdir %s", f.Od),
		e2e_fmt("mkfifo %s/p", O),
		e2e_fmt("ln -s /etc/passwd %s/l", O),
		e2e_fmt("ln %s %s/hl", Of, O),
		e2e_fmt("echo x > %s/d/new", O),
		NULL,
	};
	for (size_t i = 0; cmds[i]; i++) {
		/* truncate(2) on a path is Landlock's documented gap before ABI 3
		 * (enforcement "partial"; landlock_abi2_truncate_gap shows it). */
		if (i == 4 && f.runner == LANDLOCK && e2e_landlock_abi() < 3)
			continue;
		expect_denied(&f, cmds[i]);
	}
}

PARAMS_ALL(denied_rename_in)
ParameterizedTest(struct cp *p, contain, denied_rename_in)
{
	struct fx f;
	fx_setup(&f, p);
	/* the rename(2) itself: mv would fall back to copy+unlink on EXDEV */
	char *cmd = e2e_fmt("perl -e 'rename(\"%s\", \"%s/g\") or die \"rename: $!\\n\"'", f.Of, f.R);
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", NULL, &o, cmd);
	assert_denied_status(&f, cmd, &o);
	assert_outside_intact(&f, cmd, &o);
	assert_listing(&f, f.R, "", cmd, &o);
	e2e_out_free(&o);

	/* and mv (rename, then copy + unlink): the source must survive */
	char *mv = e2e_fmt("mv %s %s/g", f.Of, f.R);
	sbx_cmd(&f, "workspace-write", NULL, &o, mv);
	assert_denied_status(&f, mv, &o);
	assert_outside_intact(&f, mv, &o);
	e2e_out_free(&o);
}

PARAMS_ALL(denied_rename_out)
ParameterizedTest(struct cp *p, contain, denied_rename_out)
{
	struct fx f;
	fx_setup(&f, p);
	char *g = e2e_fmt("%s/g", f.R);
	cr_assert(e2e_write_file(f.who, g, "g\n") == 0);
	char *cmd = e2e_fmt("perl -e 'rename(\"%s\", \"%s/g\") or die \"rename: $!\\n\"'", g, f.O);
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", NULL, &o, cmd);
	assert_denied_status(&f, cmd, &o);
	assert_outside_intact(&f, cmd, &o);
	assert_content(&f, g, "g\n", cmd, &o);
	e2e_out_free(&o);

	char *mv = e2e_fmt("mv %s %s/g", g, f.O);
	sbx_cmd(&f, "workspace-write", NULL, &o, mv);
	assert_denied_status(&f, mv, &o);
	assert_outside_intact(&f, mv, &o);
	assert_content(&f, g, "g\n", mv, &o);
	e2e_out_free(&o);
}

PARAMS_ALL(denied_hardlink_into_root)
ParameterizedTest(struct cp *p, contain, denied_hardlink_into_root)
{
	struct fx f;
	fx_setup(&f, p);
	/* either the link is refused or the write through it is */
	char *cmd = e2e_fmt("ln %s %s/h && echo x > %s/h", f.Of, f.R, f.R);
	expect_denied(&f, cmd);
	char *cmd2 = e2e_fmt("ln %s %s/h2; echo x >> %s/h2", f.Of, f.R, f.R);
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", NULL, &o, cmd2);
	assert_outside_intact(&f, cmd2, &o);
	e2e_out_free(&o);
}

PARAMS_ALL(denied_symlink_in_root)
ParameterizedTest(struct cp *p, contain, denied_symlink_in_root)
{
	struct fx f;
	fx_setup(&f, p);
	char *cmd = e2e_fmt("ln -s %s %s/link && echo x > %s/link", f.Of, f.R, f.R);
	expect_denied(&f, cmd);
	char *cmd2 = e2e_fmt("ln -s %s %s/dlink && touch %s/dlink/new", f.O, f.R, f.R);
	expect_denied(&f, cmd2);
}

PARAMS_ALL(denied_dotdot_and_sibling)
ParameterizedTest(struct cp *p, contain, denied_dotdot_and_sibling)
{
	struct fx f;
	fx_setup(&f, p);
	expect_denied(&f, e2e_fmt("echo x > %s/../outside/f", f.R));
	expect_denied(&f, e2e_fmt("cd %s && echo x > ../outside/f", f.R));
	expect_denied(&f, e2e_fmt("echo x > %s", f.Sf));
	expect_denied(&f, e2e_fmt("touch %s/new", f.S));
	expect_denied(&f, e2e_fmt("touch %s-sibling-new", f.R));
}

PARAMS_ALL(denied_dev)
ParameterizedTest(struct cp *p, contain, denied_dev)
{
	struct fx f;
	fx_setup(&f, p);
	char shm[128], devnew[128];
	snprintf(shm, sizeof shm, "/dev/shm/sbx-e2e-%d", (int)getpid());
	snprintf(devnew, sizeof devnew, "/dev/sbx-e2e-%d", (int)getpid());
	unlink(shm);
	unlink(devnew);

	struct e2e_out o;
	char *c1 = e2e_fmt("echo x > %s", devnew);
	sbx_cmd(&f, "workspace-write", NULL, &o, c1);
	bool dev_leak = e2e_exists(devnew);
	unlink(devnew);
	assert_denied_status(&f, c1, &o);
	cr_assert(!dev_leak, "%s `%s` created %s on the host", f.tag, c1, devnew);
	e2e_out_free(&o);

	/* /dev/shm: the run's own under the namespace runner (POSIX shared
	 * memory works, nothing reaches the host); the host's under the
	 * landlock runner, writable in workspace-write (CONTRACT section 1)
	 * and only there. */
	char *c2 = e2e_fmt("touch %s", shm);
	sbx_cmd(&f, "read-only", NULL, &o, c2);
	bool shm_leak = e2e_exists(shm);
	unlink(shm);
	if (f.runner == NAMESPACE)
		cr_assert(o.status == 0, "%s read-only `%s` failed:\n%s", f.tag, c2, o.err);
	else
		assert_denied_status(&f, c2, &o);
	cr_assert(!shm_leak, "%s read-only `%s` created %s on the host", f.tag, c2, shm);
	e2e_out_free(&o);
	sbx_cmd(&f, "workspace-write", NULL, &o, c2);
	shm_leak = e2e_exists(shm);
	unlink(shm);
	if (f.runner == LANDLOCK) {
		cr_assert(o.status == 0 && shm_leak, "%s workspace-write `%s`: exit %d, %s\n%s",
			  f.tag, c2, o.status, shm_leak ? "created" : "not created", o.err);
	} else {
		cr_assert(o.status == 0, "%s workspace-write `%s` failed:\n%s", f.tag, c2, o.err);
		cr_assert(!shm_leak, "%s `%s` created %s on the host", f.tag, c2, shm);
	}
	e2e_out_free(&o);

	/* but /dev/null takes writes, in both confined modes */
	expect_ok(&f, "workspace-write", "echo x > /dev/null", &o);
	e2e_out_free(&o);
	expect_ok(&f, "read-only", "echo x > /dev/null", &o);
	e2e_out_free(&o);
}

PARAMS_ALL(tmp_policy)
ParameterizedTest(struct cp *p, contain, tmp_policy)
{
	struct fx f;
	fx_setup(&f, p);
	char probe[128];
	snprintf(probe, sizeof probe, "/tmp/sbx-e2e-probe-%d-%ld", (int)getpid(), (long)time(NULL));
	unlink(probe);
	char *cmd = e2e_fmt("echo x > %s && cat %s", probe, probe);

	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", NULL, &o, cmd);
	char *host = e2e_read_file(probe);
	unlink(probe);
	cr_assert(o.status == 0, "%s `%s` under workspace-write should succeed, exit %d\nstderr:\n%s",
		  f.tag, cmd, o.status, o.err);
	cr_assert(strcmp(o.out, "x\n") == 0, "%s `%s` printed \"%s\"", f.tag, cmd, o.out);
	if (f.runner == NAMESPACE)
		cr_assert(host == NULL,
			  "%s /tmp must be a private tmpfs, but %s appeared on the host's /tmp",
			  f.tag, probe);
	else
		cr_assert(host != NULL && strcmp(host, "x\n") == 0,
			  "%s the landlock runner allows the host /tmp, but %s is %s on the host",
			  f.tag, probe, host ? host : "missing");
	free(host);
	e2e_out_free(&o);

	char *cmd2 = e2e_fmt("echo x > %s", probe);
	sbx_cmd(&f, "read-only", NULL, &o, cmd2);
	bool leaked = e2e_exists(probe);
	unlink(probe);
	assert_denied_status(&f, cmd2, &o);
	cr_assert(!leaked, "%s read-only `%s` created %s on the host", f.tag, cmd2, probe);
	e2e_out_free(&o);
}

/* ---- /proc routes through an outside process of the same user ---- */

static pid_t start_sleeper(struct fx *f)
{
	char *script = e2e_fmt("exec 3>>%s; cd %s; exec sleep 30", f->Of, f->O);
	char *argv[] = {"sh", "-c", script, NULL};
	pid_t pid = e2e_spawn(f->who, "/", argv);
	/* wait until it is sleep, in O, with fd 3 on O/f */
	char path[64], buf[4096];
	for (int i = 0; i < 500; i++) {
		snprintf(path, sizeof path, "/proc/%d/fd/3", (int)pid);
		ssize_t n = readlink(path, buf, sizeof buf - 1);
		if (n > 0) {
			buf[n] = '\0';
			char cwd[4096];
			snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
			ssize_t m = readlink(path, cwd, sizeof cwd - 1);
			snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
			char *comm = e2e_read_file(path);
			bool ready = m > 0 && strcmp(buf, f->Of) == 0 && comm &&
				     strcmp(comm, "sleep\n") == 0;
			if (m > 0)
				cwd[m] = '\0';
			ready = ready && strcmp(cwd, f->O) == 0;
			free(comm);
			if (ready)
				return pid;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_fail("%s fixture: the outside sleeper never got ready", f->tag);
	return -1;
}

PARAMS_ALL(denied_proc_routes)
ParameterizedTest(struct cp *p, contain, denied_proc_routes)
{
	struct fx f;
	fx_setup(&f, p);
	pid_t pid = start_sleeper(&f);
	char *cmds[] = {
		e2e_fmt("echo x > /proc/%d/root%s", (int)pid, f.Of),
		e2e_fmt("echo x >> /proc/%d/root%s", (int)pid, f.Of),
		e2e_fmt("touch /proc/%d/root%s/new", (int)pid, f.O),
		e2e_fmt("echo x > /proc/%d/cwd/f", (int)pid),
		e2e_fmt("touch /proc/%d/cwd/new", (int)pid),
		e2e_fmt("echo x > /proc/%d/fd/3", (int)pid),
		e2e_fmt("echo x >> /proc/%d/fd/3", (int)pid),
		NULL,
	};
	struct e2e_out o[8];
	size_t n = 0;
	char *state[8];
	for (; cmds[n]; n++) {
		sbx_cmd(&f, "workspace-write", NULL, &o[n], cmds[n]);
		/* record the effect now, before the next command and the kill */
		char *c = e2e_read_file(f.Of);
		char *l = listing(f.O);
		state[n] = e2e_fmt("f=\"%s\" O={%s}", c ? c : "<gone>", l);
		free(c);
		free(l);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (size_t i = 0; i < n; i++) {
		cr_expect(strcmp(state[i], "f=\"orig\n\" O={d,f}") == 0,
			  "%s `%s` changed the outside through /proc: %s (exit %d)\nstderr:\n%s",
			  f.tag, cmds[i], state[i], o[i].status, o[i].err);
		cr_expect(o[i].status != 0 && o[i].status != 125,
			  "%s `%s` should fail inside the sandbox, exit %d\nstderr:\n%s", f.tag,
			  cmds[i], o[i].status, o[i].err);
	}
}

/* ---- allowed ---- */

PARAMS_ALL(allowed_in_root)
ParameterizedTest(struct cp *p, contain, allowed_in_root)
{
	struct fx f;
	fx_setup(&f, p);
	const char *R = f.R;
	char *cmd = e2e_fmt("cd %s && echo a > new && echo b >> new && mkdir dir && mv new dir/moved && "
			"truncate -s2 dir/moved && touch gone && rm gone && mkdir -p x/y && "
			"rmdir x/y && : > empty && ln -s dir/moved sl && ln dir/moved hl",
			R);
	struct e2e_out o;
	expect_ok(&f, "workspace-write", cmd, &o);
	char *moved = e2e_fmt("%s/dir/moved", R);
	assert_content(&f, moved, "a\n", cmd, &o);
	assert_listing(&f, R, "dir,empty,hl,sl,x", cmd, &o);
	assert_listing(&f, e2e_fmt("%s/x", R), "", cmd, &o);
	struct stat st;
	cr_assert(stat(moved, &st) == 0);
	cr_assert(st.st_uid == e2e_uid(f.who) && st.st_gid == e2e_gid(f.who),
		  "%s a file created in the root is owned by %u:%u, expected the caller %u:%u",
		  f.tag, st.st_uid, st.st_gid, e2e_uid(f.who), e2e_gid(f.who));
	cr_assert(st.st_nlink == 2, "%s hard link inside the root: nlink %lu", f.tag,
		  (unsigned long)st.st_nlink);
	assert_outside_intact(&f, cmd, &o);
	e2e_out_free(&o);
}

PARAMS_ALL(allowed_read_exec)
ParameterizedTest(struct cp *p, contain, allowed_read_exec)
{
	struct fx f;
	fx_setup(&f, p);
	struct e2e_out o;
	const char *cmd = "cat /etc/hostname >/dev/null && /bin/true && ls / >/dev/null";
	expect_ok(&f, "workspace-write", cmd, &o);
	e2e_out_free(&o);
	expect_ok(&f, "read-only", cmd, &o);
	e2e_out_free(&o);
	char *rd = e2e_fmt("cat %s %s", f.Of, f.Sf);
	expect_ok(&f, "read-only", rd, &o);
	cr_assert(strcmp(o.out, "orig\norig\n") == 0, "%s `%s` printed \"%s\"", f.tag, rd, o.out);
	e2e_out_free(&o);
}

PARAMS_ALL(read_only_refuses_root)
ParameterizedTest(struct cp *p, contain, read_only_refuses_root)
{
	struct fx f;
	fx_setup(&f, p);
	char *cmd = e2e_fmt("touch %s/new", f.R);
	struct e2e_out o;
	sbx_cmd(&f, "read-only", NULL, &o, cmd);
	assert_denied_status(&f, cmd, &o);
	cr_assert(strstr(o.err, dialect[f.runner]) != NULL,
		  "%s read-only `%s`: stderr should contain \"%s\"\nstderr:\n%s", f.tag, cmd,
		  dialect[f.runner], o.err);
	assert_listing(&f, f.R, "", cmd, &o);
	e2e_out_free(&o);
	char *cmd2 = e2e_fmt("echo x >> %s", f.Of);
	sbx_cmd(&f, "read-only", NULL, &o, cmd2);
	assert_denied_status(&f, cmd2, &o);
	assert_outside_intact(&f, cmd2, &o);
	e2e_out_free(&o);
}

PARAMS_ALL(allowed_git)
ParameterizedTest(struct cp *p, contain, allowed_git)
{
	struct fx f;
	fx_setup(&f, p);
	char *cmd = e2e_fmt("cd %s && git init -q && git -c user.email=a@b -c user.name=n commit -q "
			"--allow-empty -m m && git log --oneline | wc -l",
			f.R);
	struct e2e_out o;
	expect_ok(&f, "workspace-write", cmd, &o);
	cr_assert(strcmp(o.out, "1\n") == 0, "%s git log printed \"%s\"", f.tag, o.out);
	char *git = e2e_fmt("%s/.git", f.R);
	struct stat st;
	cr_assert(stat(git, &st) == 0 && S_ISDIR(st.st_mode), "%s %s missing after git init",
		  f.tag, git);
	cr_assert(st.st_uid == e2e_uid(f.who), "%s %s owned by uid %u, expected %u", f.tag, git,
		  st.st_uid, e2e_uid(f.who));
	char *head = e2e_fmt("%s/.git/HEAD", f.R);
	cr_assert(stat(head, &st) == 0 && st.st_uid == e2e_uid(f.who),
		  "%s %s missing or not owned by %u", f.tag, head, e2e_uid(f.who));
	assert_outside_intact(&f, cmd, &o);
	e2e_out_free(&o);
}

/* ---- privileges and mount locking ---- */

PARAMS_ALL(no_caps_no_new_privs)
ParameterizedTest(struct cp *p, contain, no_caps_no_new_privs)
{
	struct fx f;
	fx_setup(&f, p);
	const char *cmd = "grep -E '^(CapEff|CapPrm|CapAmb|NoNewPrivs)' /proc/self/status";
	struct e2e_out o;
	expect_ok(&f, "workspace-write", cmd, &o);
	/* Nothing, but a root caller's few file capabilities (CONTRACT 1). */
	const char *keys[] = {"CapEff", "CapPrm", "CapAmb"};
	for (size_t i = 0; i < 3; i++) {
		char *want = e2e_fmt("%s:\t%016llx\n", keys[i], e2e_caps_kept(f.who));
		cr_assert(strstr(o.out, want) != NULL, "%s %s is not %016llx in the sandbox:\n%s",
			  f.tag, keys[i], e2e_caps_kept(f.who), o.out);
	}
	cr_assert(strstr(o.out, "NoNewPrivs:\t1\n") != NULL,
		  "%s no_new_privs is not set in the sandbox:\n%s", f.tag, o.out);
	e2e_out_free(&o);
	/* Layer by layer: Landlock's domains (the runner's, the scopes', the
	 * dead-man's) set no_new_privs on their own; below ABI 6 the namespace
	 * runner has none, and the capability drop alone must set it. */
	const char *abi5[] = { "--landlock-abi=5", NULL };
	sbx_cmd(&f, "workspace-write", abi5, &o, cmd);
	cr_assert(o.status == 0, "%s --landlock-abi=5: exit %d\n%s", f.tag, o.status, o.err);
	cr_assert(strstr(o.out, "NoNewPrivs:\t1\n") != NULL,
		  "%s --landlock-abi=5: no_new_privs is not set in the sandbox:\n%s", f.tag, o.out);
	e2e_out_free(&o);
}

PARAMS_ALL(mount_refused)
ParameterizedTest(struct cp *p, contain, mount_refused)
{
	struct fx f;
	fx_setup(&f, p);
	const char *cmd = "mount -o remount,rw /";
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", NULL, &o, cmd);
	assert_denied_status(&f, cmd, &o);
	e2e_out_free(&o);
	/* and nothing leaks even if the command keeps going */
	char *c2 = e2e_fmt("mount -o remount,rw / 2>/dev/null; mount -o remount,bind,rw %s 2>/dev/null; "
		       "echo x > %s",
		       f.O, f.Of);
	expect_denied(&f, c2);
}

PARAMS_NS(nested_userns_stays_locked)
ParameterizedTest(struct cp *p, contain, nested_userns_stays_locked)
{
	struct fx f;
	fx_setup(&f, p);
	struct e2e_out o;
	char shm[128];
	snprintf(shm, sizeof shm, "/dev/shm/sbx-e2e-nest-%d", (int)getpid());
	unlink(shm);

	const char *c1 = "unshare -rm sh -c 'mount -o remount,rw / || umount /dev'";
	sbx_cmd(&f, "workspace-write", NULL, &o, c1);
	assert_denied_status(&f, c1, &o);
	e2e_out_free(&o);

	char *c2 = e2e_fmt("unshare -rm sh -c \"mount -o remount,rw / 2>/dev/null; umount -l /dev "
		       "2>/dev/null; echo x > %s\"",
		       f.Of);
	expect_denied(&f, c2);

	char *c3 = e2e_fmt("unshare -rm sh -c \"mount -o remount,rw / 2>/dev/null; "
		       "mount -o remount,bind,rw %s 2>/dev/null; umount -l %s 2>/dev/null; "
		       "echo x > %s\"",
		       f.O, f.R, f.Sf);
	expect_denied(&f, c3);

	char *c4 = e2e_fmt("unshare -rm sh -c \"umount -l /dev 2>/dev/null; umount -l /dev/shm "
		       "2>/dev/null; touch %s\"",
		       shm);
	sbx_cmd(&f, "workspace-write", NULL, &o, c4);
	bool leak = e2e_exists(shm);
	unlink(shm);
	cr_assert(!leak, "%s `%s` created %s on the host\nstderr:\n%s", f.tag, c4, shm, o.err);
	e2e_out_free(&o);
}

/* ---- Landlock ABI behaviour ---- */

static json_t *parse_json(struct fx *f, const struct e2e_out *o)
{
	json_error_t jerr;
	json_t *j = json_loads(o->out, 0, &jerr);
	cr_assert(j != NULL && json_is_object(j),
		  "%s --json output is not a JSON object (%s)\nstdout:\n%s\nstderr:\n%s", f->tag,
		  jerr.text, o->out, o->err);
	return j;
}

static const char *json_str(json_t *j, const char *a, const char *b)
{
	json_t *v = json_object_get(j, a);
	if (v && b)
		v = json_object_get(v, b);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void ll_truncate(struct cp *p, const char *abi, bool expect_gap)
{
	struct fx f;
	fx_setup(&f, p);
	/* truncate(2) on a path: coreutils truncate opens the file for writing
	 * first, which every ABI refuses; only the path syscall shows the gap */
	char *cmd = e2e_fmt("perl -e 'truncate(\"%s\", 0) or die \"truncate: $!\\n\"'", f.Of);
	const char *extra_abi[] = {"--json", "--landlock-abi", abi, NULL};
	const char *extra_none[] = {"--json", NULL};
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", abi ? extra_abi : extra_none, &o, cmd);
	if (abi)
		cr_assert(snprintf(f.tag + strlen(f.tag), sizeof f.tag - strlen(f.tag),
				   "[abi %s]", abi) > 0);
	json_t *j = parse_json(&f, &o);
	const char *enf = json_str(j, "sandbox", "enforcement");
	const char *runner = json_str(j, "sandbox", "runner");
	json_t *ec = json_object_get(j, "exit_code");
	cr_assert(runner && strcmp(runner, "landlock") == 0, "%s sandbox.runner is %s\n%s", f.tag,
		  runner ? runner : "missing", o.out);
	if (expect_gap) {
		cr_assert(o.status == 0 && json_is_integer(ec) && json_integer_value(ec) == 0,
			  "%s ABI %s cannot restrict truncate: `%s` should succeed (exit %d)\n%s",
			  f.tag, abi ? abi : "(the kernel's)", cmd, o.status, o.out);
		assert_content(&f, f.Of, "", cmd, &o);
		cr_assert(enf && strcmp(enf, "partial") == 0,
			  "%s sandbox.enforcement is %s, expected partial\n%s", f.tag,
			  enf ? enf : "missing", o.out);
	} else {
		cr_assert(o.status != 0 && o.status != 125 && json_is_integer(ec) &&
				  json_integer_value(ec) != 0,
			  "%s `%s` should be refused (exit %d)\n%s\n%s", f.tag, cmd, o.status, o.out,
			  o.err);
		assert_outside_intact(&f, cmd, &o);
		cr_assert(enf && strcmp(enf, "full") == 0,
			  "%s sandbox.enforcement is %s, expected full\n%s", f.tag,
			  enf ? enf : "missing", o.out);
	}
	json_decref(j);
	e2e_out_free(&o);
	if (expect_gap)
		return;
	/* and the coreutils spelling of it */
	char *cmd2 = e2e_fmt("truncate -s0 %s", f.Of);
	sbx_cmd(&f, "workspace-write", abi ? extra_abi + 1 : NULL, &o, cmd2);
	assert_denied_status(&f, cmd2, &o);
	assert_outside_intact(&f, cmd2, &o);
	e2e_out_free(&o);
}

PARAMS_LL(landlock_abi2_truncate_gap)
ParameterizedTest(struct cp *p, contain, landlock_abi2_truncate_gap)
{
	ll_truncate(p, "2", true);
}

/* --landlock-abi caps the kernel's ABI, never raises it: on a kernel before
 * ABI 3 (6.1 has 2) the gap stays, and says so. */
PARAMS_LL(landlock_abi3_truncate_refused)
ParameterizedTest(struct cp *p, contain, landlock_abi3_truncate_refused)
{
	ll_truncate(p, "3", e2e_landlock_abi() < 3);
}

PARAMS_LL(landlock_default_truncate_refused)
ParameterizedTest(struct cp *p, contain, landlock_default_truncate_refused)
{
	ll_truncate(p, NULL, e2e_landlock_abi() < 3);
}

PARAMS_LL(landlock_abi1_no_refer)
ParameterizedTest(struct cp *p, contain, landlock_abi1_no_refer)
{
	struct fx f;
	fx_setup(&f, p);
	const char *extra[] = {"--landlock-abi", "1", NULL};
	/* rename(2) between two directories of the root: ABI 1 has no REFER right */
	char *cmd = e2e_fmt("cd %s && mkdir a b && touch a/x && "
			"perl -e 'rename(\"a/x\", \"b/x\") or die \"rename: $!\\n\"'",
			f.R);
	struct e2e_out o;
	sbx_cmd(&f, "workspace-write", extra, &o, cmd);
	assert_denied_status(&f, cmd, &o);
	cr_assert(strstr(o.err, "Invalid cross-device link") != NULL,
		  "%s [abi 1] `%s`: stderr should say \"Invalid cross-device link\"\nstderr:\n%s",
		  f.tag, cmd, o.err);
	assert_listing(&f, e2e_fmt("%s/a", f.R), "x", cmd, &o);
	assert_listing(&f, e2e_fmt("%s/b", f.R), "", cmd, &o);
	e2e_out_free(&o);

	char *ln = e2e_fmt("cd %s && ln a/x b/y", f.R);
	sbx_cmd(&f, "workspace-write", extra, &o, ln);
	assert_denied_status(&f, ln, &o);
	cr_assert(strstr(o.err, "Invalid cross-device link") != NULL,
		  "%s [abi 1] `%s`: stderr should say \"Invalid cross-device link\"\nstderr:\n%s",
		  f.tag, ln, o.err);
	e2e_out_free(&o);

	/* same-directory rename is still fine */
	char *same = e2e_fmt("cd %s && mv a/x a/z", f.R);
	sbx_cmd(&f, "workspace-write", extra, &o, same);
	cr_assert(o.status == 0, "%s [abi 1] `%s` should succeed, exit %d\nstderr:\n%s", f.tag,
		  same, o.status, o.err);
	assert_listing(&f, e2e_fmt("%s/a", f.R), "z", same, &o);
	e2e_out_free(&o);
}
