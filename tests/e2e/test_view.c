/* SPDX-License-Identifier: MIT */
/* What a confined command sees besides its mode (issues 19 and 20): the
 * workspace's /tmp kept across calls, its tool cache, a private /dev/shm and
 * ptys, its own /proc, /dev/tty's truth, protected paths inside the root and
 * credential stores hidden outside it. Every case runs as the caller and as
 * nobody; effects are checked on disk and in the process table. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct vp {
	char runner[16];
	enum e2e_user who;
};

static struct vp params[] = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
};

#define PARAMS(name)                                                                        \
	ParameterizedTestParameters(view, name)                                              \
	{                                                                                    \
		return cr_make_param_array(struct vp, params, sizeof(params) / sizeof(params[0])); \
	}

/* Both runners (what the engine does for either). */
static struct vp params_both[] = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

#define PARAMS_BOTH(name)                                                                   \
	ParameterizedTestParameters(view, name)                                              \
	{                                                                                    \
		return cr_make_param_array(struct vp, params_both,                             \
					   sizeof(params_both) / sizeof(params_both[0]));       \
	}

struct fx {
	struct vp p;
	char *base, *home, *ws, *conf;
	char tag[48];
};

static void fx_setup(struct fx *f, const struct vp *p)
{
	f->p = *p;
	/* The state directory follows $XDG_CACHE_HOME, else $HOME: only HOME
	 * here, so the tool-cache variables are sbx's to set. */
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

/* sbx run --json in mode on root, HOME=f->home; returns the exit status. */
static int run_in(struct fx *f, const char *mode, const char *root, const char *cmd,
		  struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--config", f->conf, "--runner",
			 f->p.runner, "--mode", (char *)mode, "--root", (char *)root, "--",
			 (char *)cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	return e2e_run(f->p.who, argv, env, o);
}

static int run_ws(struct fx *f, const char *cmd, struct e2e_out *o)
{
	return run_in(f, "workspace-write", f->ws, cmd, o);
}

/* The command's exit code from the JSON result (-1 when there is none). */
static int exit_code(const struct e2e_out *o)
{
	const char *p = strstr(o->out, "\"exit_code\":");

	return p ? atoi(p + strlen("\"exit_code\":")) : -1;
}

static bool has(const struct e2e_out *o, const char *s)
{
	return strstr(o->out, s) != NULL;
}

static void expect_ok(struct fx *f, const char *cmd, const struct e2e_out *o)
{
	cr_assert(exit_code(o) == 0, "%s `%s` failed: %s\n%s", f->tag, cmd, o->out, o->err);
}

/* ---- /tmp of the workspace's own ---- */

PARAMS(tmp_kept_across_calls)
ParameterizedTest(struct vp *p, view, tmp_kept_across_calls, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *name = e2e_fmt("sbx-view-keep-%d", (int)getpid());
	char *ws2 = e2e_fmt("%s/ws2", e2e_tmpdir(p->who));

	fx_setup(&f, p);
	cr_assert(e2e_mkdir(p->who, ws2) == 0);
	run_ws(&f, e2e_fmt("echo kept > /tmp/%s", name), &o);
	expect_ok(&f, "write /tmp", &o);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(e2e_fmt("/tmp/%s", name)), "%s the host's /tmp got the file", f.tag);

	run_ws(&f, e2e_fmt("cat /tmp/%s", name), &o);
	expect_ok(&f, "read /tmp on the next call", &o);
	cr_assert(has(&o, "kept"), "%s /tmp not kept: %s", f.tag, o.out);
	e2e_out_free(&o);

	/* Another root has a /tmp of its own. */
	run_in(&f, "workspace-write", ws2, e2e_fmt("cat /tmp/%s", name), &o);
	cr_assert(exit_code(&o) != 0 && !has(&o, "kept"), "%s another root saw it: %s", f.tag,
		  o.out);
	e2e_out_free(&o);
}

/* ---- the tool cache ---- */

PARAMS_BOTH(tool_cache)
ParameterizedTest(struct vp *p, view, tool_cache, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *gitconfig;

	fx_setup(&f, p);
	gitconfig = e2e_fmt("%s/.gitconfig", f.home);
	cr_assert(e2e_write_file(p->who, gitconfig, "[user]\n\tname = me\n") == 0);
	run_ws(&f, "mkdir -p \"$GOCACHE\" && echo built > \"$GOCACHE/probe\" && "
		   "echo cache=$XDG_CACHE_HOME pip=$PIP_CACHE_DIR npm=$npm_config_cache",
	       &o);
	expect_ok(&f, "write the cache", &o);
	const char *c = strstr(o.out, "cache=");

	cr_assert(c, "%s no cache variable: %s", f.tag, o.out);
	char dir[512];

	cr_assert(sscanf(c, "cache=%511s", dir) == 1);
	/* Outside the root, in sbx's state under the caller's home. */
	cr_assert(strncmp(dir, f.home, strlen(f.home)) == 0 && strstr(dir, f.ws) == NULL,
		  "%s cache %s not in %s", f.tag, dir, f.home);
	char *probe = e2e_fmt("%s/go-build/probe", dir);
	char *got = e2e_read_file(probe);

	cr_assert(got && strcmp(got, "built\n") == 0, "%s %s: %s", f.tag, probe, got);
	e2e_out_free(&o);

	/* Kept across calls; the user's settings in $HOME stay read-only. */
	run_ws(&f, "cat \"$GOCACHE/probe\"", &o);
	cr_assert(has(&o, "built"), "%s cache not kept: %s", f.tag, o.out);
	e2e_out_free(&o);
	run_ws(&f, "echo '[alias] x = !touch /tmp/p' >> ~/.gitconfig", &o);
	cr_assert(exit_code(&o) != 0, "%s ~/.gitconfig was writable", f.tag);
	cr_assert(has(&o, "\"denied\":true"), "%s not marked denied: %s", f.tag, o.out);
	got = e2e_read_file(gitconfig);
	cr_assert(got && strcmp(got, "[user]\n\tname = me\n") == 0, "%s ~/.gitconfig changed: %s",
		  f.tag, got);
	e2e_out_free(&o);
}

/* ---- /dev/shm, ptys, /proc/self, /dev/tty ---- */

PARAMS_BOTH(everyday_devices)
ParameterizedTest(struct vp *p, view, everyday_devices, .timeout = 90)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *shm = e2e_fmt("/dev/shm/sbx-view-%d", (int)getpid());

	bool ns = strcmp(p->runner, "namespace") == 0;

	fx_setup(&f, p);
	unlink(shm);
	/* POSIX shared memory and queues: the run's own /dev/shm (namespace)
	 * or the host's, writable in workspace-write (landlock). */
	run_ws(&f, e2e_fmt("set -e; touch %s; "
			   "python3 -c 'import multiprocessing as m\n"
			   "q = m.Queue(); w = m.Process(target=q.put, args=(42,)); w.start()\n"
			   "print(\"queue\", q.get()); w.join()\n"
			   "from multiprocessing import shared_memory as s\n"
			   "b = s.SharedMemory(create=True, size=16); b.close(); b.unlink()'",
			   shm),
	       &o);
	bool on_host = e2e_exists(shm);

	/* Before any assertion: a failed one must not leave it on the host. */
	unlink(shm);
	expect_ok(&f, "shared memory", &o);
	cr_assert(has(&o, "queue 42"), "%s multiprocessing: %s", f.tag, o.out);
	cr_assert(ns != on_host, "%s %s: %s on the host", f.tag, shm, ns ? "reached" : "missing");
	e2e_out_free(&o);

	/* ptys and the run's own /proc files: the namespace runner's private
	 * devpts and /proc (the landlock runner cannot grant new ptys without
	 * the caller's terminal, nor /proc/self without other processes). */
	if (ns) {
		run_ws(&f, "python3 -c 'import os; mfd, sfd = os.openpty(); "
			   "print(\"pty\", os.ttyname(sfd))'; script -qc 'echo in-pty' /dev/null; "
			   "echo renamed > /proc/self/comm && echo comm-ok",
		       &o);
		expect_ok(&f, "ptys and /proc/self", &o);
		cr_assert(has(&o, "pty /dev/pts/"), "%s openpty: %s", f.tag, o.out);
		cr_assert(has(&o, "in-pty"), "%s script(1): %s", f.tag, o.out);
		cr_assert(has(&o, "comm-ok"), "%s /proc/self/comm: %s", f.tag, o.out);
		e2e_out_free(&o);
	}

	/* /dev/tty with no controlling terminal: the truth, not a denial. */
	run_in(&f, "read-only", f.ws, "echo x > /dev/tty", &o);
	cr_assert(exit_code(&o) == 1, "%s /dev/tty: %s", f.tag, o.out);
	cr_assert(has(&o, "No such device or address"), "%s /dev/tty: %s", f.tag, o.out);
	cr_assert(has(&o, "\"denied\":false"), "%s /dev/tty marked denied: %s", f.tag, o.out);
	e2e_out_free(&o);
}

/* Nested sandboxes: a user namespace of the command's own, nobody's uid
 * mapped to root in it. A root caller could not map root without
 * CAP_SETFCAP, which the command does not keep: its filter refuses the
 * namespace, and the run is marked. */
PARAMS(nested_user_namespace)
ParameterizedTest(struct vp *p, view, nested_user_namespace, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	bool root = e2e_uid(p->who) == 0;
	const char *cmd = "unshare -Urm sh -c 'mount -t tmpfs x /mnt && id -u'";

#ifndef CONFIG_SECCOMP
	/* No filter to refuse it: a root caller's unmapped namespace works. */
	if (root)
		cmd = "unshare -Um sh -c 'id -u'", root = false;
#endif
	fx_setup(&f, p);
	run_ws(&f, cmd, &o);
	if (root)
		cr_assert(exit_code(&o) != 0 && has(&o, "\"denied\":true") &&
				  has(&o, "[sandbox: file access denied under workspace-write mode]"),
			  "%s `%s`: not refused, or not marked: %s", f.tag, cmd, o.out);
	else
		expect_ok(&f, cmd, &o);
	e2e_out_free(&o);
}

/* /proc/self of a command in a PID namespace of its own with no /proc of
 * its own (unshare -pf): the run's /proc names it by its number there. An
 * open for writing is the supervisor's to resolve, and it must find the
 * command itself, not the process with the command's inner number there
 * (1: the run's init). As nobody: a root caller's nested user namespace
 * is refused (above). */
static struct vp params_nobody[] = { { "namespace", AS_NOBODY } };

ParameterizedTestParameters(view, own_proc_in_a_nested_pid_namespace)
{
	return cr_make_param_array(struct vp, params_nobody, 1);
}

ParameterizedTest(struct vp *p, view, own_proc_in_a_nested_pid_namespace, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	const char *cmd = "read before < /proc/1/comm; "
			  "unshare -Urpf sh -c 'echo renamed-sh > /proc/self/comm && "
			  "read c < /proc/self/comm && echo self=$c'; "
			  "read after < /proc/1/comm; echo init=$before/$after";

	fx_setup(&f, p);
	run_ws(&f, cmd, &o);
	expect_ok(&f, cmd, &o);
	cr_assert(has(&o, "self=renamed-sh"), "%s its own comm not renamed: %s", f.tag, o.out);
	cr_assert(!has(&o, "/renamed-sh"), "%s the run's init was renamed: %s", f.tag, o.out);
	e2e_out_free(&o);
}

PARAMS(processes_private)
ParameterizedTest(struct vp *p, view, processes_private, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *argv[] = { "sleep", "30", NULL };
	pid_t outside;

	fx_setup(&f, p);
	outside = e2e_spawn(p->who, f.ws, argv);
	run_in(&f, "read-only", f.ws,
	       e2e_fmt("test -e /proc/%d && echo visible; kill -0 %d && echo signalled; "
		       "echo procs=$(ls /proc | grep -c '^[0-9]')",
		       (int)outside, (int)outside),
	       &o);
	cr_assert(!has(&o, "visible") && !has(&o, "signalled"), "%s host process reached: %s",
		  f.tag, o.out);
	cr_assert(has(&o, "\"processes\":\"private\""), "%s %s", f.tag, o.out);
	cr_assert(kill(outside, 0) == 0, "%s the outside process died", f.tag);
	kill(outside, SIGKILL);
	waitpid(outside, NULL, 0);
	e2e_out_free(&o);
}

/* ---- protected paths inside the root ---- */

static void git_fixture(struct fx *f)
{
	struct e2e_out o;
	char *argv[] = { "sh", "-c",
			 e2e_fmt("cd %s && git init -q && git -c user.name=t -c user.email=t@t "
				 "commit -q --allow-empty -m init",
				 f->ws),
			 NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	cr_assert(e2e_run(f->p.who, argv, env, &o) == 0, "git init: %s", o.err);
	e2e_out_free(&o);
}

PARAMS_BOTH(protected_existing)
ParameterizedTest(struct vp *p, view, protected_existing, .timeout = 90)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *pwned, *config, *before;

	fx_setup(&f, p);
	git_fixture(&f);
	pwned = e2e_fmt("%s/PWNED", f.base);
	config = e2e_fmt("%s/.git/config", f.ws);
	before = e2e_read_file(config);
	cr_assert(before);

	const char *attacks[] = {
		e2e_fmt("printf '#!/bin/sh\\ntouch %s\\n' > .git/hooks/pre-commit && "
			"chmod +x .git/hooks/pre-commit", pwned),
		e2e_fmt("git config core.fsmonitor 'touch %s'", pwned),
		e2e_fmt("git config alias.st '!touch %s'", pwned),
		e2e_fmt("printf '[filter \"x\"]\\n\\tclean = touch %s\\n' >> .git/config", pwned),
		"ln -sf /tmp/evil-config .git/config",
	};
	bool ns = strcmp(p->runner, "namespace") == 0;

	/* The namespace runner refuses the write (read-only binds): the run
	 * fails and is denied. The landlock runner cannot; the write lands,
	 * the run exits 0, is not denied (CONTRACT section 5) and the path is
	 * put back after it, which sandbox.reverted says. */
	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		run_ws(&f, attacks[i], &o);
		if (ns) {
			cr_assert(exit_code(&o) != 0, "%s `%s` was allowed", f.tag, attacks[i]);
			cr_assert(has(&o, "\"denied\":true"), "%s `%s` not a denial: %s", f.tag,
				  attacks[i], o.out);
		} else {
			cr_assert(has(&o, "\"protected\":\"restored\"") && has(&o, "\"reverted\":[\".git/"),
				  "%s `%s` not put back: %s", f.tag, attacks[i], o.out);
			cr_assert(exit_code(&o) == 0 && has(&o, "\"denied\":false") &&
					  !has(&o, "[sandbox: file access denied"),
				  "%s `%s` exited 0 yet was called denied: %s", f.tag, attacks[i],
				  o.out);
		}
		e2e_out_free(&o);
	}
	cr_assert(e2e_exists(e2e_fmt("%s/.git/hooks", f.ws)), "%s .git/hooks gone", f.tag);
	cr_assert(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", f.ws)), "%s hook left", f.tag);
	char *after = e2e_read_file(config);

	cr_assert(after && strcmp(before, after) == 0, "%s .git/config changed", f.tag);

	/* Ordinary git work in the run keeps working. */
	run_ws(&f, "echo a > a && git add a && git -c user.name=t -c user.email=t@t commit -qm a "
		   "&& git branch b && git stash list && git log --oneline | wc -l",
	       &o);
	expect_ok(&f, "git add/commit", &o);
	e2e_out_free(&o);

	/* The user's next unconfined git runs nothing the run planted. */
	char *argv[] = { "sh", "-c",
			 e2e_fmt("cd %s && echo b > b && git add b && git status -s && "
				 "git -c user.name=t -c user.email=t@t commit -qm b && git st",
				 f.ws),
			 NULL };
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	e2e_run(p->who, argv, env, &o);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(pwned), "%s a planted hook or config ran outside", f.tag);
}

PARAMS_BOTH(protected_absent_swept)
ParameterizedTest(struct vp *p, view, protected_absent_swept, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	run_ws(&f, "echo 'echo hi' > .envrc && mkdir -p .vscode && echo '{}' > .vscode/tasks.json && "
		   "echo ok > normal.txt",
	       &o);
	cr_assert(exit_code(&o) == 0, "%s %s", f.tag, o.out);
	cr_assert(has(&o, "\"reverted\":[\".envrc\",\".vscode\"]"), "%s %s", f.tag, o.out);
	/* It exited 0: put back, and said so, but not denied (CONTRACT
	 * section 5); a failed run that changed them is. */
	cr_assert(has(&o, "\"denied\":false"), "%s %s", f.tag, o.out);
	cr_assert(!has(&o, "[sandbox: file access denied"), "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	run_ws(&f, "echo 'echo hi' > .envrc; exit 3", &o);
	cr_assert(exit_code(&o) == 3 && has(&o, "\"reverted\":[\".envrc\"]"), "%s %s", f.tag,
		  o.out);
	cr_assert(has(&o, "\"denied\":true"), "%s %s", f.tag, o.out);
	cr_assert(has(&o, "[sandbox: file access denied under workspace-write mode]"), "%s %s",
		  f.tag, o.out);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(e2e_fmt("%s/.envrc", f.ws)), "%s .envrc left behind", f.tag);
	cr_assert(!e2e_exists(e2e_fmt("%s/.vscode", f.ws)), "%s .vscode left behind", f.tag);
	cr_assert(e2e_exists(e2e_fmt("%s/normal.txt", f.ws)), "%s an ordinary file went", f.tag);
}

/* ---- credential stores hidden ---- */

static void home_secrets(struct fx *f)
{
	cr_assert(e2e_mkdir(f->p.who, e2e_fmt("%s/.ssh", f->home)) == 0);
	/* kept elsewhere, as dotfile managers do: hidden by both names */
	cr_assert(e2e_mkdir(f->p.who, e2e_fmt("%s/dotaws", f->base)) == 0);
	cr_assert(symlink(e2e_fmt("%s/dotaws", f->base), e2e_fmt("%s/.aws", f->home)) == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.ssh/id_ed25519", f->home), "SECRETKEY\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.ssh/id_ed25519.pub", f->home), "PUBKEY\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.ssh/known_hosts", f->home), "HOSTS\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.aws/credentials", f->home), "AWSSECRET\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.netrc", f->home), "NETRCSECRET\n") == 0);
}

PARAMS_BOTH(credentials_hidden)
ParameterizedTest(struct vp *p, view, credentials_hidden, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	static const char *const modes[] = { "read-only", "workspace-write" };
	const char *cmd = "cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc; ls -A ~/.ssh; "
			  "cat ~/.ssh/known_hosts ~/.ssh/id_ed25519.pub; cat $(readlink ~/.aws)/credentials; "
			  "echo PWNED >> ~/.ssh/known_hosts; echo PWNED >> ~/.ssh/id_ed25519.pub";
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	home_secrets(&f);
	for (size_t i = 0; i < 2; i++) {
		run_in(&f, modes[i], f.ws, cmd, &o);
		cr_assert(!has(&o, "SECRET"), "%s %s read a secret: %s", f.tag, modes[i], o.out);
		cr_assert(has(&o, "HOSTS") && has(&o, "PUBKEY"), "%s %s: known_hosts/pub: %s",
			  f.tag, modes[i], o.out);
		/* Revealed inside a hidden directory, they are readable only: the
		 * host's files are as they were (outside the root, neither mode
		 * may write them). */
		cr_assert_str_eq(e2e_read_file(e2e_fmt("%s/.ssh/known_hosts", f.home)), "HOSTS\n",
				 "%s %s: the command wrote the host's known_hosts", f.tag, modes[i]);
		cr_assert_str_eq(e2e_read_file(e2e_fmt("%s/.ssh/id_ed25519.pub", f.home)), "PUBKEY\n",
				 "%s %s: the command wrote the host's public key", f.tag, modes[i]);
		e2e_out_free(&o);
	}
	/* deny_read = none turns the default list off, and sbx's own state
	 * (another root's spills and /tmp) stays hidden (it was not: `none`
	 * skipped the state directories too). */
	cr_assert(e2e_write_file(p->who, f.conf, "deny_read = none\n") == 0);
	cr_assert(e2e_write_file(f.p.who, e2e_fmt("%s/.cache/sbx/other-root-spill", f.home),
				 "STATESECRET\n") == 0);
	run_in(&f, "read-only", f.ws, "cat ~/.ssh/id_ed25519 ~/.cache/sbx/other-root-spill", &o);
	cr_assert(has(&o, "SECRETKEY"), "%s deny_read = none: %s", f.tag, o.out);
	cr_assert(!has(&o, "STATESECRET"), "%s deny_read = none showed sbx's state: %s", f.tag,
		  o.out);
	e2e_out_free(&o);
	/* A user's own entry adds to the defaults: naming a token file does
	 * not give ~/.ssh back (it did: a list replaced the defaults). After
	 * a `none` line, the entries are the whole list. */
	cr_assert(e2e_write_file(f.p.who, e2e_fmt("%s/mytoken", f.home), "MYTOKEN\n") == 0);
	cr_assert(e2e_write_file(p->who, f.conf, "deny_read = ~/mytoken\n") == 0);
	run_in(&f, "read-only", f.ws, "cat ~/.ssh/id_ed25519 ~/mytoken ~/.netrc", &o);
	cr_assert(!has(&o, "SECRET") && !has(&o, "MYTOKEN"), "%s deny_read = ~/mytoken: %s",
		  f.tag, o.out);
	e2e_out_free(&o);
	cr_assert(e2e_write_file(p->who, f.conf, "deny_read = none\ndeny_read = ~/mytoken\n") == 0);
	run_in(&f, "read-only", f.ws, "cat ~/.ssh/id_ed25519 ~/mytoken", &o);
	cr_assert(has(&o, "SECRETKEY") && !has(&o, "MYTOKEN"), "%s none, then ~/mytoken: %s",
		  f.tag, o.out);
	e2e_out_free(&o);
}

/* A root that holds hidden paths ($HOME itself): the namespace runner covers
 * them inside the root too; the landlock runner, which can only grant the
 * root whole, is not used for such a run (before, it was, and the key was
 * read and a file written next to it). */
PARAMS_BOTH(credentials_hidden_inside_the_root)
ParameterizedTest(struct vp *p, view, credentials_hidden_inside_the_root, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	const char *cmd = "cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc; "
			  "echo planted > ~/.ssh/planted; echo ran > ~/ran";
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	home_secrets(&f);
	int status = run_in(&f, "workspace-write", f.home, cmd, &o);
	cr_assert(!has(&o, "SECRET"), "%s read a secret in the root: %s", f.tag, o.out);
	cr_assert(!e2e_exists(e2e_fmt("%s/.ssh/planted", f.home)),
		  "%s wrote into a hidden directory in the root: %s", f.tag, o.out);
	if (strcmp(p->runner, "landlock") == 0) {
		cr_assert(status == 125 && strstr(o.out, "SANDBOX_UNAVAILABLE") &&
				  strstr(o.out, "/.ssh inside the root"),
			  "%s expected a refusal naming the hidden path: %d\n%s\n%s", f.tag, status,
			  o.out, o.err);
		cr_assert(!e2e_exists(e2e_fmt("%s/ran", f.home)), "%s the command ran", f.tag);
	} else {
		cr_assert(e2e_exists(e2e_fmt("%s/ran", f.home)), "%s did not run: %s\n%s", f.tag,
			  o.out, o.err);
	}
	e2e_out_free(&o);
	/* deny_read = none leaves sbx's own state in the home hidden (other
	 * roots' /tmp and spills): the landlock runner still cannot take the
	 * home as a root (it did, and the command read that state), the
	 * namespace runner covers it. */
	cr_assert(e2e_write_file(p->who, f.conf, "deny_read = none\n") == 0);
	status = run_in(&f, "workspace-write", f.home, "echo ran > ~/ran2", &o);
	if (strcmp(p->runner, "landlock") == 0)
		cr_assert(status == 125 && strstr(o.out, "(sbx's state) inside the root") &&
				  !e2e_exists(e2e_fmt("%s/ran2", f.home)),
			  "%s deny_read = none: %d\n%s\n%s", f.tag, status, o.out, o.err);
	else
		cr_assert(e2e_exists(e2e_fmt("%s/ran2", f.home)), "%s deny_read = none: %s\n%s",
			  f.tag, o.out, o.err);
	e2e_out_free(&o);
}

/* Another root's /tmp and cache are sbx's state: hidden too. */
PARAMS_BOTH(state_hidden)
ParameterizedTest(struct vp *p, view, state_hidden, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *ws2 = e2e_fmt("%s/ws2", e2e_tmpdir(p->who));

	fx_setup(&f, p);
	cr_assert(e2e_mkdir(p->who, ws2) == 0);
	run_ws(&f, "mkdir -p \"$XDG_CACHE_HOME\" && echo OTHERROOT > \"$XDG_CACHE_HOME/mine\"", &o);
	expect_ok(&f, "write the cache", &o);
	e2e_out_free(&o);
	run_in(&f, "workspace-write", ws2,
	       "cat \"$HOME\"/.cache/sbx/cache/*/mine; ls \"$HOME\"/.cache/sbx/cache", &o);
	cr_assert(!has(&o, "OTHERROOT"), "%s another root's cache was read: %s", f.tag, o.out);
	e2e_out_free(&o);
}

/* A workspace-write root that holds the usual state directory (root = $HOME,
 * which holds ~/.cache/sbx): that run keeps its own state elsewhere (never
 * inside what it may write), but ~/.cache/sbx, where every other root's /tmp,
 * cache, spill files and protected-path baselines are, stayed in its view,
 * readable and writable (only the base the run itself used was hidden). */
PARAMS_BOTH(state_hidden_inside_the_root)
ParameterizedTest(struct vp *p, view, state_hidden_inside_the_root, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	run_ws(&f, "mkdir -p \"$XDG_CACHE_HOME\" && echo OTHERROOT > \"$XDG_CACHE_HOME/mine\"", &o);
	expect_ok(&f, "write the cache", &o);
	e2e_out_free(&o);
	int status = run_in(&f, "workspace-write", f.home,
			    "cat ~/.cache/sbx/cache/*/mine; for d in ~/.cache/sbx/cache/*/; do "
			    "echo planted > \"$d/planted\"; done; echo ran > ~/ran",
			    &o);
	cr_assert(!has(&o, "OTHERROOT"), "%s another root's cache was read: %s", f.tag, o.out);
	char *glob_cmd = e2e_fmt("ls %s/.cache/sbx/cache/*/planted", f.home);
	char *argv[] = { "bash", "-c", glob_cmd, NULL };
	struct e2e_out l;
	e2e_run(AS_CALLER, argv, NULL, &l);
	cr_assert(l.status != 0, "%s wrote into another root's cache: %s", f.tag, l.out);
	e2e_out_free(&l);
	if (strcmp(p->runner, "landlock") == 0) {
		cr_assert(status == 125 && strstr(o.out, "SANDBOX_UNAVAILABLE") &&
				  strstr(o.out, "/.cache/sbx (sbx's state) inside the root"),
			  "%s expected a refusal naming the state directory: %d\n%s\n%s", f.tag,
			  status, o.out, o.err);
	} else {
		cr_assert(e2e_exists(e2e_fmt("%s/ran", f.home)), "%s did not run: %s\n%s", f.tag,
			  o.out, o.err);
	}
	e2e_out_free(&o);
}

/* sbx's state expires directories untouched for long (7 days for a /tmp, 30
 * for a cache) and nothing younger: not one whose time is ahead of the
 * clock sbx reads, as a directory another run has just made can be (the file
 * system's clock is finer than time()'s). Such a one was taken for ancient
 * and removed from under its run (test_corpus saw the run's cache vanish). */
PARAMS(state_expiry)
ParameterizedTest(struct vp *p, view, state_expiry, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	const char *kinds[] = { "tmp", "cache" };
	time_t now = time(NULL);

	fx_setup(&f, p);
	for (int k = 0; k < 2; k++) {
		char *state = e2e_fmt("%s/.cache/sbx/%s", f.home, kinds[k]);
		const struct {
			const char *name;
			time_t mtime;
		} dirs[] = {
			{ "old-0000000000000001", now - 40 * 86400 },
			{ "ahead-0000000000000002", now + 3600 },
			{ "recent-0000000000000003", now - 3600 },
		};

		if (k == 0) {
			cr_assert(e2e_mkdir(p->who, e2e_fmt("%s/.cache", f.home)) == 0);
			cr_assert(e2e_mkdir(p->who, e2e_fmt("%s/.cache/sbx", f.home)) == 0);
		}
		cr_assert(e2e_mkdir(p->who, state) == 0);
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			char *d = e2e_fmt("%s/%s", state, dirs[i].name);
			struct timespec ts[2] = { { .tv_sec = dirs[i].mtime }, { .tv_sec = dirs[i].mtime } };

			cr_assert(e2e_mkdir(p->who, d) == 0);
			cr_assert(utimensat(AT_FDCWD, d, ts, 0) == 0);
		}
	}
	run_ws(&f, "true", &o);
	expect_ok(&f, "a run", &o);
	e2e_out_free(&o);
	for (int k = 0; k < 2; k++) {
		char *state = e2e_fmt("%s/.cache/sbx/%s", f.home, kinds[k]);

		cr_expect(!e2e_exists(e2e_fmt("%s/old-0000000000000001", state)),
			  "%s %s: a directory untouched for 40 days stayed", f.tag, kinds[k]);
		cr_expect(e2e_exists(e2e_fmt("%s/ahead-0000000000000002", state)),
			  "%s %s: a directory with a time ahead of the clock was removed", f.tag,
			  kinds[k]);
		cr_expect(e2e_exists(e2e_fmt("%s/recent-0000000000000003", state)),
			  "%s %s: a directory an hour old was removed", f.tag, kinds[k]);
	}

	/* One full look an hour: a stale directory found after a sweep waits
	 * for the next hour's (the stamp's age says when that is). */
	char *state = e2e_fmt("%s/.cache/sbx/tmp", f.home);
	char *late = e2e_fmt("%s/late-0000000000000004", state);
	struct timespec old[2] = { { .tv_sec = now - 40 * 86400 }, { .tv_sec = now - 40 * 86400 } };
	struct timespec hours[2] = { { .tv_sec = now - 7200 }, { .tv_sec = now - 7200 } };

	cr_assert(e2e_mkdir(p->who, late) == 0);
	cr_assert(utimensat(AT_FDCWD, late, old, 0) == 0);
	run_ws(&f, "true", &o);
	e2e_out_free(&o);
	cr_expect(e2e_exists(late), "%s a second sweep within the hour", f.tag);
	cr_assert(utimensat(AT_FDCWD, e2e_fmt("%s/.swept", state), hours, 0) == 0,
		  "%s no stamp of the sweep", f.tag);
	run_ws(&f, "true", &o);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(late), "%s the stale directory stayed past the next hour's sweep",
		  f.tag);
}

/* The host's device nodes bound into the namespace runner's /dev are
 * read-only mounts: writes to the device still work, but their metadata is
 * the host's (a root caller's command owns them; any user may touch
 * /dev/null's times). A writable clone let a run chmod the host's /dev/null. */
PARAMS(device_nodes_metadata)
ParameterizedTest(struct vp *p, view, device_nodes_metadata, .timeout = 60)
{
	static const char *const nodes[] = { "/dev/null", "/dev/zero", "/dev/tty" };
	struct stat before[3], after[3];
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	for (size_t i = 0; i < 3; i++)
		cr_assert(stat(nodes[i], &before[i]) == 0);
	run_ws(&f, "chmod 600 /dev/null; chown 1:1 /dev/zero; touch /dev/null /dev/zero; "
		   "touch -d 2001-01-01 /dev/tty; echo x > /dev/null && echo wrote", &o);
	cr_assert(has(&o, "wrote"), "%s /dev/null took no write: %s", f.tag, o.out);
	e2e_out_free(&o);
	for (size_t i = 0; i < 3; i++) {
		cr_assert(stat(nodes[i], &after[i]) == 0);
		cr_assert(after[i].st_mode == before[i].st_mode && after[i].st_uid == before[i].st_uid &&
			  after[i].st_mtim.tv_sec == before[i].st_mtim.tv_sec &&
			  after[i].st_ctim.tv_sec == before[i].st_ctim.tv_sec,
			  "%s the host's %s changed", f.tag, nodes[i]);
	}
}

/* An allow-listed socket under the host's /tmp (an ssh-agent's) stays
 * reachable from the namespace runner's own /tmp: it is bound there. */
PARAMS(allowed_socket_in_tmp)
ParameterizedTest(struct vp *p, view, allowed_socket_in_tmp, .timeout = 60)
{
	struct fx f;
	struct e2e_out o;
	char *sock = e2e_fmt("/tmp/sbx-view-sock-%d-%d", (int)getpid(), (int)p->who);
	char *witness;
	char *server;
	pid_t pid;

	fx_setup(&f, p);
	witness = e2e_fmt("%s/witness", f.base);
	unlink(sock);
	server = e2e_fmt("import socket, os\n"
			 "s = socket.socket(socket.AF_UNIX); s.bind('%s'); os.chmod('%s', 0o777)\n"
			 "s.listen(); c, _ = s.accept(); open('%s', 'w').write(c.recv(64).decode())\n",
			 sock, sock, witness);
	pid = e2e_spawn(p->who, f.base, (char *[]){ "python3", "-c", server, NULL });
	/* python's start takes seconds on a loaded machine */
	for (int i = 0; i < 3000 && !e2e_exists(sock); i++)
		usleep(10000);
	cr_assert(e2e_exists(sock), "%s the daemon did not start", f.tag);
	cr_assert(e2e_write_file(p->who, f.conf, e2e_fmt("unix_sockets = %s\n", sock)) == 0);
	run_ws(&f, e2e_fmt("python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); "
			   "s.connect('%s'); s.send(b'hello')\"", sock), &o);
	expect_ok(&f, "connect to the allowed socket", &o);
	e2e_out_free(&o);
	for (int i = 0; i < 3000 && !e2e_exists(witness); i++)
		usleep(10000);
	char *got = e2e_read_file(witness);

	cr_assert(got && strcmp(got, "hello") == 0, "%s the allowed daemon got %s", f.tag, got);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(sock);
}
