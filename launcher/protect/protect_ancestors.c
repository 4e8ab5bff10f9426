/* SPDX-License-Identifier: MIT */
/* The directories on the way to a protected path (.git for .git/hooks), see
 * protect.h. git reads a repository wherever ".git" leads: a ".git" file
 * saying "gitdir: elsewhere", or a symlink, put where the directory was,
 * would carry the run's hooks and config past every protected path below
 * it. So after the run an ancestor that was a directory (or absent) and is
 * now anything else is removed, and one that was a file or symlink (a
 * worktree's or submodule's gitfile) is put back as it was. The namespace
 * runner also pins the directories (ns_hide.c), so they cannot be renamed
 * away during the run. Unconfined, on the user's workspace: relative to the
 * root handle, following no symlink. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protect_int.h"

/* The directory holding rel's last component, reached from the root without
 * following any symlink. */
static int parent_nofollow(int root_fd, const char *rel, const char **last)
{
	const char *slash = strrchr(rel, '/');
	char buf[PATH_MAX];

	*last = slash ? slash + 1 : rel;
	if (!slash)
		return (int)fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	if ((size_t)(slash - rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, rel, (size_t)(slash - rel));
	buf[slash - rel] = '\0';
	return protect_open_dir_nofollow(root_fd, buf);
}

void protect_ancestor_take(struct protect_record *rec, int root_fd)
{
	const char *last;
	struct stat st;
	int dir = parent_nofollow(root_fd, rec->path, &last);

	rec->was = PROTECT_ABSENT;
	memset(&rec->snap, 0, sizeof(rec->snap));
	if (dir >= 0 && fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		rec->was = S_ISDIR(st.st_mode) ? PROTECT_DIR : PROTECT_PRESENT;
		/* A file or symlink (a worktree's gitfile): put back as it was. */
		if (rec->was == PROTECT_PRESENT)
			protect_snapshot_take(&rec->snap, dir, last);
	}
	if (dir >= 0)
		close(dir);
}

int protect_ancestor_restore(const struct protect_record *rec, int root_fd)
{
	const char *last;
	bool changed = false;
	struct stat st;
	int dir = parent_nofollow(root_fd, rec->path, &last), rc = 0;

	if (dir < 0)
		return 0;
	if (rec->was == PROTECT_PRESENT) {
		rc = protect_snapshot_put_back(&rec->snap, dir, last, &changed);
	} else if (fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
		rc = unlinkat(dir, last, 0) < 0 ? -errno : 0;
		changed = rc == 0;
	} else if (rec->was == PROTECT_DIR) {
		/* A run that closed it (chmod 000 .git) kept us from the
		 * protected paths below, and git opens it again for the hook
		 * planted there: without write and search for its owner it is
		 * no repository git could use anyway. */
		int fd = openat(dir, last, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0) {
			protect_dir_reopen(fd);
			close(fd);
		}
	}
	close(dir);
	return rc < 0 ? rc : changed;
}
