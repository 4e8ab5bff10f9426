/* SPDX-License-Identifier: MIT */
/* Mount helpers of the namespace view. Child side: no allocation, no stdio. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#include "mount_api.h"
#include "ns_mounts.h"
#include "ns_view.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

int ns_join(char *dst, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > size)
		return -1;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb + 1);
	return 0;
}

int ns_grab_at(int dirfd, const char *path, bool recursive, struct ns_handle *h,
	       struct child_status *st)
{
	unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0) |
			 (path[0] ? 0 : AT_EMPTY_PATH);
	int fd = (int)syscall(SYS_open_tree, dirfd, path, flags);

	if (fd >= 0) {
		h->fd = fd;
		h->detached = true;
		return 0;
	}
	if (errno != ENOSYS)
		return child_status_set(st, STAGE_MOUNT, errno, "open_tree", path[0] ? path : "(handle)");
	/* No open_tree (before 5.2, or a seccomp profile hides it): keep the
	 * dentry instead and bind it later through /proc/self/fd, which
	 * reaches it even once a mount covers its path. */
	fd = path[0] ? openat(dirfd, path, O_PATH | O_CLOEXEC) : fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "open", path[0] ? path : "(handle)");
	h->fd = fd;
	h->detached = false;
	return 0;
}

/* An O_PATH handle here on path, which must name the same directory as the
 * parent's fd; -1 with st filled. */
static int open_same(const char *path, int fd, struct child_status *st)
{
	struct stat want, got;
	int here = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (here < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "open", path);
	/* Why: the directory confined is the one resolved before the run; a
	 * symlink planted on the way since then must not redirect it. */
	if (fstat(fd, &want) < 0 || fstat(here, &got) < 0 || want.st_dev != got.st_dev ||
	    want.st_ino != got.st_ino) {
		close(here);
		return child_status_set(st, STAGE_MOUNT, ESTALE,
					"no longer the directory resolved before the run:", path);
	}
	return here;
}

int ns_grab_same(const char *path, int fd, bool recursive, struct ns_handle *h,
		 struct child_status *st)
{
	int here = open_same(path, fd, st);
	int rc;

	if (here < 0)
		return -1;
	rc = ns_grab_at(here, "", recursive, h, st);
	close(here);
	return rc;
}

int ns_grab_same_readonly(const char *path, int fd, struct ns_handle *h, struct child_status *st)
{
	struct ns_mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV };

	if (ns_grab_same(path, fd, true, h, st) < 0)
		return -1;
	if (!h->detached)
		return 0;
	/* Why: a clone taken now keeps the host's flags (writable); every
	 * mount of it read-only and nodev before it is attached anywhere. */
	if (syscall(SYS_mount_setattr, h->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
		    sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return child_status_set(st, STAGE_MOUNT, errno, "mount_setattr read-only", path);
	/* Before 5.12: the dentry instead, bound after step 2 has made every
	 * mount read-only: a bind copies each mount's flags as they are then. */
	ns_handle_close(h);
	h->fd = open_same(path, fd, st);
	h->detached = false;
	return h->fd < 0 ? -1 : 0;
}

void ns_handle_close(struct ns_handle *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

int ns_attach(struct ns_handle *h, const char *target, bool recursive, struct child_status *st)
{
	if (h->detached) {
		if (syscall(SYS_move_mount, h->fd, "", AT_FDCWD, target,
			    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "move_mount", target);
	} else {
		char src[32];

		child_put_uint(src, child_put_str(src, 0, sizeof(src), "/proc/self/fd/"),
			       sizeof(src), (unsigned long)h->fd);
		if (mount(src, target, NULL, MS_BIND | (recursive ? MS_REC : 0), NULL) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "mount --bind", target);
	}
	ns_handle_close(h);
	return 0;
}

static int remount(const char *path, unsigned long extra, struct child_status *st,
		   const char *what)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "statfs", path);
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | extra | ns_restate_flags(sf.f_flags),
		  NULL) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, what, path);
	return 0;
}

int ns_remount_readonly(const char *path, struct child_status *st)
{
	return remount(path, MS_RDONLY, st, "remount read-only");
}

int ns_remount_device(const char *path, struct child_status *st)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "statfs", path);
	if (mount(NULL, path, NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | (ns_restate_flags(sf.f_flags) & ~MS_NODEV),
		  NULL) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "remount read-only", path);
	return 0;
}

int ns_remount_writable(const char *path, struct child_status *st)
{
	return remount(path, MS_NODEV, st, "remount writable");
}

int ns_nodev(const char *path, struct child_status *st)
{
	struct ns_mount_attr attr = { .attr_set = MOUNT_ATTR_NODEV };

	if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return child_status_set(st, STAGE_MOUNT, errno, "mount_setattr nodev", path);
	return ns_remount_writable(path, st);
}

/* path + ".sbx-moved-N", the first N free: renamed there without
 * following it, in its own directory. */
static int move_aside(const char *path, struct child_status *st)
{
	static const char suffix[] = ".sbx-moved-";
	char to[PATH_MAX];
	size_t n = strlen(path);

	if (n + sizeof(suffix) + 4 > sizeof(to))
		return child_status_set(st, STAGE_MOUNT, ENAMETOOLONG, "move aside", path);
	memcpy(to, path, n);
	memcpy(to + n, suffix, sizeof(suffix) - 1);
	for (unsigned i = 0; i < 1000; i++) {
		char *d = to + n + sizeof(suffix) - 1;

		if (i >= 100)
			*d++ = (char)('0' + i / 100);
		if (i >= 10)
			*d++ = (char)('0' + i / 10 % 10);
		*d++ = (char)('0' + i % 10);
		*d = '\0';
		if (syscall(SYS_renameat2, AT_FDCWD, path, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EEXIST)
			return child_status_set(st, STAGE_MOUNT, errno, "move aside", path);
	}
	return child_status_set(st, STAGE_MOUNT, EEXIST, "move aside", path);
}

/* why: in a /tmp the workspace keeps, the directories on the way to a
 * mount point are the command's ground between runs; a file, link or fifo
 * a command left where one must be (a directory, or the file a socket is
 * bound on) would fail every later run of the root (adversarial pass 5,
 * finding 02). It is moved aside, nothing of the command's is lost, and
 * nothing is followed: a link is renamed, never resolved. A fresh tmpfs
 * holds nothing to move. */
static int clear_way(const char *p, bool dir, struct child_status *st)
{
	struct stat sb;

	if (lstat(p, &sb) < 0)
		return errno == ENOENT ? 0 : child_status_set(st, STAGE_MOUNT, errno, "lstat", p);
	if (dir ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode))
		return 0;
	return move_aside(p, st);
}

int ns_make_mount_point(const char *path, size_t cover_len, bool dir, struct child_status *st)
{
	char p[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return child_status_set(st, STAGE_MOUNT, ENAMETOOLONG, "mount point", path);
	memcpy(p, path, n + 1);
	for (size_t i = cover_len + 1; i <= n; i++) {
		char c = p[i];
		bool file = c == '\0' && !dir;

		if (c != '/' && c != '\0')
			continue;
		p[i] = '\0';
		if (clear_way(p, !file, st) < 0)
			return -1;
		if (file) {
			int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);

			if (fd < 0)
				return child_status_set(st, STAGE_MOUNT, errno, "create", p);
			close(fd);
		} else if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			return child_status_set(st, STAGE_MOUNT, errno, "mkdir", p);
		}
		p[i] = c;
	}
	return 0;
}
