/* SPDX-License-Identifier: MIT */
/* The after-run sweep of protected paths (see protect.h). sbx runs this
 * unconfined, on the user's workspace, after the run's processes are gone
 * (another run of the same root may still be live): every step is relative
 * to the pinned root handle, resolution stays beneath it, and nothing is
 * followed out of it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "protect.h"

#define REMOVE_DEPTH_MAX 64

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

void protect_begin(struct protect_state *ps, int root_fd, const struct ns_path_list *paths)
{
	for (size_t i = 0; i < paths->n && i < NS_VIEW_MAX_PATHS; i++)
		ps->absent[i] = !resolves(root_fd, paths->path[i]);
}

static int remove_at(int parent, const char *name, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int fd, rc = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (depth >= REMOVE_DEPTH_MAX)
		return -ELOOP;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A directory the run made unwritable must still be emptied. */
	if ((st.st_mode & 0700) != 0700)
		fchmod(fd, (st.st_mode & 07777) | 0700);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && rc == 0)
			rc = remove_at(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	if (rc == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

int protect_remove_tree(int dirfd, const char *name)
{
	return remove_at(dirfd, name, 0);
}

bool protect_snapshot_all(struct protect_state *ps, int root_fd, const struct ns_path_list *paths)
{
	bool whole = true;

	ps->snapshots = true;
	for (size_t i = 0; i < paths->n && i < NS_VIEW_MAX_PATHS; i++) {
		const char *last;
		int dir;

		if (ps->absent[i])
			continue;
		dir = open_parent(root_fd, paths->path[i], &last);
		if (dir < 0 || protect_snapshot_take(&ps->snap[i], dir, last) < 0 ||
		    ps->snap[i].partial)
			whole = false;
		if (dir >= 0)
			close(dir);
	}
	return whole;
}

size_t protect_end(struct protect_state *ps, int root_fd, const struct ns_path_list *paths,
		   const char **removed, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < paths->n && i < NS_VIEW_MAX_PATHS; i++) {
		const char *last;
		bool changed = false;
		int dir;

		if (ps->absent[i] && !resolves(root_fd, paths->path[i]))
			continue;
		if (!ps->absent[i] && !ps->snap[i].snap)
			continue;
		dir = open_parent(root_fd, paths->path[i], &last);
		if (dir < 0)
			continue;
		/* Why remove rather than restore an absent one: nothing was
		 * there, and what the run put there would run later outside
		 * any sandbox. */
		if (ps->absent[i])
			changed = protect_remove_tree(dir, last) == 0;
		else
			protect_snapshot_put_back(&ps->snap[i], dir, last, &changed);
		if (changed && n < max)
			removed[n++] = paths->path[i];
		close(dir);
	}
	protect_free(ps);
	return n;
}

void protect_free(struct protect_state *ps)
{
	for (size_t i = 0; i < NS_VIEW_MAX_PATHS; i++)
		protect_snapshot_free(&ps->snap[i]);
}
