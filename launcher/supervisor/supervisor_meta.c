/* SPDX-License-Identifier: MIT */
/* Metadata calls under the landlock runner: chmod, chown, utimes and
 * extended attributes. Landlock confines paths, not metadata, so without us a
 * root command could `chmod 4755 /usr/bin/python3` or `chmod 000 /etc`.
 *
 * Each call is resolved once into an O_PATH handle (honouring
 * AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH), decided on that handle's canonical
 * path, and performed on that same handle: a symlink swapped by another
 * thread after we looked cannot redirect it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "seccomp_notify.h"
#include "supervisor_int.h"
#include "syscall_abi.h"

#ifndef ANON_INODE_FS_MAGIC
#define ANON_INODE_FS_MAGIC 0x09041934
#endif
#ifndef XATTR_NAME_MAX
#define XATTR_NAME_MAX 255
#endif
#ifndef XATTR_SIZE_MAX
#define XATTR_SIZE_MAX 65536
#endif

enum meta_op { M_CHMOD, M_CHOWN, M_UTIMES, M_SETXATTR, M_REMOVEXATTR };
enum time_kind { T_NONE, T_UTIMBUF, T_TIMEVAL, T_TIMESPEC };

struct meta_req {
	enum meta_op op;
	bool fd_based;        /* fchmod(fd), ...: the object behind fd */
	int fd;               /* fd_based: the fd; else the dirfd */
	uint64_t path;        /* the path's address */
	bool follow;
	bool empty_ok;
	bool path_may_be_null; /* utimensat/futimesat: NULL path means dirfd */
	unsigned long at_flags, allowed_at_flags;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	enum time_kind times_kind;
	uint64_t times;
	uint64_t name;        /* xattr name */
	uint64_t value;
	size_t size;
	int xflags;
	uint64_t xattr_args;  /* setxattrat: struct xattr_args */
	size_t xattr_args_size;
};

/* setxattrat(2)'s argument (Linux 6.13), absent from older headers. */
struct sv_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

bool sv_is_metadata_call(const struct seccomp_notif *n)
{
	switch (n->data.nr) {
#ifdef SYSCALL_ABI_LEGACY_PATHS
	case SYS_chmod: case SYS_chown: case SYS_lchown:
	case SYS_utime: case SYS_utimes: case SYS_futimesat:
#endif
	case SYS_fchmod: case SYS_fchmodat: case NOTIFY_NR_FCHMODAT2:
	case SYS_fchown: case SYS_fchownat: case SYS_utimensat:
	case SYS_setxattr: case SYS_lsetxattr: case SYS_fsetxattr: case NOTIFY_NR_SETXATTRAT:
	case SYS_removexattr: case SYS_lremovexattr: case SYS_fremovexattr:
	case NOTIFY_NR_REMOVEXATTRAT:
		return true;
	default:
		return false;
	}
}

static void path_at(struct meta_req *q, const __u64 *a, bool follow)
{
	q->fd = AT_FDCWD;
	q->path = a[0];
	q->follow = follow;
}

/* The arguments of each call into one request. */
static void decode(const struct seccomp_notif *n, struct meta_req *q)
{
	const __u64 *a = n->data.args;
	const unsigned long at = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;

	memset(q, 0, sizeof(*q));
	switch (n->data.nr) {
#ifdef SYSCALL_ABI_LEGACY_PATHS
	case SYS_chmod:
		q->op = M_CHMOD, path_at(q, a, true), q->mode = (mode_t)a[1];
		break;
	case SYS_chown: case SYS_lchown:
		q->op = M_CHOWN, path_at(q, a, n->data.nr == SYS_chown);
		q->uid = (uid_t)a[1], q->gid = (gid_t)a[2];
		break;
	case SYS_utime:
		q->op = M_UTIMES, path_at(q, a, true), q->times_kind = T_UTIMBUF, q->times = a[1];
		break;
	case SYS_utimes:
		q->op = M_UTIMES, path_at(q, a, true), q->times_kind = T_TIMEVAL, q->times = a[1];
		break;
	case SYS_futimesat:
		q->op = M_UTIMES, q->fd = (int)a[0], q->path = a[1], q->follow = true;
		q->times_kind = T_TIMEVAL, q->times = a[2], q->path_may_be_null = true;
		break;
#endif
	case SYS_fchmod:
		q->op = M_CHMOD, q->fd_based = true, q->fd = (int)a[0], q->mode = (mode_t)a[1];
		break;
	case SYS_fchmodat:
		q->op = M_CHMOD, q->fd = (int)a[0], q->path = a[1], q->follow = true,
		q->mode = (mode_t)a[2];
		break;
	case NOTIFY_NR_FCHMODAT2:
		q->op = M_CHMOD, q->fd = (int)a[0], q->path = a[1], q->mode = (mode_t)a[2];
		q->at_flags = a[3], q->allowed_at_flags = at;
		break;
	case SYS_fchown:
		q->op = M_CHOWN, q->fd_based = true, q->fd = (int)a[0];
		q->uid = (uid_t)a[1], q->gid = (gid_t)a[2];
		break;
	case SYS_fchownat:
		q->op = M_CHOWN, q->fd = (int)a[0], q->path = a[1];
		q->uid = (uid_t)a[2], q->gid = (gid_t)a[3];
		q->at_flags = a[4], q->allowed_at_flags = at;
		break;
	case SYS_utimensat:
		q->op = M_UTIMES, q->fd = (int)a[0], q->path = a[1], q->times_kind = T_TIMESPEC;
		q->times = a[2], q->at_flags = a[3], q->allowed_at_flags = at;
		q->path_may_be_null = true;
		break;
	case SYS_setxattr: case SYS_lsetxattr:
		q->op = M_SETXATTR, path_at(q, a, n->data.nr == SYS_setxattr);
		q->name = a[1], q->value = a[2], q->size = (size_t)a[3], q->xflags = (int)a[4];
		break;
	case SYS_fsetxattr:
		q->op = M_SETXATTR, q->fd_based = true, q->fd = (int)a[0];
		q->name = a[1], q->value = a[2], q->size = (size_t)a[3], q->xflags = (int)a[4];
		break;
	case NOTIFY_NR_SETXATTRAT:
		q->op = M_SETXATTR, q->fd = (int)a[0], q->path = a[1];
		q->at_flags = a[2], q->allowed_at_flags = at, q->name = a[3];
		q->xattr_args = a[4], q->xattr_args_size = (size_t)a[5];
		break;
	case SYS_removexattr: case SYS_lremovexattr:
		q->op = M_REMOVEXATTR, path_at(q, a, n->data.nr == SYS_removexattr), q->name = a[1];
		break;
	case SYS_fremovexattr:
		q->op = M_REMOVEXATTR, q->fd_based = true, q->fd = (int)a[0], q->name = a[1];
		break;
	case NOTIFY_NR_REMOVEXATTRAT:
		q->op = M_REMOVEXATTR, q->fd = (int)a[0], q->path = a[1];
		q->at_flags = a[2], q->allowed_at_flags = at, q->name = a[3];
		break;
	}
	if (q->allowed_at_flags) {
		q->follow = !(q->at_flags & AT_SYMLINK_NOFOLLOW);
		q->empty_ok = (q->at_flags & AT_EMPTY_PATH) != 0;
	}
}

/* The times, as utimensat(2) takes them (NULL: now). */
static int read_times(struct sv_call *c, const struct meta_req *q, struct timespec ts[2],
		      bool *now)
{
	*now = q->times == 0;
	if (*now)
		return 0;
	if (q->times_kind == T_UTIMBUF) {
		struct utimbuf u;
		int rc = sv_read(c, q->times, &u, sizeof(u));

		if (rc < 0)
			return rc;
		ts[0] = (struct timespec){ .tv_sec = u.actime };
		ts[1] = (struct timespec){ .tv_sec = u.modtime };
		return 0;
	}
	if (q->times_kind == T_TIMEVAL) {
		struct timeval tv[2];
		int rc = sv_read(c, q->times, tv, sizeof(tv));

		if (rc < 0)
			return rc;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i] = (struct timespec){ .tv_sec = tv[i].tv_sec,
						   .tv_nsec = tv[i].tv_usec * 1000 };
		}
		return 0;
	}
	return sv_read(c, q->times, ts, 2 * sizeof(ts[0]));
}

/* The handle the call acts on. */
static int object_of(struct sv_call *c, const struct meta_req *q)
{
	char path[PATH_MAX];
	int rc, fd, flags;

	if (q->fd_based || (q->path_may_be_null && q->path == 0 && q->fd != AT_FDCWD)) {
		if (!q->fd_based && q->at_flags)
			return -EINVAL;
		/* The object, not a copy of the command's open file (whose
		 * last close may wait: sv_getfd). */
		fd = sv_fd_path(c, q->fd);
		if (fd < 0)
			return fd;
		/* fchmod(2) and friends refuse an O_PATH fd: so do we. */
		flags = sv_fd_flags(c, q->fd);
		if (flags < 0 || (flags & O_PATH)) {
			close(fd);
			return -EBADF;
		}
		return fd;
	}
	rc = sv_read_string(c, q->path, path, sizeof(path));
	if (rc < 0)
		return rc;
	return sv_resolve(c, q->fd, path, (q->follow ? SV_FOLLOW : 0) | (q->empty_ok ? SV_EMPTY_OK : 0));
}

/* Objects on no file system of the host's tree (pipes, sockets, anonymous
 * inodes): changing their metadata changes nothing on the host. */
static bool anonymous_object(int handle)
{
	struct statfs sf;

	if (fstatfs(handle, &sf) < 0)
		return false;
	return sf.f_type == PIPEFS_MAGIC || sf.f_type == SOCKFS_MAGIC ||
	       sf.f_type == ANON_INODE_FS_MAGIC;
}

/* Whether the caller could have changed this object's metadata without
 * sbx: its owner, or holding CAP_FOWNER (a root caller). Only then is a
 * refusal the sandbox's, and counted; the kernel refuses the rest itself. */
static bool caller_could(const struct sv_call *c, int handle)
{
	struct stat st;

	if (c->sv->caps & (1ULL << CAP_FOWNER))
		return true;
	return fstat(handle, &st) == 0 && st.st_uid == geteuid();
}

static int refuse(struct sv_call *c, int handle, int err)
{
	return caller_could(c, handle) ? sv_refuse(c->sv, err) : -err;
}

bool sv_chmod_refusal_counts(struct sv_call *c)
{
	struct meta_req q;
	int handle;
	bool could;

	if (!syscall_abi_native(&c->n.data) || !sv_is_metadata_call(&c->n))
		return true;
	decode(&c->n, &q);
	handle = object_of(c, &q);
	if (handle < 0)
		return false; /* no such object: the caller's own mistake */
	could = caller_could(c, handle);
	close(handle);
	return could;
}

static int decide(struct sv_call *c, const struct meta_req *q, int handle)
{
	char view[PATH_MAX];
	int rc;

	/* Never a setuid or setgid bit (CONTRACT section 1), not even inside
	 * the root: EPERM, as the seccomp filter refuses it when it sees the
	 * mode first. */
	if (q->op == M_CHMOD && (q->mode & (S_ISUID | S_ISGID)))
		return refuse(c, handle, EPERM);
	rc = sv_view_path(c, handle, view, sizeof(view));
	if (rc < 0)
		return refuse(c, handle, EACCES);
	/* No path at all ("pipe:[12]"): perhaps a pipe or socket. */
	if (view[0] != '/' && anonymous_object(handle))
		return 0;
	return supervise_in_writable(&c->sv->writable, view) ? 0 : refuse(c, handle, EACCES);
}

static int proc_path(int handle, char *buf, size_t size)
{
	return snprintf(buf, size, "/proc/self/fd/%d", handle) < (int)size ? 0 : -ENAMETOOLONG;
}

/* Performed on the handle with our thread's credentials (the command's). */
static int perform(const struct meta_req *q, int handle, const struct timespec *ts,
		   const char *name, const void *value, size_t size, int xflags)
{
	char path[40];
	struct stat st;

	proc_path(handle, path, sizeof(path));
	switch (q->op) {
	case M_CHMOD:
		/* NOFOLLOW: Linux cannot change a symlink's mode, and says so
		 * (EOPNOTSUPP) when the handle is one. */
		if (syscall(NOTIFY_NR_FCHMODAT2, handle, "", q->mode & 07777,
			    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0)
			return 0;
		if (errno != ENOSYS && errno != EINVAL)
			return -errno;
		/* Before Linux 6.6: through our handle's magic link. */
		if (fstat(handle, &st) == 0 && S_ISLNK(st.st_mode))
			return -EOPNOTSUPP;
		return chmod(path, q->mode & 07777) == 0 ? 0 : -errno;
	case M_CHOWN:
		return fchownat(handle, "", q->uid, q->gid, AT_EMPTY_PATH) == 0 ? 0 : -errno;
	case M_UTIMES:
		return utimensat(AT_FDCWD, path, ts, 0) == 0 ? 0 : -errno;
	case M_SETXATTR:
		return setxattr(path, name, value, size, xflags) == 0 ? 0 : -errno;
	case M_REMOVEXATTR:
		return removexattr(path, name) == 0 ? 0 : -errno;
	}
	return -ENOSYS;
}

static int xattr_name(struct sv_call *c, const struct meta_req *q, char *name)
{
	int rc = sv_read_string(c, q->name, name, XATTR_NAME_MAX + 1);

	if (rc == -ENAMETOOLONG || (rc == 0 && name[0] == '\0'))
		return -ERANGE;
	return rc;
}

static int xattr_value(struct sv_call *c, struct meta_req *q, char *value)
{
	if (q->xattr_args) {
		struct sv_xattr_args args;
		int rc;

		if (q->xattr_args_size < sizeof(args))
			return -EINVAL;
		rc = sv_read(c, q->xattr_args, &args, sizeof(args));
		if (rc < 0)
			return rc;
		q->value = args.value, q->size = args.size, q->xflags = (int)args.flags;
	}
	if (q->xflags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	if (q->size > XATTR_SIZE_MAX)
		return -E2BIG;
	return q->size ? sv_read(c, q->value, value, q->size) : 0;
}

void sv_metadata_call(struct sv_call *c, struct sv_answer *a)
{
	char *value = NULL;
	char name[XATTR_NAME_MAX + 1] = "";
	struct timespec ts[2];
	struct meta_req q;
	bool now = true;
	int handle, rc;

	decode(&c->n, &q);
	if (q.at_flags & ~q.allowed_at_flags) {
		a->err = EINVAL;
		return;
	}
	handle = object_of(c, &q);
	if (handle < 0) {
		a->err = -handle;
		return;
	}
	rc = 0;
	if (q.op == M_UTIMES)
		rc = read_times(c, &q, ts, &now);
	else if (q.op == M_SETXATTR || q.op == M_REMOVEXATTR)
		rc = xattr_name(c, &q, name);
	if (rc == 0 && q.op == M_SETXATTR) {
		value = malloc(XATTR_SIZE_MAX);
		rc = value ? xattr_value(c, &q, value) : -ENOMEM;
	}
	/* Everything is read: is it still the call we were asked about? */
	if (rc == 0 && !sv_still_valid(c))
		a->abandon = true;
	else if (rc == 0)
		rc = decide(c, &q, handle);
	if (rc == 0 && !a->abandon)
		rc = perform(&q, handle, now ? NULL : ts, name, value, q.size, q.xflags);
	close(handle);
	free(value);
	a->err = rc < 0 ? -rc : 0;
}
