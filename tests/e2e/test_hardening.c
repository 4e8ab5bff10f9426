/* SPDX-License-Identifier: MIT */
/* Hardening, checked from outside, as the caller and as nobody:
 *  - the terminal-injection ioctls (TIOCSTI, plain and with high bits set in
 *    the request: CVE-2017-5226, CVE-2019-10063; TIOCLINUX) get EPERM from
 *    sbx's seccomp filter in every confined mode, and nothing reaches the
 *    terminal's input queue, while the same helper unconfined
 *    (danger-full-access) does inject: the test proves the filter, not the
 *    kernel's own TIOCSTI rules;
 *  - a setuid, setgid or file-capability copy of sbx refuses to run (exit 125,
 *    one `sbx: ` line) and the command never runs; asked for --json (run,
 *    probe), it says so as a JSON error object on stdout too;
 *  - the confined command holds no capability (a root caller: only its few
 *    file capabilities). */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static enum e2e_user users[] = {AS_CALLER, AS_NOBODY};

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(hardening, name)                                        \
	{                                                                                   \
		return cr_make_param_array(enum e2e_user, users,                            \
					   sizeof users / sizeof users[0]);                 \
	}

struct fx {
	enum e2e_user who;
	char *R;
	char tag[32];
};

static void fx_setup(struct fx *f, enum e2e_user who)
{
	f->who = who;
	snprintf(f->tag, sizeof f->tag, "[user %s]", e2e_user_name(who));
	f->R = e2e_tmpdir(who);
}

/* sbx run [--runner RUNNER] --mode MODE --root R -- CMD, as f->who */
static int run_sbx(struct fx *f, const char *runner, const char *mode, const char *cmd,
		   struct e2e_out *o)
{
	char *argv[16];
	size_t n = 0;
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	if (runner) {
		argv[n++] = "--runner";
		argv[n++] = (char *)runner;
	}
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	return e2e_run(f->who, argv, NULL, o);
}

/* cp SRC DIR/NAME (as root), mode 0755. */
static char *copy_bin(const char *src, const char *dir, const char *name)
{
	char *dst = e2e_fmt("%s/%s", dir, name);
	struct e2e_out o;
	char *argv[] = {"cp", (char *)src, dst, NULL};
	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0, "cp %s %s: %s", src, dst, o.err);
	e2e_out_free(&o);
	cr_assert(chmod(dst, 0755) == 0, "chmod %s: %s", dst, strerror(errno));
	return dst;
}

/* ---- TIOCSTI / TIOCLINUX ---- */

/* The helper, copied out of e2e_helper's /tmp directory: the namespace
 * runner gives the command a private /tmp, where that copy is invisible. */
static const char *ttyinject_path(void)
{
	static char *path;
	static pid_t pid;
	if (!path || pid != getpid()) {
		path = copy_bin(e2e_helper("ttyinject"), e2e_tmpdir(AS_CALLER), "ttyinject");
		pid = getpid();
	}
	return path;
}

struct pty {
	int master, slave;
	char path[64];
};

static void pty_open(struct pty *p, enum e2e_user who)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(p->master >= 0, "posix_openpt: %s", strerror(errno));
	cr_assert(grantpt(p->master) == 0, "grantpt: %s", strerror(errno));
	cr_assert(unlockpt(p->master) == 0, "unlockpt: %s", strerror(errno));
	const char *name = ptsname(p->master);
	cr_assert(name != NULL, "ptsname: %s", strerror(errno));
	snprintf(p->path, sizeof p->path, "%s", name);
	p->slave = open(p->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(p->slave >= 0, "open %s: %s", p->path, strerror(errno));
	/* raw: an injected byte is counted by FIONREAD at once (canonical mode
	 * would count only completed lines) and is not echoed */
	struct termios t;
	cr_assert(tcgetattr(p->slave, &t) == 0, "tcgetattr: %s", strerror(errno));
	cfmakeraw(&t);
	cr_assert(tcsetattr(p->slave, TCSANOW, &t) == 0, "tcsetattr: %s", strerror(errno));
	/* the user's own terminal, as an agent's terminal would be */
	cr_assert(fchown(p->slave, e2e_uid(who), e2e_gid(who)) == 0, "chown %s: %s", p->path,
		  strerror(errno));
	cr_assert(fchmod(p->slave, 0600) == 0, "chmod %s: %s", p->path, strerror(errno));
}

/* Bytes waiting in the slave's input queue; drains them into got. */
static int pty_pending(struct pty *p, char *got, size_t size)
{
	int n = -1;
	cr_assert(ioctl(p->slave, FIONREAD, &n) == 0, "FIONREAD: %s", strerror(errno));
	got[0] = '\0';
	if (n > 0) {
		int fl = fcntl(p->slave, F_GETFL);
		fcntl(p->slave, F_SETFL, fl | O_NONBLOCK);
		ssize_t r = read(p->slave, got, size - 1);
		got[r > 0 ? r : 0] = '\0';
		fcntl(p->slave, F_SETFL, fl);
	}
	return n;
}

static void pty_close(struct pty *p)
{
	close(p->slave);
	close(p->master);
}

/* The helper's "NAME=N" value, or -1000 if it did not print NAME. */
static int tti_value(const char *out, const char *name)
{
	size_t len = strlen(name);
	for (const char *s = out; s && *s;) {
		if (strncmp(s, name, len) == 0 && s[len] == '=')
			return atoi(s + len + 1);
		const char *nl = strchr(s, '\n');
		s = nl ? nl + 1 : NULL;
	}
	return -1000;
}

struct tti {
	int open, ro, ctty, sti, sti_hi, linux_, linux_hi;
	int pending;
	char got[64];
};

static void run_ttyinject(struct fx *f, struct pty *p, const char *runner, const char *mode,
			  const char *path, struct tti *t)
{
	struct e2e_out o;
	char *cmd = e2e_fmt("%s %s", ttyinject_path(), path);
	run_sbx(f, runner, mode, cmd, &o);
	cr_assert(o.status == 0, "%s ttyinject under %s/%s: exit %d\nstdout:\n%s\nstderr:\n%s",
		  f->tag, mode, runner ? runner : "auto", o.status, o.out, o.err);
	t->open = tti_value(o.out, "OPEN");
	t->ro = tti_value(o.out, "RO");
	t->ctty = tti_value(o.out, "CTTY");
	t->sti = tti_value(o.out, "TIOCSTI");
	t->sti_hi = tti_value(o.out, "TIOCSTI_HI");
	t->linux_ = tti_value(o.out, "TIOCLINUX");
	t->linux_hi = tti_value(o.out, "TIOCLINUX_HI");
	cr_assert(t->linux_hi != -1000, "%s ttyinject output incomplete:\n%s\nstderr:\n%s", f->tag,
		  o.out, o.err);
	t->pending = pty_pending(p, t->got, sizeof t->got);
	e2e_out_free(&o);
	free(cmd);
}

PARAMS(tiocsti_unconfined_control)
ParameterizedTest(enum e2e_user *who, hardening, tiocsti_unconfined_control)
{
	/* The control: without a runner the same helper injects, so the confined
	 * runs below fail because of sbx and the queue check can see a byte. */
	struct fx f;
	fx_setup(&f, *who);
	struct pty p;
	pty_open(&p, f.who);
	struct tti t;
	run_ttyinject(&f, &p, NULL, "danger-full-access", p.path, &t);
	cr_assert(t.open == 0 && t.ctty == 0,
		  "%s unconfined: could not open %s or make it the controlling terminal "
		  "(OPEN=%d CTTY=%d)",
		  f.tag, p.path, t.open, t.ctty);
	if (t.sti == EIO) {
		/* dev.tty.legacy_tiocsti=0 (Linux >= 6.2) refuses TIOCSTI to everyone
		 * without CAP_SYS_ADMIN with EIO; sbx's filter answers EPERM, which the
		 * confined tests assert, so they still tell the two apart. */
		cr_assert(t.sti_hi == EIO && t.pending == 0, "%s legacy_tiocsti=0 but STI_HI=%d pending=%d",
			  f.tag, t.sti_hi, t.pending);
	} else {
		cr_assert(t.sti == 0 && t.sti_hi == 0,
			  "%s unconfined TIOCSTI on the own controlling terminal should work: "
			  "TIOCSTI=%d TIOCSTI_HI=%d",
			  f.tag, t.sti, t.sti_hi);
		cr_assert(t.pending == 2 && strcmp(t.got, "xy") == 0,
			  "%s unconfined injection should queue \"xy\", queue has %d bytes \"%s\"",
			  f.tag, t.pending, t.got);
	}
	/* a pty is not a console: TIOCLINUX fails, but not with EPERM */
	cr_assert(t.linux_ != 0 && t.linux_ != EPERM && t.linux_hi != EPERM,
		  "%s unconfined TIOCLINUX on a pty: %d / %d (expected ENOTTY/EINVAL)", f.tag,
		  t.linux_, t.linux_hi);

	/* unconfined on a non-terminal (fd 0, /dev/null): the kernel says ENOTTY */
	run_ttyinject(&f, &p, NULL, "danger-full-access", "/nonexistent-tty", &t);
	cr_assert(t.open == ENOENT, "%s OPEN=%d", f.tag, t.open);
	cr_assert(t.sti == ENOTTY && t.sti_hi == ENOTTY && t.linux_ == ENOTTY &&
			  t.linux_hi == ENOTTY,
		  "%s unconfined ioctls on /dev/null: %d %d %d %d (expected ENOTTY)", f.tag, t.sti,
		  t.sti_hi, t.linux_, t.linux_hi);
	pty_close(&p);
}

/* The Makefile passes the feature switches (-DCONFIG_SECCOMP) to the tests:
 * a build without the filter (CONFIG_SECCOMP=n) has nothing to refuse, so
 * these tests are not built there (not skipped, not counted). */
#ifdef CONFIG_SECCOMP
/* Confined: every variant EPERM (seccomp; the kernel would say 0 on the own
 * controlling terminal, ENOTTY on a non-terminal, never EPERM here), and the
 * test's view of the input queue stays empty. */
static void assert_tty_refused(struct fx *f, struct pty *p, const char *runner, const char *mode)
{
	struct tti t;
	run_ttyinject(f, p, runner, mode, p->path, &t);
	const char *r = runner ? runner : "auto";
	cr_assert(t.sti == EPERM && t.sti_hi == EPERM,
		  "%s %s/%s: TIOCSTI=%d TIOCSTI_HI=%d, expected EPERM (%d) from the filter "
		  "(OPEN=%d RO=%d CTTY=%d)",
		  f->tag, mode, r, t.sti, t.sti_hi, EPERM, t.open, t.ro, t.ctty);
	cr_assert(t.linux_ == EPERM && t.linux_hi == EPERM,
		  "%s %s/%s: TIOCLINUX=%d TIOCLINUX_HI=%d, expected EPERM", f->tag, mode, r,
		  t.linux_, t.linux_hi);
	cr_assert(t.pending == 0, "%s %s/%s: %d bytes (\"%s\") were injected into %s", f->tag,
		  mode, r, t.pending, t.got, p->path);
	if (t.open == 0)
		/* It reached the terminal. Either it owned it (TIOCSCTTY 0), so
		 * EPERM cannot have been the kernel's controlling-terminal rule;
		 * or Landlock refused device ioctls (EACCES, ABI 5+), and Landlock
		 * answers before the tty code does, so EPERM can only have come
		 * from the filter, which runs first of all. */
		cr_assert(t.ctty == 0 || t.ctty == EACCES, "%s %s/%s: opened %s but TIOCSCTTY=%d",
			  f->tag, mode, r, p->path, t.ctty);
}


PARAMS(tiocsti_refused_namespace)
ParameterizedTest(enum e2e_user *who, hardening, tiocsti_refused_namespace)
{
	struct fx f;
	fx_setup(&f, *who);
	struct pty p;
	pty_open(&p, f.who);
	assert_tty_refused(&f, &p, "namespace", "workspace-write");
	assert_tty_refused(&f, &p, "namespace", "read-only");
	pty_close(&p);
}

PARAMS(tiocsti_refused_landlock)
ParameterizedTest(enum e2e_user *who, hardening, tiocsti_refused_landlock)
{
	struct fx f;
	fx_setup(&f, *who);
	struct pty p;
	pty_open(&p, f.who);
	/* The landlock runner's read rules leave out /dev/pts (issue 11): the
	 * terminal cannot be opened at all (test_sidedoors.c shows it), and the
	 * ioctls go to fd 0, where only the filter answers EPERM (the kernel
	 * would say ENOTTY). */
	struct tti t;
	assert_tty_refused(&f, &p, "landlock", "workspace-write");
	run_ttyinject(&f, &p, "landlock", "read-only", p.path, &t);
	cr_assert(t.open == EACCES,
		  "%s landlock: opening the terminal %s gave OPEN=%d, expected EACCES", f.tag,
		  p.path, t.open);
	assert_tty_refused(&f, &p, "landlock", "read-only");
	assert_tty_refused(&f, &p, NULL, "workspace-write");
	pty_close(&p);
}

#endif /* CONFIG_SECCOMP */

/* ---- a privileged copy of sbx refuses to run ---- */

static char *copy_sbx(const char *dir, const char *name)
{
	return copy_bin(e2e_sbx(), dir, name);
}

static void assert_refuses(struct fx *f, const char *bin, const char *what, const char *word)
{
	char *sentinel = e2e_fmt("%s/sentinel-%s", f->R, what);
	char *cmd = e2e_fmt("touch %s", sentinel);
	char *argv[] = {(char *)bin, "run", "--mode", "danger-full-access", "--root", f->R, "--",
			cmd, NULL};
	struct e2e_out o;
	e2e_run(f->who, argv, NULL, &o);
	cr_assert(o.status == 125, "%s %s copy of sbx: exit %d, expected 125\nstderr:\n%s", f->tag,
		  what, o.status, o.err);
	size_t lines = 0;
	const char *line = NULL;
	for (const char *s = o.err; s && *s;) {
		if (strncmp(s, "sbx: ", 5) == 0) {
			lines++;
			line = s;
		}
		const char *nl = strchr(s, '\n');
		s = nl ? nl + 1 : NULL;
	}
	cr_assert(lines == 1, "%s %s copy: expected one `sbx: ` line on stderr:\n%s", f->tag, what,
		  o.err);
	const char *end = strchr(line, '\n');
	char *l = end ? strndup(line, (size_t)(end - line)) : strdup(line);
	cr_assert(strstr(l, word) != NULL, "%s %s copy: the sbx line does not mention %s: %s",
		  f->tag, what, word, l);
	cr_assert(!e2e_exists(sentinel), "%s %s copy of sbx ran the command (%s exists)", f->tag,
		  what, sentinel);
	free(l);
	e2e_out_free(&o);
	free(cmd);
	free(sentinel);
}

/* A harness that reads stdout gets the refusal there (troubleshooting.md:
 * with --json a usage error is also a JSON object on stdout); stdout held
 * nothing before. */
static void assert_refuses_json(struct fx *f, const char *bin, const char *what,
				const char *sub)
{
	char *sentinel = e2e_fmt("%s/sentinel-json-%s-%s", f->R, what, sub);
	char *cmd = e2e_fmt("touch %s", sentinel);
	char *run_argv[] = {(char *)bin, "run", "--json", "--mode", "danger-full-access", "--root",
			    f->R, "--", cmd, NULL};
	char *probe_argv[] = {(char *)bin, "probe", "--json", NULL};
	struct e2e_out o;
	json_error_t je;

	e2e_run(f->who, strcmp(sub, "run") == 0 ? run_argv : probe_argv, NULL, &o);
	cr_assert(o.status == 125, "%s %s copy, %s --json: exit %d, expected 125\nstderr:\n%s",
		  f->tag, what, sub, o.status, o.err);
	json_t *j = json_loads(o.out, 0, &je);
	cr_assert_not_null(j, "%s %s copy, %s --json: stdout is no JSON object (%s): '%s'",
			   f->tag, what, sub, je.text, o.out);
	json_t *e = json_object_get(j, "error");
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	cr_assert(code && strcmp(code, "USAGE") == 0 && msg && strstr(msg, "setuid or setgid"),
		  "%s %s copy, %s --json: not the USAGE refusal: %s", f->tag, what, sub, o.out);
	cr_assert(strstr(o.err, "sbx: USAGE: ") != NULL, "%s %s copy, %s --json: stderr lost its line:\n%s",
		  f->tag, what, sub, o.err);
	cr_assert(!e2e_exists(sentinel), "%s %s copy of sbx ran the command", f->tag, what);
	json_decref(j);
	e2e_out_free(&o);
	free(cmd);
	free(sentinel);
}

PARAMS(privileged_copy_refuses)
ParameterizedTest(enum e2e_user *who, hardening, privileged_copy_refuses)
{
	struct fx f;
	fx_setup(&f, *who);
	char *bindir = e2e_tmpdir(AS_CALLER); /* root-owned, 0755, on /var/tmp */

	/* control: a plain copy runs, so a refusal below is about the bits */
	char *plain = copy_sbx(bindir, "sbx-plain");
	cr_assert(chmod(plain, 0755) == 0);
	char *sentinel = e2e_fmt("%s/sentinel-plain", f.R);
	char *cmd = e2e_fmt("touch %s", sentinel);
	char *argv[] = {plain, "run", "--mode", "danger-full-access", "--root", f.R, "--", cmd,
			NULL};
	struct e2e_out o;
	e2e_run(f.who, argv, NULL, &o);
	cr_assert(o.status == 0 && e2e_exists(sentinel),
		  "%s a plain copy of sbx should run: exit %d\n%s", f.tag, o.status, o.err);
	e2e_out_free(&o);

	char *suid = copy_sbx(bindir, "sbx-setuid");
	cr_assert(chown(suid, 0, 0) == 0 && chmod(suid, 04755) == 0, "chmod 4755: %s",
		  strerror(errno));
	assert_refuses(&f, suid, "setuid", "setuid");
	assert_refuses_json(&f, suid, "setuid", "run");
	assert_refuses_json(&f, suid, "setuid", "probe");

	char *sgid = copy_sbx(bindir, "sbx-setgid");
	cr_assert(chown(sgid, 0, 0) == 0 && chmod(sgid, 02755) == 0, "chmod 2755: %s",
		  strerror(errno));
	assert_refuses(&f, sgid, "setgid", "setgid");
	assert_refuses_json(&f, sgid, "setgid", "run");

	char *capped = copy_sbx(bindir, "sbx-fcaps");
	cr_assert(chmod(capped, 0755) == 0);
	char *setcap[] = {"setcap", "cap_net_raw+ep", capped, NULL};
	e2e_run(AS_CALLER, setcap, NULL, &o);
	if (o.status == 127 || strstr(o.err, "No such file") != NULL) {
		cr_log_warn("%s setcap is not installed: file-capability case skipped", f.tag);
	} else {
		cr_assert(o.status == 0, "setcap cap_net_raw+ep %s: exit %d\n%s", capped, o.status,
			  o.err);
		assert_refuses(&f, capped, "file-capability", "capabilit");
	}
	e2e_out_free(&o);
}

/* ---- no capability inside ---- */

static unsigned long long cap_field(const struct fx *f, const char *out, const char *name)
{
	size_t len = strlen(name);
	for (const char *s = out; s && *s;) {
		if (strncmp(s, name, len) == 0 && s[len] == ':')
			return strtoull(s + len + 1, NULL, 16);
		const char *nl = strchr(s, '\n');
		s = nl ? nl + 1 : NULL;
	}
	cr_assert_fail("%s no %s line in:\n%s", f->tag, name, out);
	return ~0ULL;
}

/* No capability, but a root caller's few file capabilities (CONTRACT 1). */
static void assert_no_caps(struct fx *f, const char *runner, const char *mode)
{
	struct e2e_out o;
	unsigned long long kept = e2e_caps_kept(f->who);
	run_sbx(f, runner, mode, "grep -E '^Cap(Eff|Prm|Inh|Bnd|Amb)' /proc/self/status", &o);
	cr_assert(o.status == 0, "%s %s/%s: exit %d\n%s", f->tag, mode, runner, o.status, o.err);
	const char *sets[] = {"CapEff", "CapPrm", "CapInh", "CapAmb"};
	for (size_t i = 0; i < 4; i++)
		cr_assert(cap_field(f, o.out, sets[i]) == kept,
			  "%s %s/%s: the command holds other capabilities than %llx:\n%s", f->tag,
			  mode, runner, kept, o.out);
	/* The bounding set: root (either runner) and anyone in the namespace
	 * runner's user namespace can and must reduce it; nobody under Landlock
	 * cannot change it (no CAP_SETPCAP), and holds nothing to bound anyway. */
	if (f->who == AS_CALLER || strcmp(runner, "namespace") == 0)
		cr_assert(cap_field(f, o.out, "CapBnd") == kept,
			  "%s %s/%s: the bounding set is not %llx:\n%s", f->tag, mode, runner,
			  kept, o.out);
	e2e_out_free(&o);
}

PARAMS(no_capabilities_inside)
ParameterizedTest(enum e2e_user *who, hardening, no_capabilities_inside)
{
	struct fx f;
	fx_setup(&f, *who);
	assert_no_caps(&f, "namespace", "workspace-write");
	assert_no_caps(&f, "namespace", "read-only");
	assert_no_caps(&f, "landlock", "workspace-write");
	assert_no_caps(&f, "landlock", "read-only");
}
