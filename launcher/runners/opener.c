/* SPDX-License-Identifier: MIT */
/* The run's opener (opener.h). Forked from the command's process: no
 * allocation, no stdio, no locks; raw system calls on stack buffers. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fds.h"
#include "inflight.h"
#include "opener.h"
#include "syscall_abi.h"

#define SOCK_FD 3
#define PROC_FD 4
/* perform's answer for a setuid or setgid file we may not strip */
#define OPENER_REFUSED (-100000)

/* What the opener may call; anything else kills it (then the command's
 * opens for writing fail: nothing passes without it). Why a filter of its
 * own: it has none of the command's (it was forked before them), and it
 * performs calls for the command. */
static const unsigned allowed[] = {
	SYS_recvmsg, SYS_sendmsg, SYS_openat, SYS_openat2, SYS_fstat, SYS_newfstatat, SYS_fchmod,
	SYS_close, SYS_umask, SYS_clone, SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_fcntl,
	SYS_ftruncate, SYS_fstatfs, SYS_readlinkat, SYS_fgetxattr,
};

/* What a command may open for writing in /proc (by the last name of the
 * file the opener holds). Why an allow-list: the opener opens what it is
 * asked to with its own rights, and a process may always write its own
 * /proc/PID/mem: a command that had the opener open /proc/<opener>/mem ran
 * its code in the opener, outside the command's filter, and made a setuid
 * file (adversarial pass). */
static const char *const proc_writable[] = {
	"comm", "uid_map", "gid_map", "projid_map", "setgroups", "oom_score_adj",
	"timerslack_ns", "coredump_filter", "autogroup",
};

static void fd_name(int fd, char *out);

static bool proc_write_allowed(int fd, int procfd)
{
	char name[16], path[256];
	struct statfs sf;
	ssize_t n;

	if (syscall(SYS_fstatfs, fd, &sf) < 0)
		return false;
	if (sf.f_type != PROC_SUPER_MAGIC)
		return true;
	fd_name(fd, name);
	n = syscall(SYS_readlinkat, procfd, name, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = '\0';
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(proc_writable) / sizeof(proc_writable[0]); i++)
		if (strcmp(base, proc_writable[i]) == 0)
			return true;
	return false;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

/* A file with file capabilities (security.capability) gets new content
 * only without them, as a write(2) or a truncation by the kernel leaves it:
 * the kernel drops them there, but not for stores through a shared writable
 * mapping, so a file of the workspace with cap_setuid kept it with the
 * command's content (issue 29, round 3, finding 11). Dropped by the
 * kernel's own route: a chown to the same owner and group (-1, -1) clears
 * them (and a setuid bit) with no capability of ours, where removexattr
 * would need CAP_SETFCAP. Only security.capability: it is what the kernel
 * drops at a write (its "killpriv"); the MAC labels a write keeps stay.
 * false: they could not be seen or are still there (the file is refused). */
static bool drop_file_caps(int fd)
{
	if (syscall(SYS_fgetxattr, fd, "security.capability", NULL, 0) < 0)
		return errno == ENODATA || errno == EOPNOTSUPP;
	if (syscall(SYS_fchown, fd, -1, -1) < 0)
		return false;
	return syscall(SYS_fgetxattr, fd, "security.capability", NULL, 0) < 0 && errno == ENODATA;
}

static int own_filter(void)
{
	struct sock_filter f[4 + 2 * sizeof(allowed) / sizeof(allowed[0]) + 6 + 1];
	size_t n = 0, k = sizeof(allowed) / sizeof(allowed[0]);

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYSCALL_ABI_AUDIT_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < k; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	/* fchown(fd, -1, -1) alone (drop_file_caps): no owner changes. */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fchown, 0, 5);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 3);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);

	struct sock_fprog prog = { .len = (unsigned short)n, .filter = f };

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static void reply(int sock, int err, int fd)
{
	struct opener_reply r = { .err = err < 0 ? -err : err, .refused = err < 0 };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	(void)!sendmsg(sock, &msg, MSG_NOSIGNAL);
}

/* The decimal name of fd, for openat in our /proc/self/fd. */
static void fd_name(int fd, char *out)
{
	char tmp[16];
	int n = 0;

	do
		tmp[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0);
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
}

/* Perform one request: the open file, or -errno. procfd: our own
 * /proc/self/fd (a forked child's is its own). */
static int perform(const struct opener_req *q, int object, int procfd)
{
	unsigned long flags = (q->flags | O_CLOEXEC) & ~(unsigned long)O_EXCL;
	bool with_mode = (q->flags & O_CREAT) || (q->flags & __O_TMPFILE) == __O_TMPFILE;
	struct stat st;
	int fd;

	syscall(SYS_umask, q->umask & 0777);
	if (q->op == OPENER_REOPEN || q->op == OPENER_TRUNCATE) {
		char name[16];

		/* The very object the supervisor resolved, through our own
		 * handle's magic link; its own O_NOFOLLOW was applied there. */
		fd_name(object, name);
		fd = (int)syscall(SYS_openat, procfd, name, (long)(flags & ~(unsigned long)O_NOFOLLOW),
				  with_mode ? (long)q->mode : 0L);
	} else {
		/* A name that did not exist: the kernel resolves and makes it
		 * below the directory. No magic link (ours would be our own
		 * /proc/self, not the command's). */
		struct open_how how = { .flags = q->flags | O_CLOEXEC | O_NONBLOCK,
					.mode = with_mode ? q->mode : 0, .resolve = RESOLVE_NO_MAGICLINKS };
		char name[OPENER_NAME_MAX];

		memcpy(name, q->name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		if (!name[0] || strchr(name, '/') != strrchr(name, '/') ||
		    (strchr(name, '/') && strchr(name, '/')[1]))
			return -EINVAL;
		fd = (int)syscall(SYS_openat2, object, name, &how, sizeof(how));
		/* The name was absent when the supervisor looked: what we
		 * opened must be the regular file made (or one made there
		 * since). Anything else came by a race (a symlink to a host
		 * FIFO put there meanwhile: the supervisor refuses those by
		 * the object, supervisor_open.c), so it is refused. Opened
		 * without waiting, so a FIFO met that way never holds us; the
		 * flag then taken back as the command asked. */
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			return -EACCES;
		}
		if (fd >= 0 && !(q->flags & O_NONBLOCK))
			fcntl(fd, F_SETFL,
			      (long)(q->flags & (O_APPEND | O_ASYNC | O_DIRECT | O_NOATIME)));
	}
	if (fd < 0)
		return -errno;
	/* The file we hold now, whatever name led to it: no write to a
	 * setuid or setgid file with its bit. Why here and not before the
	 * open: the kernel holds this object; a name looked at before could
	 * name another file by now. The command could not set the bits again
	 * (the filters refuse them); if we may not clear them, it gets no
	 * file. */
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (!proc_write_allowed(fd, procfd)) {
		close(fd);
		return -EACCES;
	}
	bool writing = (q->flags & O_ACCMODE) != O_RDONLY || (q->flags & O_TRUNC);

	if (S_ISREG(st.st_mode) && writing && !drop_file_caps(fd)) {
		close(fd);
		return OPENER_REFUSED;
	}
	if (S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID)) && writing &&
	    syscall(SYS_fchmod, fd, st.st_mode & 07777 & ~(S_ISUID | S_ISGID)) < 0) {
		close(fd);
		return OPENER_REFUSED;
	}
	return fd;
}

/* -errno as the answer's err, or ours: -EPERM, refused. */
static void answer_with(int answer, int fd)
{
	if (fd == OPENER_REFUSED)
		reply(answer, -EPERM, -1);
	else
		reply(answer, fd < 0 ? -fd : 0, fd);
}

static void handle(const struct opener_req *q, int object, int answer, int procfd)
{
	int fd = perform(q, object, procfd);

	/* truncate(2): on the file just opened for writing (and stripped),
	 * with our limits (the command's RLIMIT_FSIZE), nothing handed back. */
	if (q->op == OPENER_TRUNCATE && fd >= 0) {
		int err = syscall(SYS_ftruncate, fd, (long)q->length) < 0 ? errno : 0;

		close(fd);
		reply(answer, err, -1);
		return;
	}

	answer_with(answer, fd);
	if (fd >= 0)
		close(fd);
}

/* A FIFO's (or a pipe's) open for writing waits for a reader. With one
 * there already it does not: tried without waiting first, the flag then
 * taken back off the open file as the command asked. Else the waiting
 * open is made by a child of ours, so the run's other opens do not wait
 * too; it answers itself. */
static void fifo_or_not(const struct opener_req *q, int object, int answer)
{
	struct opener_req now = *q;
	int fd;
	pid_t pid;

	if (!q->fork) {
		handle(q, object, answer, PROC_FD);
		return;
	}
	now.flags |= O_NONBLOCK;
	fd = perform(&now, object, PROC_FD);
	if (fd >= 0 && !(q->flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, (long)(q->flags & ~(unsigned)O_NONBLOCK & (O_APPEND | O_ASYNC | O_DIRECT | O_NOATIME)));
	if (fd != -ENXIO) {
		answer_with(answer, fd);
		if (fd >= 0)
			close(fd);
		return;
	}
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid == 0) {
		/* Our /proc/self/fd is the parent's: the child's own. */
		int procfd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd",
					  O_PATH | O_DIRECTORY | O_CLOEXEC, 0);

		handle(q, object, answer, procfd);
		_exit(0);
	}
	if (pid < 0)
		reply(answer, EAGAIN, -1);
}

static __attribute__((noreturn)) void serve(void)
{
	for (;;) {
		struct opener_req q;
		char cbuf[CMSG_SPACE(2 * sizeof(int))];
		struct iovec iov = { .iov_base = &q, .iov_len = sizeof(q) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		int fds[2] = { -1, -1 };
		ssize_t n = recvmsg(SOCK_FD, &msg, MSG_CMSG_CLOEXEC);

		if (n == 0)
			_exit(0); /* sbx closed its end: the run is over */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		c = CMSG_FIRSTHDR(&msg);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len >= CMSG_LEN(2 * sizeof(int)))
			memcpy(fds, CMSG_DATA(c), sizeof(fds));
		else if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
			 c->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(fds, CMSG_DATA(c), sizeof(int));
		if (n == (ssize_t)sizeof(q) && fds[0] >= 0 && fds[1] >= 0)
			fifo_or_not(&q, fds[0], fds[1]);
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
}

static __attribute__((noreturn)) void opener_main(const struct child_spec *spec)
{
	struct sigaction nowait = { .sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT };
	struct fds_bound bound;
	int proc;

	/* Named, so that a `ps` inside the run says what it is. Not
	 * dumpable: the command, of the same user, may neither trace us nor
	 * read or write our memory, nor take our descriptors
	 * (PTRACE_MODE_ATTACH). */
	prctl(PR_SET_NAME, "sbx-opener", 0, 0, 0);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(1);
	/* The children a FIFO's open needs reap themselves. */
	if (sigaction(SIGCHLD, &nowait, NULL) < 0)
		_exit(1);
	/* Both moved up first: either may sit where the other goes. */
	proc = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int sock = fcntl(spec->opener_fd, F_DUPFD_CLOEXEC, 16);

	proc = proc < 0 ? -1 : fcntl(proc, F_DUPFD_CLOEXEC, 16);
	if (proc < 0 || sock < 0 || fds_bound_begin(&bound) < 0 || dup2(sock, SOCK_FD) < 0 ||
	    dup2(proc, PROC_FD) < 0)
		_exit(1);
	/* Only our socket and our /proc/self/fd stay open: none of the run's
	 * pipes (output collection never waits for us). */
	fds_close_from(PROC_FD + 1, false);
	close(0);
	close(1);
	close(2);
	fds_bound_end(&bound);
	fcntl(SOCK_FD, F_SETFD, FD_CLOEXEC);
	fcntl(PROC_FD, F_SETFD, FD_CLOEXEC);
	/* Our answers pass a file: the whole hard limit of fds in flight,
	 * as the listener's hand-off has (kernel/inflight.h). */
	inflight_room_take();
	if (own_filter() < 0)
		_exit(1);
	serve();
}

int opener_start(const struct child_spec *spec, struct child_status *st)
{
	pid_t pid;

	if (spec->opener_fd < 0)
		return 0;
	/* A real fork (our memory is sbx's, or init's): it runs nothing but
	 * the calls above. CLONE_PARENT: beside the command, not its child
	 * (a program that waits for all its children would wait for us). */
	pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0)
		return child_status_set(st, STAGE_SESSION, errno, "fork the opener", NULL);
	if (pid == 0)
		opener_main(spec);
	if (spec->opener_pid)
		*spec->opener_pid = pid;
	/* The command keeps no way to it. */
	close(spec->opener_fd);
	return 0;
}
