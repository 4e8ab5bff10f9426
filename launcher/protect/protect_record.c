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

#include "protect_int.h"

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

/* A git directory's entry (a name below a ".git") whose tree changed in
 * one of when's spans. */
bool protect_record_changed(const struct protect_record *rec, int root_fd,
			    const struct protect_when *when)
{
	const char *last;
	bool changed;
	int dir;

	if (rec->ancestor || rec->was != PROTECT_PRESENT ||
	    !(strncmp(rec->path, ".git/", 5) == 0 || strstr(rec->path, "/.git/")))
		return false;
	dir = open_parent(root_fd, rec->path, &last);
	if (dir < 0)
		return true;
	changed = protect_git_changed(dir, last, when);
	close(dir);
	return changed;
}

int protect_record_restore(const struct protect_record *rec, int root_fd)
{
	const char *last;
	bool changed = false;
	int dir, rc;

	if (rec->ancestor)
		return protect_ancestor_restore(rec, root_fd);
	/* Left to the git pass, which holds it to the allow-list. */
	if (rec->tainted)
		return 0;
	if (rec->was == PROTECT_ABSENT && !resolves(root_fd, rec->path))
		return 0;
	if (rec->was == PROTECT_PRESENT && !rec->snap.snap)
		return 0; /* too big to snapshot: the protection is partial */
	dir = open_parent(root_fd, rec->path, &last);
	if (dir < 0)
		return 0;
	/* Why remove rather than restore an absent one: nothing was there,
	 * and what a run put there would run later outside any sandbox. */
	if (rec->was == PROTECT_ABSENT)
		rc = protect_remove_tree(dir, last);
	else
		rc = protect_snapshot_put_back(&rec->snap, dir, last, &changed);
	close(dir);
	if (rc < 0)
		return rc;
	return rec->was == PROTECT_ABSENT || changed ? 1 : 0;
}

int protect_record_unalias(const struct protect_record *rec, int root_fd, bool *unsure)
{
	const char *last;
	int dir, rc;

	if (rec->was == PROTECT_ABSENT && !rec->ancestor)
		return 0; /* removed if it is there: no name of it stays */
	dir = open_parent(root_fd, rec->path, &last);
	if (dir < 0)
		return 0;
	/* A directory on the way (.git) is not walked: only a gitfile there. */
	rc = protect_alias_break(dir, last, !rec->ancestor, unsure);
	close(dir);
	return rc;
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
