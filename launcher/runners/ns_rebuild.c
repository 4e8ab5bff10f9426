/* SPDX-License-Identifier: MIT */
/* The directories that hold the credential stores (or would: the deepest
 * directory of a store's path that exists when the run starts), shown to the
 * command as they were then: a small tmpfs over each, every entry it held
 * bound back in (recursively: mounts below come along) or, a symlink, copied;
 * a hidden entry gets an empty one of its kind, which ns_hide.c covers.
 *
 * Why: a cover is a mount on the store's own dentry. A store made later where
 * there was none has no cover, and a tool that writes a new file and renames
 * it over the old one (git's credential store, npm, docker) makes the kernel
 * detach every mount on the old dentry, in every mount namespace: either
 * would be read through the live directory. Here a name the directory gets
 * during the run is not in the command's view at all, and one replaced shows
 * what it was. Child side: no allocation, no stdio. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ns_hide.h"

/* A directory with more entries is left as it is (its stores covered by
 * name, as before): one mount each, and the run would pay for every one. */
#define NS_REBUILD_MAX_ENTRIES 1024

struct dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#ifndef DT_DIR
#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_LNK 10
#endif

static bool dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

/* Each entry of the directory at fd, from its start: fn(entry), until fn
 * fails. 0, or -errno from getdents64, or fn's -1. */
static int each_entry(int fd, int (*fn)(void *ctx, const char *name, unsigned char type),
		      void *ctx)
{
	char buf[4096] __attribute__((aligned(8)));

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			off += d->d_reclen;
			if (!dot_or_dotdot(d->d_name) && fn(ctx, d->d_name, d->d_type) < 0)
				return -1;
		}
	}
}

static int count_one(void *ctx, const char *name, unsigned char type)
{
	(void)name;
	(void)type;
	return ++*(size_t *)ctx > NS_REBUILD_MAX_ENTRIES ? -1 : 0;
}

struct rebuild {
	const struct ns_view_spec *v;
	const char *dir;
	int fd;
	struct child_status *st;
};

static bool hidden(const struct ns_view_spec *v, const char *path)
{
	for (size_t i = 0; i < v->hide.n; i++)
		if (strcmp(v->hide.path[i], path) == 0)
			return true;
	return false;
}

/* One entry of the directory, as it is now: copied (a symlink), an empty
 * place (hidden), or bound back from the directory's own handle, which
 * reaches beneath the tmpfs now over its path. */
static int rebuild_entry(void *ctx, const char *name, unsigned char type)
{
	struct rebuild *r = ctx;
	char path[PATH_MAX], src[64 + NAME_MAX], target[PATH_MAX];
	struct stat sb;
	size_t pos;
	int fd;

	if (ns_join(path, sizeof(path), r->dir, "/") < 0 ||
	    ns_join(path + strlen(path), sizeof(path) - strlen(path), name, "") < 0)
		return child_status_set(r->st, STAGE_MOUNT, ENAMETOOLONG, "rebuild", r->dir);
	if (type != DT_DIR && type != DT_LNK && fstatat(r->fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		type = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISLNK(sb.st_mode) ? DT_LNK : type;
	if (type == DT_LNK) {
		ssize_t n = readlinkat(r->fd, name, target, sizeof(target) - 1);

		if (n < 0)
			return 0; /* gone meanwhile */
		target[n] = '\0';
		if (symlink(target, path) < 0)
			return child_status_set(r->st, STAGE_MOUNT, errno, "symlink", path);
		return 0;
	}
	if (type == DT_DIR ? mkdir(path, 0755) < 0
			   : ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 ||
			      close(fd) < 0))
		return child_status_set(r->st, STAGE_MOUNT, errno, "mount point", path);
	if (hidden(r->v, path))
		return 0;
	pos = child_put_str(src, 0, sizeof(src), "/proc/self/fd/");
	pos = child_put_uint(src, pos, sizeof(src), (unsigned long)r->fd);
	pos = child_put_str(src, pos, sizeof(src), "/");
	child_put_str(src, pos, sizeof(src), name);
	/* Read-only as the view it comes from (a bind copies the mount's
	 * flags); MS_REC: a mount below it (the root, another store's
	 * directory, a FUSE mount of the user's) comes along. */
	if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) < 0) {
		if (errno != ENOENT)
			return child_status_set(r->st, STAGE_MOUNT, errno, "mount --bind", path);
		/* gone meanwhile: no place for it either */
		if (type == DT_DIR ? rmdir(path) : unlink(path))
			return child_status_set(r->st, STAGE_MOUNT, errno, "remove", path);
	}
	return 0;
}

/* tmpfs options: the directory's own mode and owner, room for its entries. */
static void tmpfs_opts(char *o, size_t size, const struct stat *sb, size_t entries, bool owner)
{
	char mode[8];
	unsigned m = sb->st_mode & 07777;
	size_t pos, n = 0;

	for (int shift = 9; shift >= 0; shift -= 3)
		mode[n++] = (char)('0' + ((m >> shift) & 7));
	mode[n] = '\0';
	pos = child_put_str(o, 0, size, "mode=");
	pos = child_put_str(o, pos, size, mode);
	pos = child_put_str(o, pos, size, ",nr_inodes=");
	pos = child_put_uint(o, pos, size, entries + 16);
	/* a symlink's target may take a page */
	pos = child_put_str(o, pos, size, ",size=");
	pos = child_put_uint(o, pos, size, (entries + 16) * 4096);
	if (!owner)
		return;
	pos = child_put_str(o, pos, size, ",uid=");
	pos = child_put_uint(o, pos, size, sb->st_uid);
	pos = child_put_str(o, pos, size, ",gid=");
	child_put_uint(o, pos, size, sb->st_gid);
}

static int rebuild_dir(const struct ns_view_spec *v, const char *dir, struct child_status *st)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct rebuild r = { v, dir, fd, st };
	char opts[128];
	struct stat sb;
	size_t entries = 0;
	int rc;

	/* Gone, or closed to us (and to the command alike): nothing to show,
	 * nothing to list; left as it is. */
	if (fd < 0)
		return errno == ENOENT || errno == EACCES || errno == ENOTDIR || errno == ELOOP
			       ? 0
			       : child_status_set(st, STAGE_MOUNT, errno, "open", dir);
	rc = fstat(fd, &sb) < 0 ? -errno : each_entry(fd, count_one, &entries);
	if (rc == -1 || rc == -EACCES) {
		close(fd); /* too many entries, or unlistable: left as it is */
		return 0;
	}
	if (rc < 0) {
		close(fd);
		return child_status_set(st, STAGE_MOUNT, -rc, "list", dir);
	}
	/* Its owner where the user namespace maps it, else ours. */
	tmpfs_opts(opts, sizeof(opts), &sb, entries, true);
	rc = mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts);
	if (rc < 0 && errno == EINVAL) {
		tmpfs_opts(opts, sizeof(opts), &sb, entries, false);
		rc = mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts);
	}
	if (rc < 0) {
		rc = child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", dir);
		close(fd);
		return rc;
	}
	rc = each_entry(fd, rebuild_entry, &r);
	close(fd);
	if (rc < -1)
		return child_status_set(st, STAGE_MOUNT, -rc, "list", dir);
	/* Nothing is made in it after this (the covers, the root, are mounts
	 * on what is there): read-only now, as the view around it. */
	return rc < 0 ? rc : ns_remount_readonly(dir, st);
}

int ns_rebuild_apply(const struct ns_view_spec *v, const char *root, enum ns_place where,
		     struct child_status *st)
{
	for (size_t i = 0; i < v->rebuild.n; i++)
		if (ns_place_of(v, root, v->rebuild.path[i]) == where &&
		    rebuild_dir(v, v->rebuild.path[i], st) < 0)
			return -1;
	return 0;
}
