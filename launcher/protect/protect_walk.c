/* SPDX-License-Identifier: MIT */
/* The git pass's walk (see protect_git.c): every git repository under the
 * root, at any depth, found the way git itself finds one from inside it:
 * a ".git" directory, a ".git" file saying "gitdir: PATH" (followed only
 * inside the root), a ".git" symlink, and a directory that is a git
 * directory itself (a bare repository: HEAD, objects and refs). Inside a
 * git directory, what git writes (objects/, refs/, logs/...) is walked like
 * any directory of the root (a run may make a repository there, git never
 * does), the rest is protect_git.c's (its modules/ and worktrees/ too);
 * symlinks are not followed.
 *
 * Why a walk: no kernel mechanism tells an unprivileged process which
 * directories a run made (fanotify's directory-wide marks need
 * CAP_SYS_ADMIN), and a repository made during the run exists in no view
 * built before it. Why no bound on how many directories: one run could
 * make more than any bound before the repository it plants, and a walk
 * that stops keeps it (issue 29's adversarial pass); a run that makes N
 * directories paid more for making them (mkdir is noted by the
 * supervisor) than the walk pays to list them, and it runs after the run,
 * off serve's loop. What bounds it is the path: a directory deeper than
 * PATH_MAX is not looked in (git cannot work there: getcwd fails), and the
 * result then says "partial". Handles and memory stay bounded whatever the
 * tree's shape: a directory is listed once, its subdirectories' names
 * kept, its handle given back before the deeper levels past WALK_FD_DEPTH,
 * which are reopened by their path from the root.
 *
 * A ".git" file or symlink the run wrote that leads out of the root goes:
 * git would take config and hooks from wherever it names, and a place out
 * of the root may be one a run can write (the host's /tmp under the
 * landlock runner). One that leads out through a symlink inside the root
 * goes whoever wrote it: its text says inside, the symlink was the run's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "protect_int.h"

/* Directory handles held at once on the way down; deeper directories are
 * reopened from the root by their path (symlinks refused on the way). */
#define WALK_FD_DEPTH 48

/* gp->walk: how deep the directory being walked is (what a git
 * directory's own directories are walked from). */
struct walk_state {
	int depth;
};

/* Names, one after the other, each ending in NUL. */
struct names {
	char *buf;
	size_t len, cap, n;
};

static bool names_add(struct names *l, const char *name)
{
	size_t n = strlen(name) + 1;

	if (l->len + n > l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		char *p;

		while (cap < l->len + n)
			cap *= 2;
		p = realloc(l->buf, cap);
		if (!p)
			return false;
		l->buf = p;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, name, n);
	l->len += n;
	l->n++;
	return true;
}

static bool is_worktree_admin(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;

	return n >= 9 && strncmp(rel + n - 9, "worktrees", 9) == 0 &&
	       (n == 9 || rel[n - 10] == '/');
}

static void drop(struct git_pass *gp, int dfd, const char *rel)
{
	if (unlinkat(dfd, ".git", 0) == 0)
		protect_git_note(gp, rel, ".git", NULL);
	else if (errno != ENOENT)
		gp->partial = true;
}

/* Where a ".git" file's or symlink's text leads (target: its text). */
static void follow(struct git_pass *gp, int dfd, const char *rel, const char *text, bool changed)
{
	char target[PATH_MAX];
	int t;

	if (!protect_git_target(gp->root, rel, text, target, sizeof(target))) {
		if (changed)
			drop(gp, dfd, rel);
		return;
	}
	t = protect_git_open_beneath(gp->root_fd, target);
	if (t == -EXDEV || t == -ELOOP) {
		drop(gp, dfd, rel);
		return;
	}
	if (t < 0)
		return; /* nothing there: git refuses it */
	if (!protect_git_looks_like(t)) {
		close(t);
		return;
	}
	protect_git_dir(gp, t, target, is_worktree_admin(target));
}

static void dot_git(struct git_pass *gp, int dfd, const char *rel)
{
	char line[PATH_MAX], path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    protect_git_recorded(gp, rel, ".git"))
		return;
	if (S_ISDIR(st.st_mode)) {
		fd = openat(dfd, ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 ||
		    snprintf(path, sizeof(path), "%s%s.git", rel, rel[0] ? "/" : "") >= (int)sizeof(path)) {
			if (fd >= 0)
				close(fd);
			gp->partial = true;
			return;
		}
		protect_git_dir(gp, fd, path, false);
		return;
	}
	bool changed = protect_git_changed(dfd, ".git", &gp->when);

	if (S_ISREG(st.st_mode)) {
		if (protect_git_read_line(dfd, ".git", "gitdir: ", line, sizeof(line)))
			follow(gp, dfd, rel, line, changed);
		return;
	}
	if (!S_ISLNK(st.st_mode))
		return;
	n = readlinkat(dfd, ".git", line, sizeof(line) - 1);
	if (n <= 0) {
		if (changed)
			drop(gp, dfd, rel);
		return;
	}
	line[n] = '\0';
	follow(gp, dfd, rel, line, changed);
}

static bool entry_is_link(int dfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_LNK;
	return fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

static bool entry_is_dir(int dfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* A directory below dfd opened to be listed. Why the owner's rights are
 * given back on one the run closed (chmod 100 dir): git goes through a
 * directory it may only search, and a repository planted below it would
 * be out of the walk's sight. */
static int open_sub(struct git_pass *gp, int dfd, const char *name)
{
	int p = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), l;

	if (p < 0)
		return -errno;
	l = protect_git_open_listable(p, &gp->when);
	if (l < 0)
		l = -errno;
	close(p);
	return l;
}

/* rel (relative to the root) reopened from the root without following a
 * symlink, to be listed: where the walk holds no handle on its parent. */
static int open_deep(struct git_pass *gp, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int p = (int)syscall(SYS_openat2, gp->root_fd, rel, &how, sizeof(how)), l;

	if (p < 0)
		return -errno;
	l = protect_git_open_listable(p, &gp->when);
	if (l < 0)
		l = -errno;
	close(p);
	return l;
}

/* fd: this directory, opened to be listed (taken over); rel: a buffer of
 * PATH_MAX holding its path (rel_len long). */
static void walk(struct git_pass *gp, int fd, char *rel, size_t rel_len, int depth)
{
	struct walk_state *ws = gp->walk;
	bool head = false, git = false, held = depth + 1 < WALK_FD_DEPTH;
	struct names sub = { 0 }, links = { 0 };
	struct dirent *e;
	const char *name;
	DIR *d;

	gp->dirs++;
	ws->depth = depth;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		gp->partial = true;
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		head = head || strcmp(e->d_name, "HEAD") == 0;
		if (strcmp(e->d_name, ".git") == 0)
			git = true;
		else if (entry_is_link(dirfd(d), e)) {
			if (!names_add(&links, e->d_name))
				gp->partial = true;
		} else if (entry_is_dir(dirfd(d), e) && !names_add(&sub, e->d_name))
			gp->partial = true;
	}
	/* Symlinks out of the root (protect_links.c), before this directory
	 * may be taken for a git directory: one there is held to the
	 * allow-list, which removes what the run linked. */
	name = links.buf;
	for (size_t i = 0; i < links.n; i++, name += strlen(name) + 1)
		if (protect_git_link(gp, dirfd(d), name, rel))
			protect_git_note(gp, rel, name, NULL);
	free(links.buf);
	/* A git directory itself (a bare repository, or one made anywhere
	 * and named by nothing): held to the rules; what git writes in it is
	 * walked from there (gp->inner). */
	if (head && protect_git_looks_like(dirfd(d))) {
		int g = openat(dirfd(d), ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

		closedir(d);
		free(sub.buf);
		if (g >= 0)
			protect_git_dir(gp, g, rel, is_worktree_admin(rel));
		return;
	}
	if (git)
		dot_git(gp, dirfd(d), rel);
	if (!held) {
		closedir(d);
		d = NULL;
	}
	name = sub.buf;
	for (size_t i = 0; i < sub.n; i++, name += strlen(name) + 1) {
		size_t n = strlen(name);
		int s;

		if (rel_len + n + 2 > PATH_MAX) {
			gp->partial = true;
			continue;
		}
		if (rel_len)
			rel[rel_len] = '/';
		memcpy(rel + rel_len + (rel_len ? 1 : 0), name, n + 1);
		s = d ? open_sub(gp, dirfd(d), name) : open_deep(gp, rel);
		if (s >= 0)
			walk(gp, s, rel, rel_len + n + (rel_len ? 1 : 0), depth + 1);
		else if (s != -ENOENT && s != -ENOTDIR && (s != -ELOOP || !d))
			gp->partial = true; /* by path: a symlink on the way */
		rel[rel_len] = '\0';
	}
	if (d)
		closedir(d);
	free(sub.buf);
}

/* gp->inner: a directory git writes in a git directory (objects, refs...),
 * walked like any other: a repository made there (objects/sub/.git, a bare
 * one in refs/) is one a user who goes there runs git in. */
static void walk_inner(struct git_pass *gp, int gfd, const char *name, const char *rel)
{
	struct walk_state *ws = gp->walk;
	char *path = malloc(PATH_MAX);
	int depth = ws->depth, sub;

	if (!path || snprintf(path, PATH_MAX, "%s%s%s", rel, rel[0] ? "/" : "", name) >= PATH_MAX) {
		free(path);
		gp->partial = true;
		return;
	}
	bool by_path = depth + 1 >= WALK_FD_DEPTH;

	sub = by_path ? open_deep(gp, path) : open_sub(gp, gfd, name);
	if (sub >= 0)
		walk(gp, sub, path, strlen(path), depth + 1);
	else if (sub != -ENOENT && sub != -ENOTDIR && (sub != -ELOOP || by_path))
		gp->partial = true;
	ws->depth = depth;
	free(path);
}

void protect_git_pass(struct git_pass *gp)
{
	struct walk_state ws = { 0 };
	char *rel = malloc(PATH_MAX);
	int fd = openat(gp->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (!rel || fd < 0) {
		if (fd >= 0)
			close(fd);
		free(rel);
		gp->partial = true;
		return;
	}
	gp->walk = &ws;
	gp->inner = walk_inner;
	rel[0] = '\0';
	walk(gp, fd, rel, 0, 0);
	free(rel);
}

void protect_git_pass_free(struct git_pass *gp)
{
	for (size_t i = 0; i < gp->n_changed; i++)
		free(gp->changed[i]);
	for (size_t i = 0; i < gp->n_found; i++)
		free(gp->found[i]);
	free(gp->changed);
	free(gp->found);
	free(gp->seen);
	gp->changed = gp->found = NULL;
	gp->seen = NULL;
	gp->n_changed = gp->n_found = gp->n_seen = 0;
}
