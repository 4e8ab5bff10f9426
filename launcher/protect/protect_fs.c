/* SPDX-License-Identifier: MIT */
/* Directory work that sbx does unconfined, on the user's workspace or its own
 * state, that no file below a handle can steer: a directory reached without
 * following any symlink, the owner's rights given back on a directory the
 * command closed, and a removal that follows no symlink and that no depth
 * defeats. The bottom of the protected paths; sbx's state directories use
 * it too. */
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

#include "protect_int.h"

/* A subtree deeper than this is moved up rather than entered: at most this
 * many handles are open, and no depth defeats the sweep. */
#define REMOVE_DEPTH_MAX 64
/* Passes over the first level, each removing what was moved up into it. */
#define REMOVE_PASSES_MAX 4096

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

	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0700) != 0700)
		dir_chmod(fd, (st.st_mode & 07777) | 0700);
}

/* Move name (below parent, too deep to enter) into top under a fresh name,
 * to be removed from there by top's next pass. */
static int move_up(int parent, const char *name, int top)
{
	static unsigned long seq;

	for (int attempt = 0; attempt < 1000; attempt++) {
		char aside[48];

		/* Atomic: serve puts back runs of different roots at once. */
		snprintf(aside, sizeof(aside), ".sbx-deep-%d-%lu", (int)getpid(),
			 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
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

int protect_git_open_beneath(int root_fd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root_fd, rel[0] ? rel : ".", &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}
