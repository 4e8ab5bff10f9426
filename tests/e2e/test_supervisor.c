/* SPDX-License-Identifier: MIT */
/* The syscall supervisor (CONTRACT section 10), effects checked from outside:
 *  - metadata (landlock runner): chmod, chown, utimes and xattrs of a file
 *    outside the writable set, or inside the root in read-only mode, are
 *    refused with EACCES and the file is untouched (mode, owner, times,
 *    ctime, xattrs); inside the writable set they work; a root caller
 *    cannot chmod 4755 or chmod 000 a root-owned file outside; a symlink
 *    swapped by a second thread over thousands of rounds never redirects a
 *    call outside;
 *  - pathname unix sockets (both runners, --net allow and none, read-only and
 *    workspace-write): a host daemon that writes a witness file when it gets
 *    a line is never reached outside the workspace, in the host's /tmp, or
 *    even inside the workspace; a server the command starts itself in the
 *    workspace or /tmp is, also when it listened and then forked away (a
 *    daemon: ssh-agent); an allow-listed path is;
 *  - without user notification or pidfd_getfd the run goes on (landlock:
 *    enforcement partial), and `sbx probe` says why.
 * Every case runs as the caller (root here) and as nobody. */
#include "common.h"
#include "runner_params.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"

#ifdef CONFIG_SUPERVISOR

/* --net none needs network namespaces in the build (test_net.c checks the
 * refusal where they are not). */
#ifdef CONFIG_NETNS
#define N_NETS 2
#else
#define N_NETS 1
#endif
static const char *const nets[] = { "allow", "none" };

static struct cp ll_params[] = { { LANDLOCK, AS_CALLER }, { LANDLOCK, AS_NOBODY } };

#define PARAMS(name, arr)                                                                  \
	ParameterizedTestParameters(supervisor, name)                                       \
	{                                                                                   \
		return cr_make_param_array(struct cp, arr, CP_COUNT(arr));                   \
	}

/* B = e2e_tmpdir(who): R = B/ws (the root), O = B/out (O/f), D = B/daemon;
 * all owned by who, so without the sandbox who could do everything tried. */
struct fx {
	enum runner runner;
	enum e2e_user who;
	char *B, *R, *Rf, *O, *Of, *D;
	char tag[64];
	pid_t daemons[4];
	size_t n_daemons;
	char *tmpdir; /* a directory in the host's /tmp, removed at the end */
};

static void fx_setup(struct fx *f, const struct cp *p)
{
	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s]", runner_name[f->runner],
		 e2e_user_name(f->who));
	f->B = e2e_tmpdir(f->who);
	f->R = e2e_fmt("%s/ws", f->B);
	f->Rf = e2e_fmt("%s/f", f->R);
	f->O = e2e_fmt("%s/out", f->B);
	f->Of = e2e_fmt("%s/f", f->O);
	f->D = e2e_fmt("%s/daemon", f->B);
	cr_assert(e2e_mkdir(f->who, f->R) == 0 && e2e_mkdir(f->who, f->O) == 0 &&
		  e2e_mkdir(AS_CALLER, f->D) == 0, "fixture: mkdir");
	cr_assert(e2e_write_file(f->who, f->Of, "orig\n") == 0 &&
		  e2e_write_file(f->who, f->Rf, "orig\n") == 0, "fixture: write");
	cr_assert(chmod(f->Of, 0644) == 0 && chmod(f->Rf, 0644) == 0);
}

/* A helper binary where every runner's command sees it: the e2e copies
 * live in /tmp, which the namespace runner covers with its own. */
static char *helper(struct fx *f, const char *name)
{
	char *dst = e2e_fmt("%s/%s", f->B, name);
	char *argv[] = { "cp", (char *)e2e_helper(name), dst, NULL };
	struct e2e_out o;

	if (!e2e_exists(dst)) {
		e2e_run(AS_CALLER, argv, NULL, &o);
		cr_assert(o.status == 0, "cp %s: %s", name, o.err);
		e2e_out_free(&o);
		cr_assert(chmod(dst, 0755) == 0);
	}
	return dst;
}

/* Daemons end with the test process, whether it passed or not (a failed
 * assertion skips fx_teardown): kill_daemons at exit. */
static pid_t all_daemons[16];
static size_t n_all_daemons;

static void fx_teardown(struct fx *f)
{
	for (size_t i = 0; i < f->n_daemons; i++) {
		if (kill(f->daemons[i], SIGKILL) == 0)
			waitpid(f->daemons[i], NULL, 0);
		for (size_t k = 0; k < n_all_daemons; k++)
			if (all_daemons[k] == f->daemons[i])
				all_daemons[k] = 0; /* reaped: never kill its pid again */
	}
	if (f->tmpdir)
		e2e_rm_rf(f->tmpdir);
}

/* sbx run --runner R --mode MODE --root R [--net NET] [--config CFG] [--json] -- CMD */
static int sbx(struct fx *f, const char *mode, const char *net, const char *config, bool json,
	       const char *cmd, struct e2e_out *o)
{
	char *argv[24];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--runner";
	argv[n++] = (char *)runner_name[f->runner];
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	if (net) {
		argv[n++] = "--net";
		argv[n++] = (char *)net;
	}
	if (config) {
		argv[n++] = "--config";
		argv[n++] = (char *)config;
	}
	if (json)
		argv[n++] = "--json";
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	return e2e_run(f->who, argv, NULL, o);
}

/* ---- metadata ---- */

struct snap {
	struct stat st;
	bool has_xattr;
};

static struct snap snap_of(const char *path)
{
	struct snap s;
	char v[8];

	cr_assert(lstat(path, &s.st) == 0, "stat %s: %s", path, strerror(errno));
	s.has_xattr = lgetxattr(path, "user.sbx", v, sizeof v) >= 0;
	return s;
}

static void assert_untouched(struct fx *f, const char *path, const struct snap *before,
			     const char *what)
{
	struct snap now = snap_of(path);

	cr_assert(now.st.st_mode == before->st.st_mode && now.st.st_uid == before->st.st_uid &&
		  now.st.st_gid == before->st.st_gid,
		  "%s %s changed %s: mode %o->%o uid %d->%d gid %d->%d", f->tag, what, path,
		  before->st.st_mode, now.st.st_mode, before->st.st_uid, now.st.st_uid,
		  before->st.st_gid, now.st.st_gid);
	cr_assert(now.st.st_mtim.tv_sec == before->st.st_mtim.tv_sec &&
		  now.st.st_mtim.tv_nsec == before->st.st_mtim.tv_nsec,
		  "%s %s changed the mtime of %s", f->tag, what, path);
	cr_assert(now.st.st_ctim.tv_sec == before->st.st_ctim.tv_sec &&
		  now.st.st_ctim.tv_nsec == before->st.st_ctim.tv_nsec,
		  "%s %s changed the ctime of %s (some metadata call went through)", f->tag, what,
		  path);
	cr_assert(!now.has_xattr, "%s %s set user.sbx on %s", f->tag, what, path);
}

/* Each metadata call on path, one per line of output: "NAME ERRNO". */
static const char *meta_script =
	"import os, sys\n"
	"p = sys.argv[1]\n"
	"def t(name, fn):\n"
	"    try:\n"
	"        fn(); print(name, 0)\n"
	"    except OSError as e:\n"
	"        print(name, e.errno)\n"
	"t('chmod', lambda: os.chmod(p, 0o600))\n"
	"t('chown', lambda: os.chown(p, -1, os.getgid()))\n"
	"t('utime', lambda: os.utime(p, (978307200, 978307200)))\n"
	"t('utime_now', lambda: os.utime(p))\n"
	"t('setxattr', lambda: os.setxattr(p, 'user.sbx', b'1'))\n"
	"t('removexattr', lambda: os.removexattr(p, 'user.sbx'))\n"
	"fd = os.open(p, os.O_RDONLY)\n"
	"t('fchmod', lambda: os.fchmod(fd, 0o600))\n"
	"t('fchown', lambda: os.fchown(fd, -1, os.getgid()))\n"
	"t('futimens', lambda: os.utime(fd, (978307200, 978307200)))\n"
	"t('fsetxattr', lambda: os.setxattr(fd, 'user.sbx', b'1'))\n"
	"d = os.open(os.path.dirname(p), os.O_RDONLY | os.O_DIRECTORY)\n"
	"t('fchmodat', lambda: os.chmod(os.path.basename(p), 0o640, dir_fd=d))\n"
	"t('fchownat', lambda: os.chown(os.path.basename(p), -1, os.getgid(), dir_fd=d))\n"
	"t('utimensat', lambda: os.utime(os.path.basename(p), (1, 1), dir_fd=d))\n";

static char *script_file(struct fx *f, const char *name, const char *text)
{
	char *path = e2e_fmt("%s/%s", f->B, name);

	cr_assert(e2e_write_file(AS_CALLER, path, text) == 0);
	cr_assert(chmod(path, 0644) == 0);
	return path;
}

static void expect_meta(struct fx *f, const char *mode, const char *path, int want_errno)
{
	struct e2e_out o;
	char *script = script_file(f, "meta.py", meta_script);
	char *cmd = e2e_fmt("python3 %s %s", script, path);
	int calls = 0;

	sbx(f, mode, NULL, NULL, false, cmd, &o);
	cr_assert(o.status == 0, "%s %s: the script failed (exit %d)\n%s", f->tag, mode, o.status,
		  o.err);
	for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n")) {
		char name[32];
		int e;

		cr_assert(sscanf(line, "%31s %d", name, &e) == 2, "bad line %s", line);
		/* removing an xattr that is not there: ENODATA, not a refusal */
		if (want_errno == 0 && strcmp(name, "removexattr") == 0)
			continue;
		cr_assert(e == want_errno, "%s %s mode: %s on %s gave errno %d, expected %d", f->tag,
			  mode, name, path, e, want_errno);
		calls++;
	}
	cr_assert(calls >= 12, "%s only %d calls ran:\n%s", f->tag, calls, o.err);
	e2e_out_free(&o);
}

PARAMS(meta_outside_refused, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_outside_refused)
{
	struct fx f;

	fx_setup(&f, p);
	struct snap before = snap_of(f.Of);

	expect_meta(&f, "workspace-write", f.Of, EACCES);
	assert_untouched(&f, f.Of, &before, "workspace-write, a file outside:");
	expect_meta(&f, "read-only", f.Of, EACCES);
	assert_untouched(&f, f.Of, &before, "read-only, a file outside:");
	fx_teardown(&f);
}

PARAMS(meta_read_only_root_refused, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_read_only_root_refused)
{
	struct fx f;

	fx_setup(&f, p);
	struct snap before = snap_of(f.Rf);

	expect_meta(&f, "read-only", f.Rf, EACCES);
	assert_untouched(&f, f.Rf, &before, "read-only, a file in the root:");
	fx_teardown(&f);
}

PARAMS(meta_inside_allowed, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_inside_allowed)
{
	struct fx f;
	struct e2e_out o;
	char v[8];

	fx_setup(&f, p);
	expect_meta(&f, "workspace-write", f.Rf, 0);
	struct snap now = snap_of(f.Rf);

	cr_assert((now.st.st_mode & 07777) == 0640, "%s mode is %o", f.tag, now.st.st_mode & 07777);
	cr_assert(now.st.st_mtim.tv_sec == 1, "%s utimensat did not land", f.tag);
	cr_assert(now.has_xattr, "%s user.sbx is missing", f.tag);
	/* /tmp too, with a file the command makes there */
	char *cmd = e2e_fmt("t=$(mktemp /tmp/sbx-sup-XXXXXX) && chmod 604 $t && touch -d @5 $t && "
			    "python3 -c 'import os,sys; os.setxattr(sys.argv[1], \"user.sbx\", b\"2\")' $t "
			    "&& echo $t");
	sbx(&f, "workspace-write", NULL, NULL, false, cmd, &o);
	cr_assert(o.status == 0, "%s metadata in /tmp refused (exit %d):\n%s", f.tag, o.status, o.err);
	o.out[strcspn(o.out, "\n")] = '\0';
	struct stat st;

	cr_assert(stat(o.out, &st) == 0 && (st.st_mode & 07777) == 0604 && st.st_mtim.tv_sec == 5,
		  "%s %s not changed", f.tag, o.out);
	cr_assert(getxattr(o.out, "user.sbx", v, sizeof v) == 1);
	unlink(o.out);
	e2e_out_free(&o);
	/* chown: a root caller gives a file away (CAP_CHOWN), anyone may
	 * change the group to one of their own */
	cmd = f.who == AS_CALLER ? e2e_fmt("chown 65534:65534 %s", f.Rf)
				 : e2e_fmt("chgrp %d %s", (int)e2e_gid(f.who), f.Rf);
	sbx(&f, "workspace-write", NULL, NULL, false, cmd, &o);
	cr_assert(o.status == 0, "%s %s refused:\n%s", f.tag, cmd, o.err);
	cr_assert(stat(f.Rf, &st) == 0 && st.st_uid == 65534, "%s chown did not land", f.tag);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* Never a setuid or setgid bit, not even inside the root. */
PARAMS(meta_no_setuid_bits, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_no_setuid_bits)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	struct snap before = snap_of(f.Rf);

	sbx(&f, "workspace-write", NULL, NULL, false,
	    e2e_fmt("chmod 4755 %s; chmod g+s %s; chmod 2755 %s", f.Rf, f.Rf, f.R), &o);
	cr_assert(o.status != 0 && strstr(o.err, "Operation not permitted"), "%s exit %d\n%s", f.tag,
		  o.status, o.err);
	assert_untouched(&f, f.Rf, &before, "chmod 4755 in the root:");
	struct stat st;

	cr_assert(stat(f.R, &st) == 0 && !(st.st_mode & S_ISGID), "%s the root became setgid", f.tag);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* A root caller's command holds CAP_CHOWN, CAP_FOWNER, ...: without the
 * supervisor, `chmod 4755 /usr/bin/x` or `chmod 000 /etc` would work under
 * Landlock. Scratch stand-ins owned by root, outside the root. */
Test(supervisor, meta_root_cannot_touch_system_files)
{
	struct fx f;
	struct cp p = { LANDLOCK, AS_CALLER };
	struct e2e_out o;

	if (getuid() != 0)
		cr_skip_test("needs a root caller");
	fx_setup(&f, &p);
	char *bin = e2e_fmt("%s/usr-bin-x", f.O), *etc = e2e_fmt("%s/etc", f.O);

	cr_assert(e2e_write_file(AS_CALLER, bin, "#!/bin/sh\n") == 0 && chmod(bin, 0755) == 0);
	cr_assert(mkdir(etc, 0755) == 0);
	struct snap b_bin = snap_of(bin), b_etc = snap_of(etc);

	for (int m = 0; m < 2; m++) {
		const char *mode = m ? "read-only" : "workspace-write";

		sbx(&f, mode, NULL, NULL, false,
		    e2e_fmt("chmod 4755 %s; chmod 000 %s; chown 65534 %s; touch %s; "
			    "python3 -c 'import os; os.setxattr(\"%s\", \"user.sbx\", b\"1\")'",
			    bin, etc, bin, etc, bin),
		    &o);
		cr_assert(o.status != 0 && strstr(o.err, "Permission denied"), "%s %s: exit %d\n%s",
			  f.tag, mode, o.status, o.err);
		e2e_out_free(&o);
		assert_untouched(&f, bin, &b_bin, mode);
		assert_untouched(&f, etc, &b_etc, mode);
	}
	fx_teardown(&f);
}

/* A command that chroots (in a user namespace of its own) sees B/fake/tmp
 * as /tmp: the writable set is the host's /tmp all the same. */
PARAMS(meta_chroot_cannot_remap_writable_set, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_chroot_cannot_remap_writable_set)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *fake = e2e_fmt("%s/fake", f.B), *tmp = e2e_fmt("%s/fake/tmp", f.B);
	char *victim = e2e_fmt("%s/victim", tmp);

	cr_assert(e2e_mkdir(f.who, fake) == 0 && e2e_mkdir(f.who, tmp) == 0 &&
		  e2e_write_file(f.who, victim, "v\n") == 0 && chmod(victim, 0644) == 0);
	struct snap before = snap_of(victim);

	sbx(&f, "workspace-write", NULL, NULL, false,
	    e2e_fmt("python3 -c \"import ctypes, os; c = ctypes.CDLL(None, use_errno=True); "
		    "assert c.unshare(0x10000000) == 0, ctypes.get_errno(); os.chroot('%s'); "
		    "print('chrooted', flush=True); os.chmod('/tmp/victim', 0o600)\"", fake),
	    &o);
	/* The landlock runner's filter refuses the user namespace outright
	 * (EPERM, sidedoors); where it did not, the supervisor must still
	 * decide on the real path. */
	if (!strstr(o.out, "chrooted"))
		cr_assert(strstr(o.err, "AssertionError: 1"), "%s the unshare failed otherwise:\n%s",
			  f.tag, o.err);
	else
		cr_assert(o.status != 0 && strstr(o.err, "Permission denied"), "%s exit %d:\n%s",
			  f.tag, o.status, o.err);
	assert_untouched(&f, victim, &before, "chmod after a chroot:");
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* /proc/self/fd/N names the command's fd N (glibc's fchmodat emulation,
 * tar -p, connects to long socket paths): allowed where that object lies in
 * the writable set, refused elsewhere. */
PARAMS(meta_proc_self_fd_paths, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_proc_self_fd_paths)
{
	struct fx f;
	struct e2e_out o;
	char *script;

	fx_setup(&f, p);
	struct snap before = snap_of(f.Of);

	script = e2e_fmt("import os, sys\n"
			 "o = os.open(sys.argv[1], os.O_RDONLY)\n"
			 "try:\n"
			 "    os.chmod('/proc/self/fd/%%d' %% o, 0o600); print('outside changed')\n"
			 "except PermissionError: print('outside refused')\n"
			 "i = os.open(sys.argv[2], os.O_RDONLY)\n"
			 "os.chmod('/dev/fd/%%d' %% i, 0o600)\n"
			 "os.chmod(sys.argv[2], 0o640, follow_symlinks=False)\n"
			 "p = os.open(sys.argv[2], os.O_PATH)\n"
			 "os.utime('/proc/thread-self/fd/%%d' %% p, (3, 3))\n"
			 "print('inside ok')\n");
	sbx(&f, "workspace-write", NULL, NULL, false,
	    e2e_fmt("python3 %s %s %s && mkdir -p d/e && tar cf t.tar d && rm -r d && tar xpf t.tar",
		    script_file(&f, "fd.py", script), f.Of, f.Rf), &o);
	cr_assert(o.status == 0 && strstr(o.out, "outside refused") && strstr(o.out, "inside ok"),
		  "%s exit %d\n%s%s", f.tag, o.status, o.out, o.err);
	assert_untouched(&f, f.Of, &before, "chmod /proc/self/fd/N:");
	struct stat st;

	cr_assert(stat(f.Rf, &st) == 0 && (st.st_mode & 07777) == 0640 && st.st_mtim.tv_sec == 3,
		  "%s mode %o mtime %ld", f.tag, st.st_mode & 07777, (long)st.st_mtim.tv_sec);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* AT_SYMLINK_NOFOLLOW acts on the link itself, never on what it names. */
PARAMS(meta_nofollow_on_the_link, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_nofollow_on_the_link)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	struct snap before = snap_of(f.Of);
	char *cmd = e2e_fmt("cd %s && ln -s %s link && touch -h -d @7 link && chown -h %d link && "
			    "chmod 600 link; echo chmod=$?",
			    f.R, f.Of, (int)e2e_uid(f.who));

	sbx(&f, "workspace-write", NULL, NULL, false, cmd, &o);
	cr_assert(strstr(o.out, "chmod=1"), "%s chmod through a link outside: %s\n%s", f.tag, o.out,
		  o.err);
	struct stat st;
	char *link = e2e_fmt("%s/link", f.R);

	cr_assert(lstat(link, &st) == 0 && st.st_mtim.tv_sec == 7, "%s touch -h missed the link",
		  f.tag);
	assert_untouched(&f, f.Of, &before, "calls on a link to it:");
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* A second thread swaps a symlink between a file inside and one outside
 * while the first changes metadata through it, thousands of times. */
PARAMS(meta_symlink_race, ll_params)
ParameterizedTest(struct cp *p, supervisor, meta_symlink_race)
{
	const char *ops[] = { "chmod", "utimes", "xattr", "chown" };
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	cr_assert(e2e_mkdir(f.who, e2e_fmt("%s/d", f.R)) == 0 && e2e_mkdir(f.who, e2e_fmt("%s/d", f.O)) == 0);
	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/d/f", f.R), "in\n") == 0);
	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/d/f", f.O), "out\n") == 0);
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		struct snap before = snap_of(f.Of), before_d = snap_of(e2e_fmt("%s/d/f", f.O));
		unsigned long ok = 0, refused = 0, other = 0;

		/* the link as the last component, then as a directory on the way */
		char *cmd = e2e_fmt("cd %s && %s %s 4000 link %s %s link && "
				    "%s %s 4000 dlink %s/d %s/d dlink/f",
				    f.R, helper(&f, "symrace"), ops[i], f.Rf, f.Of, helper(&f, "symrace"),
				    ops[i], f.R, f.O);

		sbx(&f, "workspace-write", NULL, NULL, false, cmd, &o);
		cr_assert(o.status == 0, "%s symrace %s: exit %d\n%s", f.tag, ops[i], o.status, o.err);
		cr_assert(sscanf(o.out, "ok=%lu refused=%lu other=%lu", &ok, &refused, &other) == 3,
			  "%s symrace said %s", f.tag, o.out);
		/* Both sides were hit: the race was real. */
		cr_assert(ok > 0 && refused > 0, "%s %s: ok=%lu refused=%lu other=%lu", f.tag, ops[i],
			  ok, refused, other);
		assert_untouched(&f, f.Of, &before, ops[i]);
		assert_untouched(&f, e2e_fmt("%s/d/f", f.O), &before_d, ops[i]);
		e2e_out_free(&o);
	}
	fx_teardown(&f);
}

/* ---- unix sockets ---- */

static void wait_for(const char *path)
{
	for (int i = 0; i < 2000 && !e2e_exists(path); i++)
		usleep(5000);
	cr_assert(e2e_exists(path), "the test daemon never made %s", path);
}

static char *host_tmp_dir; /* made in the host's /tmp, removed at exit too */

static void kill_daemons(void)
{
	for (size_t i = 0; i < n_all_daemons; i++)
		if (all_daemons[i] > 0 && kill(all_daemons[i], SIGKILL) == 0)
			waitpid(all_daemons[i], NULL, 0);
	if (host_tmp_dir)
		e2e_rm_rf(host_tmp_dir);
}

static pid_t spawn_daemon(struct fx *f, char *const argv[])
{
	pid_t pid;

	cr_assert(f->n_daemons < 4 && n_all_daemons < 16);
	if (n_all_daemons == 0)
		atexit(kill_daemons);
	pid = e2e_spawn(AS_CALLER, "/", argv);
	all_daemons[n_all_daemons++] = pid;
	f->daemons[f->n_daemons++] = pid;
	return pid;
}

/* A host daemon, started by the test (as the caller), not by any run. */
static void start_daemon(struct fx *f, const char *kind, const char *sock, const char *witness)
{
	char *argv[] = { (char *)e2e_helper("sockserver"), (char *)kind, (char *)sock,
			 (char *)witness, NULL };

	spawn_daemon(f, argv);
	wait_for(sock[0] == '@' ? e2e_fmt("%s.ready", witness) : sock);
}

/* The client: exits 0 after sending a line, else prints the errno. */
static const char *client_script =
	"import socket, sys\n"
	"kind, target, msg = sys.argv[1], sys.argv[2], sys.argv[3].encode() + b'\\n'\n"
	"addr = '\\0' + target[1:] if target.startswith('@') else target\n"
	"try:\n"
	"    if kind == 'stream':\n"
	"        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(addr); s.sendall(msg)\n"
	"    elif kind == 'dgram':\n"
	"        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(msg, addr)\n"
	"    elif kind == 'sendmsg':\n"
	"        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg([msg], [], 0, addr)\n"
	"    elif kind == 'dgram-connect':\n"
	"        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect(addr); s.send(msg)\n"
	"except OSError as e:\n"
	"    print('errno', e.errno); sys.exit(3)\n"
	"print('sent')\n";

static char *client(struct fx *f, const char *kind, const char *target, const char *msg)
{
	return e2e_fmt("python3 %s %s %s %s", script_file(f, "client.py", client_script), kind,
		       target, msg);
}

/* The run's JSON result; the test fails if sbx printed none. */
static json_t *result_of(struct fx *f, const struct e2e_out *o)
{
	json_error_t jerr;
	json_t *j = json_loads(o->out, 0, &jerr);

	cr_assert(j, "%s no JSON result (%s):\n%s\n%s", f->tag, jerr.text, o->out, o->err);
	return j;
}

static bool result_denied(json_t *j)
{
	return json_is_true(json_object_get(json_object_get(j, "sandbox"), "denied"));
}

static json_int_t result_refused_calls(json_t *j)
{
	return json_integer_value(json_object_get(json_object_get(j, "sandbox"), "refused_calls"));
}

static void expect_unreachable(struct fx *f, const char *mode, const char *net, const char *kind,
			       const char *target, const char *witness, const char *config)
{
	struct e2e_out o;

	sbx(f, mode, net, config, true, client(f, kind, target, "hello"), &o);
	json_t *j = result_of(f, &o);
	const char *out = json_string_value(json_object_get(j, "stdout"));

	cr_assert(json_integer_value(json_object_get(j, "exit_code")) == 3,
		  "%s %s --net %s: a %s client to the host's %s:\n%s%s", f->tag, mode, net, kind,
		  target, o.out, o.err);
	/* EACCES: refused; ENOENT/ECONNREFUSED: not even visible there */
	cr_assert(out && (strstr(out, "errno 13") || strstr(out, "errno 2") ||
			  strstr(out, "errno 111")), "%s %s: %s", f->tag, target, o.out);
	/* A refusal names no path the classifier could check, but sbx made
	 * it: the failed run is marked denied (and nothing else is). */
	if (strstr(out, "errno 13"))
		cr_assert(result_denied(j) && result_refused_calls(j) >= 1 &&
				  strstr(json_string_value(json_object_get(j, "text")),
					 "[sandbox: file access denied under "),
			  "%s %s --net %s: a refused %s connect to %s is not marked:\n%s", f->tag,
			  mode, net, kind, target, o.out);
	json_decref(j);
	usleep(20000);
	cr_assert(!e2e_exists(witness), "%s %s --net %s: the host daemon on %s got a line", f->tag,
		  mode, net, target);
	e2e_out_free(&o);
}

static json_int_t result_exit(json_t *j)
{
	json_t *v = json_object_get(j, "exit_code");

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static bool result_marked(json_t *j)
{
	const char *t = json_string_value(json_object_get(j, "text"));

	return t && strstr(t, "[sandbox: file access denied under ");
}

/* A program that ignores a refused mkdir and then fails on the missing
 * directory (go env -w) says nothing of a refusal: "open O/new/f: no such
 * file or directory". The supervisor notes the refused mkdir, and the failed
 * run that names it is marked denied. Not marked: a run that fails naming
 * nothing of it, a mkdir of a directory that exists (EEXIST, sandbox or
 * not), one the caller could not make without sbx (nobody in root's
 * directory). Marked too when the command named the directory by a
 * relative path or through a symlink, or made it from inside a $HOME
 * reached through one, and after a hundred other refused mkdirs. Nothing
 * is made on disk. */
PARAMS(refused_mkdir_named_marks_the_failed_run, all_params)
ParameterizedTest(struct cp *p, supervisor, refused_mkdir_named_marks_the_failed_run)
{
	struct fx f;
	struct e2e_out o;
	bool root;
	json_t *j;

	fx_setup(&f, p);
	root = e2e_uid(f.who) == 0;
	cr_assert(symlink(f.O, e2e_fmt("%s/ln", f.B)) == 0, "fixture: symlink");
	const struct {
		const char *cmd;
		bool marked;
		const char *why;
	} cases[] = {
		{ e2e_fmt("mkdir %s/new 2>/dev/null; echo x > %s/new/f", f.O, f.O), true,
		  "a refused mkdir, then ENOENT naming its directory" },
		{ e2e_fmt("python3 -c 'import os,sys; os.makedirs(sys.argv[1], exist_ok=True)' "
			  "%s/a/b 2>/dev/null; cat %s/a/b/conf", f.O, f.O), true,
		  "a refused makedirs, then ENOENT below it" },
		{ e2e_fmt("mkdir %s/new 2>/dev/null; echo failing on its own >&2; exit 3", f.O), false,
		  "a refused mkdir the failure does not name" },
		{ e2e_fmt("mkdir %s/mpl 2>/dev/null || echo \"the default path (%s/mpl) is not a "
			  "writable directory; using a temporary one\" >&2; cat data.csv", f.O, f.O),
		  false, "a refused mkdir a warning names (matplotlib's), then a failure of its own" },
		{ e2e_fmt("mkdir -p %s; cat %s/missing", f.O, f.O), false,
		  "mkdir -p of a directory that exists, then a missing file" },
		{ e2e_fmt("mkdir %s/new 2>/dev/null; cat %s/new/f", f.D, f.D), root,
		  "a mkdir in root's directory (the kernel's refusal for nobody)" },
		{ e2e_fmt("mkdir %s/new && echo x > %s/new/f && cat %s/nothere", f.R, f.R, f.R), false,
		  "a mkdir inside the root, then a missing file" },
		{ e2e_fmt("for i in $(seq 100); do mkdir %s/p$i; done 2>/dev/null; mkdir %s/new "
			  "2>/dev/null; cat %s/new/f", f.O, f.O, f.O), true,
		  "a hundred refused mkdirs, then the one the failure names" },
		{ "mkdir ../out/new 2>/dev/null; cat ../out/new/f", true,
		  "a refused mkdir of a relative path, named so" },
		{ e2e_fmt("mkdir %s/ln/new 2>/dev/null; cat %s/ln/new/f", f.B, f.B), true,
		  "a refused mkdir through a symlink ($HOME under /home -> /var/home), named so" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sbx(&f, "workspace-write", NULL, NULL, true, cases[i].cmd, &o);
		j = result_of(&f, &o);
		cr_assert(result_exit(j) != 0, "%s %s: the run succeeded:\n%s", f.tag, cases[i].why,
			  o.out);
		cr_assert(result_denied(j) == cases[i].marked && result_marked(j) == cases[i].marked,
			  "%s %s: denied %d, marked %d (want %d):\n%s", f.tag, cases[i].why,
			  result_denied(j), result_marked(j), cases[i].marked, o.out);
		json_decref(j);
		e2e_out_free(&o);
	}
	/* $HOME through a symlink: mkdir -p makes ".x" from inside it, and the
	 * failure names it by $HOME. */
	char *home = e2e_fmt("HOME=%s/ln", f.B);
	char *env[] = { home, NULL };
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[f.runner],
			 "--mode", "workspace-write", "--root", f.R, "--json", "--",
			 "mkdir -p $HOME/.x/y 2>/dev/null; cd $HOME/.x/y", NULL };

	e2e_run(f.who, argv, env, &o);
	j = result_of(&f, &o);
	cr_assert(result_exit(j) != 0 && result_denied(j) && result_marked(j),
		  "%s mkdir -p in a $HOME reached through a symlink, then cd: not marked:\n%s",
		  f.tag, o.out);
	json_decref(j);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(e2e_fmt("%s/new", f.O)) && !e2e_exists(e2e_fmt("%s/a", f.O)) &&
			  !e2e_exists(e2e_fmt("%s/.x", f.O)) && !e2e_exists(e2e_fmt("%s/p1", f.O)) &&
			  !e2e_exists(e2e_fmt("%s/new", f.D)),
		  "%s a refused mkdir made its directory", f.tag);
	fx_teardown(&f);
}

/* The errno rules (CONFIG_SECCOMP) refuse these; a build without them has
 * nothing to count (not built there, not skipped). */
#ifdef CONFIG_SECCOMP

/* The errno rules' refusals reach the supervisor only to be counted
 * (seccomp_filter_join): a refused setgid bit (EPERM, no path, no runner
 * dialect) marks the run it made fail, and is not on disk; a run that went
 * on and succeeded is not marked, nor is a failure with no refusal in it.
 * Under the landlock runner a refused user namespace marks its run too. */
PARAMS(refusal_marks_the_failed_run, all_params)
ParameterizedTest(struct cp *p, supervisor, refusal_marks_the_failed_run)
{
	struct fx f;
	struct e2e_out o;
	struct stat st;
	json_t *j;

	fx_setup(&f, p);
	sbx(&f, "workspace-write", NULL, NULL, true, "mkdir shared && chmod g+s shared", &o);
	j = result_of(&f, &o);
	cr_assert(stat(e2e_fmt("%s/shared", f.R), &st) == 0 && !(st.st_mode & S_ISGID),
		  "%s the directory is missing or has its setgid bit:\n%s", f.tag, o.out);
	cr_assert(result_exit(j) == 1 && result_denied(j) && result_refused_calls(j) == 1 &&
			  result_marked(j),
		  "%s a refused setgid bit that failed the run is not marked:\n%s", f.tag, o.out);
	json_decref(j);
	e2e_out_free(&o);

	sbx(&f, "workspace-write", NULL, NULL, true, "chmod g+s shared; echo went on", &o);
	j = result_of(&f, &o);
	cr_assert(result_exit(j) == 0 && !result_denied(j) && result_refused_calls(j) == 1 &&
			  !result_marked(j),
		  "%s a run that succeeded after a refusal is marked, or the refusal is not "
		  "counted:\n%s", f.tag, o.out);
	json_decref(j);
	e2e_out_free(&o);

	sbx(&f, "workspace-write", NULL, NULL, true, "echo failing on its own >&2; exit 4", &o);
	j = result_of(&f, &o);
	cr_assert(result_exit(j) == 4 && !result_denied(j) && result_refused_calls(j) == 0 &&
			  !result_marked(j),
		  "%s a failure with no refusal is marked:\n%s", f.tag, o.out);
	json_decref(j);
	e2e_out_free(&o);

	if (f.runner == LANDLOCK) {
		sbx(&f, "workspace-write", NULL, NULL, true, "unshare -U true", &o);
		j = result_of(&f, &o);
		cr_assert(result_exit(j) != 0 && result_denied(j) && result_marked(j),
			  "%s a refused user namespace is not marked:\n%s", f.tag, o.out);
		json_decref(j);
		e2e_out_free(&o);
	}
	fx_teardown(&f);
}

/* A refusal of a call the caller could not have made without sbx either (a
 * setuid bit on a file it does not own, a directory where it may not
 * create one, a mount namespace without privilege) is the kernel's as much
 * as sbx's: not counted, not marked, as a refused write there is not. A
 * root caller could have made each: counted and marked. */
PARAMS(refusal_the_caller_could_not_make_is_not_marked, all_params)
ParameterizedTest(struct cp *p, supervisor, refusal_the_caller_could_not_make_is_not_marked)
{
	struct fx f;
	struct e2e_out o;
	struct stat st;
	bool root = e2e_uid(f.who = (enum e2e_user)p->user) == 0;
	char *rootfile, *newdir;
	const char *cmds[3];
	json_t *j;

	fx_setup(&f, p);
	rootfile = e2e_fmt("%s/rootfile", f.D);
	newdir = e2e_fmt("%s/newdir", f.D);
	cr_assert(e2e_write_file(AS_CALLER, rootfile, "x\n") == 0 && chmod(rootfile, 0644) == 0);
	cmds[0] = e2e_fmt("chmod u+s %s", rootfile);
	cmds[1] = e2e_fmt("mkdir -m 2755 %s", newdir);
	cmds[2] = "unshare -m true";
	for (size_t i = 0; i < 3; i++) {
		/* the namespace runner lets a non-root caller's unshare reach the
		 * kernel, which refuses it: no refusal of ours at all */
		bool ours = root || i < 2 || f.runner == LANDLOCK;

		sbx(&f, "workspace-write", NULL, NULL, true, cmds[i], &o);
		j = result_of(&f, &o);
		cr_assert(result_exit(j) != 0, "%s `%s` succeeded:\n%s", f.tag, cmds[i], o.out);
		cr_assert(result_refused_calls(j) == (ours && root ? 1 : 0) &&
				  result_denied(j) == root && result_marked(j) == root,
			  "%s `%s` (%s caller): counted %lld, marked %d:\n%s", f.tag, cmds[i],
			  root ? "a root" : "a non-root", (long long)result_refused_calls(j),
			  result_marked(j), o.out);
		json_decref(j);
		e2e_out_free(&o);
	}
	cr_assert(stat(rootfile, &st) == 0 && (st.st_mode & 07777) == 0644 && !e2e_exists(newdir),
		  "%s the refused calls changed something outside", f.tag);
	fx_teardown(&f);
}

#endif /* CONFIG_SECCOMP */

PARAMS(sock_host_daemon_unreachable, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_host_daemon_unreachable)
{
	struct fx f;

	fx_setup(&f, p);
	char *s = e2e_fmt("%s/s.sock", f.D), *w = e2e_fmt("%s/witness", f.D);
	char *ds = e2e_fmt("%s/d.sock", f.D), *dw = e2e_fmt("%s/dwitness", f.D);

	start_daemon(&f, "stream", s, w);
	start_daemon(&f, "dgram", ds, dw);
	for (int m = 0; m < 2; m++)
		for (int n = 0; n < N_NETS; n++) {
			const char *mode = m ? "read-only" : "workspace-write", *net = nets[n];

			expect_unreachable(&f, mode, net, "stream", s, w, NULL);
			expect_unreachable(&f, mode, net, "dgram", ds, dw, NULL);
			expect_unreachable(&f, mode, net, "sendmsg", ds, dw, NULL);
			expect_unreachable(&f, mode, net, "dgram-connect", ds, dw, NULL);
		}
	/* through a symlink the command makes in its workspace */
	expect_unreachable(&f, "workspace-write", "allow", "stream",
			   e2e_fmt("%s/link", f.R), w, NULL);
	fx_teardown(&f);
}

/* Landlock's /tmp is the host's: the caller's tmux, X server and ssh-agent
 * listen there. Lying in the writable set is not enough: the run must have
 * made the listener. The same for a socket a host process made inside the
 * workspace. */
PARAMS(sock_host_daemon_in_writable_set_unreachable, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_host_daemon_in_writable_set_unreachable)
{
	struct fx f;
	char tmpl[] = "/tmp/sbx-e2e-sup-XXXXXX";

	fx_setup(&f, p);
	cr_assert(mkdtemp(tmpl) && chmod(tmpl, 0755) == 0);
	f.tmpdir = strdup(tmpl);
	host_tmp_dir = f.tmpdir;
	char *ts = e2e_fmt("%s/tmux.sock", tmpl), *tw = e2e_fmt("%s/witness", f.D);
	char *ws = e2e_fmt("%s/host.sock", f.R), *ww = e2e_fmt("%s/wwitness", f.D);

	start_daemon(&f, "stream", ts, tw);
	start_daemon(&f, "stream", ws, ww);
	for (int n = 0; n < N_NETS; n++) {
		const char *net = nets[n];

		expect_unreachable(&f, "workspace-write", net, "stream", ts, tw, NULL);
		expect_unreachable(&f, "workspace-write", net, "stream", ws, ww, NULL);
		expect_unreachable(&f, "read-only", net, "stream", ws, ww, NULL);
	}
	fx_teardown(&f);
}

PARAMS(sock_own_server_reachable, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_own_server_reachable)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	for (int n = 0; n < N_NETS; n++) {
		const char *net = nets[n];

		for (int where = 0; where < 2; where++) {
			const char *sock = where ? "/tmp/sbx-own-$$.sock" : "./own.sock";
			char *w = e2e_fmt("%s/own-witness", f.R);
			char *cmd = e2e_fmt("cd %s && s=%s && %s stream $s %s & "
					    "for i in $(seq 500); do [ -S %s ] && break; sleep 0.01; done; "
					    "%s; r=$?; sleep 0.2; kill %%1; rm -f %s; exit $r",
					    f.R, sock, helper(&f, "sockserver"), w, sock,
					    client(&f, "stream", sock, "mine"), sock);

			unlink(w);
			sbx(&f, "workspace-write", net, NULL, false, cmd, &o);
			cr_assert(o.status == 0, "%s --net %s: a server the command started on %s was "
				  "not reachable: exit %d\n%s%s", f.tag, net, sock, o.status, o.out, o.err);
			char *got = e2e_read_file(w);

			cr_assert(got && strcmp(got, "mine\n") == 0, "%s witness: %s", f.tag, got);
			free(got);
			e2e_out_free(&o);
		}
	}
	fx_teardown(&f);
}

/* Whether this kernel names a listener that has exited: SO_PEERPIDFD on a
 * connection to it gives a pidfd (Linux 6.16), with an inode of its own
 * (pidfs, 6.9). The landlock runner's supervisor knows a run's forking,
 * non-dumpable daemons by it (supervisor_listen.c). */
static bool kernel_names_dead_listeners(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct statfs sf;
	int c, pidfd = -1, hold[2];
	socklen_t len = sizeof(pidfd);
	pid_t pid;
	bool yes;

	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/sbx-e2e-deadlisten-%d", (int)getpid());
	unlink(a.sun_path);
	cr_assert(pipe(hold) == 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		/* listen, leave the socket to a child that lives until hold
		 * closes, and exit: as ssh-agent does */
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		char b;

		close(hold[1]);
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0)
			_exit(1);
		if (fork() == 0) {
			ssize_t r = read(hold[0], &b, 1);

			_exit((int)r);
		}
		_exit(0);
	}
	close(hold[0]);
	waitpid(pid, NULL, 0);
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	yes = connect(c, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	      getsockopt(c, SOL_SOCKET, 77 /* SO_PEERPIDFD */, &pidfd, &len) == 0 &&
	      fstatfs(pidfd, &sf) == 0 && sf.f_type == 0x50494446 /* PIDFS_MAGIC */;
	if (pidfd >= 0)
		close(pidfd);
	close(c);
	close(hold[1]);
	unlink(a.sun_path);
	return yes;
}

/* A daemon the command starts that listens and then forks away (ssh-agent,
 * gpg-agent: the socket is made before the fork, so the process listen(2)
 * recorded is gone when a client connects). Its socket is the run's own:
 * reachable. A daemon that also makes itself non-dumpable (ssh-agent) hides
 * its descriptors from the landlock runner's supervisor, which holds no more
 * privilege than the command: there it is known by the listen(2) the
 * supervisor noted, where the kernel names a listener that exited; where it
 * does not, that one stays refused. Only a connection names that process:
 * sbx asks on one of its own (closed at once, empty) before it connects the
 * command's, so the daemon serves clients until one sends a line, as
 * ssh-agent serves any number. */
static const char *forking_daemon_script =
	"import ctypes, os, socket, sys\n"
	"path, witness, hidden = sys.argv[1], sys.argv[2], sys.argv[3] == '1'\n"
	"srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(1)\n"
	"if os.fork(): os._exit(0)\n"
	"os.setsid()\n"
	"if os.fork(): os._exit(0)\n"
	"if hidden: ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE\n"
	"d = b''\n"
	"while not d:\n"
	"    c, _ = srv.accept(); d = c.recv(64); c.close()\n"
	"open(witness, 'w').write(d.decode())\n";

PARAMS(sock_own_forking_daemon_reachable, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_own_forking_daemon_reachable)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	for (int where = 0; where < 4; where++) {
		const char *sock = where % 2 ? "/tmp/sbx-daemon-$$.sock" : "./daemon.sock";
		int hidden = where / 2; /* non-dumpable: namespace runner only */
		char *w = e2e_fmt("%s/daemon-witness", f.R);
		char *cmd = e2e_fmt("cd %s && s=%s && python3 %s $s %s %d && %s; r=$?; "
				    "for i in $(seq 3000); do [ -s %s ] && break; sleep 0.01; done; "
				    "rm -f $s; exit $r",
				    f.R, sock, script_file(&f, "daemon.py", forking_daemon_script), w,
				    hidden, client(&f, "stream", sock, "forked"), w);

		unlink(w);
		sbx(&f, "workspace-write", "allow", NULL, false, cmd, &o);
		if (hidden && p->runner == LANDLOCK && !kernel_names_dead_listeners()) {
			/* refused, never reached */
			cr_assert(o.status != 0 && !e2e_exists(w),
				  "%s: a non-dumpable forking daemon on %s was reached on a kernel "
				  "that cannot name its listener: exit %d\n%s%s", f.tag, sock,
				  o.status, o.out, o.err);
			e2e_out_free(&o);
			continue;
		}
		cr_assert(o.status == 0, "%s: a daemon the command started (listen, then fork%s) on %s "
			  "was not reachable: exit %d\n%s%s", f.tag, hidden ? ", non-dumpable" : "",
			  sock, o.status, o.out, o.err);
		char *got = e2e_read_file(w);

		cr_assert(got && strcmp(got, "forked\n") == 0, "%s witness: %s", f.tag, got);
		free(got);
		e2e_out_free(&o);
	}
	fx_teardown(&f);
}

/* The attack on the listen(2) record (landlock runner, host /tmp): a host
 * daemon that listened and forked away, like the user's own ssh-agent,
 * leaves a dead listener. A command whose process had the same pid number
 * and called listen(2) itself must still not reach it: the record names
 * processes by their pidfs inode, never by pid. The test makes the host
 * daemon's listener get that pid (ns_last_pid), as a patient command could
 * by cycling pids. */
static const char *listen_then_wait_script =
	"import os, socket, sys, time\n"
	"mine, pidfile, go, target, result = sys.argv[1:6]\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    s = socket.socket(socket.AF_UNIX); s.bind(mine); s.listen(1); os._exit(0)\n"
	"os.waitpid(pid, 0)\n"
	"open(pidfile + '.tmp', 'w').write(str(pid)); os.rename(pidfile + '.tmp', pidfile)\n"
	"for i in range(3000):\n"
	"    if os.path.exists(go): break\n"
	"    time.sleep(0.01)\n"
	"try:\n"
	"    c = socket.socket(socket.AF_UNIX); c.connect(target); c.sendall(b'stolen\\n')\n"
	"    r = 'connected'\n"
	"except OSError as e:\n"
	"    r = 'errno %d' % e.errno\n"
	"open(result, 'w').write(r)\n";

/* The host daemon: listen, fork, exit; the child serves for a while, its
 * pid left in PATH.pid for the test to end it. */
static const char *host_forking_daemon_script =
	"import os, signal, socket, sys\n"
	"path, witness = sys.argv[1], sys.argv[2]\n"
	"srv = socket.socket(socket.AF_UNIX); srv.bind(path); os.chmod(path, 0o777); srv.listen(4)\n"
	"child = os.fork()\n"
	"if child: open(path + '.pid', 'w').write(str(child)); os._exit(0)\n"
	"signal.alarm(60)\n"
	"while True:\n"
	"    c, _ = srv.accept(); d = c.recv(64)\n"
	"    if d: open(witness, 'a').write(d.decode())\n"
	"    c.close()\n";

/* The daemon's serving child, which would outlive the test by a minute. */
static void end_host_daemon(const char *target)
{
	char *pidfile = e2e_fmt("%s.pid", target), *got = e2e_read_file(pidfile);

	if (got && atoi(got) > 1)
		kill((pid_t)atoi(got), SIGKILL);
}

PARAMS(sock_listener_pid_recycled_unreachable, ll_params)
ParameterizedTest(struct cp *p, supervisor, sock_listener_pid_recycled_unreachable, .timeout = 120)
{
	struct fx f;
	char tmpl[] = "/tmp/sbx-e2e-recycle-XXXXXX";
	bool aligned = false;

	fx_setup(&f, p);
	/* the user's own daemon, as the user: only the listener tells */
	cr_assert(mkdtemp(tmpl) && chmod(tmpl, 0755) == 0 &&
		  chown(tmpl, e2e_uid(f.who), e2e_gid(f.who)) == 0);
	f.tmpdir = strdup(tmpl);
	host_tmp_dir = f.tmpdir;
	char *cmd_py = script_file(&f, "listen_wait.py", listen_then_wait_script);
	char *daemon_py = script_file(&f, "host_daemon.py", host_forking_daemon_script);
	char *witness = e2e_fmt("%s/witness", tmpl);

	for (int round = 0; round < 8 && !aligned; round++) {
		char *pidfile = e2e_fmt("%s/pid.%d", f.R, round), *go = e2e_fmt("%s/go.%d", f.R, round);
		char *result = e2e_fmt("%s/result.%d", f.R, round);
		char *target = e2e_fmt("%s/agent.%d", tmpl, round);
		char *cmd = e2e_fmt("python3 %s %s/mine.%d %s %s %s %s", cmd_py, f.R, round, pidfile,
				    go, target, result);
		char *argv[] = { (char *)e2e_sbx(), "run", "--runner", "landlock", "--mode",
				 "workspace-write", "--root", f.R, "--", cmd, NULL };
		pid_t sbx_pid = e2e_spawn(f.who, f.R, argv), daemon;
		char *got;
		int st;

		for (int i = 0; i < 3000 && !e2e_exists(pidfile); i++)
			usleep(10000);
		got = e2e_read_file(pidfile);
		cr_assert(got, "%s the command never listened", f.tag);
		pid_t want = (pid_t)atoi(got);
		/* The host daemon's listener gets the pid the command's
		 * listener had (it is reaped: free again). */
		FILE *last = fopen("/proc/sys/kernel/ns_last_pid", "w");

		cr_assert(last, "ns_last_pid: %s", strerror(errno));
		fprintf(last, "%d", want - 1);
		fclose(last);
		char *dargv[] = { "/usr/bin/python3", daemon_py, target, witness, NULL };
		daemon = e2e_spawn(f.who, "/", dargv);
		aligned = daemon == want;
		waitpid(daemon, NULL, 0); /* it listened, forked and exited */
		for (int i = 0; i < 500 && !e2e_exists(target); i++)
			usleep(10000);
		cr_assert(e2e_exists(go) || e2e_write_file(AS_CALLER, go, "") == 0);
		cr_assert(waitpid(sbx_pid, &st, 0) == sbx_pid);
		got = e2e_read_file(result);
		cr_assert(got, "%s round %d: no result", f.tag, round);
		cr_assert(strcmp(got, "errno 13") == 0,
			  "%s round %d (listener pid %s): the command reached the host daemon "
			  "whose dead listener had its listener's pid: %s", f.tag, round,
			  aligned ? "aligned" : "not aligned", got);
		cr_assert(!e2e_exists(witness), "%s the host daemon got a line", f.tag);
		end_host_daemon(target);
	}
	cr_assert(aligned, "%s the host listener never got the command's pid: the attack was not "
		  "tried", f.tag);
	fx_teardown(&f);
}

PARAMS(sock_allow_listed_reachable, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_allow_listed_reachable)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *s = e2e_fmt("%s/pg.sock", f.D), *w = e2e_fmt("%s/witness", f.D);
	char *ds = e2e_fmt("%s/log.sock", f.D), *dw = e2e_fmt("%s/dwitness", f.D);
	char *other = e2e_fmt("%s/other.sock", f.D), *ow = e2e_fmt("%s/owitness", f.D);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_write_file(AS_CALLER, cfg,
				 e2e_fmt("unix_sockets = %s/pg.*, %s\n", f.D, ds)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	start_daemon(&f, "stream", s, w);
	start_daemon(&f, "dgram", ds, dw);
	start_daemon(&f, "stream", other, ow);
	for (int n = 0; n < N_NETS; n++) {
		const char *net = nets[n];

		for (int m = 0; m < 2; m++) {
			const char *mode = m ? "read-only" : "workspace-write";

			unlink(w);
			unlink(dw);
			sbx(&f, mode, net, cfg, false,
			    e2e_fmt("%s && %s", client(&f, "stream", s, "listed"),
				    client(&f, "dgram", ds, "listed")), &o);
			cr_assert(o.status == 0, "%s %s --net %s: allow-listed sockets refused: exit "
				  "%d\n%s%s", f.tag, mode, net, o.status, o.out, o.err);
			/* The daemons write their witnesses on their own time: wait
			 * for them (up to 10 s, a deadline against a hang; 20 ms
			 * was too short under load). */
			char *got = NULL, *dgot = NULL;

			for (int i = 0; i < 500; i++) {
				free(got);
				free(dgot);
				got = e2e_read_file(w);
				dgot = e2e_read_file(dw);
				if (got && dgot && strcmp(got, "listed\n") == 0 &&
				    strcmp(dgot, "listed\n") == 0)
					break;
				usleep(20000);
			}
			cr_assert(got && strcmp(got, "listed\n") == 0, "%s stream witness: %s", f.tag, got);
			cr_assert(dgot && strcmp(dgot, "listed\n") == 0, "%s dgram witness: %s", f.tag, dgot);
			free(got);
			free(dgot);
			e2e_out_free(&o);
			expect_unreachable(&f, mode, net, "stream", other, ow, cfg);
		}
	}
	fx_teardown(&f);
}

/* The allow-list names a host path, and the socket reached must be the one
 * that path names on the host: a command that binds another daemon's socket
 * over an allowed path, in a nested mount namespace of its own (the
 * namespace runner allows nested user namespaces), must not reach that
 * daemon. Checked from outside: the other daemon's witness. */
PARAMS(sock_allow_listed_not_by_nested_mount, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_allow_listed_not_by_nested_mount)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *s = e2e_fmt("%s/pg.sock", f.D), *w = e2e_fmt("%s/witness", f.D);
	char *other = e2e_fmt("%s/other.sock", f.D), *ow = e2e_fmt("%s/owitness", f.D);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_write_file(AS_CALLER, cfg, e2e_fmt("unix_sockets = %s\n", s)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	start_daemon(&f, "stream", s, w);
	start_daemon(&f, "stream", other, ow);
	sbx(&f, "workspace-write", "allow", cfg, false,
	    e2e_fmt("unshare -Urm sh -c 'mount --bind %s %s && echo MOUNTED && %s'", other, s,
		    client(&f, "stream", s, "nested")),
	    &o);
	usleep(20000);
	cr_assert(!e2e_exists(ow), "%s the daemon on %s was reached through the allowed %s:\n%s%s",
		  f.tag, other, s, o.out, o.err);
	/* Where nested namespaces are allowed to a non-root caller, the attack
	 * itself ran (the test cannot pass for want of it). */
	if (f.runner == NAMESPACE && f.who == AS_NOBODY)
		cr_assert(strstr(o.out, "MOUNTED"), "%s the nested bind mount failed:\n%s%s", f.tag,
			  o.out, o.err);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* Abstract sockets share the network namespace: with --net allow the host's
 * are one name away. Allow-listed by '@name' only. */
PARAMS(sock_abstract, all_params)
ParameterizedTest(struct cp *p, supervisor, sock_abstract)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *name = e2e_fmt("@sbx-e2e-%d-%d", (int)getpid(), p->runner * 2 + p->user);
	char *listed = e2e_fmt("%s-listed", name);
	char *w = e2e_fmt("%s/awitness", f.D), *lw = e2e_fmt("%s/lwitness", f.D);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_write_file(AS_CALLER, cfg, e2e_fmt("unix_sockets = %s\n", listed)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	start_daemon(&f, "stream", name, w);
	start_daemon(&f, "stream", listed, lw);
	expect_unreachable(&f, "workspace-write", "allow", "stream", name, w, cfg);
	expect_unreachable(&f, "read-only", "allow", "stream", name, w, cfg);
	sbx(&f, "read-only", "allow", cfg, false, client(&f, "stream", listed, "at"), &o);
	cr_assert(o.status == 0, "%s allow-listed %s: exit %d\n%s%s", f.tag, listed, o.status, o.out,
		  o.err);
	usleep(20000);
	char *got = e2e_read_file(lw);

	cr_assert(got && strcmp(got, "at\n") == 0, "%s witness: %s", f.tag, got);
	free(got);
	e2e_out_free(&o);
	/* and the command's own abstract server */
	sbx(&f, "workspace-write", "allow", NULL, false,
	    e2e_fmt("%s stream %s-own %s/ownw & sleep 0.3; %s; r=$?; kill %%1; exit $r",
		    helper(&f, "sockserver"), name, f.R, client(&f, "stream", e2e_fmt("%s-own", name), "own")),
	    &o);
	cr_assert(o.status == 0, "%s own abstract server: exit %d\n%s%s", f.tag, o.status, o.out,
		  o.err);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* i386's int $0x80 and x32's syscall numbers reach the same kernel code:
 * neither may be a way around the supervisor. */
PARAMS(other_abis_no_way_around, all_params)
ParameterizedTest(struct cp *p, supervisor, other_abis_no_way_around)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *s = e2e_fmt("%s/s.sock", f.D), *w = e2e_fmt("%s/witness", f.D);
	struct snap before = snap_of(f.Of);

	start_daemon(&f, "stream", s, w);
	sbx(&f, "workspace-write", NULL, NULL, false,
	    e2e_fmt("%s chmod %s; %s connect %s", helper(&f, "abi32"), f.Of, helper(&f, "abi32"), s),
	    &o);
	/* 0 would mean it went through; anything else (EACCES from us,
	 * ENOSYS where the ABI is off, EROFS from the namespace view) is fine */
	cr_assert(!strstr(o.out, " 0\n"), "%s a 32-bit ABI went around the supervisor:\n%s%s",
		  f.tag, o.out, o.err);
	if (f.runner == LANDLOCK)
		cr_assert(strstr(o.out, "i386_chmod 13") || strstr(o.out, "i386_chmod 38"), "%s\n%s",
			  f.tag, o.out);
	cr_assert(strstr(o.out, "i386_connect 13") || strstr(o.out, "i386_connect 38"), "%s\n%s",
		  f.tag, o.out);
	assert_untouched(&f, f.Of, &before, "chmod by a 32-bit ABI:");
	usleep(20000);
	cr_assert(!e2e_exists(w), "%s the host daemon got a line", f.tag);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* io_uring connects, sends and sets xattrs where seccomp cannot see it: a
 * supervised run gets none (ENOSYS, as on a kernel without it: libraries
 * fall back to plain system calls). */
PARAMS(io_uring_refused, all_params)
ParameterizedTest(struct cp *p, supervisor, io_uring_refused)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	sbx(&f, "workspace-write", NULL, NULL, false,
	    "python3 -c 'import ctypes; c = ctypes.CDLL(None, use_errno=True); "
	    "p = ctypes.create_string_buffer(120); "
	    "print(c.syscall(425, 8, p), ctypes.get_errno())'", &o);
	cr_assert(o.status == 0 && strcmp(o.out, "-1 38\n") == 0,
		  "%s io_uring_setup under the supervisor: %s%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* Calls from threads that lead no thread group (most threads of a server):
 * their fds are looked up through a pidfd of the thread or its group. */
PARAMS(calls_from_threads, all_params)
ParameterizedTest(struct cp *p, supervisor, calls_from_threads)
{
	struct fx f;
	struct e2e_out o;
	const char *py =
		"import os, socket, threading, sys\n"
		"t = socket.socket(); t.bind(('127.0.0.1', 0)); t.listen(1024)\n"
		"u = socket.socket(socket.AF_UNIX); u.bind('own.sock'); u.listen(1024)\n"
		"def serve(s):\n"
		"    while True: s.accept()[0].close()\n"
		"for s in (t, u): threading.Thread(target=serve, args=(s,), daemon=True).start()\n"
		"errors = []\n"
		"def work(i):\n"
		"    try:\n"
		"        for k in range(20):\n"
		"            a = socket.socket(); a.connect(t.getsockname()); a.close()\n"
		"            b = socket.socket(socket.AF_UNIX); b.connect('own.sock'); b.close()\n"
		"        fd = os.open('f', os.O_RDONLY); os.fchmod(fd, 0o600); os.close(fd)\n"
		"    except OSError as e: errors.append(e)\n"
		"ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]\n"
		"[x.start() for x in ts]; [x.join() for x in ts]\n"
		"print('errors', errors)\n"
		"sys.exit(1 if errors else 0)\n";
	char *script;

	fx_setup(&f, p);
	script = e2e_fmt("%s/threads.py", f.B);
	cr_assert(e2e_write_file(AS_CALLER, script, py) == 0 && chmod(script, 0644) == 0);
	for (int n = 0; n < N_NETS; n++) {
		const char *net = nets[n];

		sbx(&f, "workspace-write", net, NULL, false, e2e_fmt("cd %s && python3 %s", f.R, script),
		    &o);
		cr_assert(o.status == 0, "%s --net %s: calls from threads failed: exit %d\n%s%s",
			  f.tag, net, o.status, o.out, o.err);
		e2e_out_free(&o);
		unlink(e2e_fmt("%s/own.sock", f.R));
	}
	fx_teardown(&f);
}

/* ---- where the kernel cannot supervise ---- */

static json_t *run_json_under(struct fx *f, const char *features, const char *cmd)
{
	struct e2e_out o;
	char *argv[] = { (char *)e2e_helper("nofeature"), (char *)features, "--",
			 (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[f->runner],
			 "--mode", "workspace-write", "--root", f->R, "--json", "--",
			 (char *)cmd, NULL };
	json_error_t jerr;
	json_t *j;

	e2e_run(f->who, argv, NULL, &o);
	j = json_loads(o.out, 0, &jerr);
	cr_assert_not_null(j, "%s no JSON (exit %d):\n%s\n%s", f->tag, o.status, o.out, o.err);
	e2e_out_free(&o);
	return j;
}

PARAMS(kernel_without_user_notification, all_params)
ParameterizedTest(struct cp *p, supervisor, kernel_without_user_notification)
{
	const char *features[] = { "user_notif", "pidfd_getfd" };
	struct fx f;

	fx_setup(&f, p);
	for (size_t i = 0; i < 2; i++) {
		json_t *j = run_json_under(&f, features[i], "echo ran");
		json_t *sb = json_object_get(j, "sandbox");
		const char *enf = json_string_value(json_object_get(sb, "enforcement"));

		cr_assert(json_integer_value(json_object_get(j, "exit_code")) == 0 &&
			  strstr(json_string_value(json_object_get(j, "stdout")), "ran"),
			  "%s without %s the run was refused", f.tag, features[i]);
		if (f.runner == LANDLOCK)
			cr_assert_str_eq(enf, "partial", "%s without %s: metadata is uncovered",
					 f.tag, features[i]);
		else
			cr_assert_str_eq(enf, "full", "%s without %s", f.tag, features[i]);
		json_decref(j);
	}
	/* and with it, the landlock runner is full */
	json_t *j = run_json_under(&f, "mount_setattr", "true");

	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "sandbox"), "enforcement")),
			 "full", "%s", f.tag);
	json_decref(j);
	fx_teardown(&f);
}

Test(supervisor, probe_says_why)
{
	struct e2e_out o;
	char *argv[] = { (char *)e2e_helper("nofeature"), "user_notif", "--", (char *)e2e_sbx(),
			 "probe", "--json", NULL };
	char *plain[] = { (char *)e2e_sbx(), "probe", "--json", NULL };
	json_error_t jerr;

	e2e_run(AS_CALLER, argv, NULL, &o);
	json_t *j = json_loads(o.out, 0, &jerr), *sup = json_object_get(j, "supervisor");

	cr_assert(json_is_false(json_object_get(sup, "available")), "%s", o.out);
	cr_assert(strstr(json_string_value(json_object_get(sup, "reason")), "user notification"),
		  "%s", o.out);
	/* what a run there gets: the landlock runner, partial */
	json_t *ll = json_object_get(json_object_get(j, "runners"), "landlock");

	cr_assert_str_eq(json_string_value(json_object_get(ll, "enforcement")), "partial", "%s", o.out);
	json_decref(j);
	e2e_out_free(&o);
	e2e_run(AS_CALLER, plain, NULL, &o);
	j = json_loads(o.out, 0, &jerr);
	sup = json_object_get(j, "supervisor");
	cr_assert(json_is_true(json_object_get(sup, "available")), "%s", o.out);
	json_decref(j);
	e2e_out_free(&o);
}

/* ---- a call in flight when its caller dies ---- */

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int count_threads(void)
{
	return count_entries("/proc/self/task");
}

/* Wait (bounded) until the process has `want` threads. */
static bool threads_settle(int want)
{
	for (int i = 0; i < 2000; i++) {
		if (count_threads() == want)
			return true;
		usleep(5000);
	}
	return false;
}

/* A TCP listener on loopback whose accept queue is full: a connect to it
 * waits for a SYN-ACK that never comes. */
static int stuck_tcp(int *fill)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 0) == 0 &&
		  getsockname(l, (struct sockaddr *)&a, &len) == 0);
	*fill = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(connect(*fill, (struct sockaddr *)&a, sizeof a) == 0);
	return ntohs(a.sin_port);
}

struct killed_case {
	const char *root, *unix_stuck, *mark;
	int port;
	bool kill_inside; /* the command kills its own caller; else the run times out */
};

static const char *blocking_connects =
	"python3 -c 'import socket,sys; socket.socket().connect((\"127.0.0.1\", int(sys.argv[1])))' %d & "
	"python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
	"socket.socket(socket.AF_UNIX).connect(sys.argv[1])' %s & ";

static void *sample_after_mark(void *arg)
{
	const struct killed_case *k = arg;
	long ok;

	for (int i = 0; i < 4000 && !e2e_exists(k->mark); i++)
		usleep(5000);
	/* the run goes on (sleep), its dispatcher too; the workers whose
	 * callers were killed are gone (and any idle one has timed out) */
	ok = threads_settle(3);
	return (void *)ok;
}

/* In a child of the test (dropping to nobody where asked), through the
 * library: the threads of the process are counted from outside the run. */
static int killed_child(const void *arg)
{
	const struct killed_case *k = arg;
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err;
	pthread_t sampler;
	void *sampled = (void *)1L;
	int baseline = count_threads(), fds = count_entries("/proc/self/fd");
	char *cmd = e2e_fmt(blocking_connects, k->port, k->unix_stuck);

	if (k->kill_inside)
		/* the run goes on well past a worker's idle time (5 s), so the
		 * only threads left then are the dispatcher's and ours */
		cmd = e2e_fmt("%s sleep 0.5; kill -9 %%1 %%2; sleep 0.2; touch %s; sleep 12", cmd, k->mark);
	else
		cmd = e2e_fmt("%s wait", cmd);
	sbx_run_set_command(run, cmd);
	sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE);
	sbx_run_set_root(run, k->root);
	sbx_run_set_runner(run, SBX_RUNNER_LANDLOCK);
	sbx_run_set_timeout_ms(run, k->kill_inside ? 20000 : 1500);
	sbx_run_add_unix_socket_pattern(run, k->unix_stuck);
	if (k->kill_inside && pthread_create(&sampler, NULL, sample_after_mark, (void *)k) != 0)
		return 4;
	if (sbx_run_execute(run, &res, &err) < 0)
		return 2;
	if (k->kill_inside)
		pthread_join(sampler, &sampled);
	sbx_result_free(res);
	sbx_run_free(run);
	if (!sampled)
		return 3;
	if (!threads_settle(baseline))
		return 1;
	/* and every fd the supervisor took is closed again */
	return count_entries("/proc/self/fd") == fds ? 0 : 6;
}

static void killed_mid_call(enum e2e_user who, bool kill_inside)
{
	struct fx f;
	struct cp p = { LANDLOCK, who };
	int fill, status;

	fx_setup(&f, &p);
	struct killed_case k = { .root = f.R, .unix_stuck = e2e_fmt("%s/stuck.sock", f.D),
				 .mark = e2e_fmt("%s/mark", f.R), .kill_inside = kill_inside };
	char *argv[] = { (char *)e2e_helper("sockserver"), "stuck", (char *)k.unix_stuck, NULL };

	k.port = stuck_tcp(&fill);
	spawn_daemon(&f, argv);
	wait_for(k.unix_stuck);
	status = e2e_in_child_as(who, killed_child, &k);
	cr_assert(status != 2, "[user %s] the run failed", e2e_user_name(who));
	cr_assert(status != 3, "[user %s] a worker outlived its killed caller",
		  e2e_user_name(who));
	cr_assert(status != 6, "[user %s] the supervisor left fds open",
		  e2e_user_name(who));
	cr_assert(status == 0, "[user %s] status %d: a supervisor thread outlived the run",
		  e2e_user_name(who), status);
	close(fill);
	fx_teardown(&f);
}

Test(supervisor, run_ended_mid_call_leaves_no_thread)
{
	killed_mid_call(AS_CALLER, false);
	killed_mid_call(AS_NOBODY, false);
}

Test(supervisor, caller_killed_mid_call_ends_its_worker)
{
	killed_mid_call(AS_CALLER, true);
	killed_mid_call(AS_NOBODY, true);
}

/* ---- the last reference to a command's file ---- */

struct lingering_case {
	const char *root, *cmd;
	int runner;
	int peak_bound; /* > 0: the most fds the process may have above its
			 * own during the run (sampled), else status 7 */
	uid_t own_uid;  /* nproc_lingering_child: a uid of its own (not 0) */
};

struct fd_sampler {
	volatile bool stop;
	int peak;
};

static void *sample_fds(void *arg)
{
	struct fd_sampler *s = arg;

	while (!s->stop) {
		int n = count_entries("/proc/self/fd");

		if (n > s->peak)
			s->peak = n;
		usleep(500);
	}
	return NULL;
}

/* One run through the library, as every library test here makes it:
 * workspace-write in root under runner, the network allowed. *res is set
 * when the command ran; otherwise err says why and the return is < 0. */
static int lib_run(const char *root, int runner, const char *cmd, uint64_t timeout_ms,
		   struct sbx_result **res, struct sbx_error *err)
{
	struct sbx_run *run = sbx_run_new();
	int rc;

	*res = NULL;
	sbx_run_set_command(run, cmd);
	sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE);
	sbx_run_set_root(run, root);
	sbx_run_set_runner(run, runner == LANDLOCK ? SBX_RUNNER_LANDLOCK : SBX_RUNNER_NAMESPACE);
	sbx_run_set_net(run, SBX_NET_ALLOW);
	sbx_run_set_timeout_ms(run, timeout_ms);
	rc = sbx_run_execute(run, res, err);
	sbx_run_free(run);
	return rc;
}

/* Through the library, in a child (dropping to nobody where asked): a
 * supervised send holds a copy of a lingering socket the command then
 * drops. Whatever thread of ours closes that copy waits for the linger (a
 * day) until the run's end cuts it short: after the run the process has
 * its threads and fds of before. */
static int lingering_child(const void *arg)
{
	const struct lingering_case *k = arg;
	struct sbx_result *res = NULL;
	struct sbx_error err;
	int baseline = count_threads(), fds = count_entries("/proc/self/fd");
	struct fd_sampler sampler = { .stop = false, .peak = 0 };
	pthread_t sampling;
	char *out;
	bool done;

	if (k->peak_bound && pthread_create(&sampling, NULL, sample_fds, &sampler) != 0)
		return 4;
	int rc = lib_run(k->root, k->runner, k->cmd, 30000, &res, &err);

	if (k->peak_bound) {
		sampler.stop = true;
		pthread_join(sampling, NULL);
		if (sampler.peak - fds > k->peak_bound) {
			fprintf(stderr, "%d fds at the peak, %d before\n", sampler.peak, fds);
			return 7;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "sbx: %s: %s (%s)\n", err.code, err.message, err.detail);
		return 2;
	}
	out = sbx_result_to_json(res);
	done = out && strstr(out, "done");
	free(out);
	sbx_result_free(res);
	if (!done)
		return 3;
	if (!threads_settle(baseline))
		return 1;
	return count_entries("/proc/self/fd") == fds ? 0 : 6;
}

/* A TCP peer on 127.0.0.1 that takes connections and never reads a byte
 * (a small receive buffer): sockets connected to it fill at once. */
static int silent_sink(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int small = 4096, sink = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(sink >= 0 && setsockopt(sink, SOL_SOCKET, SO_RCVBUF, &small, sizeof small) == 0 &&
		  bind(sink, (struct sockaddr *)a, sizeof(*a)) == 0 && listen(sink, 1024) == 0 &&
		  getsockname(sink, (struct sockaddr *)a, &len) == 0);
	return sink;
}

/* The command (lingerpass PORT ARGS, PORT a peer that takes connections
 * and never reads a byte) leaves sbx the last holder of a
 * lingering socket; after the run the process has its threads and fds of
 * before. */
static void check_lingering_with(const struct cp *p, const char *prog, const char *args,
				 const char *when)
{
	struct fx f;
	struct sockaddr_in a;
	int sink = silent_sink(&a), status;

	fx_setup(&f, p);
	struct lingering_case k = {
		.root = f.R, .runner = f.runner,
		.cmd = e2e_fmt("%s %d %s", helper(&f, prog), ntohs(a.sin_port), args),
	};

	status = e2e_in_child_as(f.who, lingering_child, &k);
	cr_assert(status != 2 && status != 3,
		  "%s the run failed or did not finish (status %d)", f.tag, status);
	cr_assert(status != 6, "%s the supervisor left fds open", f.tag);
	cr_assert(status == 0,
		  "%s status %d: %sa thread of sbx stayed caught in the last close of the "
		  "command's lingering socket after the run", f.tag, status, when);
	close(sink);
	fx_teardown(&f);
}

static void check_lingering(const struct cp *p, const char *args, const char *when)
{
	check_lingering_with(p, "lingerpass", args, when);
}

PARAMS(last_reference_to_a_lingering_socket_holds_no_thread, all_params)
ParameterizedTest(struct cp *p, supervisor, last_reference_to_a_lingering_socket_holds_no_thread,
		  .timeout = 120)
{
	check_lingering(p, "", "");
}

/* The same, after the command put more files in flight (SCM_RIGHTS sends it
 * never lets anyone receive) than RLIMIT_NOFILE: then every send with
 * SCM_RIGHTS by its user fails with ETOOMANYREFS, sbx's hand-over of its
 * copy to the closer too. sbx closed the copy where it stood then, on the
 * worker: the worker stayed caught in the lingering close (a day), the
 * dispatcher with it, waiting for the worker. */
PARAMS(lingering_socket_past_the_in_flight_limit_holds_no_thread, all_params)
ParameterizedTest(struct cp *p, supervisor, lingering_socket_past_the_in_flight_limit_holds_no_thread,
		  .timeout = 120)
{
	check_lingering(p, "1 1000 1073741824", "past the in-flight limit, ");
}

/* Many lingering sockets whose last references are sbx's copies (one send
 * of 60, failed): the closer is caught in each close, cancelled and
 * replaced, 60 times. A closer that started while the one cancelled before
 * it had not yet put its copy back took from the pair, was caught and
 * cancelled in turn, and its copy overwrote the first one's in the kept
 * slot: on the old code about one copy in six stayed in the process's fd
 * table for good (a /dev/null after the swap), 20 to 40 a run (status 6). */
PARAMS(many_lingering_copies_leave_no_fd, all_params)
ParameterizedTest(struct cp *p, supervisor, many_lingering_copies_leave_no_fd, .timeout = 120)
{
	check_lingering_with(p, "lingermany", "60", "with 60 lingering copies, ");
}

/* ---- a run forked while sbx holds copies of another run's files ---- */

struct inherit_case {
	const char *root, *lingering_cmd;
	int runner;
	volatile bool done;
	int hung; /* runs of `echo hi` that timed out */
	int runs;
};

static struct sbx_result *run_once_lib(const char *root, int runner, const char *cmd,
				       uint64_t timeout_ms)
{
	struct sbx_result *res;
	struct sbx_error err;

	return lib_run(root, runner, cmd, timeout_ms, &res, &err) < 0 ? NULL : res;
}

static void *lingering_runs(void *arg)
{
	struct inherit_case *k = arg;

	for (int i = 0; i < 3; i++)
		sbx_result_free(run_once_lib(k->root, k->runner, k->lingering_cmd, 60000));
	__atomic_store_n(&k->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Through the library, in a child: one thread runs a command that passes
 * 253 lingering sockets in a send that waits in sbx (sbx's copies sit in
 * its fd table meanwhile), three times; this one starts `echo hi` runs all
 * along. */
static int inherit_child(const void *arg)
{
	struct inherit_case *k = (struct inherit_case *)arg;
	pthread_t t;

	if (pthread_create(&t, NULL, lingering_runs, k) != 0)
		return 4;
	while (!__atomic_load_n(&k->done, __ATOMIC_ACQUIRE)) {
		struct sbx_result *res = run_once_lib(k->root, k->runner, "echo hi", 10000);
		char *out = res ? sbx_result_to_json(res) : NULL;

		k->runs++;
		if (out && strstr(out, "\"timed_out\":true"))
			k->hung++;
		free(out);
		sbx_result_free(res);
	}
	pthread_join(t, NULL);
	fprintf(stderr, "%d runs of echo, %d hung\n", k->runs, k->hung);
	return k->hung ? 6 : k->runs ? 0 : 3;
}

/* A run's child is a fork of sbx and inherits sbx's fd table, with the
 * copies of another run's files that sbx holds in that instant (here a
 * send's, passing lingering sockets). That run then let go of them and sbx
 * dropped its own copies: the forked child's close was the last one and
 * waited out the linger (a day), and the run hung until its timeout: on
 * the old code, in namespace-runner init's close of what it inherited, or
 * at the landlock runner's exec (seen in 3 of 3 tries under the
 * namespace runner as a user). */
PARAMS(a_run_forked_while_sbx_holds_lingering_copies_does_not_hang, all_params)
ParameterizedTest(struct cp *p, supervisor,
		  a_run_forked_while_sbx_holds_lingering_copies_does_not_hang, .timeout = 300)
{
	struct fx f;
	struct sockaddr_in a;
	int sink = silent_sink(&a), status;

	fx_setup(&f, p);
	struct inherit_case k = {
		.root = f.R, .runner = f.runner,
		.lingering_cmd = e2e_fmt("%s %d 253", helper(&f, "lingermany"), ntohs(a.sin_port)),
	};

	status = e2e_in_child_as(f.who, inherit_child, &k);
	cr_assert(status != 3 && status != 4 && status != 5, "%s no run of echo was made (status %d)",
		  f.tag, status);
	cr_assert(status == 0, "%s a run started while sbx held another run's lingering copies "
		  "hung until its timeout (status %d)", f.tag, status);
	close(sink);
	fx_teardown(&f);
}

/* ---- the cost of asking output lines once a refusal was noted ---- */

/* Seconds of CPU one `sbx run` of cmd took (its own and what it waited
 * for: the command's), its output dropped. */
static double sbx_run_cpu(const struct fx *f, const char *cmd)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[f->runner],
			 "--mode", "workspace-write", "--root", f->R, "--", (char *)cmd, NULL };
	struct rusage ru;
	int st;
	pid_t pid = e2e_spawn(f->who, f->R, argv);

	cr_assert(wait4(pid, &st, 0, &ru) == pid, "%s wait4: %s", f->tag, strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		struct e2e_out o;

		e2e_run_in(f->who, f->R, argv, NULL, &o);
		cr_assert_fail("%s the run failed (status 0x%x); again: exit %d, stderr: %.2000s",
			       f->tag, st, o.status, o.err);
	}
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* After one refused mkdir, every output line is asked whether it names it,
 * on the loop that serves every session. Lines of about 4 KiB holding the
 * noted path 400 times and no error: on the old code each occurrence
 * scanned its line again, about 3 s of sbx's CPU for these 120 lines (in
 * serve, another session's "echo hi" waited 4.6 s behind 50 such lines).
 * Compared in CPU time with the same output without the refusal. */
PARAMS(output_naming_a_noted_refusal_costs_little, all_params)
ParameterizedTest(struct cp *p, supervisor, output_naming_a_noted_refusal_costs_little,
		  .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	/* f.O: outside the root, where the caller could make it. */
	const char *spam = e2e_fmt("l=$(printf ' %s/noted%%.0s' $(seq 400)); "
				   "for i in $(seq 60); do echo \"$l\"; echo \"$l\" >&2; done", f.O);
	double plain = sbx_run_cpu(&f, spam);
	double noted = sbx_run_cpu(&f, e2e_fmt("mkdir %s/noted 2>/dev/null; %s", f.O, spam));

	cr_assert(noted <= 4 * plain + 1.5, "%s output naming a noted refusal cost sbx far more "
		  "CPU than the same output without it: %.2f s, %.2f s", f.tag, noted, plain);
	cr_assert(!e2e_exists(e2e_fmt("%s/noted", f.O)), "%s the refused mkdir made it", f.tag);
	fx_teardown(&f);
}

/* After 64 refused mkdirs (as many as a run notes), lines of 4 KiB of "e"
 * (the first letter of four error phrases) naming none of them and no
 * error: each line was asked every phrase at every byte, once a noted
 * name, 0.4 ms a line and name. On the old code these 2 MiB cost about 3 s
 * of sbx's CPU, against 0.1 s for the same output without the refusals.
 * Compared in CPU time, as above. */
PARAMS(output_of_error_letters_costs_little, all_params)
ParameterizedTest(struct cp *p, supervisor, output_of_error_letters_costs_little, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	const char *spam = "l=$(head -c 4095 /dev/zero | tr '\\0' e); "
			   "yes \"$l\" | head -n 256; yes \"$l\" | head -n 256 >&2";
	double plain = sbx_run_cpu(&f, spam);
	double noted = sbx_run_cpu(&f, e2e_fmt("for i in $(seq 64); do mkdir %s/n$i 2>/dev/null; "
					       "done; %s", f.O, spam));

	cr_assert(noted <= 4 * plain + 1.0, "%s output after 64 noted refusals cost sbx far "
		  "more CPU than the same output without them: %.2f s, %.2f s", f.tag, noted, plain);
	cr_assert(!e2e_exists(e2e_fmt("%s/n1", f.O)), "%s the refused mkdir made it", f.tag);
	fx_teardown(&f);
}

/* A refused mkdir the command ignores, then its error on the missing
 * directory, with so much output around it that the result's bounded
 * stderr keeps neither: the line is still seen (as it streamed), and the
 * failed run is marked. On the old code it was not (issue 19). */
PARAMS(refusal_named_on_a_line_cut_from_the_output, all_params)
ParameterizedTest(struct cp *p, supervisor, refusal_named_on_a_line_cut_from_the_output)
{
	struct fx f;
	struct e2e_out o;
	json_t *j;

	fx_setup(&f, p);
	char *cmd = e2e_fmt("cd %s && mkdir -p newdir 2>/dev/null; seq 1 100000 >&2; "
			    "echo data > newdir/file; r=$?; seq 1 100000 >&2; exit $r", f.O);

	sbx(&f, "workspace-write", NULL, NULL, true, cmd, &o);
	j = json_loads(o.out, 0, NULL);
	cr_assert(j, "%s not JSON: %s%s", f.tag, o.out, o.err);
	const char *err = json_string_value(json_object_get(j, "stderr"));

	cr_assert(err && !strstr(err, "newdir") && json_is_true(json_object_get(j, "truncated")),
		  "%s the error line was not cut from the output: the test shows nothing", f.tag);
	cr_assert(json_integer_value(json_object_get(j, "exit_code")) == 1, "%s %s", f.tag, o.out);
	cr_assert(json_is_true(json_object_get(json_object_get(j, "sandbox"), "denied")),
		  "%s a failure on a refused mkdir, named on a line cut from the output, is not "
		  "marked", f.tag);
	cr_assert(!e2e_exists(e2e_fmt("%s/newdir", f.O)), "%s newdir was made", f.tag);
	json_decref(j);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* Tasks (threads too) of this process's real uid, as RLIMIT_NPROC counts them. */
static long count_uid_tasks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct stat st;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char task[300];

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(task, sizeof task, "/proc/%s/task", e->d_name);
		if (stat(task, &st) == 0 && st.st_uid == getuid())
			n += count_entries(task);
	}
	closedir(d);
	return n;
}

/* lingering_child with RLIMIT_NPROC a little above what the user runs now,
 * so the command can take every process slot. */
static int nproc_lingering_child(const void *arg)
{
	const struct lingering_case *k = arg;
	long now;
	struct rlimit rl;

	/* A uid no other test runs as: its process slots are this test's
	 * alone (other tests' processes of nobody, run alongside, took the
	 * slots a killed command freed before sbx could start a thread). */
	if (setgroups(0, NULL) < 0 || setresgid(k->own_uid, k->own_uid, k->own_uid) < 0 ||
	    setresuid(k->own_uid, k->own_uid, k->own_uid) < 0)
		return 5;
	prctl(PR_SET_DUMPABLE, 1);
	now = count_uid_tasks();
	rl.rlim_cur = rl.rlim_max = (rlim_t)now + 64;
	if (now < 0 || setrlimit(RLIMIT_NPROC, &rl) < 0)
		return 4;
	return lingering_child(arg);
}

/* The same, with the command's user out of processes (RLIMIT_NPROC) when
 * sbx is left the last holder of the lingering socket: no closer thread
 * can be started then. sbx closed the copy where it stood, on the worker:
 * the worker stayed caught in the lingering close (a day), the dispatcher
 * with it, waiting for the worker. Only for a caller who is not root (root
 * is exempt from RLIMIT_NPROC). */
static struct cp nobody_params[] = { { NAMESPACE, AS_NOBODY }, { LANDLOCK, AS_NOBODY } };
PARAMS(lingering_socket_with_no_thread_to_be_had_holds_no_thread, nobody_params)
ParameterizedTest(struct cp *p, supervisor, lingering_socket_with_no_thread_to_be_had_holds_no_thread,
		  .timeout = 120)
{
	struct fx f;
	struct sockaddr_in a;
	int sink = silent_sink(&a), status;

	fx_setup(&f, p);
	struct lingering_case k = {
		.root = f.R, .runner = f.runner,
		.cmd = e2e_fmt("%s %d", helper(&f, "lingernproc"), ntohs(a.sin_port)),
		.own_uid = 43110 + (uid_t)f.runner,
	};

	cr_assert(chown(f.B, k.own_uid, k.own_uid) == 0 && chown(f.R, k.own_uid, k.own_uid) == 0);
	status = e2e_in_child_as(AS_CALLER, nproc_lingering_child, &k);
	cr_assert(status != 2 && status != 3 && status != 4,
		  "%s the run failed or did not finish (status %d)", f.tag, status);
	cr_assert(status != 6, "%s the supervisor left fds open", f.tag);
	cr_assert(status == 0,
		  "%s status %d: with no thread to be had, a thread of sbx stayed caught in the "
		  "last close of the command's lingering socket after the run", f.tag, status);
	close(sink);
	fx_teardown(&f);
}

/* Copies of the fds a send passes sit in our fd table until the send is
 * done; in serve that table is every session's. On the old code a batch
 * (sendmmsg) of 64 messages of 253 fds made sbx hold them all at once, up to
 * EMFILE, and a batch whose second message named an fd that was not open
 * kept the copies taken before it for good (the message was dropped from
 * the batch, not freed). Now at most SV_MAX_PASSING copies are held per
 * run (past it: ETOOMANYREFS, the kernel's own error for too many in
 * flight), and the dropped message's copies go back. */
PARAMS(copies_for_passed_fds_are_bounded_and_given_back, all_params)
ParameterizedTest(struct cp *p, supervisor, copies_for_passed_fds_are_bounded_and_given_back,
		  .timeout = 120)
{
	struct fx f;
	int status;

	fx_setup(&f, p);
	struct lingering_case leak = {
		.root = f.R, .runner = f.runner,
		.cmd = e2e_fmt("%s leak", helper(&f, "fdbatch")),
	};
	struct lingering_case burst = {
		.root = f.R, .runner = f.runner, .peak_bound = 4096 + 128,
		.cmd = e2e_fmt("%s burst 20", helper(&f, "fdbatch")),
	};

	status = e2e_in_child_as(f.who, lingering_child, &leak);
	cr_assert(status != 2 && status != 3, "%s the run failed or did not finish (status %d)",
		  f.tag, status);
	cr_assert(status == 0, "%s status %d: copies of a batch's dropped message stayed open in sbx",
		  f.tag, status);
	status = e2e_in_child_as(f.who, lingering_child, &burst);
	cr_assert(status != 2 && status != 3, "%s the run failed or did not finish (status %d)",
		  f.tag, status);
	cr_assert(status != 7, "%s sbx held more copies of passed fds at once than its bound",
		  f.tag);
	cr_assert(status == 0, "%s status %d after the burst", f.tag, status);
	fx_teardown(&f);
}

/* A command that passes 253 fds per blocking send and receives them before
 * the next (never more than 253 in flight) is never refused by sbx's
 * bound on copies. On the old code a worker answered the send before it had
 * handed its copies to the closer, which takes them a few at a time: the
 * command ran ahead and the copies of a few dozen finished sends counted
 * against SV_MAX_PASSING, so "lockstep 200" failed with ETOOMANYREFS after
 * 20 to 60 sends (Python's multiprocessing.reduction.sendfds does the same). */
PARAMS(passing_fds_in_lockstep_stays_under_the_bound, all_params)
ParameterizedTest(struct cp *p, supervisor, passing_fds_in_lockstep_stays_under_the_bound,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	sbx(&f, "workspace-write", NULL, NULL, false,
	    e2e_fmt("%s lockstep 200", helper(&f, "fdbatch")), &o);
	cr_assert(o.status == 0 && strcmp(o.out, "200 of 200 sent\ndone\n") == 0,
		  "%s status %d: %s%s", f.tag, o.status, o.out, o.err);
	e2e_out_free(&o);
	fx_teardown(&f);
}

/* Sends that pass the kernel's check on the user's fds in flight and then
 * wait for room (a datagram peer's full queue): the kernel counts their fds
 * only once they are queued. On the old code sbx performed them blocking,
 * so two runs of 16 such sends, let go together, took the count past the
 * hard limit, and the next run failed its setup (its listener's hand-off).
 * Now each try is checked anew. */
PARAMS(waiting_sends_do_not_overshoot_the_inflight_count, all_params)
ParameterizedTest(struct cp *p, supervisor, waiting_sends_do_not_overshoot_the_inflight_count,
		  .timeout = 240)
{
	struct fx f;
	struct e2e_out o;
	pid_t hog[2];
	char *ready[2], *done[2], *go, *stop, *got[2] = { NULL, NULL };
	int st;

	fx_setup(&f, p);
	go = e2e_fmt("%s/go", f.R);
	stop = e2e_fmt("%s/stop", f.R);
	for (int i = 0; i < 2; i++) {
		ready[i] = e2e_fmt("%s/ready.%d", f.R, i);
		done[i] = e2e_fmt("%s/done.%d", f.R, i);
		char *cmd = e2e_fmt("%s %s %s %s %s", helper(&f, "blockedpass"), ready[i], go,
				    done[i], stop);
		char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[f.runner],
				 "--mode", "workspace-write", "--root", f.R, "--timeout", "200",
				 "--", cmd, NULL };

		hog[i] = e2e_spawn(f.who, f.R, argv);
		for (int k = 0; k < 1200 && !(got[i] = e2e_read_file(ready[i])); k++)
			usleep(50000);
		cr_assert(got[i], "%s hog %d never got its sends waiting", f.tag, i);
	}
	cr_assert(e2e_write_file(AS_CALLER, go, "") == 0);
	for (int i = 0; i < 2; i++) {
		got[i] = NULL;
		for (int k = 0; k < 1200 && !(got[i] = e2e_read_file(done[i])); k++)
			usleep(50000);
		cr_assert(got[i], "%s hog %d never finished its sends", f.tag, i);
	}
	sbx(&f, "workspace-write", NULL, NULL, false, "echo third", &o);
	cr_assert(e2e_write_file(AS_CALLER, stop, "") == 0);
	for (int i = 0; i < 2; i++)
		cr_assert(waitpid(hog[i], &st, 0) == hog[i]);
	cr_assert(o.status == 0 && strcmp(o.out, "third\n") == 0,
		  "%s with two runs' waiting sends let go (%s; %s) the next run failed: status %d: "
		  "%s%s", f.tag, got[0], got[1], o.status, o.out, o.err);
	e2e_out_free(&o);
	fx_teardown(&f);
}

struct two_runs {
	const char *root, *cmd[2];
	int runner;
};

struct one_run {
	const struct two_runs *t;
	int i, rc;
};

static void *run_one(void *arg)
{
	struct one_run *o = arg;
	struct sbx_result *res;
	struct sbx_error err;

	o->rc = lib_run(o->t->root, o->t->runner, o->t->cmd[o->i], 60000, &res, &err);
	sbx_result_free(res);
	return NULL;
}

/* Two runs at once in one process (as in serve), each with 16 sends of 253
 * fds waiting; the process's peak fd count, sampled: 0 within the bound,
 * 7 past it, 2 a run failed. */
static int two_runs_child(const void *arg)
{
	const struct two_runs *t = arg;
	struct fd_sampler sampler = { .stop = false, .peak = 0 };
	struct one_run o[2] = { { t, 0, 0 }, { t, 1, 0 } };
	pthread_t th[2], sampling;
	int fds = count_entries("/proc/self/fd");

	if (pthread_create(&sampling, NULL, sample_fds, &sampler) != 0)
		return 4;
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, run_one, &o[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	sampler.stop = true;
	pthread_join(sampling, NULL);
	if (o[0].rc < 0 || o[1].rc < 0)
		return 2;
	if (sampler.peak - fds > 4096 + 256) {
		fprintf(stderr, "%d fds at the peak, %d before\n", sampler.peak, fds);
		return 7;
	}
	return 0;
}

/* The bound on copies of passed fds is the process's, not each run's: on
 * the old code two runs at once held 16 x 253 copies each (five filled a
 * serve's fd table, and other sessions' runs failed to start: no pipes). */
PARAMS(copies_for_passed_fds_are_bounded_across_runs, all_params)
ParameterizedTest(struct cp *p, supervisor, copies_for_passed_fds_are_bounded_across_runs,
		  .timeout = 120)
{
	struct fx f;
	int status;

	fx_setup(&f, p);
	char *go = e2e_fmt("%s/go", f.R), *stop = e2e_fmt("%s/stop", f.R);
	struct two_runs t = { .root = f.R, .runner = f.runner };

	/* let go at once, held a moment, then gone */
	cr_assert(e2e_write_file(AS_CALLER, go, "") == 0 && e2e_write_file(AS_CALLER, stop, "") == 0);
	for (int i = 0; i < 2; i++)
		t.cmd[i] = e2e_fmt("%s %s/ready.%d %s %s/done.%d %s", helper(&f, "blockedpass"), f.R,
				   i, go, f.R, i, stop);
	status = e2e_in_child_as(f.who, two_runs_child, &t);
	cr_assert(status != 2 && status != 4, "%s a run failed (status %d)", f.tag, status);
	cr_assert(status == 0, "%s sbx held more copies of passed fds at once than its bound, "
		  "over two runs (status %d)", f.tag, status);
	fx_teardown(&f);
}

/* One run's waiting sends hold at most a share of the process's bound: on
 * the old code (one bound for all runs) a run's 16 waiting sends of 253 fds
 * held nearly all of it, and another run's (another serve session's) send
 * of 253 fds was refused for as long as the first lived. */
PARAMS(one_run_cannot_take_every_runs_room_for_passed_fds, all_params)
ParameterizedTest(struct cp *p, supervisor, one_run_cannot_take_every_runs_room_for_passed_fds,
		  .timeout = 120)
{
	struct fx f;
	int status;

	fx_setup(&f, p);
	char *ready = e2e_fmt("%s/ready", f.R), *go = e2e_fmt("%s/go", f.R);
	char *stop = e2e_fmt("%s/stop", f.R), *out = e2e_fmt("%s/b.out", f.R), *got;
	struct two_runs t = { .root = f.R, .runner = f.runner };

	cr_assert(e2e_write_file(AS_CALLER, stop, "") == 0);
	t.cmd[0] = e2e_fmt("%s %s %s %s/done %s", helper(&f, "blockedpass"), ready, go, f.R, stop);
	t.cmd[1] = e2e_fmt("for i in $(seq 600); do [ -e %s ] && break; sleep 0.05; done; "
			   "%s lockstep 4 > %s; touch %s", ready, helper(&f, "fdbatch"), out, go);
	status = e2e_in_child_as(f.who, two_runs_child, &t);
	cr_assert(status != 2 && status != 4, "%s a run failed (status %d)", f.tag, status);
	got = e2e_read_file(out);
	cr_assert(got && strcmp(got, "4 of 4 sent\ndone\n") == 0,
		  "%s with another run's sends waiting, this run's sends of 253 fds: %s", f.tag,
		  got ? got : "(no output)");
	fx_teardown(&f);
}

/* A command that fills its user's count of fds in flight (sent to sockets
 * nobody reads) must not stop the next run of that user: the next run's
 * setup hands the supervisor its listener with an SCM_RIGHTS send, which
 * the kernel refuses past the sender's soft RLIMIT_NOFILE. On the old code
 * the second run failed (SANDBOX_UNAVAILABLE: "send the supervisor its
 * listener: Too many references"): as nobody, the hog's sends went up to
 * sbx's soft limit, which was the hard one; as root, sbx's thread made them
 * exempt. */
PARAMS(full_inflight_count_does_not_stop_the_next_run, all_params)
ParameterizedTest(struct cp *p, supervisor, full_inflight_count_does_not_stop_the_next_run,
		  .timeout = 180)
{
	struct fx f;
	struct e2e_out o;
	int st;

	fx_setup(&f, p);
	char *report = e2e_fmt("%s/full", f.R), *stop = e2e_fmt("%s/stop", f.R);
	char *cmd = e2e_fmt("%s %s %s", helper(&f, "inflighthog"), report, stop);
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[f.runner],
			 "--mode", "workspace-write", "--root", f.R, "--timeout", "150", "--",
			 cmd, NULL };
	pid_t hog = e2e_spawn(f.who, f.R, argv);
	char *got = NULL;

	for (int i = 0; i < 1200 && !(got = e2e_read_file(report)); i++)
		usleep(50000);
	cr_assert(got && strncmp(got, "full ", 5) == 0, "%s the hog never filled the count: %s",
		  f.tag, got ? got : "(no report)");
	sbx(&f, "workspace-write", NULL, NULL, false, "echo second", &o);
	cr_assert(e2e_write_file(AS_CALLER, stop, "") == 0);
	cr_assert(waitpid(hog, &st, 0) == hog);
	cr_assert(o.status == 0 && strcmp(o.out, "second\n") == 0,
		  "%s with the hog holding (%s) the next run failed: status %d: %s%s", f.tag, got,
		  o.status, o.out, o.err);
	e2e_out_free(&o);
	fx_teardown(&f);
}

#else

/* A build without the supervisor says so, and runs anyway: the landlock
 * runner partial, metadata outside the root uncovered. */
Test(supervisor, not_built)
{
	struct e2e_out o;
	char *argv[] = { (char *)e2e_sbx(), "probe", "--json", NULL };
	char *dir = e2e_tmpdir(AS_CALLER);

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(strstr(o.out, "not in this build"), "%s", o.out);
	e2e_out_free(&o);
	e2e_sbx_run(AS_CALLER, &o, "--runner", "landlock", "--root", dir, "--json", "--", "true", NULL);
	cr_assert(o.status == 0 && strstr(o.out, "\"enforcement\":\"partial\""), "%s%s", o.out,
		  o.err);
	e2e_out_free(&o);
}

#endif
