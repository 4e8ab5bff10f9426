/* SPDX-License-Identifier: MIT */
/* sidedoor: the side routes of issue 11, tried the way a hostile command
 * would, for the e2e tests (tests/e2e/test_sidedoors.c). Each subcommand
 * prints "NAME=N" lines, N = 0 for success or the errno, and exits 0 once
 * every attempt was made (2 on usage errors). Raw system calls where libc
 * might hide the one the test is about.
 *
 *   sidedoor overlay WORKDIR UPPER LOWER
 *       new user + mount namespace (UNSHARE), then the new mount API:
 *       FSOPEN overlay, FSCONFIG of the three dirs, CREATE (the kernel
 *       cleans WORKDIR/work here, before any mount exists), MOUNT (fsmount).
 *       Without an identity map when /proc/self/uid_map cannot be written
 *       (MAP says why).
 *   sidedoor handle PATH        name_to_handle_at + open_by_handle_at: OPEN
 *   sidedoor mknod PATH         a character device (1,3) and a setuid
 *                               regular file: CHR, SUID
 *   sidedoor create PATH        open/openat/creat with O_CREAT and 04755 or
 *                               02755 (OPEN_SUID, OPENAT_SUID, OPENAT_SGID,
 *                               CREAT_SUID, TMPFILE_SUID), openat2 (OPENAT2),
 *                               mkdir 02755 (MKDIR_SGID), io_uring_setup (URING)
 *   sidedoor chmod PATH         chmod/fchmod/fchmodat/fchmodat2 with 04755
 *                               (CHMOD, FCHMOD, FCHMODAT, FCHMODAT2) and
 *                               chmod 02755 (CHMOD_SGID)
 *   sidedoor abstract NAME      connect to the abstract unix socket @NAME
 *   sidedoor unix PATH LINE     connect to the unix stream socket at PATH
 *                               (CONNECT) and send LINE and a newline (SEND)
 *   sidedoor userns             unshare(CLONE_NEWUSER) (UNSHARE), clone with
 *                               CLONE_NEWUSER (CLONE), clone3 (CLONE3),
 *                               setns to our own user namespace (SETNS)
 *   sidedoor keyring SERIAL TAG keyctl(LINK) of the given keyring into our
 *                               session keyring (LINK), add_key into it by
 *                               serial (ADD_SERIAL, "sbx-planted-serial-TAG")
 *                               and into @u (ADD_USER, "sbx-planted-user-TAG"),
 *                               and joining a new session (JOIN)
 *   sidedoor open PATH...       open each read-only without blocking and
 *                               without taking a controlling terminal:
 *                               "PATH=errno"
 *   sidedoor tty PATH           the caller's terminal: open PATH without
 *                               blocking (OPEN) and read what waits there
 *                               (READ, GOT=the bytes); /dev/tty (TTY); a new
 *                               pty: /dev/ptmx (PTMX), its slave by path
 *                               (SLAVE) and by TIOCGPTPEER (PEER), then as
 *                               the controlling terminal (CTTY: TIOCSCTTY on
 *                               the master, TTY2: /dev/tty, ROUNDTRIP: a
 *                               line written there read on the master)
 *   sidedoor watch TTY DIR [SECRET]
 *                               watches on the caller's terminal: inotify
 *                               on TTY (IN_TTY), on its directory (IN_PTS),
 *                               through a symlink DIR/ttylink (IN_LINK), on
 *                               the link itself (IN_NOFOLLOW), through an
 *                               O_PATH fd's /proc/self/fd link (IN_OPATH);
 *                               fanotify (FAN_INIT) on TTY (FAN_TTY) and on
 *                               the O_PATH fd (FAN_OPATH); a symlink DIR/cur
 *                               flipped between DIR/quiet and TTY by a
 *                               thread while watches are added through it
 *                               (RACE_ADDED: how many); an inotify watch of
 *                               DIR/own written twice (OWN_EVENTS). Then it
 *                               waits 1.5 s and counts what arrived:
 *                               TTY_EVENTS, FAN_EVENTS, RACE_EVENTS. With
 *                               SECRET (a file in a hidden directory): a
 *                               watch on it (IN_SECRET) and on its
 *                               directory (IN_SECRET_DIR), SECRET_EVENTS.
 *                               The kernel's errors, in its order: a mask
 *                               with no event on a missing name (IN_MASK0),
 *                               stdout as the instance (IN_NOTINO), no path
 *                               with AT_FDCWD (FAN_CWD).
 *   sidedoor watchdev PATH      an inotify watch (IN_DEV) and a fanotify
 *                               inode mark (FAN_DEV) on the device PATH
 *                               (/dev/tty: every process's terminal I/O
 *                               through that name), then 1.5 s later the
 *                               count of what arrived: DEV_EVENTS.
 *   sidedoor watchdir DIR NAME  an inotify watch on the directory DIR
 *                               (IN_DIR) for its entries opened, closed,
 *                               read or written, then 1.5 s later how many
 *                               events named NAME arrived: NAME_EVENTS.
 *   sidedoor dnotify DIR        dnotify (fcntl F_NOTIFY) on DIR for entries
 *                               made, removed, read or written (DNOTIFY),
 *                               then 1.5 s later the count of signals that
 *                               arrived: DN_EVENTS.
 *   sidedoor mountcall CALL [nested]
 *                               one call of the mount API on "/": open_tree
 *                               with OPEN_TREE_CLONE and AT_RECURSIVE,
 *                               mount_setattr, or
 *                               open_tree_attr (a detached copy with new
 *                               attributes, Linux 6.15), each setting
 *                               nosuid; with "nested", inside a new user and
 *                               mount namespace of its own first (NESTED).
 *                               Prints CALL=N and exits 1 when it failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define SBX_SYS_open_tree_attr 467 /* the same on x86-64, i386 and arm64 */
#define OPEN_TREE_CLONE_FLAG 1
#define MOUNT_ATTR_NOSUID_FLAG 0x2
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#define TMPFILE_BIT 020000000

static void report(const char *name, long rc)
{
	printf("%s=%d\n", name, rc < 0 ? errno : 0);
	fflush(stdout);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int overlay(const char *work, const char *upper, const char *lower)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];
	long rc = unshare(CLONE_NEWUSER | CLONE_NEWNS);
	int fs;

	report("UNSHARE", rc);
	if (rc < 0)
		return 0;
	/* Map ourselves if the view lets us (it does not under Landlock). */
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	rc = write_file("/proc/self/setgroups", "deny");
	if (rc == 0)
		rc = write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (rc == 0)
		rc = write_file("/proc/self/gid_map", map);
	report("MAP", rc);
	fs = (int)syscall(SYS_fsopen, "overlay", 0);
	report("FSOPEN", fs);
	if (fs < 0)
		return 0;
	rc = syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "lowerdir", lower, 0);
	if (rc == 0)
		rc = syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "upperdir", upper, 0);
	if (rc == 0)
		rc = syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "workdir", work, 0);
	report("FSCONFIG", rc);
	rc = syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	report("CREATE", rc);
	if (rc == 0)
		report("MOUNT", syscall(SYS_fsmount, fs, 0, 0));
	return 0;
}

static int handle(const char *path)
{
	struct {
		struct file_handle fh;
		unsigned char buf[128];
	} h;
	int mount_id, fd;

	h.fh.handle_bytes = sizeof(h.buf);
	report("NAME", name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0));
	fd = open_by_handle_at(AT_FDCWD, &h.fh, O_RDONLY);
	report("OPEN", fd);
	return 0;
}

static int do_mknod(const char *path)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s.chr", path);
	report("CHR", syscall(SYS_mknodat, AT_FDCWD, p, S_IFCHR | 0666, makedev(1, 3)));
	snprintf(p, sizeof(p), "%s.suid", path);
	report("SUID", syscall(SYS_mknodat, AT_FDCWD, p, S_IFREG | 04755, 0));
	return 0;
}

static int create(const char *path)
{
	char p[4096];
	struct {
		uint64_t flags, mode, resolve;
	} how = { O_CREAT | O_WRONLY, 04755, 0 };

#ifdef SYS_open /* the generic table (arm64) has only the *at forms */
	snprintf(p, sizeof(p), "%s.open", path);
	report("OPEN_SUID", syscall(SYS_open, p, O_CREAT | O_WRONLY, 04755));
#endif
	snprintf(p, sizeof(p), "%s.openat", path);
	report("OPENAT_SUID", syscall(SYS_openat, AT_FDCWD, p, O_CREAT | O_WRONLY, 04755));
	snprintf(p, sizeof(p), "%s.openat-sgid", path);
	report("OPENAT_SGID", syscall(SYS_openat, AT_FDCWD, p, O_CREAT | O_WRONLY, 02755));
#ifdef SYS_creat
	snprintf(p, sizeof(p), "%s.creat", path);
	report("CREAT_SUID", syscall(SYS_creat, p, 04755));
#endif
	snprintf(p, sizeof(p), "%s.openat2", path);
	report("OPENAT2", syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof(how)));
	snprintf(p, sizeof(p), "%s.mkdir", path);
	report("MKDIR_SGID", syscall(SYS_mkdirat, AT_FDCWD, p, 02755));
	/* O_TMPFILE in the directory of path */
	snprintf(p, sizeof(p), "%s", path);
	char *slash = strrchr(p, '/');
	if (slash)
		*slash = '\0';
	report("TMPFILE_SUID", syscall(SYS_openat, AT_FDCWD, p, TMPFILE_BIT | O_DIRECTORY | O_RDWR,
				       04755));
	char params[120] = { 0 };
	report("URING", syscall(SYS_io_uring_setup, 1, params));
	return 0;
}

/* chmod(2) itself where the table has it; elsewhere (arm64) what libc's
 * chmod makes of it, fchmodat. */
#ifndef SYS_chmod
#define SYS_chmod SYS_fchmodat, AT_FDCWD
#endif

static int do_chmod(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	report("CHMOD", syscall(SYS_chmod, path, 04755));
	report("FCHMOD", fd < 0 ? -1 : syscall(SYS_fchmod, fd, 04755));
	report("FCHMODAT", syscall(SYS_fchmodat, AT_FDCWD, path, 04755));
	report("FCHMODAT2", syscall(SYS_fchmodat2, AT_FDCWD, path, 04755, 0));
	report("CHMOD_SGID", syscall(SYS_chmod, path, 02755));
	/* the control: a plain mode change goes through */
	report("CHMOD_PLAIN", syscall(SYS_chmod, path, 0700));
	return 0;
}

static int abstract(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t len = strlen(name);

	if (len + 1 > sizeof(a.sun_path))
		return 2;
	memcpy(a.sun_path + 1, name, len);
	report("CONNECT", connect(s, (struct sockaddr *)&a,
				  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)));
	return 0;
}

static int child_exit(void *arg)
{
	(void)arg;
	_exit(0);
}

static int userns(void)
{
	static char stack[16384] __attribute__((aligned(16)));
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	} args = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
	pid_t pid;
	long rc;

	pid = clone(child_exit, stack + sizeof(stack), CLONE_NEWUSER | SIGCHLD, NULL);
	report("CLONE", pid);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	rc = syscall(SYS_clone3, &args, sizeof(args));
	if (rc == 0)
		_exit(0);
	report("CLONE3", rc);
	if (rc > 0)
		waitpid((pid_t)rc, NULL, 0);
	/* Entering a namespace: our own user namespace, which every process
	 * may name, is refused by the kernel with EINVAL; a filter says EPERM
	 * first. */
	int ns = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	report("SETNS", ns < 0 ? -1 : setns(ns, 0));
	/* Last: afterwards we live unmapped in the new namespace. */
	report("UNSHARE", unshare(CLONE_NEWUSER));
	return 0;
}

#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEYCTL_LINK 8
#define KEY_SPEC_SESSION_KEYRING -3
#define KEY_SPEC_USER_KEYRING -4

static int keyring(const char *serial_s, const char *tag)
{
	long serial = strtol(serial_s, NULL, 0);
	char name[128];

	report("LINK", syscall(SYS_keyctl, KEYCTL_LINK, serial, KEY_SPEC_SESSION_KEYRING));
	snprintf(name, sizeof(name), "sbx-planted-serial-%s", tag);
	report("ADD_SERIAL", syscall(SYS_add_key, "user", name, "x", 1, serial));
	snprintf(name, sizeof(name), "sbx-planted-user-%s", tag);
	report("ADD_USER", syscall(SYS_add_key, "user", name, "x", 1, KEY_SPEC_USER_KEYRING));
	report("JOIN", syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL));
	return 0;
}

static int tty(const char *path)
{
	char got[256] = "", line[32];
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), m, n = -1, unlock = 0;
	ssize_t r;

	report("OPEN", fd);
	if (fd >= 0) {
		r = read(fd, got, sizeof(got) - 1);
		report("READ", r);
		got[r > 0 ? r : 0] = '\0';
		for (char *c = got; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		printf("GOT=%s\n", got);
	}
	report("TTY", open("/dev/tty", O_RDWR | O_CLOEXEC));
	m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	report("PTMX", m);
	if (m < 0)
		return 0;
	if (ioctl(m, TIOCSPTLCK, &unlock) < 0 || ioctl(m, TIOCGPTN, &n) < 0) {
		report("UNLOCK", -1);
		return 0;
	}
	snprintf(line, sizeof(line), "/dev/pts/%d", n);
	report("SLAVE", open(line, O_RDWR | O_NOCTTY | O_CLOEXEC));
	report("PEER", ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
	/* The documented way in under Landlock: become a session leader, take
	 * the new pty as controlling terminal through its master, reach the
	 * slave as /dev/tty. */
	(void)setsid();
	report("CTTY", ioctl(m, TIOCSCTTY, 0));
	fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	report("TTY2", fd);
	if (fd >= 0) {
		r = write(fd, "ping\n", 5) == 5 ? read(m, got, sizeof(got)) : -1;
		report("ROUNDTRIP", r > 0 && strncmp(got, "ping", 4) == 0 ? 0 : (errno = EIO, -1));
	}
	return 0;
}

/* Events waiting on a non-blocking inotify or fanotify fd (the kernel
 * merges identical ones in a row, so this counts at least one per burst). */
static int drain(int fd, bool fan)
{
	char buf[8192] __attribute__((aligned(8)));
	int n = 0;
	ssize_t r;

	while (fd >= 0 && (r = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + r; n++) {
			if (fan)
				p += ((struct fanotify_event_metadata *)p)->event_len;
			else
				p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len;
		}
	}
	return n;
}

struct flipper {
	const char *dir, *tty;
	volatile bool stop;
};

/* DIR/cur names DIR/quiet, then the terminal, then DIR/quiet...: each
 * swap is one rename(2) of a new symlink, so the name always exists. */
static void *flip(void *arg)
{
	struct flipper *f = arg;
	char cur[4096], next[4096];

	snprintf(cur, sizeof(cur), "%s/cur", f->dir);
	snprintf(next, sizeof(next), "%s/next", f->dir);
	for (unsigned i = 0; !f->stop; i++) {
		unlink(next);
		if (symlink(i % 2 ? f->tty : "quiet", next) == 0)
			rename(next, cur);
	}
	return NULL;
}

static int watch(const char *tty, const char *dir, const char *secret)
{
	const uint32_t ev = IN_ACCESS | IN_MODIFY | IN_OPEN | IN_CLOSE;
	const uint64_t fev = FAN_ACCESS | FAN_MODIFY | FAN_OPEN | FAN_CLOSE;
	char path[4096], pts[4096];
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int quiet = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int race = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int own = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int hid = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int fan, opath, added = 0, fd;
	struct flipper f = { .dir = dir, .tty = tty, .stop = false };
	pthread_t t;

	if (in < 0 || quiet < 0 || race < 0 || own < 0 || hid < 0) {
		report("INOTIFY", -1);
		return 0;
	}
	report("IN_TTY", inotify_add_watch(in, tty, ev));
	snprintf(pts, sizeof(pts), "%s", tty);
	*strrchr(pts, '/') = '\0';
	report("IN_PTS", inotify_add_watch(in, pts, ev));
	snprintf(path, sizeof(path), "%s/ttylink", dir);
	if (symlink(tty, path) < 0) {
		report("SYMLINK", -1);
		return 0;
	}
	report("IN_LINK", inotify_add_watch(in, path, ev));
	report("IN_NOFOLLOW", inotify_add_watch(quiet, path, ev | IN_DONT_FOLLOW));
	opath = open(tty, O_PATH | O_CLOEXEC);
	report("OPATH", opath);
	if (opath >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", opath);
		report("IN_OPATH", inotify_add_watch(in, path, ev));
	}
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK | FAN_CLOEXEC, O_RDONLY);
	report("FAN_INIT", fan);
	if (fan >= 0) {
		report("FAN_TTY", fanotify_mark(fan, FAN_MARK_ADD, fev, AT_FDCWD, tty));
		if (opath >= 0)
			report("FAN_OPATH", fanotify_mark(fan, FAN_MARK_ADD, fev, opath, NULL));
	}

	if (secret) {
		report("IN_SECRET", inotify_add_watch(hid, secret, ev));
		snprintf(path, sizeof(path), "%s", secret);
		*strrchr(path, '/') = '\0';
		report("IN_SECRET_DIR", inotify_add_watch(hid, path, ev));
	}

	/* The race: watches added through a name that flips to the terminal. */
	snprintf(path, sizeof(path), "%s/quiet", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return report("RACE_SETUP", -1), 0;
	close(fd);
	snprintf(path, sizeof(path), "%s/cur", dir);
	if (symlink("quiet", path) < 0 || pthread_create(&t, NULL, flip, &f) != 0)
		return report("RACE_SETUP", -1), 0;
	/* Reads and writes only: what the typist does on the terminal. Opens
	 * and closes are left out because "quiet" gets a late IN_CLOSE_WRITE
	 * of its own: the run's opener made it, and the
	 * last reference to that open file (the opener's copy) may be dropped
	 * after the first watch here is placed (seen under load, wd 1). */
	for (int i = 0; i < 20000; i++)
		if (inotify_add_watch(race, path, IN_ACCESS | IN_MODIFY) >= 0)
			added++;
	f.stop = true;
	pthread_join(t, NULL);
	printf("RACE_ADDED=%d\n", added);

	/* A watch of the command's own file works and sees its writes. */
	snprintf(path, sizeof(path), "%s/own", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	report("OWN", fd < 0 ? -1 : inotify_add_watch(own, path, IN_MODIFY | IN_CLOSE_WRITE));
	if (fd >= 0) {
		if (write(fd, "a", 1) != 1 || write(fd, "b", 1) != 1)
			report("OWN_WRITE", -1);
		close(fd);
	}

	/* The kernel's own errors, in its order: a mask with no event or a
	 * fd of the wrong kind before the path (EINVAL, not ENOENT); no path
	 * and AT_FDCWD (EBADF). */
	report("IN_MASK0", inotify_add_watch(own, "no-such-name", 0));
	report("IN_NOTINO", inotify_add_watch(1, "no-such-name", IN_MODIFY));
	if (fan >= 0)
		report("FAN_CWD", fanotify_mark(fan, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, NULL));

	usleep(1500 * 1000); /* the user types meanwhile */
	printf("OWN_EVENTS=%d\n", drain(own, false));
	printf("TTY_EVENTS=%d\n", drain(in, false));
	printf("FAN_EVENTS=%d\n", drain(fan, true));
	printf("RACE_EVENTS=%d\n", drain(race, false));
	printf("SECRET_EVENTS=%d\n", drain(hid, false));
	fflush(stdout);
	return 0;
}

static int watchdev(const char *path)
{
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK | FAN_CLOEXEC, O_RDONLY);
	int n;

	report("IN_DEV", in < 0 ? -1 : inotify_add_watch(in, path, IN_ACCESS | IN_MODIFY));
	report("FAN_INIT", fan);
	if (fan >= 0)
		report("FAN_DEV", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, AT_FDCWD, path));
	usleep(1500 * 1000); /* the user types meanwhile */
	n = drain(in, false) + drain(fan, true);
	printf("DEV_EVENTS=%d\n", n);
	fflush(stdout);
	return 0;
}

static int watchdir(const char *dir, const char *name)
{
	char buf[8192] __attribute__((aligned(8)));
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), n = 0;
	ssize_t r;

	report("IN_DIR", in < 0 ? -1 : inotify_add_watch(in, dir, IN_OPEN | IN_CLOSE | IN_ACCESS | IN_MODIFY));
	usleep(1500 * 1000); /* the host's processes open NAME meanwhile */
	while (in >= 0 && (r = read(in, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + r;) {
			struct inotify_event *e = (struct inotify_event *)p;

			n += e->len && strcmp(e->name, name) == 0;
			p += sizeof(*e) + e->len;
		}
	}
	printf("NAME_EVENTS=%d\n", n);
	fflush(stdout);
	return 0;
}

static volatile sig_atomic_t dn_events;

static void dn_signal(int sig)
{
	(void)sig;
	dn_events++;
}

static int dnotify(const char *dir)
{
	struct timespec left = { 1, 500 * 1000 * 1000 };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	signal(SIGRTMIN, dn_signal);
	report("OPEN_DIR", fd);
	if (fd >= 0 && fcntl(fd, F_SETSIG, SIGRTMIN) == 0)
		report("DNOTIFY", fcntl(fd, F_NOTIFY,
					DN_CREATE | DN_DELETE | DN_ACCESS | DN_MODIFY | DN_MULTISHOT));
	/* the host's ptys come and go meanwhile; each signal cuts the sleep */
	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
	printf("DN_EVENTS=%d\n", (int)dn_events);
	fflush(stdout);
	return 0;
}

static int open_each(int n, char **paths)
{
	for (int i = 0; i < n; i++)
		report(paths[i], open(paths[i], O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
	return 0;
}

static int unix_send(const char *path, const char *line)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);

	if (strlen(path) + 1 > sizeof(a.sun_path) || n < 0 || (size_t)n >= sizeof(buf))
		return 2;
	memcpy(a.sun_path, path, strlen(path));
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		report("CONNECT", -1);
		return 0;
	}
	report("CONNECT", 0);
	report("SEND", write(s, buf, (size_t)n) == n ? 0 : -1);
	return 0;
}

static int mountcall(const char *call, bool nested)
{
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} attr = { .attr_set = MOUNT_ATTR_NOSUID_FLAG };
	long rc;

	if (nested) {
		rc = unshare(CLONE_NEWUSER | CLONE_NEWNS);
		report("NESTED", rc);
		if (rc < 0)
			return 1;
	}
	if (strcmp(call, "open_tree") == 0)
		rc = syscall(SYS_open_tree, AT_FDCWD, "/", OPEN_TREE_CLONE_FLAG | O_CLOEXEC | AT_RECURSIVE);
	else if (strcmp(call, "mount_setattr") == 0)
		rc = syscall(SYS_mount_setattr, AT_FDCWD, "/", 0, &attr, sizeof(attr));
	else if (strcmp(call, "open_tree_attr") == 0)
		rc = syscall(SBX_SYS_open_tree_attr, AT_FDCWD, "/",
			     OPEN_TREE_CLONE_FLAG | O_CLOEXEC | AT_RECURSIVE, &attr, sizeof(attr));
	else
		return 2;
	report(call, rc);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "overlay") == 0)
		return overlay(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "handle") == 0)
		return handle(argv[2]);
	if (argc == 3 && strcmp(argv[1], "mknod") == 0)
		return do_mknod(argv[2]);
	if (argc == 3 && strcmp(argv[1], "create") == 0)
		return create(argv[2]);
	if (argc == 3 && strcmp(argv[1], "chmod") == 0)
		return do_chmod(argv[2]);
	if (argc == 3 && strcmp(argv[1], "abstract") == 0)
		return abstract(argv[2]);
	if (argc == 4 && strcmp(argv[1], "unix") == 0)
		return unix_send(argv[2], argv[3]);
	if (argc == 2 && strcmp(argv[1], "userns") == 0)
		return userns();
	if (argc == 4 && strcmp(argv[1], "keyring") == 0)
		return keyring(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "open") == 0)
		return open_each(argc - 2, argv + 2);
	if (argc == 3 && strcmp(argv[1], "tty") == 0)
		return tty(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "watch") == 0)
		return watch(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (argc == 3 && strcmp(argv[1], "watchdev") == 0)
		return watchdev(argv[2]);
	if (argc == 4 && strcmp(argv[1], "watchdir") == 0)
		return watchdir(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "dnotify") == 0)
		return dnotify(argv[2]);
	if ((argc == 3 || (argc == 4 && strcmp(argv[3], "nested") == 0)) &&
	    strcmp(argv[1], "mountcall") == 0)
		return mountcall(argv[2], argc == 4);
	fprintf(stderr, "usage: sidedoor overlay|handle|mknod|create|chmod|abstract|unix|userns|keyring|open|tty|watch|watchdev|watchdir|dnotify|mountcall ...\n");
	return 2;
}
