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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protect.h"

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

static bool known(const struct protect_state *ps, const char *rel, size_t n)
{
	for (size_t i = 0; i < ps->n_anc; i++)
		if (strlen(ps->anc[i].path) == n && strncmp(ps->anc[i].path, rel, n) == 0)
			return true;
	return false;
}

static void note(struct protect_state *ps, int root_fd, const char *rel, size_t n)
{
	struct protect_ancestor *a = &ps->anc[ps->n_anc];
	const char *last;
	struct stat st;
	int dir;

	a->path = strndup(rel, n);
	if (!a->path)
		return;
	a->was = PROTECT_ANC_ABSENT;
	memset(&a->snap, 0, sizeof(a->snap));
	dir = parent_nofollow(root_fd, a->path, &last);
	if (dir >= 0 && fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		a->was = S_ISDIR(st.st_mode) ? PROTECT_ANC_DIR : PROTECT_ANC_OTHER;
		if (a->was == PROTECT_ANC_OTHER)
			protect_snapshot_take(&a->snap, dir, last);
	}
	if (dir >= 0)
		close(dir);
	ps->n_anc++;
}

void protect_ancestors_begin(struct protect_state *ps, int root_fd, const struct ns_path_list *paths)
{
	ps->n_anc = 0;
	for (size_t i = 0; i < paths->n && i < NS_VIEW_MAX_PATHS; i++) {
		const char *p = paths->path[i];

		/* Shallowest first: the end puts them back in this order. */
		for (const char *slash = strchr(p, '/'); slash && ps->n_anc < PROTECT_ANCESTORS_MAX;
		     slash = strchr(slash + 1, '/'))
			if (slash > p && !known(ps, p, (size_t)(slash - p)))
				note(ps, root_fd, p, (size_t)(slash - p));
	}
}

size_t protect_ancestors_end(struct protect_state *ps, int root_fd, const char **removed,
			     size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n_anc; i++) {
		struct protect_ancestor *a = &ps->anc[i];
		const char *last;
		bool changed = false;
		struct stat st;
		int dir = parent_nofollow(root_fd, a->path, &last);

		if (dir < 0)
			continue;
		if (a->was == PROTECT_ANC_OTHER)
			protect_snapshot_put_back(&a->snap, dir, last, &changed);
		else if (fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
			changed = unlinkat(dir, last, 0) == 0;
		if (changed && n < max)
			removed[n++] = a->path;
		close(dir);
	}
	return n;
}

void protect_ancestors_free(struct protect_state *ps)
{
	for (size_t i = 0; i < ps->n_anc; i++) {
		free(ps->anc[i].path);
		ps->anc[i].path = NULL;
		protect_snapshot_free(&ps->anc[i].snap);
	}
	ps->n_anc = 0;
}
