/* SPDX-License-Identifier: MIT */
/* New pseudo-terminals in a confined run (issue 19): python's pty.openpty
 * and script(1) work under both runners, as root and as nobody. The
 * namespace runner mounts a devpts of its own; the landlock runner's
 * supervisor opens the slave (TIOCGPTPEER) of a master the command made.
 * And the command still cannot open a terminal it did not make: a pty the
 * test holds outside sbx, whose slave is checked from outside. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"

static const char *const runner_name[] = { "namespace", "landlock" };

struct pp {
	int runner;
	int user;
};

static struct pp all_params[] = {
	{ 0, AS_CALLER }, { 0, AS_NOBODY }, { 1, AS_CALLER }, { 1, AS_NOBODY }
};

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(ptys, name)                                             \
	{                                                                                   \
		return cr_make_param_array(struct pp, all_params,                           \
					   sizeof all_params / sizeof all_params[0]);        \
	}

/* Run `bash -c cmd` confined in a fresh root owned by who. */
static void run(const struct pp *p, const char *cmd, struct e2e_out *o)
{
	char *base = e2e_tmpdir((enum e2e_user)p->user);
	char *root = e2e_fmt("%s/ws", base);

	cr_assert(e2e_mkdir((enum e2e_user)p->user, root) == 0);
	e2e_sbx_run((enum e2e_user)p->user, o, "--runner", runner_name[p->runner], "--mode",
		    "workspace-write", "--root", root, "--", cmd, NULL);
	free(root);
	free(base);
}

#define TAG(p) runner_name[(p)->runner], e2e_user_name((enum e2e_user)(p)->user)

/* glibc's openpty (TIOCGPTPEER), a write on the slave read back on the
 * master, and the slave is a terminal of the command's. */
PARAMS(python_openpty)
ParameterizedTest(struct pp *p, ptys, python_openpty)
{
	struct e2e_out o;

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	run(p,
	    "python3 -c 'import os, pty; m, s = pty.openpty(); os.write(s, b\"through\\n\"); "
	    "print(os.read(m, 100).decode().strip()); print(os.isatty(s), os.ttyname(s)[:9])'",
	    &o);
	cr_assert_eq(o.status, 0, "[%s, %s] exit %d: %s", TAG(p), o.status, o.err);
	cr_assert_str_eq(o.out, "through\nTrue /dev/pts/\n", "[%s, %s] out: %s err: %s", TAG(p),
			 o.out, o.err);
	e2e_out_free(&o);
}

/* TIOCGPTPEER as the kernel answers it: O_CLOEXEC honoured, ENOTTY on
 * anything that is no pty master. */
PARAMS(pty_peer_flags)
ParameterizedTest(struct pp *p, ptys, pty_peer_flags)
{
	struct e2e_out o;

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	run(p,
	    "python3 -c '\n"
	    "import os, fcntl, errno\n"
	    "m = os.open(\"/dev/ptmx\", os.O_RDWR | os.O_NOCTTY);\n"
	    "fcntl.ioctl(m, 0x40045431, b\"\\0\\0\\0\\0\")  # TIOCSPTLCK 0: unlock\n"
	    "for fl in (os.O_RDWR | os.O_NOCTTY, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC):\n"
	    "    s = fcntl.ioctl(m, 0x5441, fl)\n"
	    "    print(os.isatty(s), bool(fcntl.fcntl(s, fcntl.F_GETFD) & fcntl.FD_CLOEXEC))\n"
	    "n = os.open(\"/dev/null\", os.O_RDWR)\n"
	    "try:\n"
	    "    fcntl.ioctl(n, 0x5441, os.O_RDWR)\n"
	    "except OSError as e:\n"
	    "    print(errno.errorcode[e.errno])\n"
	    "'",
	    &o);
	cr_assert_eq(o.status, 0, "[%s, %s] exit %d: %s", TAG(p), o.status, o.err);
	cr_assert_str_eq(o.out, "True False\nTrue True\nENOTTY\n", "[%s, %s] out: %s err: %s",
			 TAG(p), o.out, o.err);
	e2e_out_free(&o);
}

/* script(1): forkpty, login_tty, the command on the new pty. (Piped: as
 * bash's only command, script would wait for every child of its process.) */
PARAMS(script_runs_on_a_pty)
ParameterizedTest(struct pp *p, ptys, script_runs_on_a_pty)
{
	struct e2e_out o;

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	run(p, "script -qec 'tty; echo in-pty' /dev/null | tr -d '\\r' | sed 's|pts/[0-9]*|pts/N|'", &o);
	cr_assert_eq(o.status, 0, "[%s, %s] exit %d: %s", TAG(p), o.status, o.err);
	cr_assert_str_eq(o.out, "/dev/pts/N\nin-pty\n", "[%s, %s] out: %s err: %s", TAG(p), o.out,
			 o.err);
	e2e_out_free(&o);
}

/* script(1) as bash's only command: bash execs it, so it inherits bash's
 * children. The landlock runner's dead-man helper was one (forked by the
 * command's process before exec) and never exits: script waited for it
 * forever. Now sbx's child. The run's timeout says whether it hung. */
PARAMS(waits_for_all_children)
ParameterizedTest(struct pp *p, ptys, waits_for_all_children, .timeout = 60)
{
	struct e2e_out o;
	char *base = e2e_tmpdir((enum e2e_user)p->user);
	char *root = e2e_fmt("%s/ws", base);

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	cr_assert(e2e_mkdir((enum e2e_user)p->user, root) == 0);
	e2e_sbx_run((enum e2e_user)p->user, &o, "--json", "--timeout", "15", "--runner",
		    runner_name[p->runner], "--mode", "workspace-write", "--root", root, "--",
		    "script -qec 'echo in-pty' /dev/null", NULL);
	cr_assert(strstr(o.out, "\"timed_out\":false") && strstr(o.out, "\"exit_code\":0") &&
			  strstr(o.out, "in-pty"),
		  "[%s, %s] script as the only command: %s %s", TAG(p), o.out, o.err);
	e2e_out_free(&o);
	/* The same for a program that waits for every child it has. */
	e2e_sbx_run((enum e2e_user)p->user, &o, "--json", "--timeout", "15", "--runner",
		    runner_name[p->runner], "--mode", "workspace-write", "--root", root, "--",
		    "exec python3 -c 'import os\ntry:\n    while True: os.wait()\n"
		    "except ChildProcessError: print(\"no children\")'",
		    NULL);
	cr_assert(strstr(o.out, "\"timed_out\":false") && strstr(o.out, "no children"),
		  "[%s, %s] wait for all children: %s %s", TAG(p), o.out, o.err);
	e2e_out_free(&o);
	free(root);
	free(base);
}

/* A terminal the command did not make: the test's own pty, its slave owned
 * by who (so only the sandbox stands in the way). Neither reading nor
 * writing it works, and nothing arrives at the test's master. */
PARAMS(other_terminal_refused)
ParameterizedTest(struct pp *p, ptys, other_terminal_refused)
{
	struct e2e_out o;
	char buf[64], *cmd;
	const char *slave;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	struct pollfd pfd = { .fd = m, .events = POLLIN };
	struct termios tio;
	ssize_t n;

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	cr_assert(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0);
	slave = ptsname(m);
	cr_assert_not_null(slave);
	cr_assert(chown(slave, e2e_uid((enum e2e_user)p->user), (gid_t)-1) == 0);
	cr_assert(chmod(slave, 0600) == 0);
	/* No echo (it would come back to the master), and a line waiting on
	 * the slave's side: a read that got in would end with it. */
	cr_assert(tcgetattr(m, &tio) == 0);
	tio.c_lflag &= ~(tcflag_t)ECHO;
	cr_assert(tcsetattr(m, TCSANOW, &tio) == 0);
	cr_assert_eq(write(m, "secret\n", 7), 7);
	cmd = e2e_fmt("head -c 7 %s; echo \"read $?\"; echo x > %s; echo \"write $?\"; "
		      "python3 -c 'import os; os.open(\"%s\", os.O_RDWR | os.O_NOCTTY)' 2>/dev/null; "
		      "echo \"open $?\"",
		      slave, slave, slave);
	run(p, cmd, &o);
	cr_assert_eq(o.status, 0, "[%s, %s] exit %d: %s", TAG(p), o.status, o.err);
	cr_assert_null(strstr(o.out, "secret"), "[%s, %s] the command read the test's terminal",
		       TAG(p));
	cr_assert(strstr(o.out, "read 1") && strstr(o.out, "write 1") && strstr(o.out, "open 1"),
		  "[%s, %s] out: %s err: %s", TAG(p), o.out, o.err);
	/* From outside: nothing was written to the slave (the master would
	 * read it). */
	cr_assert_eq(poll(&pfd, 1, 0), 0, "[%s, %s] the command wrote to the test's terminal",
		     TAG(p));
	n = read(m, buf, sizeof(buf));
	cr_assert(n < 0 && errno == EAGAIN, "[%s, %s] master read %zd", TAG(p), n);
	e2e_out_free(&o);
	free(cmd);
	close(m);
}
