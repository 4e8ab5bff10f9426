/* SPDX-License-Identifier: MIT */
/* Opens for writing (workspace-write): open, openat and creat with O_WRONLY
 * or O_RDWR reach us (seccomp_notify.c), by x86-64's or i386's numbers (x32
 * is refused whole by the filters: a kernel without it, like this one, has
 * none of its calls, and none is performed for it). The kernel clears a
 * setuid or setgid bit when a file is written, truncated or cloned into by
 * a process without CAP_FSETID, but not when a shared writable mapping
 * changes it: a root caller's command rewrote a setuid-root file of the
 * workspace through mmap, and it kept mode 4755 with the new content
 * (issue 29, finding 3). A check of the file before the kernel's open, or
 * of the fd before an mmap, is a look at a name or a number that another
 * thread changes in between. So the open itself is performed by the run's
 * opener (runners/opener.h), a process with exactly the command's
 * restrictions, on the object we resolved in the command's view: it
 * checks the file it then holds, strips the bit, and we install that very
 * file in the command (SECCOMP_IOCTL_NOTIF_ADDFD). No file of the run is
 * ever open for writing with either bit set, so no route gives one new
 * content.
 *
 * The command's own resolution is kept where it is not ours to make: a
 * name that did not exist is made by the opener's open below the directory
 * we resolved (the kernel resolves the last component, follows a dangling
 * symlink, honours the umask we pass); /proc/self and /proc/thread-self
 * name the command (its number in its own PID namespace); /dev/tty is the
 * command's controlling terminal, which the opener (no terminal) has none
 * of: reopened from the command's own fd on it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "inflight.h"
#include "opener.h"
#include "supervisor_int.h"
#include "syscall_abi.h"

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1) /* Linux 5.14 */
#endif
/* i386's numbers; arm64's 32-bit ARM never reaches us (its filter kills
 * it), nor has arm64 open or creat (libc's call openat). */
#define I386_OPEN 5
#define I386_OPENAT 295
#define I386_CREAT 8
#define I386_TRUNCATE 92
#define I386_TRUNCATE64 193
#if defined(__x86_64__)
#define IS_I386(n) ((n)->data.arch == AUDIT_ARCH_I386)
#else
#define IS_I386(n) false
#endif
#ifdef SYSCALL_ABI_LEGACY_PATHS
#define NATIVE_OPEN SYS_open
#define NATIVE_CREAT SYS_creat
#else
#define NATIVE_OPEN (-1)
#define NATIVE_CREAT (-1)
#endif
#define CTTY_SCAN_MAX 1024
#define OPEN_REFUSED (-100000) /* ask_opener: the opener refused it */

struct sv_open_op {
	struct supervisor *sv;
	uint64_t id;               /* the notification */
	struct opener_req req;
	int object;                /* O_PATH: the object, or the directory (CREATE) */
	int answer[2];             /* the opener's answer comes on [0] */
	bool cloexec;
};

bool sv_is_open_call(const struct seccomp_notif *n)
{
	if (IS_I386(n))
		return n->data.nr == I386_OPEN || n->data.nr == I386_OPENAT || n->data.nr == I386_CREAT ||
		       n->data.nr == I386_TRUNCATE || n->data.nr == I386_TRUNCATE64;
	int nr = syscall_abi_nr(&n->data);

	return syscall_abi_native(&n->data) &&
	       (nr == NATIVE_OPEN || nr == SYS_openat || nr == NATIVE_CREAT || nr == SYS_truncate);
}

void sv_open_free(struct sv_open_op *op)
{
	if (!op)
		return;
	if (op->object >= 0)
		close(op->object);
	for (int i = 0; i < 2; i++)
		if (op->answer[i] >= 0)
			close(op->answer[i]);
	free(op);
}

#define NS_LEVELS 33 /* PID namespaces nest 32 deep */

/* The caller as its status file says: its umask, and its thread group's
 * and its own numbers, one per PID namespace it is in, outermost first
 * (NStgid, NSpid). */
struct caller {
	unsigned umask;
	long tgid[NS_LEVELS], tid[NS_LEVELS];
	int levels;
};

static int numbers(const char *buf, const char *key, long *out)
{
	const char *p = strstr(buf, key);
	int n = 0;

	if (!p)
		return -1;
	p += strlen(key);
	while (*p && *p != '\n' && n < NS_LEVELS) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		out[n++] = v;
		p = end;
	}
	return n;
}

static int caller_status(struct sv_call *c, struct caller *who)
{
	char buf[2048];
	int proc = sv_proc_dir(c);

	if (proc < 0 || sv_read_small(proc, "status", buf, sizeof(buf)) < 0)
		return -EACCES;
	who->umask = (unsigned)sv_field(buf, "\nUmask:", 8);
	who->levels = numbers(buf, "\nNStgid:", who->tgid);
	if (who->levels <= 0 || numbers(buf, "\nNSpid:", who->tid) != who->levels)
		return -EIO;
	return 0;
}

/* A process's start time (field 22 of a stat file, in clock ticks since
 * boot: the same in every procfs, for one reader), or 0. */
static unsigned long long start_time(const char *stat)
{
	const char *p = strrchr(stat, ')');

	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* What a procfs says of a process: its NStgid numbers (from that procfs's
 * PID namespace inward) and its start time. 0 or -1. */
static int proc_says(int dirfd, const char *dir, long *tgid, int *n, unsigned long long *start)
{
	char path[64], buf[2048];

	snprintf(path, sizeof(path), "%s/status", dir);
	if (sv_read_small(dirfd, path, buf, sizeof(buf)) < 0 ||
	    (*n = numbers(buf, "\nNStgid:", tgid)) <= 0)
		return -1;
	snprintf(path, sizeof(path), "%s/stat", dir);
	if (sv_read_small(dirfd, path, buf, sizeof(buf)) < 0)
		return -1;
	*start = start_time(buf);
	return *start ? 0 : -1;
}

/* Whether /proc/N in the command's view, N its number at level, is the
 * caller itself. That procfs lists a process's numbers from its own PID
 * namespace inward, so the caller's from level on, and the start time is
 * the same whoever reads it. Why both: in a procfs of an outer level, N
 * may name another process (the run's init is 1 there, as an unshared
 * command may be in its own), whose numbers from there can read the same. */
static bool proc_is_caller(struct sv_call *c, int level, const struct caller *who)
{
	char path[64], own[32];
	long there[NS_LEVELS], here[NS_LEVELS];
	unsigned long long t_there, t_here;
	int h, n_there, n_here;
	bool same;

	snprintf(path, sizeof(path), "/proc/%ld", who->tgid[level]);
	h = sv_resolve(c, AT_FDCWD, path, SV_FOLLOW);
	if (h < 0)
		return false;
	same = proc_says(h, ".", there, &n_there, &t_there) == 0;
	close(h);
	/* The caller's thread group as our own procfs has it (tgid[0]: its
	 * number there); its pid reused meanwhile is caught before the call
	 * is made (sv_still_valid). */
	snprintf(own, sizeof(own), "/proc/%ld", who->tgid[0]);
	if (!same || proc_says(AT_FDCWD, own, here, &n_here, &t_here) < 0 || n_here != who->levels ||
	    t_here != t_there || n_there != who->levels - level)
		return false;
	for (int i = 0; i < n_there; i++)
		if (there[i] != who->tgid[level + i])
			return false;
	return true;
}

/* "/proc/self[/...]" and "/proc/thread-self[/...]" as the command's own
 * numbers: ours would be sbx's (or none, in its PID namespace). Its number
 * in the PID namespace of the /proc it sees, which need not be its
 * innermost (unshare -p without a /proc of its own): the level whose
 * /proc/N is the caller. The fd spellings stay (sv_resolve takes them as
 * the command's fds). */
static int own_proc(struct sv_call *c, char *path, size_t size, const struct caller *who)
{
	static const char *const self[] = { "/proc/self", "/proc/thread-self" };
	char rest[PATH_MAX];

	for (int i = 0; i < 2; i++) {
		size_t len = strlen(self[i]);
		int level = who->levels - 1;

		if (strncmp(path, self[i], len) != 0 || (path[len] && path[len] != '/'))
			continue;
		if (strncmp(path + len, "/fd/", 4) == 0)
			return 0;
		/* One level (no PID namespace of the run's): that /proc is ours. */
		while (who->levels > 1 && level >= 0 && !proc_is_caller(c, level, who))
			level--;
		if (level < 0)
			return -ENOENT; /* no /proc of the caller's in its view */
		snprintf(rest, sizeof(rest), "%s", path + len);
		if ((i == 0 ? snprintf(path, size, "/proc/%ld%s", who->tgid[level], rest)
			    : snprintf(path, size, "/proc/%ld/task/%ld%s", who->tgid[level],
				       who->tid[level], rest)) >= (int)size)
			return -ENAMETOOLONG;
		return 0;
	}
	return 0;
}

/* /dev/tty, as the kernel's open of it gives the caller: its controlling
 * terminal, which it holds open (login_tty, script and expect do), or none
 * (ENXIO, as for a command that has none: sbx starts it without one). An
 * O_PATH handle on that terminal, or -errno. */
static int controlling_tty(struct sv_call *c)
{
	char buf[1024];
	const char *p;
	int proc = sv_proc_dir(c);
	unsigned long long tty = 0;

	if (proc < 0 || sv_read_small(proc, "stat", buf, sizeof(buf)) < 0 ||
	    !(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %*d %*d %*d %llu", &tty) != 1)
		return -EACCES;
	if (tty == 0)
		return -ENXIO;
	for (int fd = 0; fd < CTTY_SCAN_MAX; fd++) {
		struct stat st;
		int h = sv_fd_path(c, fd);

		if (h < 0)
			continue;
		/* the kernel's dev_t in stat's tty_nr: major 8-15, minor 0-7 and 20-31 */
		if (fstat(h, &st) == 0 && S_ISCHR(st.st_mode) &&
		    major(st.st_rdev) == ((tty >> 8) & 0xfff) &&
		    minor(st.st_rdev) == ((tty & 0xff) | ((tty >> 12) & 0xfff00)))
			return h;
		close(h);
	}
	return -ENXIO;
}

/* The call's arguments; *length >= 0 for a truncate(2) (to that length). */
static void decode(const struct seccomp_notif *n, int *dirfd, uint64_t *path, int *flags,
		   unsigned *mode, int64_t *length)
{
	const __u64 *a = n->data.args;
	bool i386 = IS_I386(n);
	int nr = i386 ? (int)n->data.nr : syscall_abi_nr(&n->data);

	*dirfd = AT_FDCWD;
	*length = -1;
	if (nr == (i386 ? I386_TRUNCATE : SYS_truncate) || (i386 && nr == I386_TRUNCATE64)) {
		*path = a[0], *flags = O_WRONLY, *mode = 0;
		*length = !i386 ? (int64_t)a[1]
			  : nr == I386_TRUNCATE ? (int64_t)(int32_t)a[1]
						: (int64_t)((a[2] << 32) | (a[1] & 0xffffffffULL));
		/* negative: EINVAL, as the kernel says */
		if (*length < 0)
			*length = INT64_MIN;
	} else if (nr == (i386 ? I386_OPENAT : SYS_openat)) {
		*dirfd = (int)(int32_t)a[0], *path = a[1], *flags = (int)a[2], *mode = (unsigned)a[3];
	} else if (nr == (i386 ? I386_CREAT : NATIVE_CREAT)) {
		*path = a[0], *flags = O_CREAT | O_WRONLY | O_TRUNC, *mode = (unsigned)a[1];
	} else {
		*path = a[0], *flags = (int)a[1], *mode = (unsigned)a[2];
	}
	if (i386)
		*path &= 0xffffffffULL;
}

/* sv_resolve, following symlinks that end at a magic link of the
 * command's own (/dev/stdout -> /proc/self/fd/1), which sv_resolve refuses
 * to follow (ours would be sbx's): each hop read from the link itself and
 * resolved again as the command's (sv_resolve takes /proc/self/fd/N as its
 * fd N). path is rewritten along. */
static int resolve_following(struct sv_call *c, int dirfd, char *path, size_t size,
			     const struct caller *who)
{
	int h = sv_resolve(c, dirfd, path, SV_FOLLOW);

	/* ELOOP: a magic link on the way; ENOENT: a /proc/self our own
	 * resolution took for sbx's (absent from the command's PID
	 * namespace). Either way, when the name itself is a symlink, we
	 * follow it by hand. */
	for (int hops = 0; (h == -ELOOP || h == -ENOENT) && hops < 8; hops++) {
		char target[PATH_MAX], next[PATH_MAX];
		struct stat st;
		ssize_t n;
		int link = sv_resolve(c, dirfd, path, 0);

		if (link < 0)
			return h;
		n = fstat(link, &st) == 0 && S_ISLNK(st.st_mode) ? readlinkat(link, "", target, sizeof(target) - 1)
								 : -1;
		close(link);
		if (n <= 0)
			return h;
		target[n] = '\0';
		if (target[0] == '/') {
			snprintf(next, sizeof(next), "%s", target);
		} else {
			/* relative to the link's directory */
			char *slash = strrchr(path, '/');

			if (slash)
				slash[1] = '\0';
			if (snprintf(next, sizeof(next), "%s%s", slash ? path : "", target) >= (int)sizeof(next))
				return -ENAMETOOLONG;
		}
		snprintf(path, size, "%s", next);
		if (own_proc(c, path, size, who) < 0)
			return -ENAMETOOLONG;
		h = sv_resolve(c, dirfd, path, SV_FOLLOW);
	}
	return h;
}

/* st lies on the file system of /dev or of /dev/pts. */
static bool on_dev_fs(const struct stat *st)
{
	struct stat d;

	return (stat("/dev", &d) == 0 && d.st_dev == st->st_dev) ||
	       (stat("/dev/pts", &d) == 0 && d.st_dev == st->st_dev);
}

/* A kernel interface, not a store of files: what is written there changes
 * processes or the kernel (a procfs, sysfs or cgroupfs mounted in a chroot
 * tree that is the workspace). */
static bool kernel_interface(int handle)
{
	static const unsigned long magic[] = {
		0x9fa0 /* proc */,	      0x62656572 /* sysfs */,	 0x27e0eb /* cgroup */,
		0x63677270 /* cgroup2 */,     0x64626720 /* debugfs */,	 0x74726163 /* tracefs */,
		0x73636673 /* securityfs */, 0xcafe4a11 /* bpf */,	 0x62656570 /* configfs */,
		0xde5e81e4 /* efivarfs */,    0x6165676c /* pstore */,	 0xf97cff8c /* selinuxfs */,
		0x43415d53 /* smackfs */,     0x42494e4d /* binfmt_misc */, 0x65735543 /* fusectl */,
	};
	struct statfs sf;

	if (fstatfs(handle, &sf) < 0)
		return true;
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((unsigned long)sf.f_type == magic[i])
			return true;
	return false;
}

/* handle lies on the very mount the command's /proc is (by mount id). */
static bool on_own_proc(struct sv_call *c, int handle)
{
	struct statx a, b;
	int proc = sv_resolve(c, AT_FDCWD, "/proc", SV_FOLLOW);
	bool same = proc >= 0 &&
		    statx(handle, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) == 0 &&
		    statx(proc, "", AT_EMPTY_PATH, STATX_MNT_ID, &b) == 0 &&
		    (a.stx_mask & STATX_MNT_ID) && (b.stx_mask & STATX_MNT_ID) &&
		    a.stx_mnt_id == b.stx_mnt_id;

	if (proc >= 0)
		close(proc);
	return same;
}

static bool fifo_mount_writable(int handle)
{
	struct statfs sf;

	return fstatfs(handle, &sf) == 0 && !(sf.f_flags & ST_RDONLY);
}

/* The object to open, or the directory to make it in: op filled, or
 * -errno (the answer). */
static int resolve(struct sv_call *c, struct sv_open_op *op, int dirfd, char *path, int flags,
		   const struct caller *who)
{
	struct stat st;
	int h = (flags & O_NOFOLLOW) ? sv_resolve(c, dirfd, path, 0)
				     : resolve_following(c, dirfd, path, PATH_MAX, who);

	if (h >= 0) {
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			close(h);
			return -EEXIST;
		}
		if (fstat(h, &st) < 0) {
			close(h);
			return -EACCES;
		}
		if (S_ISLNK(st.st_mode) && !(flags & O_PATH)) {
			close(h);
			return -ELOOP; /* O_NOFOLLOW on a symlink */
		}
		/* A FIFO on a read-only mount (namespace runner): outside the
		 * writable set, as every such mount is. Why here: the mount
		 * refuses regular files and (nodev) devices itself, but not a
		 * FIFO's open for writing; a host daemon that reads its
		 * commands from one then acted for the command. Decided on the
		 * handle we hold, the object and the mount the opener opens.
		 * Anonymous pipes (pipefs) and the command's own mounts are
		 * not read-only. Under the landlock runner Landlock refuses it
		 * itself (EACCES). */
		if (S_ISFIFO(st.st_mode) && !c->sv->metadata && !fifo_mount_writable(h)) {
			close(h);
			return sv_refuse(c->sv, EACCES);
		}
		/* A kernel interface file system other than the command's own
		 * /proc: one mounted in the workspace (a chroot tree's proc and
		 * sys) let a run write the host's processes' files (another
		 * process's oom_score_adj) and kernel settings. Its own /proc
		 * stays (the run's processes may write their own files). */
		if (kernel_interface(h) && !on_own_proc(c, h)) {
			close(h);
			return sv_refuse(c->sv, EACCES);
		}
		/* A device node outside /dev's own file systems (one in the
		 * workspace: a copy of a disk's or /dev/kmsg's node, a chroot's
		 * dev/) under the landlock runner, which has no nodev: Landlock
		 * grants only the nodes of /dev it lists, and a copy elsewhere
		 * took a root caller's writes to the host's log and disks. */
		if (c->sv->metadata && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) &&
		    !on_dev_fs(&st)) {
			close(h);
			return sv_refuse(c->sv, EACCES);
		}
		if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(5, 0)) {
			close(h);
			h = controlling_tty(c);
			if (h < 0)
				return h;
		}
		op->req.op = OPENER_REOPEN;
		op->req.fork = S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK);
		op->object = h;
		return 0;
	}
	if (h != -ENOENT || !(flags & O_CREAT))
		return h;
	/* Not there: made by the opener's open, below its directory. */
	size_t len = strlen(path);
	bool slash = len > 1 && path[len - 1] == '/';
	const char *dir, *name;

	if (!sv_split_path(path, &dir, &name))
		return -EISDIR;
	if (strlen(name) + 2 > sizeof(op->req.name))
		return -ENAMETOOLONG;
	snprintf(op->req.name, sizeof(op->req.name), "%s%s", name, slash ? "/" : "");
	h = sv_resolve(c, dirfd, dir, SV_FOLLOW);
	if (h < 0)
		return h;
	op->req.op = OPENER_CREATE;
	op->object = h;
	return 0;
}

/* truncate(2) of the object resolved: a regular file (EISDIR, EINVAL as
 * the kernel says otherwise), opened and truncated by the opener. */
static int as_truncate(struct sv_open_op *op, int64_t length)
{
	struct stat st;

	if (op->req.op != OPENER_REOPEN || fstat(op->object, &st) < 0)
		return -EACCES;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	op->req.op = OPENER_TRUNCATE;
	op->req.length = (uint64_t)length;
	op->req.fork = 0;
	return 0;
}

struct sv_open_op *sv_open_prepare(struct sv_call *c, struct sv_answer *a)
{
	struct sv_open_op *op = calloc(1, sizeof(*op));
	char path[PATH_MAX];
	struct caller who;
	unsigned mode;
	uint64_t addr;
	int64_t length;
	int dirfd, flags, rc;

	if (!op) {
		a->err = ENOMEM;
		return NULL;
	}
	op->sv = c->sv;
	op->id = c->n.id;
	op->object = op->answer[0] = op->answer[1] = -1;
	decode(&c->n, &dirfd, &addr, &flags, &mode, &length);
	/* Landlock before ABI 3 cannot refuse truncate(2) (the landlock
	 * runner's enforcement is partial, and says so): there the kernel
	 * performs it, as before; it clears a setuid bit itself, and a setgid
	 * bit with group execute (docs/supervisor.md). */
	if (length != -1 && c->sv->metadata && c->sv->landlock_abi < 3) {
		a->cont = true;
		sv_open_free(op);
		return NULL;
	}
	rc = length == INT64_MIN ? -EINVAL : sv_read_string(c, addr, path, sizeof(path));
	if (rc == 0 && path[0] == '\0')
		rc = -ENOENT;
	if (rc == 0)
		rc = caller_status(c, &who);
	if (rc == 0)
		rc = own_proc(c, path, sizeof(path), &who);
	if (rc == 0)
		rc = resolve(c, op, dirfd, path, flags, &who);
	if (rc == 0 && length >= 0)
		rc = as_truncate(op, length);
	op->req.flags = (uint32_t)flags;
	op->req.mode = mode & 07777;
	op->req.umask = rc == 0 ? who.umask : 022;
	op->cloexec = (flags & O_CLOEXEC) != 0;
	/* Everything is read: is it still the call we were asked about? */
	if (rc == 0 && !sv_still_valid(c)) {
		a->abandon = true;
		rc = -ECANCELED;
	}
	if (rc < 0) {
		if (!a->abandon)
			a->err = -rc;
		sv_open_free(op);
		return NULL;
	}
	return op;
}

bool sv_open_may_block(const struct sv_open_op *op)
{
	return op->req.fork != 0;
}

/* The opener's answer: the open file, or -errno. */
static int ask_opener(struct sv_open_op *op)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = &op->req, .iov_len = sizeof(op->req) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct opener_reply r = { 0 };
	struct cmsghdr *cm;
	int fds[2], fd = -1, old;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, op->answer) < 0)
		return -errno;
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	fds[0] = op->object;
	fds[1] = op->answer[1];
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	/* With the margin of the fds in flight: a command that filled its
	 * user's count (kernel/inflight.h) must not stop its own opens, nor
	 * another run's. */
	for (;;) {
		long sent = inflight_sendmsg(op->sv->opener, &msg, MSG_NOSIGNAL | MSG_DONTWAIT, true);
		struct pollfd p = { .fd = op->sv->opener, .events = POLLOUT };

		if (sent == (long)sizeof(op->req))
			break;
		if (sent >= 0 || errno != EAGAIN || poll(&p, 1, -1) < 0)
			return -EPIPE;
	}
	close(op->answer[1]);
	op->answer[1] = -1;
	iov = (struct iovec){ .iov_base = &r, .iov_len = sizeof(r) };
	msg = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			       .msg_controllen = sizeof(cbuf) };
	/* A FIFO's open waits here for its reader: on a worker, cancelled
	 * when the caller dies or the run ends (then the opener's child
	 * waits on, until the run's end ends it). */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	n = recvmsg(op->answer[0], &msg, MSG_CMSG_CLOEXEC);
	pthread_setcancelstate(old, NULL);
	if (n != (ssize_t)sizeof(r))
		return -EPIPE;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (r.refused) {
		if (fd >= 0)
			close(fd);
		return OPEN_REFUSED;
	}
	if (r.err || op->req.op == OPENER_TRUNCATE) {
		if (fd >= 0)
			close(fd);
		return -r.err;
	}
	return fd >= 0 ? fd : -EIO;
}

void sv_open_perform(struct sv_open_op *op, struct sv_answer *a)
{
	struct seccomp_notif_addfd add = { .id = op->id, .flags = SECCOMP_ADDFD_FLAG_SEND,
					   .newfd_flags = op->cloexec ? O_CLOEXEC : 0 };
	int fd = ask_opener(op), got;

	if (fd == 0 && op->req.op == OPENER_TRUNCATE)
		return; /* done: 0 */

	if (fd == -EPIPE) {
		/* No opener (it died, the command killed it): nothing opens
		 * for writing past us. */
		a->err = -sv_refuse(op->sv, EACCES);
		return;
	}
	if (fd == OPEN_REFUSED) {
		/* A setuid or setgid file whose bit the caller may not clear:
		 * refused by us, counted. */
		a->err = -sv_refuse(op->sv, EPERM);
		return;
	}
	if (fd < 0) {
		a->err = -fd; /* the kernel's answer to the opener's open */
		return;
	}
	add.srcfd = (uint32_t)fd;
	/* ADDFD_FLAG_SEND installs the file and answers in one step: the fd
	 * number is the call's result. */
	got = ioctl(op->sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	if (got >= 0 || errno == ENOENT) {
		a->abandon = true; /* answered, or the caller is gone */
	} else if (errno == EINVAL) {
		/* Before Linux 5.14: installed, then answered with its number. */
		add.flags = 0;
		got = ioctl(op->sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		if (got >= 0)
			a->val = got;
		else if (errno == ENOENT)
			a->abandon = true;
		else if (errno == EMFILE)
			a->err = EMFILE;
		else
			a->cont = true; /* no ADDFD (before 5.9): the kernel opens it (docs) */
	} else {
		a->err = errno == EMFILE ? EMFILE : EACCES;
	}
	close(fd);
}
