/* SPDX-License-Identifier: MIT */
/* One protected path's record: taken from the disk, put back to it (see
 * protect.h), and the removal of what appeared where nothing was. sbx runs
 * this unconfined, on the user's workspace, after the run's processes are
 * gone (other runs of the same root may still be live): every step is
 * relative to the pinned root handle, resolution stays beneath it, and
 * nothing is followed out of it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "protect.h"

/* A subtree deeper than this is moved up rather than entered: at most this
 * many handles are open, and no depth defeats the sweep. */
#define REMOVE_DEPTH_MAX 64
/* Passes over the first level, each removing what was moved up into it. */
#define REMOVE_PASSES_MAX 4096

/* The directory holding path's last component, resolved beneath the root
 * (symlinks inside the root followed, none out of it): openat2 (5.6+), else
 * a walk that follows no symlink at all. -errno on failure. */
static int open_parent(int root_fd, const char *path, const char **last)
{
	char buf[PATH_MAX];
	char *slash;
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	slash = strrchr(buf, '/');
	*last = slash ? path + (slash - buf) + 1 : path;
	if (!slash)
		return (int)fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	*slash = '\0';
	fd = (int)syscall(SYS_openat2, root_fd, buf, &how, sizeof(how));
	if (fd >= 0 || errno != ENOSYS)
		return fd >= 0 ? fd : -errno;
	return protect_open_dir_nofollow(root_fd, buf);
}

int protect_open_dir_nofollow(int dirfd, const char *rel)
{
	char buf[PATH_MAX];
	int fd;

	if (strlen(rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, rel);
	fd = (int)fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	for (char *p = buf, *next; fd >= 0 && p && *p; p = next) {
		int sub;

		next = strchr(p, '/');
		if (next)
			*next++ = '\0';
		sub = openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = sub < 0 ? -errno : sub;
	}
	return fd;
}

static bool resolves(int root_fd, const char *path)
{
	const char *last;
	struct stat st;
	bool found;
	int dir;

	/* A name right in the root (most of them): one call, from the handle. */
	if (!strchr(path, '/'))
		return fstatat(root_fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
	dir = open_parent(root_fd, path, &last);
	if (dir < 0)
		return false;
	found = fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0;
	close(dir);
	return found;
}

static void dir_chmod(int fd, mode_t mode)
{
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (chmod(proc, mode) < 0)
		errno = 0;
}

void protect_dir_reopen(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0300) != 0300)
		dir_chmod(fd, (st.st_mode & 07777) | 0700);
}

/* Move name (below parent, too deep to enter) into top under a fresh name,
 * to be removed from there by top's next pass. */
static int move_up(int parent, const char *name, int top)
{
	static unsigned long seq;

	for (int attempt = 0; attempt < 1000; attempt++) {
		char aside[48];

		snprintf(aside, sizeof(aside), ".sbx-deep-%d-%lu", (int)getpid(), seq++);
		if (renameat2(parent, name, top, aside, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Remove name below parent, never following a symlink. top is the handle of
 * the directory the whole removal started from (-1 at its first level).
 * Every entry is tried even when one fails, so one that cannot go (EBUSY)
 * does not shield its siblings; the first error is returned. */
static int remove_at(int parent, const char *name, int depth, int top, bool *moved)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int fd, rc = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	/* Why not an error: a tree made deeper than we descend would
	 * otherwise survive the sweep with whatever sits beside it. */
	if (depth >= REMOVE_DEPTH_MAX) {
		rc = move_up(parent, name, top);
		if (rc == 0)
			*moved = true;
		return rc;
	}
	/* A directory the run made unwritable, unlistable or unsearchable
	 * (chmod 100 .git/hooks: git still runs a hook by its name) must
	 * still be emptied: opened first as a handle, which needs no right
	 * on it, and opened to be listed only once it is u+rwx again. */
	fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((st.st_mode & 0700) != 0700)
		dir_chmod(fd, (st.st_mode & 07777) | 0700);
	{
		int listed = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		close(fd);
		if (listed < 0)
			return -errno;
		fd = listed;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	for (int pass = 0; pass < REMOVE_PASSES_MAX; pass++) {
		bool again = false;

		while ((e = readdir(d))) {
			int sub;

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			sub = remove_at(dirfd(d), e->d_name, depth + 1, top >= 0 ? top : dirfd(d),
					top >= 0 ? moved : &again);
			if (sub < 0 && rc == 0)
				rc = sub;
		}
		/* What was moved up into us is removed by another pass. */
		if (!again)
			break;
		rewinddir(d);
	}
	closedir(d);
	if (rc == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

int protect_remove_tree(int dirfd, const char *name)
{
	bool moved = false;

	return remove_at(dirfd, name, 0, -1, &moved);
}

void protect_record_take(struct protect_record *rec, int root_fd)
{
	const char *last;
	int dir;

	memset(&rec->snap, 0, sizeof(rec->snap));
	if (rec->ancestor) {
		protect_ancestor_take(rec, root_fd);
		return;
	}
	rec->was = resolves(root_fd, rec->path) ? PROTECT_PRESENT : PROTECT_ABSENT;
	if (rec->was == PROTECT_ABSENT)
		return;
	dir = open_parent(root_fd, rec->path, &last);
	if (dir < 0) {
		rec->snap.partial = true;
		return;
	}
	protect_snapshot_take(&rec->snap, dir, last);
	close(dir);
}

bool protect_record_restore(const struct protect_record *rec, int root_fd)
{
	const char *last;
	bool changed = false;
	int dir;

	if (rec->ancestor)
		return protect_ancestor_restore(rec, root_fd);
	if (rec->was == PROTECT_ABSENT && !resolves(root_fd, rec->path))
		return false;
	if (rec->was == PROTECT_PRESENT && !rec->snap.snap)
		return false; /* too big to snapshot: the protection is partial */
	dir = open_parent(root_fd, rec->path, &last);
	if (dir < 0)
		return false;
	/* Why remove rather than restore an absent one: nothing was there,
	 * and what a run put there would run later outside any sandbox. */
	if (rec->was == PROTECT_ABSENT)
		changed = protect_remove_tree(dir, last) == 0;
	else
		protect_snapshot_put_back(&rec->snap, dir, last, &changed);
	close(dir);
	return changed;
}

void protect_base_clear(struct protect_base *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->rec[i].path);
		protect_snapshot_free(&b->rec[i].snap);
	}
	free(b->rec);
	free(b->root);
	memset(b, 0, sizeof(*b));
}
