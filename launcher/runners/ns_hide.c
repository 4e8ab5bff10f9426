/* SPDX-License-Identifier: MIT */
/* Hidden paths (deny_read: credential stores, sbx's own state) get an empty
 * read-only directory or file mounted over them; a few entries below a hidden
 * directory stay readable (ssh's known_hosts and public keys). Protected paths
 * inside the workspace root (git hooks and config, editor and agent settings)
 * get a read-only bind of themselves: a mount point can be neither written,
 * nor renamed or unlinked away. Child side: no allocation. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h" /* path_is_within: pure, allocation-free */
#include "ns_hide.h"

/* Where empty files for file covers come from: made in our /dev tmpfs, bound,
 * then unlinked (the binds keep the inode). */
#define EMPTY_SOURCE "/dev/.sbx-empty"
#define COVER_OPTS "mode=0700,size=16k,nr_inodes=256"

static bool is_dir(const char *path, bool *exists, struct child_status *st, int *rc)
{
	struct stat sb;

	*rc = 0;
	*exists = false;
	if (lstat(path, &sb) < 0) {
		/* Out of reach already (absent, or a directory on the way is
		 * closed to us and to the command alike). */
		if (errno != ENOENT && errno != ENOTDIR && errno != EACCES)
			*rc = child_status_set(st, STAGE_MOUNT, errno, "stat", path);
		return false;
	}
	/* A symlink is not covered: what it names is decided on its own. */
	if (S_ISLNK(sb.st_mode))
		return false;
	*exists = true;
	return S_ISDIR(sb.st_mode);
}

size_t ns_hide_cover(const struct ns_view_spec *v, const char *path)
{
	size_t best = 0;

	for (size_t i = 0; v && i < v->hide.n; i++) {
		size_t len = strlen(v->hide.path[i]);

		if (len > best && strcmp(path, v->hide.path[i]) != 0 &&
		    path_is_within(path, v->hide.path[i]))
			best = len;
	}
	return best;
}

int ns_hide_grab(const struct ns_view_spec *v, bool ww, struct ns_hide_handles *h,
		 struct child_status *st)
{
	for (size_t i = 0; i < v->reveal.n; i++)
		if (access(v->reveal.path[i], F_OK) == 0 &&
		    ns_grab_at(AT_FDCWD, v->reveal.path[i], false, &h->reveal[i], st) < 0)
			return -1;
	for (size_t i = 0; ww && i < v->sockets.n; i++)
		if (access(v->sockets.path[i], F_OK) == 0 &&
		    ns_grab_at(AT_FDCWD, v->sockets.path[i], false, &h->sockets[i], st) < 0)
			return -1;
	return 0;
}

static int cover_file(const char *path, struct child_status *st)
{
	int fd = open(EMPTY_SOURCE, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0400);

	if (fd < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "create", EMPTY_SOURCE);
	close(fd);
	if (mount(EMPTY_SOURCE, path, NULL, MS_BIND, NULL) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mount --bind", path);
	return ns_remount_readonly(path, st);
}

static bool ancestor_seen(const struct ns_path_list *l, size_t i, size_t n);

/* The directories between the root and sbx's hidden state inside it
 * (~/.cache for ~/.cache/sbx, root $HOME) stay where they are: a bind of
 * themselves is a mount point, which cannot be renamed or removed. Why: the
 * cover moves along with a renamed ancestor, and `mv ~/.cache old; mkdir -p
 * ~/.cache/sbx` left a directory of the command's where the user's later
 * runs keep their state and spills. */
static int pin_hidden_ancestors(const struct ns_view_spec *v, const char *root,
				struct child_status *st)
{
	size_t rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
	char path[PATH_MAX];

	for (size_t i = 0; i < v->pinned.n; i++) {
		const char *p = v->pinned.path[i];

		if (!path_is_within(p, root) || strlen(p) <= rlen + 1 || strlen(p) >= sizeof(path))
			continue;
		for (const char *slash = strchr(p + rlen + 1, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			size_t n = (size_t)(slash - p);
			struct stat sb;

			if (ancestor_seen(&v->pinned, i, n))
				continue;
			memcpy(path, p, n);
			path[n] = '\0';
			if (lstat(path, &sb) < 0 || !S_ISDIR(sb.st_mode))
				break; /* absent, or a symlink: nothing of ours below */
			if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
				return child_status_set(st, STAGE_MOUNT, errno, "mount --bind", path);
		}
	}
	return 0;
}

int ns_hide_apply(const struct ns_view_spec *v, const char *root, enum ns_place where,
		  struct child_status *st)
{
	if (where == NS_IN_ROOT && root && pin_hidden_ancestors(v, root, st) < 0)
		return -1;
	for (size_t i = 0; i < v->hide.n; i++) {
		const char *p = v->hide.path[i];
		bool exists;
		int rc;
		bool dir;

		if (ns_place_of(v, root, p) != where)
			continue;
		dir = is_dir(p, &exists, st, &rc);
		if (rc < 0)
			return -1;
		if (!exists)
			continue;
		/* Why a mount and not a Landlock hole: the namespace runner's
		 * read-only view is built from mounts; an empty cover answers
		 * every read with "nothing here", and its mount point cannot be
		 * renamed away. */
		if (dir && mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, COVER_OPTS) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", p);
		if (!dir && cover_file(p, st) < 0)
			return -1;
	}
	if (unlink(EMPTY_SOURCE) < 0 && errno != ENOENT)
		return child_status_set(st, STAGE_MOUNT, errno, "unlink", EMPTY_SOURCE);
	return 0;
}

int ns_hide_reveal(const struct ns_view_spec *v, struct ns_hide_handles *h,
		   struct child_status *st)
{
	for (size_t i = 0; i < v->reveal.n; i++) {
		const char *p = v->reveal.path[i];
		size_t cover = ns_hide_cover(v, p);
		struct stat sb;

		if (h->reveal[i].fd < 0 || !cover)
			continue;
		if (fstat(h->reveal[i].fd, &sb) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "fstat", p);
		if (ns_make_mount_point(p, cover, S_ISDIR(sb.st_mode), st) < 0 ||
		    ns_attach(&h->reveal[i], p, false, st) < 0 || ns_remount_readonly(p, st) < 0)
			return -1;
	}
	return 0;
}

int ns_hide_sockets(const struct ns_view_spec *v, struct ns_hide_handles *h,
		    struct child_status *st)
{
	for (size_t i = 0; i < v->sockets.n; i++) {
		const char *p = v->sockets.path[i];

		if (h->sockets[i].fd < 0 || !path_is_within(p, "/tmp"))
			continue;
		/* Read-only: connecting needs no write to the mount, and the
		 * host's socket file must keep its owner and mode. */
		if (ns_make_mount_point(p, 4, false, st) < 0 ||
		    ns_attach(&h->sockets[i], p, false, st) < 0 || ns_remount_readonly(p, st) < 0)
			return -1;
	}
	return 0;
}

/* The prefix of path i that is n bytes long, a directory on its way, was
 * already seen (in an earlier path): pin each ancestor once. */
static bool ancestor_seen(const struct ns_path_list *l, size_t i, size_t n)
{
	for (size_t j = 0; j < i; j++)
		if (strncmp(l->path[j], l->path[i], n) == 0 && l->path[j][n] == '/')
			return true;
	return false;
}

/* The directories on the way to a protected path (.git for .git/hooks) stay
 * where they are: a bind of themselves (writable) is a mount point, which
 * cannot be renamed or removed. Otherwise `mv .git old; mkdir .git` (or a
 * ".git" file saying "gitdir: elsewhere") would put a repository with the
 * run's hooks and config where the user's git looks, and the read-only
 * binds would go along with the old one. One that is a file (a gitfile of a
 * worktree or submodule) is kept read-only, like a protected path. */
static int pin_ancestors(const struct ns_view_spec *v, const char *root, struct child_status *st)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < v->protect.n; i++) {
		const char *p = v->protect.path[i];

		for (const char *slash = strchr(p, '/'); slash; slash = strchr(slash + 1, '/')) {
			size_t n = (size_t)(slash - p), rlen = strlen(root);
			struct stat sb;

			if (ancestor_seen(&v->protect, i, n) || rlen + 1 + n >= sizeof(path))
				continue;
			memcpy(path, root, rlen);
			path[rlen] = '/';
			memcpy(path + rlen + 1, p, n);
			path[rlen + 1 + n] = '\0';
			if (lstat(path, &sb) < 0 || !(S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode)))
				break; /* absent (swept after the run if it appears), or a symlink */
			if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
				return child_status_set(st, STAGE_MOUNT, errno, "mount --bind", path);
			if (S_ISREG(sb.st_mode)) {
				if (ns_remount_readonly(path, st) < 0)
					return -1;
				break;
			}
		}
	}
	return 0;
}

int ns_protect(const struct ns_view_spec *v, const char *root, struct child_status *st)
{
	char path[PATH_MAX];

	if (pin_ancestors(v, root, st) < 0)
		return -1;
	for (size_t i = 0; i < v->protect.n; i++) {
		bool exists;
		int rc;

		if (ns_join(path, sizeof(path), root, "/") < 0 ||
		    ns_join(path + strlen(path), sizeof(path) - strlen(path), v->protect.path[i],
			    "") < 0)
			return child_status_set(st, STAGE_MOUNT, ENAMETOOLONG, "protected path",
						v->protect.path[i]);
		is_dir(path, &exists, st, &rc);
		if (rc < 0)
			return -1;
		if (!exists)
			continue;
		if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "mount --bind", path);
		if (ns_remount_readonly(path, st) < 0)
			return -1;
	}
	return 0;
}

int ns_hide_seal(const struct ns_view_spec *v, struct child_status *st)
{
	for (size_t i = 0; i < v->hide.n; i++) {
		struct stat sb;

		if (lstat(v->hide.path[i], &sb) < 0 || !S_ISDIR(sb.st_mode))
			continue;
		if (ns_remount_readonly(v->hide.path[i], st) < 0)
			return -1;
	}
	return 0;
}

void ns_hide_close(struct ns_hide_handles *h)
{
	for (size_t i = 0; i < NS_VIEW_MAX_PATHS; i++) {
		ns_handle_close(&h->reveal[i]);
		ns_handle_close(&h->sockets[i]);
	}
}
