/* SPDX-License-Identifier: MIT */
/* New pseudo-terminals in a confined run (issue 19): python's pty.openpty,
 * script(1) and expect work under both runners, as root and as nobody. The
 * namespace runner mounts a devpts of its own; the landlock runner's
 * supervisor opens the slave (TIOCGPTPEER) of a master the command made, and
 * swaps in a pty of the run's pool (made before the Landlock domain, each
 * slave granted alone) when the command asks its new pty's number, so the
 * slave opens by name too, for the first PTY_POOL_SIZE (4) ptys of a run.
 * And the command still cannot open a terminal it did not make: a pty the
 * test holds outside sbx, whose slave is checked from outside; nor, under
 * serve, a pool pty of another run (test_sidedoors.c: the caller's terminal
 * with the pool taken). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"
/* The shared client has more helpers than these tests need. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "serve_client.h"
#pragma GCC diagnostic pop

static const char *const runner_name[] = { "namespace", "landlock" };

struct pp {
	int runner;
	int user;
};

static struct pp all_params[] = {
	{ 0, AS_CALLER }, { 0, AS_NOBODY }, { 1, AS_CALLER }, { 1, AS_NOBODY }
};

static int pp_runner(const void *e)
{
	return ((const struct pp *)e)->runner;
}

static int pp_who(const void *e)
{
	return ((const struct pp *)e)->user;
}

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(ptys, name)                                             \
	{                                                                                   \
		return cr_make_param_array(                                                 \
			struct pp, all_params,                                              \
			e2e_matrix(all_params, sizeof all_params / sizeof all_params[0],    \
				   sizeof all_params[0], pp_runner, pp_who));               \
	}

/* Run `bash -c cmd` confined in a fresh root owned by who, with the file
 * script.py there holding py (if any). */
static void run_with(const struct pp *p, const char *py, const char *cmd, struct e2e_out *o)
{
	char *base = e2e_tmpdir((enum e2e_user)p->user);
	char *root = e2e_fmt("%s/ws", base);

	cr_assert(e2e_mkdir((enum e2e_user)p->user, root) == 0);
	if (py)
		cr_assert(e2e_write_file((enum e2e_user)p->user, e2e_fmt("%s/script.py", root), py) ==
			  0);
	e2e_sbx_run((enum e2e_user)p->user, o, "--runner", runner_name[p->runner], "--mode",
		    "workspace-write", "--root", root, "--", cmd, NULL);
	free(root);
	free(base);
}

static void run(const struct pp *p, const char *cmd, struct e2e_out *o)
{
	run_with(p, NULL, cmd, o);
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

/* expect(1) (Tcl): openpty, then the spawned child opens the slave again by
 * the name ptsname gave (/dev/pts/N) to make it its controlling terminal.
 * Under the landlock runner that open was refused (EACCES) and expect gave
 * up; the pool's pty, swapped in at grantpt's TIOCGPTN, is granted. The
 * effect: the spawned program's answer, read by expect through the pty. */
PARAMS(expect_drives_a_program)
ParameterizedTest(struct pp *p, ptys, expect_drives_a_program, .timeout = 60)
{
	struct e2e_out o;

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	cr_assert(e2e_exists("/usr/bin/expect"), "expect is missing: scripts/deps.sh all");
	run(p,
	    "expect -c 'log_user 0; spawn sh -c {read -p \"name? \" n; echo \"hi $n\"}; "
	    "expect \"name? \"; send \"rw\\r\"; expect -re \"hi (\\\\w+)\"; "
	    "puts $expect_out(1,string)'",
	    &o);
	cr_assert_eq(o.status, 0, "[%s, %s] exit %d: %s", TAG(p), o.status, o.err);
	cr_assert_str_eq(o.out, "rw\n", "[%s, %s] out: %s err: %s", TAG(p), o.out, o.err);
	e2e_out_free(&o);
}

/* New ptys opened by name. PEER: a pty whose slave the command holds
 * (TIOCGPTPEER first) keeps its master when its number is asked (never
 * swapped: the pair still talks). NULL, SLAVE: the number asked of /dev/null
 * and of a slave is the kernel's ENOTTY, and the fd stays what it was.
 * RDONLY: a master opened read-only is not swapped (landlock: its slave by
 * name is refused, and it takes nothing from the pool). NEW: six new ptys
 * asked their number twice (the same: a pool pty is not swapped again;
 * glibc's order: locked; musl's: unlocked first), then opened by that name
 * and a line written on the slave read on the master; the fd keeps its
 * O_NONBLOCK and close-on-exec flags across the swap. The landlock runner's pool has four: the fifth and sixth
 * are refused (EACCES) as every such open was before the pool; the
 * namespace runner's devpts has no such limit. OTHERS: of every /dev/pts
 * entry the command did not get, none opens by name. */
static const char pool_py[] =
	"import errno, fcntl, os, select, struct\n"
	"TIOCGPTN, TIOCSPTLCK, TIOCGPTPEER = 0x80045430, 0x40045431, 0x5441\n"
	"def num(fd):\n"
	"    return struct.unpack('I', fcntl.ioctl(fd, TIOCGPTN, b'\\0' * 4))[0]\n"
	"def unlock(fd):\n"
	"    fcntl.ioctl(fd, TIOCSPTLCK, b'\\0' * 4)\n"
	"def opn(path):\n"
	"    try:\n"
	"        return os.open(path, os.O_RDWR | os.O_NOCTTY)\n"
	"    except OSError as e:\n"
	"        return errno.errorcode[e.errno]\n"
	"def talks(m, s):\n"
	"    os.write(s, b'line\\n')\n"
	"    select.select([m], [], [], 10)\n"
	"    return os.read(m, 100).strip() == b'line'\n"
	"def err(f):\n"
	"    try:\n"
	"        f()\n"
	"        return 'ok'\n"
	"    except OSError as e:\n"
	"        return errno.errorcode[e.errno]\n"
	"m = os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)\n"
	"unlock(m)\n"
	"s = fcntl.ioctl(m, TIOCGPTPEER, os.O_RDWR | os.O_NOCTTY)\n"
	"n = num(m)\n"
	"print('PEER', talks(m, s), os.ttyname(s) == '/dev/pts/%d' % n)\n"
	"mine = {n}\n"
	"z = os.open('/dev/null', os.O_RDWR)\n"
	"before = os.fstat(z).st_rdev\n"
	"print('NULL', err(lambda: num(z)), os.fstat(z).st_rdev == before)\n"
	"before = os.fstat(s).st_rdev\n"
	"print('SLAVE', err(lambda: num(s)), os.fstat(s).st_rdev == before, talks(m, s))\n"
	"r = os.open('/dev/ptmx', os.O_RDONLY | os.O_NOCTTY)\n"
	"n = num(r)\n"
	"unlock(r)\n"
	"s = opn('/dev/pts/%d' % n)\n"
	"print('RDONLY', 'OK' if isinstance(s, int) else s)\n"
	"if isinstance(s, int):\n"
	"    mine.add(n)\n"
	"got, flags, twice = [], [], []\n"
	"for i in range(6):\n"
	"    fl = os.O_NONBLOCK | os.O_CLOEXEC if i % 2 else 0\n"
	"    m = os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY | fl)\n"
	"    os.set_inheritable(m, bool(i % 2) is False)\n"
	"    if i % 2:\n"
	"        unlock(m)\n"
	"    n = num(m)\n"
	"    twice.append(num(m) == n)\n"
	"    if not i % 2:\n"
	"        unlock(m)\n"
	"    flags.append(bool(fcntl.fcntl(m, fcntl.F_GETFL) & os.O_NONBLOCK) == bool(i % 2) and\n"
	"                 bool(fcntl.fcntl(m, fcntl.F_GETFD) & fcntl.FD_CLOEXEC) == bool(i % 2))\n"
	"    s = opn('/dev/pts/%d' % n)\n"
	"    if isinstance(s, int):\n"
	"        mine.add(n)\n"
	"        got.append('OK' if talks(m, s) else 'SILENT')\n"
	"    else:\n"
	"        got.append(s)\n"
	"print('NEW', ' '.join(got), all(flags), all(twice))\n"
	"others = [e for e in os.listdir('/dev/pts') if e.isdigit() and int(e) not in mine]\n"
	"opened = [e for e in others if isinstance(opn('/dev/pts/' + e), int)]\n"
	"print('OTHERS', opened)\n";

PARAMS(new_ptys_by_name)
ParameterizedTest(struct pp *p, ptys, new_ptys_by_name, .timeout = 60)
{
	struct e2e_out o;
	const char *want = p->runner == 1 ? "NEW OK OK OK OK EACCES EACCES True True\n"
					  : "NEW OK OK OK OK OK OK True True\n";

	e2e_require_runner((enum e2e_user)p->user, runner_name[p->runner]);
	run_with(p, pool_py, "python3 script.py", &o);
	cr_assert_eq(o.status, 0, "[%s, %s] exit %d: %s", TAG(p), o.status, o.err);
	cr_assert(strstr(o.out, "PEER True True\n"), "[%s, %s] out: %s", TAG(p), o.out);
	cr_assert(strstr(o.out, "NULL ENOTTY True\n"), "[%s, %s] out: %s", TAG(p), o.out);
	cr_assert(strstr(o.out, "SLAVE ENOTTY True True\n"), "[%s, %s] out: %s", TAG(p), o.out);
	cr_assert(strstr(o.out, p->runner == 1 ? "RDONLY EACCES\n" : "RDONLY OK\n"),
		  "[%s, %s] out: %s", TAG(p), o.out);
	cr_assert(strstr(o.out, want), "[%s, %s] want %s out: %s err: %s", TAG(p), want, o.out,
		  o.err);
	cr_assert(strstr(o.out, "OTHERS []\n"), "[%s, %s] out: %s", TAG(p), o.out);
	e2e_out_free(&o);
}

/* ---- serve: one process, many runs (landlock runner) ---- */

/* sbx's own fds that are pty masters (links to /dev/ptmx): the pool it
 * holds. Read from outside, in /proc. */
static size_t masters_held(pid_t pid)
{
	char dir[64], path[600], target[64];
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		ssize_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			n += strcmp(target, "/dev/ptmx") == 0;
		}
	}
	closedir(d);
	return n;
}

/* A background run takes a pool pty (expect's way: its number, then open
 * by name), hands its master to the test over a unix socket (as a command
 * may pass it to a process outside the run it can reach: here, one the
 * config allows), writes the pty's number to a file, and waits. */
static const char holder_py[] =
	"import fcntl, os, socket, struct, sys, time\n"
	"m = os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)\n"
	"n = struct.unpack('I', fcntl.ioctl(m, 0x80045430, b'\\0' * 4))[0]\n"
	"fcntl.ioctl(m, 0x40045431, b'\\0' * 4)\n"
	"s = os.open('/dev/pts/%d' % n, os.O_RDWR | os.O_NOCTTY)\n"
	"c = socket.socket(socket.AF_UNIX)\n"
	"c.connect(sys.argv[1])\n"
	"socket.send_fds(c, [b'm'], [m])\n"
	"open(sys.argv[2] + '.tmp', 'w').write('%d\\n' % n)\n"
	"os.rename(sys.argv[2] + '.tmp', sys.argv[2])\n"
	"time.sleep(600)\n";

/* Another run tries a pts by name. */
static const char *try_open_cmd =
	"python3 -c 'import errno, os, sys\n"
	"try:\n"
	"    os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY); print(\"OPENED\")\n"
	"except OSError as e:\n"
	"    print(errno.errorcode[e.errno])' /dev/pts/";

/* Rules on pool slaves never reach another run's domain: a run in flight
 * beside the holder cannot open the holder's pty by name (its ruleset is
 * another one: a kept ruleset is lent to one run at a time), and once the
 * holder is over, while its pty lives on (the test holds the master), a
 * later run cannot either (a ruleset whose pool pty was handed out is never
 * kept). Both runs get pool ptys of their own meanwhile (expect). From
 * outside: sbx holds no pty master once the runs are over. */
ParameterizedTestParameters(ptys, pool_is_the_runs_own)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, ptys, pool_is_the_runs_own, .timeout = 120)
{
	struct srv s;
	char *root = e2e_tmpdir(*who);
	char *sock = e2e_fmt("%s/pass.sock", root);
	char *numfile = e2e_fmt("%s/ptynum", root);
	/* The test is a host process the config lets commands reach. */
	char *conf = write_config(e2e_fmt("runner = landlock\nunix_sockets = %s\n", sock));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c, held = -1;
	const char *expect_cmd =
		"expect -c 'log_user 0; spawn sh -c {read -p \"name? \" n; echo \"hi $n\"}; "
		"expect \"name? \"; send \"rw\\r\"; expect -re \"hi (\\\\w+)\"; "
		"puts $expect_out(1,string)'";
	char *text, *pts;
	const char *sess, *task;
	json_t *res;
	long long deadline;

	e2e_require_runner(*who, "landlock");
	cr_assert(e2e_write_file(*who, e2e_fmt("%s/holder.py", root), holder_py) == 0);
	cr_assert(strlen(sock) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, sock);
	cr_assert(l >= 0 && bind(l, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(l, 1) == 0);
	cr_assert(chmod(sock, 0777) == 0);
	srv_start(&s, *who, conf);
	sess = open_session(&s, 1, root, "workspace-write");
	/* The holder's run builds the first ruleset kept (the cache is empty):
	 * the first a later run of the same policy would be given. */
	task = start_bg(&s, 3, sess, e2e_fmt("python3 holder.py %s %s", sock, numfile));
	struct pollfd pl = { .fd = l, .events = POLLIN };

	cr_assert_eq(poll(&pl, 1, 60000), 1, "[%s] the holder never connected",
		     e2e_user_name(*who));
	c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	cr_assert(c >= 0);
	{
		char byte, cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;

		cr_assert_eq(recvmsg(c, &msg, MSG_CMSG_CLOEXEC), 1);
		cm = CMSG_FIRSTHDR(&msg);
		cr_assert(cm && cm->cmsg_type == SCM_RIGHTS);
		memcpy(&held, CMSG_DATA(cm), sizeof(int));
	}
	deadline = now_ms() + 30000;
	while (!(text = e2e_read_file(numfile))) {
		cr_assert(now_ms() < deadline, "the holder wrote no pty number");
		usleep(20 * 1000);
	}
	pts = e2e_fmt("/dev/pts/%d", atoi(text));
	/* From outside: the pty the holder got is the one it passed. */
	{
		unsigned n = 0;

		cr_assert(ioctl(held, TIOCGPTN, &n) == 0 && n == (unsigned)atoi(text));
	}
	/* Beside the holder. */
	res = run_ok(&s, 4, sess, e2e_fmt("%s%d", try_open_cmd, atoi(text)));
	cr_assert_str_eq(str_at(res, "stdout"), "EACCES\n",
			 "[%s] a run in flight opened another run's pool pty %s: %s %s",
			 e2e_user_name(*who), pts, str_at(res, "stdout"), str_at(res, "stderr"));
	res = run_ok(&s, 5, sess, expect_cmd);
	cr_assert_str_eq(str_at(res, "stdout"), "rw\n", "[%s] expect beside the holder: %s",
			 e2e_user_name(*who), str_at(res, "stderr"));
	/* The holder ends; its pty lives on in the test's hands. */
	rpc_call(&s, 6, "task/kill", task_params(sess, task));
	wait_settled(&s, task);
	cr_assert(e2e_exists(pts), "%s is gone although the test holds its master", pts);
	/* Its pool closed (sbx holds no master any more: the other runs are
	 * over), its ruleset is given back right after. */
	deadline = now_ms() + 20000;
	while (masters_held(s.pid) != 0 && now_ms() < deadline)
		usleep(20 * 1000);
	for (long long id = 7; id < 10; id++) {
		res = run_ok(&s, id, sess, e2e_fmt("%s%d", try_open_cmd, atoi(text)));
		cr_assert_str_eq(str_at(res, "stdout"), "EACCES\n",
				 "[%s] a later run opened an earlier run's pool pty %s: %s %s",
				 e2e_user_name(*who), pts, str_at(res, "stdout"),
				 str_at(res, "stderr"));
	}
	res = run_ok(&s, 10, sess, expect_cmd);
	cr_assert_str_eq(str_at(res, "stdout"), "rw\n", "[%s] expect after: %s",
			 e2e_user_name(*who), str_at(res, "stderr"));
	/* Every run is over: their pools are closed. A bounded wait for sbx's
	 * own cleanup after the answer, not a timing assertion. */
	deadline = now_ms() + 20000;
	while (masters_held(s.pid) != 0 && now_ms() < deadline)
		usleep(20 * 1000);
	cr_assert_eq(masters_held(s.pid), 0, "[%s] sbx still holds pty masters after the runs",
		     e2e_user_name(*who));
	srv_stop(&s);
	close(held);
	close(c);
	close(l);
	free(text);
	free(pts);
	free(conf);
	free(numfile);
	free(sock);
	free(root);
}
