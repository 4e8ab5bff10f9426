/* SPDX-License-Identifier: MIT */
/* Side doors (issue 11): routes by which a confined command changed the host
 * without writing a file, each tried as a hostile command would and checked
 * from OUTSIDE (the file's mode on disk, the caller's keyrings through
 * keyctl, the victim directory, the pty's input queue, the listener's
 * accept queue), under both runners, as the caller (root) and as nobody:
 *  - setuid/setgid minting by every call that takes a mode;
 *  - the caller's session and user keyrings, by special id and by serial;
 *  - nested mounts: an overlayfs whose kernel-side cleanup empties a workdir
 *    outside the policy (landlock runner), while the namespace runner still
 *    allows nested user namespaces and the mount API in them;
 *  - the caller's terminal (a real pty), /dev/tty, new ptys;
 *  - abstract unix sockets outside the run (--net allow);
 *  - shell start-up variables and credentials in the environment.
 * Root callers' capabilities: test_root_caller.c. */
#include "common.h"
#include "runner_params.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(sidedoors, name)                                        \
	{                                                                                   \
		return cr_make_param_array(struct cp, all_params, CP_COUNT(all_params));   \
	}

struct fx {
	enum runner runner;
	enum e2e_user who;
	char *B;   /* a private base owned by who, outside the root */
	char *R;   /* the workspace root */
	char *O;   /* outside the root */
	char *tool; /* the sidedoor helper, visible to both runners */
	char tag[64];
	char id[64]; /* unique in this machine's run: pid, runner, user */
};

static void fx_setup(struct fx *f, const struct cp *p)
{
	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s]", runner_name[f->runner],
		 e2e_user_name(f->who));
	snprintf(f->id, sizeof f->id, "%d-%s-%s", (int)getpid(), runner_name[f->runner],
		 e2e_user_name(f->who));
	f->B = e2e_tmpdir(f->who);
	f->R = e2e_fmt("%s/ws", f->B);
	f->O = e2e_fmt("%s/outside", f->B);
	cr_assert(e2e_mkdir(f->who, f->R) == 0 && e2e_mkdir(f->who, f->O) == 0);
	/* Not e2e_helper's copy: it lies under /tmp, which the namespace
	 * runner covers with a private tmpfs. */
	char *bin = e2e_tmpdir(AS_CALLER);
	f->tool = e2e_fmt("%s/sidedoor", bin);
	char *argv[] = { "cp", (char *)e2e_helper("sidedoor"), f->tool, NULL };
	struct e2e_out o;
	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0 && chmod(f->tool, 0755) == 0, "cp sidedoor: %s", o.err);
	e2e_out_free(&o);
}

/* Set by a test that tries one layer alone: sbx runs under
 * `nofeature FEATURES --`, the others switched off (each test is a process
 * of its own). */
static const char *run_without;

/* sbx run --runner R --mode MODE --root ROOT [extra...] -- CMD, as f->who */
static int run_sbx(struct fx *f, const char *mode, const char *const extra[],
		   char *const env[], const char *cmd, struct e2e_out *o)
{
	char *argv[32];
	size_t n = 0;

	if (run_without) {
		argv[n++] = (char *)e2e_helper("nofeature");
		argv[n++] = (char *)run_without;
		argv[n++] = "--";
	}
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
	return e2e_run(f->who, argv, env, o);
}

/* The helper's "NAME=N" value, or -1000 if it did not print NAME. */
static int val(const char *out, const char *name)
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

#define EXPECT_VAL(f, o, name, want)                                                          \
	cr_expect(val((o)->out, name) == (want), "%s %s=%d, expected %d (%s)\nstdout:\n%s\nstderr:\n%s", \
		  (f)->tag, name, val((o)->out, name), want, strerror(want), (o)->out, (o)->err)

/* The filter's refusals (setuid bits, keyrings, user namespaces and mounts
 * under Landlock): a build without it (CONFIG_SECCOMP=n, which `sbx probe`
 * reports and docs/security.md describes) has nothing to refuse, so these
 * tests are not built there (not skipped, not counted). */
#ifdef CONFIG_SECCOMP

/* ---- 1. setuid and setgid bits ---- */

static char *special_found;

static int find_special(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	(void)ftw;
	if (st->st_mode & (S_ISUID | S_ISGID)) {
		special_found = strdup(path);
		return 1;
	}
	return 0;
}

/* The first file under dir with a setuid or setgid bit, or NULL. */
static char *special_under(const char *dir)
{
	special_found = NULL;
	nftw(dir, find_special, 16, FTW_PHYS);
	return special_found;
}

PARAMS(setuid_setgid_never_minted)
ParameterizedTest(struct cp *p, sidedoors, setuid_setgid_never_minted)
{
	struct fx f;
	fx_setup(&f, p);
	/* The attack of the issue: a copy of a program made setuid, in the
	 * workspace and (landlock runner) in the host's /tmp. */
	char *tmp_copy = e2e_fmt("/tmp/sbx-e2e-suid-%s", f.id);
	unlink(tmp_copy);
	char *cmd = e2e_fmt("cp /bin/true ./suid; chmod 4755 ./suid; chmod u+s,g+s ./suid; "
			    "install -m 6755 /bin/true ./installed; "
			    "cp /bin/true %s; chmod 4755 %s; "
			    "cp /bin/true ./calls; %s chmod ./calls; %s create ./new; %s mknod ./node",
			    tmp_copy, tmp_copy, f.tool, f.tool, f.tool);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", NULL, NULL, cmd, &o);
	struct stat st;
	bool tmp_special = stat(tmp_copy, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID));
	unlink(tmp_copy);
	char *found = special_under(f.R);
	cr_assert(found == NULL, "%s a setuid/setgid file was minted in the workspace: %s\n%s\n%s",
		  f.tag, found, o.out, o.err);
	cr_assert(!tmp_special, "%s a setuid copy was minted in the host's /tmp: %s", f.tag,
		  tmp_copy);
	/* Every route says EPERM (openat2 and io_uring ENOSYS: callers fall
	 * back to calls the filter reads), and a plain chmod still works. */
	const char *eperm[] = { "CHMOD", "FCHMOD", "FCHMODAT", "FCHMODAT2", "CHMOD_SGID",
				"OPEN_SUID", "OPENAT_SUID", "OPENAT_SGID", "CREAT_SUID",
				"TMPFILE_SUID", "MKDIR_SGID", "SUID" };
	for (size_t i = 0; i < sizeof eperm / sizeof eperm[0]; i++)
		EXPECT_VAL(&f, &o, eperm[i], EPERM);
	EXPECT_VAL(&f, &o, "OPENAT2", ENOSYS);
	EXPECT_VAL(&f, &o, "URING", ENOSYS);
	EXPECT_VAL(&f, &o, "CHMOD_PLAIN", 0);
	/* No device node either (no CAP_MKNOD, whoever calls). */
	EXPECT_VAL(&f, &o, "CHR", EPERM);
	cr_assert(e2e_exists(e2e_fmt("%s/suid", f.R)), "%s the copy itself was refused:\n%s", f.tag,
		  o.err);
	e2e_out_free(&o);

	/* A setuid file already in the workspace (an install tree, a rootfs):
	 * rewriting it must clear the bit, as the kernel does for a writer
	 * without CAP_FSETID. A root caller keeps no CAP_FSETID. */
	char *old = e2e_fmt("%s/prebuilt-suid", f.R);
	char *cp_argv[] = { "cp", "/bin/true", old, NULL };
	e2e_run(AS_CALLER, cp_argv, NULL, &o);
	e2e_out_free(&o);
	cr_assert(chown(old, e2e_uid(f.who), e2e_gid(f.who)) == 0 && chmod(old, 04755) == 0);
	run_sbx(&f, "workspace-write", NULL, NULL, "cat /bin/true > prebuilt-suid && echo WROTE", &o);
	cr_assert(strstr(o.out, "WROTE"), "%s could not rewrite its own file: %s", f.tag, o.err);
	cr_assert(stat(old, &st) == 0 && !(st.st_mode & S_ISUID),
		  "%s rewriting a setuid file kept the bit (mode %o): a setuid program minted "
		  "without chmod", f.tag, st.st_mode & 07777);
	e2e_out_free(&o);
}

/* The errno filter alone: the supervisor (whose notify filter also answers
 * io_uring_setup and sees chmod first under the landlock runner) switched
 * off, as on a kernel before 5.0. */
PARAMS(setuid_refused_without_supervisor)
ParameterizedTest(struct cp *p, sidedoors, setuid_refused_without_supervisor)
{
	struct fx f;
	fx_setup(&f, p);
	run_without = "user_notif";
	char *cmd = e2e_fmt("cp /bin/true ./calls; %s chmod ./calls; %s create ./new", f.tool, f.tool);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", NULL, NULL, cmd, &o);
	char *found = special_under(f.R);
	cr_assert(found == NULL, "%s a setuid/setgid file was minted in the workspace: %s\n%s\n%s",
		  f.tag, found, o.out, o.err);
	const char *eperm[] = { "CHMOD", "FCHMOD", "FCHMODAT", "FCHMODAT2", "OPEN_SUID",
				"OPENAT_SUID", "CREAT_SUID", "MKDIR_SGID" };
	for (size_t i = 0; i < sizeof eperm / sizeof eperm[0]; i++)
		EXPECT_VAL(&f, &o, eperm[i], EPERM);
	EXPECT_VAL(&f, &o, "OPENAT2", ENOSYS);
	EXPECT_VAL(&f, &o, "URING", ENOSYS);
	e2e_out_free(&o);
}

/* ---- 2. keyrings ---- */

PARAMS(keyrings_of_the_caller_untouched)
ParameterizedTest(struct cp *p, sidedoors, keyrings_of_the_caller_untouched)
{
	struct fx f;
	fx_setup(&f, p);
	char *inside = e2e_fmt("%s/inside.txt", f.B);
	/* A real session keyring and a real key in the user keyring, made by
	 * the caller; the run is started from that session. Afterwards the
	 * keys are read back with keyctl, from outside. Names carry f.id:
	 * root's user keyring is shared by every test on this machine. */
	char *script = e2e_fmt(
		"keyctl session - bash -c '\n"
		"keyctl link @u @s >/dev/null || exit 89\n" /* as a login session has it */
		"s=$(keyctl add user sbx-e2e-ses-%1$s SECRET-S-%1$s @s) || exit 90\n"
		"u=$(keyctl add user sbx-e2e-u-%1$s SECRET-U-%1$s @u) || exit 91\n"
		"ur=$(keyctl show @u | awk \"NR==2 {print \\$1}\")\n"
		"%2$s run --runner %3$s --mode read-only --root %4$s -- \""
		"keyctl print $s; keyctl print $u; keyctl print %%user:sbx-e2e-ses-%1$s; "
		"keyctl update $s PWNED; keyctl add user sbx-planted-user-%1$s x @u; "
		"keyctl link $ur @s && keyctl print $u; %5$s keyring $ur %1$s\" >%6$s 2>&1\n"
		"echo \"S=$(keyctl print $s)\"\n"
		"echo \"U=$(keyctl print $u)\"\n"
		"for n in sbx-planted-user-%1$s sbx-planted-serial-%1$s; do\n"
		"  if k=$(keyctl search @u user $n 2>/dev/null); then echo PLANTED=$n; keyctl unlink $k @u; fi\n"
		"done\n"
		"keyctl unlink $u @u >/dev/null\n'\n",
		f.id, e2e_sbx(), runner_name[f.runner], f.R, f.tool, inside);
	char *argv[] = { "bash", "-c", script, NULL };
	struct e2e_out o;
	e2e_run(f.who, argv, NULL, &o);
	cr_assert(o.status == 0, "%s keyring script: exit %d\n%s\n%s", f.tag, o.status, o.out, o.err);
	char *in = e2e_read_file(inside);
	cr_assert_not_null(in);
	char *sec_s = e2e_fmt("SECRET-S-%s", f.id), *sec_u = e2e_fmt("SECRET-U-%s", f.id);
	cr_assert(!strstr(in, sec_s), "%s the command read the caller's session key:\n%s", f.tag, in);
	cr_assert(!strstr(in, sec_u), "%s the command read the caller's user key:\n%s", f.tag, in);
	char *want_s = e2e_fmt("S=%s\n", sec_s), *want_u = e2e_fmt("U=%s\n", sec_u);
	cr_assert(strstr(o.out, want_s), "%s the session key changed:\n%s\ninside:\n%s", f.tag, o.out,
		  in);
	cr_assert(strstr(o.out, want_u), "%s the user key changed:\n%s\ninside:\n%s", f.tag, o.out, in);
	cr_assert(!strstr(o.out, "PLANTED="), "%s a key was planted in the caller's user keyring:\n%s"
		  "\ninside:\n%s", f.tag, o.out, in);
	/* By serial too (read from /proc/keys or keyctl show): refused. */
	struct e2e_out ins = { .out = in, .err = "" };
	EXPECT_VAL(&f, &ins, "LINK", EPERM);
	EXPECT_VAL(&f, &ins, "ADD_SERIAL", EPERM);
	EXPECT_VAL(&f, &ins, "ADD_USER", EPERM);
	e2e_out_free(&o);
}

/* ---- 3. nested mounts ---- */

PARAMS(nested_mounts)
ParameterizedTest(struct cp *p, sidedoors, nested_mounts)
{
	struct fx f;
	fx_setup(&f, p);
	/* The victim: a directory outside the policy with a work/ entry, and
	 * an upper and lower dir on the same file system. */
	char *victim = e2e_fmt("%s/victim", f.O), *work = e2e_fmt("%s/work", victim);
	char *precious = e2e_fmt("%s/precious", work);
	char *up = e2e_fmt("%s/up", f.O), *low = e2e_fmt("%s/low", f.O);
	cr_assert(e2e_mkdir(f.who, victim) == 0 && e2e_mkdir(f.who, work) == 0 &&
		  e2e_mkdir(f.who, up) == 0 && e2e_mkdir(f.who, low) == 0);
	cr_assert(e2e_write_file(f.who, precious, "precious\n") == 0);
	char *cmd = e2e_fmt("%s overlay %s %s %s", f.tool, victim, up, low);
	struct e2e_out o;
	run_sbx(&f, "read-only", NULL, NULL, cmd, &o);
	struct stat st;
	cr_assert(e2e_exists(precious), "%s the kernel's overlay cleanup deleted %s\n%s", f.tag,
		  precious, o.out);
	cr_assert(stat(work, &st) == 0 && (st.st_mode & 07777) == 0755,
		  "%s the overlay changed %s (mode %o)\n%s", f.tag, work, st.st_mode & 07777, o.out);
	cr_assert(!e2e_exists(e2e_fmt("%s/index", victim)), "%s overlay made %s/index", f.tag, victim);
	e2e_out_free(&o);

	/* New user namespaces: refused under Landlock and to a root caller
	 * (who could not map root in one: seccomp_rules.c); the namespace
	 * runner keeps them for everyone else (nested sandboxes). */
	char *mnt = e2e_fmt("%s/m", f.R);
	cr_assert(e2e_mkdir(f.who, mnt) == 0);
	char *nested = e2e_fmt("%s userns; %s overlay %s/v %s/u %s/l; "
			       "unshare -Um --propagation unchanged mount -t tmpfs none %s",
			       f.tool, f.tool, f.R, f.R, f.R, mnt);
	run_sbx(&f, "workspace-write", NULL, NULL, nested, &o);
	bool landlock = f.runner == LANDLOCK;
	bool refused = landlock || e2e_uid(f.who) == 0;
	EXPECT_VAL(&f, &o, "UNSHARE", refused ? EPERM : 0);
	EXPECT_VAL(&f, &o, "CLONE", refused ? EPERM : 0);
	EXPECT_VAL(&f, &o, "CLONE3", refused ? ENOSYS : 0);
	EXPECT_VAL(&f, &o, "SETNS", refused ? EPERM : EINVAL);
	/* The namespace runner's filter leaves the mount API alone (its
	 * binds are locked); mount(2) itself is refused there by Landlock's
	 * own rule for sandboxed processes, in either runner. */
	if (!refused)
		EXPECT_VAL(&f, &o, "FSOPEN", 0);
	/* The host saw nothing: no mount there, nothing written into it. */
	char *mountinfo = e2e_read_file("/proc/self/mountinfo");
	char *needle = e2e_fmt(" %s ", mnt);
	cr_assert(!strstr(mountinfo, needle), "%s the host sees a mount on %s", f.tag, mnt);
	e2e_out_free(&o);
}

#endif /* CONFIG_SECCOMP */

/* ---- 2b. the fresh session keyring, in every build ---- */

/* The fresh session keyring on its own, without the filter's refusal of
 * keyctl (a CONFIG_SECCOMP=n build has only this layer; the default build
 * runs it too). The kernel says which keys a process possesses without any
 * keyctl: /proc/keys lists a key whose permissions grant view to its
 * possessor alone only to a process that possesses it, through its session
 * keyring. The caller's session holds such a key (and reads it back from
 * outside afterwards); the command must neither list it nor read it. */
PARAMS(keyrings_session_is_fresh)
ParameterizedTest(struct cp *p, sidedoors, keyrings_session_is_fresh)
{
	struct fx f;
	fx_setup(&f, p);
	char *inside = e2e_fmt("%s/inside.txt", f.B);
	char *script = e2e_fmt(
		"keyctl session - bash -c '\n"
		"s=$(keyctl add user sbx-e2e-poss-%1$s SECRET-P-%1$s @s) || exit 90\n"
		"keyctl setperm $s 0x3f000000 || exit 91\n" /* possessor: all; anyone else: nothing */
		"grep -q sbx-e2e-poss-%1$s /proc/keys || exit 92\n" /* the caller possesses it */
		"%2$s run --runner %3$s --mode read-only --root %4$s -- \""
		"echo RAN; grep sbx-e2e-poss /proc/keys; keyctl print $s\" >%5$s 2>&1\n"
		"echo \"S=$(keyctl print $s)\"\n'\n",
		f.id, e2e_sbx(), runner_name[f.runner], f.R, inside);
	char *argv[] = { "bash", "-c", script, NULL };
	struct e2e_out o;
	e2e_run(f.who, argv, NULL, &o);
	cr_assert(o.status == 0, "%s keyring script: exit %d\n%s\n%s", f.tag, o.status, o.out, o.err);
	char *in = e2e_read_file(inside);
	cr_assert(in && strstr(in, "RAN"), "%s the command did not run:\n%s", f.tag, in);
	char *name = e2e_fmt("sbx-e2e-poss-%s", f.id), *secret = e2e_fmt("SECRET-P-%s", f.id);
	cr_assert(!strstr(in, name), "%s the command possesses the caller's session key (no "
		  "fresh session keyring):\n%s", f.tag, in);
	cr_assert(!strstr(in, secret), "%s the command read the caller's session key:\n%s", f.tag, in);
	char *want = e2e_fmt("S=%s\n", secret);
	cr_assert(strstr(o.out, want), "%s the session key changed:\n%s", f.tag, o.out);
	e2e_out_free(&o);
}

/* ---- 4. the caller's terminal ---- */

/* A real pty as the caller's terminal, owned by the user as login makes it
 * (0620), raw: master m, slave s, the slave's name in path[64]. */
static void callers_pty(const struct fx *f, int *m, int *s, char *path)
{
	struct termios t;

	*m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(*m >= 0 && grantpt(*m) == 0 && unlockpt(*m) == 0);
	snprintf(path, 64, "%s", ptsname(*m));
	*s = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(*s >= 0, "open %s: %s", path, strerror(errno));
	cr_assert(fchown(*s, e2e_uid(f->who), e2e_gid(f->who)) == 0 && fchmod(*s, 0620) == 0);
	cr_assert(tcgetattr(*s, &t) == 0);
	cfmakeraw(&t);
	cr_assert(tcsetattr(*s, TCSANOW, &t) == 0);
}

PARAMS(callers_terminal_unreachable)
ParameterizedTest(struct cp *p, sidedoors, callers_terminal_unreachable)
{
	struct fx f;
	fx_setup(&f, p);
	/* A real pty: the test is the user's terminal emulator and has
	 * "typed" a line the command must not read. */
	int m, s;
	char path[64];
	callers_pty(&f, &m, &s, path);
	const char typed[] = "typed-secret\n";
	cr_assert(write(m, typed, strlen(typed)) == (ssize_t)strlen(typed));

	char *cmd = e2e_fmt("%s tty %s", f.tool, path);
	struct e2e_out o;
	run_sbx(&f, "read-only", NULL, NULL, cmd, &o);
	int pending = -1;
	cr_assert(ioctl(s, FIONREAD, &pending) == 0);
	cr_assert(!strstr(o.out, "typed-secret"), "%s the command read the caller's terminal:\n%s",
		  f.tag, o.out);
	cr_assert(pending == (int)strlen(typed),
		  "%s %d bytes left in the terminal's input queue, expected %zu (the command "
		  "consumed what the user typed)\n%s", f.tag, pending, strlen(typed), o.out);
	/* -1000: no OPEN line at all (the run itself failed: say how) */
	cr_assert(val(o.out, "OPEN") != -1000, "%s the tool said nothing:\n%s\n%s", f.tag, o.out,
		  o.err);
	cr_assert(val(o.out, "OPEN") != 0, "%s the caller's terminal %s could be opened:\n%s", f.tag,
		  path, o.out);
	if (f.runner == LANDLOCK) {
		/* Refused by the read rules, not merely absent. */
		EXPECT_VAL(&f, &o, "OPEN", EACCES);
		/* No controlling terminal: the truth, not EACCES. */
		EXPECT_VAL(&f, &o, "TTY", ENXIO);
		/* New ptys: the master opens; the slave by the name its
		 * number gives (a pty of the run's pool was swapped in when
		 * the number was asked: supervisor_ptypool.c), through
		 * TIOCGPTPEER (the supervisor opens it from the command's own
		 * master) and as the new controlling terminal. */
		EXPECT_VAL(&f, &o, "PTMX", 0);
		EXPECT_VAL(&f, &o, "SLAVE", 0);
		EXPECT_VAL(&f, &o, "PEER", 0);
		EXPECT_VAL(&f, &o, "CTTY", 0);
		EXPECT_VAL(&f, &o, "TTY2", 0);
		EXPECT_VAL(&f, &o, "ROUNDTRIP", 0);
	} else {
		cr_expect(val(o.out, "TTY") != EACCES, "%s /dev/tty said EACCES:\n%s", f.tag, o.out);
	}
	e2e_out_free(&o);

	/* With every pty of the landlock runner's pool taken (each opened by
	 * the name ptsname gave, as expect does; the namespace runner's devpts
	 * has no pool and no limit), the caller's terminal is still refused,
	 * by name for reading and for writing, and TIOCSTI on a pool pty's
	 * slave is refused by the filter: the pool's rules name their own
	 * slaves, nothing else of /dev/pts. Under the namespace runner the
	 * name is one of the run's own ptys, if any: the effect is checked
	 * from outside, the typed line still waiting, nothing written. */
	const char *pool_py =
		"import fcntl, os, struct, sys\n"
		"def rep(name, f):\n"
		"    try:\n"
		"        r = f(); print('%s=0' % name); return r\n"
		"    except OSError as e:\n"
		"        print('%s=%d' % (name, e.errno))\n"
		"slaves = []\n"
		"for i in range(6):\n"
		"    m = os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)\n"
		"    n = struct.unpack('I', fcntl.ioctl(m, 0x80045430, b'\\0' * 4))[0]\n"
		"    fcntl.ioctl(m, 0x40045431, b'\\0' * 4)\n"
		"    try:\n"
		"        slaves.append((m, os.open('/dev/pts/%d' % n, os.O_RDWR | os.O_NOCTTY)))\n"
		"    except OSError:\n"
		"        pass\n"
		"print('POOL=%d' % len(slaves))\n"
		"r = rep('OPEN_R', lambda: os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK))\n"
		"if r is not None:\n"
		"    try:\n"
		"        print('GOT=%r' % os.read(r, 100))\n"
		"    except OSError:\n"
		"        pass\n"
		"w = rep('OPEN_W', lambda: os.open(sys.argv[1], os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK))\n"
		"if w is not None:\n"
		"    rep('WRITE', lambda: os.write(w, b'injected\\n'))\n"
		"rep('STI', lambda: fcntl.ioctl(slaves[0][1], 0x5412, b'x'))\n";
	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/pool.py", f.R), pool_py) == 0);
	run_sbx(&f, "read-only", NULL, NULL, e2e_fmt("python3 pool.py %s", path), &o);
	cr_assert(ioctl(s, FIONREAD, &pending) == 0);
	cr_assert(!strstr(o.out, "typed-secret"), "%s the command read the caller's terminal:\n%s",
		  f.tag, o.out);
	cr_assert(pending == (int)strlen(typed),
		  "%s %d bytes left in the terminal's input queue after the pool was taken, "
		  "expected %zu\n%s%s", f.tag, pending, strlen(typed), o.out, o.err);
	{
		struct pollfd pm = { .fd = m, .events = POLLIN };

		cr_assert_eq(poll(&pm, 1, 0), 0, "%s something reached the caller's terminal:\n%s",
			     f.tag, o.out);
	}
	EXPECT_VAL(&f, &o, "POOL", f.runner == LANDLOCK ? 4 : 6);
#ifdef CONFIG_SECCOMP
	EXPECT_VAL(&f, &o, "STI", EPERM);
#endif
	if (f.runner == LANDLOCK) {
		EXPECT_VAL(&f, &o, "OPEN_R", EACCES);
		EXPECT_VAL(&f, &o, "OPEN_W", EACCES);
	}
	e2e_out_free(&o);

	/* What a command needs from /dev still works, in both modes. */
	const char *needs = "head -c1 /dev/zero | wc -c; head -c1 /dev/urandom | wc -c; "
			    "head -c1 /dev/random | wc -c; cat /dev/null; echo x > /dev/null; "
			    "echo out > /dev/stdout; echo err > /dev/stderr; ls /dev/fd/ >/dev/null; "
			    "ls / >/dev/null && echo LISTED";
	run_sbx(&f, "read-only", NULL, NULL, needs, &o);
	cr_assert(o.status == 0 && strcmp(o.out, "1\n1\n1\nout\nLISTED\n") == 0 &&
			  strcmp(o.err, "err\n") == 0,
		  "%s /dev basics: exit %d\nstdout:\n%s\nstderr:\n%s", f.tag, o.status, o.out, o.err);
	e2e_out_free(&o);
	close(s);
	close(m);
}

#ifdef CONFIG_SUPERVISOR
/* Watching the caller's terminal: Landlock refuses opening it, but not an
 * inotify or fanotify watch, and each event tells when the user typed or
 * the shell printed. The test is the terminal emulator and its user: a
 * child types and echoes every few ms while the command runs. A watch of
 * the test's own on the slave shows, from outside, that there was activity
 * to see. Under the landlock runner the supervisor places watches and
 * refuses a device node or a devpts directory, by name, through a symlink,
 * through an O_PATH fd's /proc link, and through a name another thread
 * flips to the terminal meanwhile; the namespace runner's /dev/pts is its
 * own. The same for a credential file in a hidden directory (deny_read),
 * which the typist reads meanwhile: Landlock keeps its contents, the
 * supervisor its use. A watch of the command's own file still works. */
PARAMS(callers_terminal_unwatchable)
ParameterizedTest(struct cp *p, sidedoors, callers_terminal_unwatchable, .timeout = 120)
{
	struct fx f;
	fx_setup(&f, p);
	int m, s;
	char path[64];
	callers_pty(&f, &m, &s, path);
	int control = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(control >= 0 && inotify_add_watch(control, path, IN_ACCESS | IN_MODIFY) >= 0);
	char *secret_dir = e2e_fmt("%s/secrets", f.B);
	char *secret = e2e_fmt("%s/token", secret_dir);
	cr_assert(e2e_mkdir(f.who, secret_dir) == 0 && e2e_write_file(f.who, secret, "s3cret\n") == 0);
	cr_assert(inotify_add_watch(control, secret, IN_ACCESS) >= 0);
	char *conf = e2e_fmt("%s/watch.conf", f.B);
	cr_assert(e2e_write_file(f.who, conf, e2e_fmt("deny_read = %s\n", secret_dir)) == 0);
	const char *extra[] = { "--config", conf, NULL };

	pid_t typist = fork();
	cr_assert(typist >= 0);
	if (typist == 0) {
		char c;
		for (;;) {
			char got[16];
			int sf = open(secret, O_RDONLY | O_CLOEXEC);
			if (write(m, "k", 1) != 1 || read(s, &c, 1) != 1 || write(s, "o", 1) != 1 ||
			    read(m, &c, 1) != 1 || sf < 0 || read(sf, got, sizeof got) <= 0)
				_exit(1);
			close(sf);
			usleep(5000);
		}
	}
	char *cmd = e2e_fmt("%s watch %s %s %s", f.tool, path, f.R, secret);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", extra, NULL, cmd, &o);
	kill(typist, SIGKILL);
	waitpid(typist, NULL, 0);
	char buf[4096] __attribute__((aligned(8)));
	cr_assert(read(control, buf, sizeof buf) > 0,
		  "%s nothing happened on the terminal while the command ran", f.tag);

	cr_assert(strstr(o.out, "RACE_EVENTS="), "%s the helper did not finish:\n%s\n%s", f.tag,
		  o.out, o.err);
	cr_assert(val(o.out, "TTY_EVENTS") == 0 && val(o.out, "FAN_EVENTS") == 0 &&
			  val(o.out, "RACE_EVENTS") == 0,
		  "%s the command watched the caller's terminal:\n%s", f.tag, o.out);
	cr_assert(val(o.out, "SECRET_EVENTS") == 0,
		  "%s the command watched a file in a hidden directory:\n%s", f.tag, o.out);
	cr_assert(val(o.out, "OWN_EVENTS") >= 1, "%s a watch of its own file saw nothing:\n%s",
		  f.tag, o.out);
	EXPECT_VAL(&f, &o, "IN_NOFOLLOW", 0);
	/* The kernel's answers, checked before the path is looked up. */
	EXPECT_VAL(&f, &o, "IN_MASK0", EINVAL);
	EXPECT_VAL(&f, &o, "IN_NOTINO", EINVAL);
	if (val(o.out, "FAN_INIT") == 0)
		EXPECT_VAL(&f, &o, "FAN_CWD", EBADF);
	cr_expect(val(o.out, "RACE_ADDED") > 0, "%s no watch through the flipping name:\n%s",
		  f.tag, o.out);
	if (f.runner == LANDLOCK) {
		EXPECT_VAL(&f, &o, "IN_TTY", EACCES);
		EXPECT_VAL(&f, &o, "IN_PTS", EACCES);
		EXPECT_VAL(&f, &o, "IN_LINK", EACCES);
		EXPECT_VAL(&f, &o, "OPATH", 0);
		EXPECT_VAL(&f, &o, "IN_OPATH", EACCES);
		EXPECT_VAL(&f, &o, "IN_SECRET", EACCES);
		EXPECT_VAL(&f, &o, "IN_SECRET_DIR", EACCES);
		if (val(o.out, "FAN_INIT") == 0) {
			EXPECT_VAL(&f, &o, "FAN_TTY", EACCES);
			/* as the kernel says for an O_PATH fd there */
			EXPECT_VAL(&f, &o, "FAN_OPATH", EBADF);
		}
	} else {
		EXPECT_VAL(&f, &o, "IN_TTY", ENOENT);
		EXPECT_VAL(&f, &o, "IN_SECRET", ENOENT); /* an empty directory there */
	}
	e2e_out_free(&o);
	close(control);
	close(s);
	close(m);
}

/* Events named name waiting on an inotify fd. */
static int named_events(int fd, const char *name)
{
	char buf[8192] __attribute__((aligned(8)));
	int n = 0;
	ssize_t r;

	while ((r = read(fd, buf, sizeof buf)) > 0)
		for (char *q = buf; q < buf + r;) {
			struct inotify_event *e = (struct inotify_event *)q;
			n += e->len && strcmp(e->name, name) == 0;
			q += sizeof(*e) + e->len;
		}
	return n;
}

/* A watch on the host's /dev sees every open and close of /dev/tty there,
 * by any process of the host: a password prompt (sudo, ssh, pinentry)
 * opens it when it starts and closes it once the user typed the password;
 * so of the consoles (/dev/ttyN, /dev/console). The landlock runner refuses
 * a watch on a directory of the host's /dev, as on a devpts one; the
 * namespace runner's /dev is its own. */
PARAMS(host_dev_dir_unwatchable)
ParameterizedTest(struct cp *p, sidedoors, host_dev_dir_unwatchable, .timeout = 120)
{
	struct fx f;
	fx_setup(&f, p);
	int m, s;
	char path[64];
	callers_pty(&f, &m, &s, path);
	int control = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(control >= 0 && inotify_add_watch(control, "/dev", IN_OPEN) >= 0);

	pid_t prompt = fork();
	cr_assert(prompt >= 0);
	if (prompt == 0) {
		/* The pty becomes its controlling terminal; it prompts again
		 * and again. */
		if (setsid() < 0 || open(path, O_RDWR) < 0)
			_exit(1);
		for (;;) {
			int fd = open("/dev/tty", O_RDWR);
			if (fd < 0)
				_exit(1);
			close(fd);
			usleep(10000);
		}
	}
	char *cmd = e2e_fmt("%s watchdir /dev tty", f.tool);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", NULL, NULL, cmd, &o);
	kill(prompt, SIGKILL);
	waitpid(prompt, NULL, 0);
	cr_assert(named_events(control, "tty") > 0, "%s /dev/tty was not opened while the command ran",
		  f.tag);

	cr_assert(strstr(o.out, "NAME_EVENTS="), "%s the helper did not finish:\n%s\n%s", f.tag,
		  o.out, o.err);
	cr_assert(val(o.out, "NAME_EVENTS") == 0, "%s the command saw /dev/tty opened:\n%s", f.tag,
		  o.out);
	if (f.runner == LANDLOCK)
		EXPECT_VAL(&f, &o, "IN_DIR", EACCES);
	e2e_out_free(&o);
	close(control);
	close(s);
	close(m);
}

/* A hidden file's folder (~ for ~/.netrc): a watch there would name the
 * file each time it is used, while its contents stay unreadable. The user
 * reads the file meanwhile (an inotify watch of the test's own shows it from
 * outside); the command's watch on the folder is refused and sees nothing.
 * Named in deny_read explicitly, so the test does not hang on the default
 * list. */
PARAMS(hidden_file_folder_unwatchable)
ParameterizedTest(struct cp *p, sidedoors, hidden_file_folder_unwatchable, .timeout = 120)
{
	struct fx f;
	fx_setup(&f, p);
	char *home = e2e_fmt("%s/home", f.B), *netrc = e2e_fmt("%s/.netrc", home);
	cr_assert(e2e_mkdir(f.who, home) == 0 && e2e_write_file(f.who, netrc, "machine x\n") == 0);
	char *conf = e2e_fmt("%s/hidden.conf", f.B);
	cr_assert(e2e_write_file(f.who, conf, e2e_fmt("deny_read = %s\n", netrc)) == 0);
	const char *extra[] = { "--config", conf, NULL };
	int control = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(control >= 0 && inotify_add_watch(control, home, IN_OPEN | IN_ACCESS) >= 0);

	pid_t user = fork();
	cr_assert(user >= 0);
	if (user == 0) {
		for (;;) {
			char got[16];
			int fd = open(netrc, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || read(fd, got, sizeof got) <= 0)
				_exit(1);
			close(fd);
			usleep(10000);
		}
	}
	char *cmd = e2e_fmt("%s watchdir %s .netrc", f.tool, home);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", extra, NULL, cmd, &o);
	kill(user, SIGKILL);
	waitpid(user, NULL, 0);
	cr_assert(named_events(control, ".netrc") > 0, "%s .netrc was not used while the command ran",
		  f.tag);
	cr_assert(strstr(o.out, "NAME_EVENTS="), "%s the helper did not finish:\n%s\n%s", f.tag,
		  o.out, o.err);
	cr_assert(val(o.out, "NAME_EVENTS") == 0, "%s the command saw the hidden .netrc used:\n%s",
		  f.tag, o.out);
	EXPECT_VAL(&f, &o, "IN_DIR", EACCES);
	e2e_out_free(&o);
	close(control);
}

/* dnotify is a watch too: on /dev/pts it would say when each of the host's
 * ptys is made and removed (and, on a kernel that reports a device's reads
 * and writes to its directory, each keystroke). The landlock runner's
 * seccomp rules refuse it (a build without them, CONFIG_SECCOMP=n, does not:
 * `sbx probe` says what such a build lacks); the namespace runner's
 * /dev/pts is its own and sees nothing. */
#ifdef CONFIG_SECCOMP
PARAMS(host_ptys_undnotifiable)
ParameterizedTest(struct cp *p, sidedoors, host_ptys_undnotifiable, .timeout = 120)
{
	struct fx f;
	fx_setup(&f, p);
	int control = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(control >= 0 && inotify_add_watch(control, "/dev/pts", IN_CREATE) >= 0);

	pid_t maker = fork();
	cr_assert(maker >= 0);
	if (maker == 0) {
		/* the user opens terminals (ssh sessions, tmux panes) */
		for (;;) {
			int m = posix_openpt(O_RDWR | O_NOCTTY);
			if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0)
				_exit(1);
			int s = open(ptsname(m), O_RDWR | O_NOCTTY);
			if (s >= 0)
				close(s);
			close(m);
			usleep(20000);
		}
	}
	char *cmd = e2e_fmt("%s dnotify /dev/pts", f.tool);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", NULL, NULL, cmd, &o);
	kill(maker, SIGKILL);
	waitpid(maker, NULL, 0);
	char buf[4096] __attribute__((aligned(8)));
	cr_assert(read(control, buf, sizeof buf) > 0,
		  "%s no pty was made on the host while the command ran", f.tag);

	cr_assert(strstr(o.out, "DN_EVENTS="), "%s the helper did not finish:\n%s\n%s", f.tag,
		  o.out, o.err);
	cr_assert(val(o.out, "DN_EVENTS") == 0, "%s the command saw the host's ptys come and go:\n%s",
		  f.tag, o.out);
	if (f.runner == LANDLOCK)
		EXPECT_VAL(&f, &o, "DNOTIFY", EPERM);
	e2e_out_free(&o);
	close(control);
}
#endif /* CONFIG_SECCOMP */

/* /dev/tty is one inode for every process of the host: a program that reads
 * keys from its controlling terminal through that name (a password prompt,
 * a pager, fzf) reports each read to a watch on it. The namespace runner
 * binds the host's /dev/tty into its own /dev, so it must refuse the watch
 * as the landlock runner does; neither may see a keystroke. */
PARAMS(host_dev_tty_unwatchable)
ParameterizedTest(struct cp *p, sidedoors, host_dev_tty_unwatchable, .timeout = 120)
{
	struct fx f;
	fx_setup(&f, p);
	int m, s;
	char path[64];
	callers_pty(&f, &m, &s, path);
	int control = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(control >= 0 && inotify_add_watch(control, "/dev/tty", IN_ACCESS) >= 0);

	pid_t reader = fork();
	cr_assert(reader >= 0);
	if (reader == 0) {
		char c;
		int t, fd;
		/* The pty becomes its controlling terminal, read as /dev/tty. */
		if (setsid() < 0 || (t = open(path, O_RDWR)) < 0 || (fd = open("/dev/tty", O_RDONLY)) < 0)
			_exit(1);
		while (read(fd, &c, 1) == 1)
			;
		_exit(0);
	}
	pid_t typist = fork();
	cr_assert(typist >= 0);
	if (typist == 0) {
		for (;;) {
			if (write(m, "k", 1) != 1)
				_exit(1);
			usleep(5000);
		}
	}
	char *cmd = e2e_fmt("%s watchdev /dev/tty", f.tool);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", NULL, NULL, cmd, &o);
	kill(typist, SIGKILL);
	kill(reader, SIGKILL);
	waitpid(typist, NULL, 0);
	waitpid(reader, NULL, 0);
	char buf[4096] __attribute__((aligned(8)));
	cr_assert(read(control, buf, sizeof buf) > 0,
		  "%s nothing was read through /dev/tty while the command ran", f.tag);

	cr_assert(strstr(o.out, "DEV_EVENTS="), "%s the helper did not finish:\n%s\n%s", f.tag,
		  o.out, o.err);
	cr_assert(val(o.out, "DEV_EVENTS") == 0, "%s the command watched /dev/tty:\n%s", f.tag,
		  o.out);
	EXPECT_VAL(&f, &o, "IN_DEV", EACCES);
	if (val(o.out, "FAN_INIT") == 0)
		EXPECT_VAL(&f, &o, "FAN_DEV", EACCES);
	e2e_out_free(&o);
	close(control);
	close(s);
	close(m);
}
#endif

/* Every other device: consoles and virtual terminals (what is typed there),
 * the kernel log, block devices. Landlock refuses them (EACCES); the
 * namespace runner's /dev does not have them. */
PARAMS(devices_outside_the_list)
ParameterizedTest(struct cp *p, sidedoors, devices_outside_the_list)
{
	struct fx f;
	fx_setup(&f, p);
	const char *candidates[] = { "/dev/console", "/dev/tty0", "/dev/tty1", "/dev/ttyS0",
				     "/dev/kmsg", "/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1" };
	char *cmd = e2e_fmt("%s open", f.tool);
	size_t n = 0;
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
		if (e2e_exists(candidates[i])) {
			cmd = e2e_fmt("%s %s", cmd, candidates[i]);
			n++;
		}
	cr_assert(n >= 2, "this machine has too few of the usual device nodes");
	struct e2e_out o;
	run_sbx(&f, "read-only", NULL, NULL, cmd, &o);
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		if (!e2e_exists(candidates[i]))
			continue;
		int got = val(o.out, candidates[i]);
		if (f.runner == LANDLOCK)
			EXPECT_VAL(&f, &o, candidates[i], EACCES);
		else
			cr_expect(got != 0 && got != -1000, "%s %s could be opened (%d)\n%s", f.tag,
				  candidates[i], got, o.out);
	}
	e2e_out_free(&o);
}

/* ---- 5. abstract unix sockets ---- */

static void abstract_sockets(const struct cp *p);

PARAMS(abstract_sockets_outside_the_run)
ParameterizedTest(struct cp *p, sidedoors, abstract_sockets_outside_the_run)
{
	abstract_sockets(p);
}

/* Landlock's scope alone: the supervisor, which refuses first, switched off
 * (a kernel before 5.0 as nofeature makes it), so the refusal must be the
 * scope's EPERM. */
PARAMS(abstract_sockets_scoped_without_supervisor)
ParameterizedTest(struct cp *p, sidedoors, abstract_sockets_scoped_without_supervisor)
{
	run_without = "user_notif";
	abstract_sockets(p);
}

/* The supervisor alone: Landlock's scopes switched off (ABI 5 has none), so
 * the refusal must be the supervisor's EACCES. */
static const char *abstract_abi;

PARAMS(abstract_sockets_refused_without_scope)
ParameterizedTest(struct cp *p, sidedoors, abstract_sockets_refused_without_scope)
{
	abstract_abi = "--landlock-abi=5";
	abstract_sockets(p);
}

static void abstract_sockets(const struct cp *p)
{
	struct fx f;
	fx_setup(&f, p);
	/* A real listener outside the run: a session bus, X11, an IDE helper. */
	char name[100];
	snprintf(name, sizeof name, "sbx-e2e-%s", f.id);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	memcpy(a.sun_path + 1, name, strlen(name));
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
	cr_assert(bind(l, (struct sockaddr *)&a, len) == 0 && listen(l, 8) == 0, "listen @%s: %s",
		  name, strerror(errno));
	const char *extra[] = { "--net", "allow", abstract_abi, NULL };
	char *cmd = e2e_fmt("%s abstract %s; python3 -c \"import socket as s\n"
			    "a=s.socket(s.AF_UNIX); a.bind('\\0%s-own'); a.listen()\n"
			    "c=s.socket(s.AF_UNIX); c.connect('\\0%s-own'); print('OWN=0')\"",
			    f.tool, name, name, name);
	struct e2e_out o;
	run_sbx(&f, "workspace-write", extra, NULL, cmd, &o);
	/* The supervisor refuses it (EACCES, CONTRACT section 10); where it
	 * cannot run, Landlock's scope does (EPERM). */
	if (abstract_abi)
		EXPECT_VAL(&f, &o, "CONNECT", EACCES);
	else if (run_without || !strstr(o.out, e2e_fmt("CONNECT=%d\n", EACCES)))
		EXPECT_VAL(&f, &o, "CONNECT", EPERM);
	/* Its own abstract sockets still work. */
	EXPECT_VAL(&f, &o, "OWN", 0);
	/* From outside: nothing ever reached the listener. */
	int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	cr_assert(c < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
		  "%s a connection from the run reached the outside listener @%s", f.tag, name);
	close(l);
	e2e_out_free(&o);
}

/* ---- 6. the environment ---- */

PARAMS(environment_side_doors)
ParameterizedTest(struct cp *p, sidedoors, environment_side_doors)
{
	struct fx f;
	fx_setup(&f, p);
	/* A workspace file named by BASH_ENV would run before every command. */
	char *evil = e2e_fmt("%s/.evil.sh", f.R);
	cr_assert(e2e_write_file(f.who, evil, "echo EVIL-RAN\n") == 0);
	char *bash_env = e2e_fmt("BASH_ENV=%s", evil), *env_env = e2e_fmt("ENV=%s", evil);
	char *env[] = { bash_env, env_env, "BASH_FUNC_true%%=() { echo FUNC-RAN; }",
			"SHELLOPTS=xtrace", "PROMPT_COMMAND=echo PROMPT-RAN",
			"AZURE_OPENAI_KEY=sk-azure-e2e", "MYSQL_PWD=mysql-e2e",
			"GITHUB_PAT=ghp_e2e", "npm_config__authToken=npm-e2e", "CI_JOB_JWT=jwt-e2e",
			"DATABASE_URL=postgres://app:db-e2e@db/app", "KEYMAP=de-e2e", NULL };
	struct e2e_out o;
	run_sbx(&f, "read-only", NULL, env, "true; env", &o);
	cr_assert(o.status == 0, "%s exit %d\n%s", f.tag, o.status, o.err);
	cr_assert(!strstr(o.out, "EVIL-RAN") && !strstr(o.out, "FUNC-RAN") &&
			  !strstr(o.out, "PROMPT-RAN") && !strstr(o.err, "+ true"),
		  "%s shell start-up code ran:\nstdout:\n%s\nstderr:\n%s", f.tag, o.out, o.err);
	const char *secrets[] = { "sk-azure-e2e", "mysql-e2e", "ghp_e2e", "npm-e2e", "jwt-e2e",
				  "db-e2e" };
	for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
		cr_assert(!strstr(o.out, secrets[i]), "%s %s reached the command", f.tag, secrets[i]);
	cr_assert(strstr(o.out, "KEYMAP=de-e2e\n"), "%s KEYMAP was dropped", f.tag);
	e2e_out_free(&o);
}
