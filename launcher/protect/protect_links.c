/* SPDX-License-Identifier: MIT */
/* Pointers out of the root (the git pass, protect_git.c): a symlink, a
 * gitfile, a remote's URL that leads to a place outside the root. Why: the
 * user's next git goes where they lead (a `cd` through a symlink, git's
 * discovery from there, a push to the repository a URL names) and takes
 * hooks and config from there; a place outside the root is trusted only
 * where the run could not write (its writable set outside the root: /tmp,
 * /dev/shm, the tool cache, the private /tmp's backing directory, decided
 * by identity), else the pointer is cut. Where a pointer leads is asked of
 * the kernel (openat2 RESOLVE_BENEATH from the root's handle: inside, or
 * EXDEV), never read from its text; what lies out of the root is only
 * looked at (O_PATH, fstat), never changed. */
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

/* An absolute path outside the root: may what it names be trusted? Not
 * when it, or the nearest existing directory on its way, lies in what a
 * run may write outside the root (that directory or one above it). */
bool protect_git_outside_ok(const char *path, void *ctx)
{
	const struct git_pass *gp = ctx;
	char buf[PATH_MAX];
	struct stat st, top;
	int fd = -1;

	if (strlen(path) >= sizeof(buf) || stat("/", &top) < 0)
		return false;
	strcpy(buf, path);
	while (fd < 0) {
		char *slash;

		fd = open(buf[0] ? buf : "/", O_PATH | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))) {
			close(fd);
			fd = -1;
		} else if (fd >= 0) {
			break;
		} else if (errno != ENOENT && errno != ENOTDIR) {
			return false;
		}
		slash = strrchr(buf, '/');
		if (!slash || !buf[0])
			return false;
		*slash = '\0';
	}
	for (int up = 0; up < PATH_MAX / 2; up++) {
		int parent;

		if (fstat(fd, &st) < 0)
			break;
		for (size_t i = 0; i < gp->n_writable; i++)
			if (gp->writable[i].dev == (uint64_t)st.st_dev &&
			    gp->writable[i].ino == (uint64_t)st.st_ino) {
				close(fd);
				return false;
			}
		if (st.st_dev == top.st_dev && st.st_ino == top.st_ino) {
			close(fd);
			return true;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (fd < 0)
			return false;
	}
	close(fd);
	return false;
}

/* Pure: the directory a gitdir or commondir line names, relative to the
 * root, from the directory (relative to the root) the line is read in.
 * Absolute paths must lie in the root; ".." may not climb out of it.
 * false: outside the root. */
bool protect_git_target(const char *root, const char *dir, const char *target, char *out,
			size_t size)
{
	char buf[PATH_MAX];
	size_t rl = strlen(root), n = 0;
	const char *p;

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (target[0] == '/') {
		if (strncmp(target, root, rl) != 0 || (target[rl] != '/' && target[rl] != '\0'))
			return false;
		p = target + rl;
		buf[0] = '\0';
	} else {
		if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
			return false;
		p = target;
	}
	/* buf holds the components so far (relative, no leading slash). */
	n = strlen(buf);
	for (size_t i = 0; p[i];) {
		size_t j = i;

		while (p[j] == '/')
			j++;
		i = j;
		while (p[j] && p[j] != '/')
			j++;
		if (j == i)
			break;
		if (j - i == 1 && p[i] == '.') {
		} else if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
			if (n == 0)
				return false;
			while (n > 0 && buf[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			if (n + (n ? 1 : 0) + (j - i) + 1 > sizeof(buf))
				return false;
			if (n)
				buf[n++] = '/';
			memcpy(buf + n, p + i, j - i);
			n += j - i;
		}
		buf[n] = '\0';
		i = j;
	}
	if (n + 1 > size)
		return false;
	memcpy(out, buf, n + 1);
	return true;
}

/* rel (relative to the root) resolved by the kernel beneath the root: a
 * handle (O_PATH), or -errno (-EXDEV: it leads out). */
static int beneath(const struct git_pass *gp, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, gp->root_fd, rel[0] ? rel : ".", &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

static bool leads_out(int rc)
{
	return rc == -EXDEV || rc == -ELOOP;
}

/* rel leads out of the root: is where it leads (as the kernel resolves the
 * path from the root's own path) trusted? */
static bool out_ok(const struct git_pass *gp, const char *rel)
{
	char abs[PATH_MAX];

	if (snprintf(abs, sizeof(abs), "%s/%s", gp->root, rel) >= (int)sizeof(abs))
		return false;
	return protect_git_outside_ok(abs, (void *)gp);
}

/* The first line of the regular file behind fd (an O_PATH handle), read
 * through the handle: no path is resolved again. */
static bool first_line(int fd, char *out, size_t size)
{
	char proc[32], buf[PATH_MAX + 16];
	ssize_t n;
	int r;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	r = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r < 0)
		return false;
	n = read(r, buf, sizeof(buf) - 1);
	close(r);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	n = (ssize_t)strlen(buf);
	while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	if ((size_t)n >= size)
		return false;
	memcpy(out, buf, (size_t)n + 1);
	return true;
}

/* A file at rel (fd: a handle on it) that git reads as a gitfile: does
 * the git directory it names stay in the root, or lie where it is
 * trusted? */
static bool gitfile_ok(const struct git_pass *gp, int fd, const char *rel)
{
	char line[PATH_MAX], dir[PATH_MAX], target[PATH_MAX], abs[PATH_MAX];
	const char *slash = strrchr(rel, '/'), *p;
	int t;

	if (!first_line(fd, line, sizeof(line)) || strncmp(line, "gitdir:", 7) != 0)
		return true; /* no gitfile: git refuses it */
	for (p = line + 7; *p == ' '; p++)
		;
	if (!*p)
		return true;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rel) : 0, rel);
	if (!protect_git_target(gp->root, dir, p, target, sizeof(target))) {
		if (p[0] == '/')
			return protect_git_outside_ok(p, (void *)gp);
		if (snprintf(abs, sizeof(abs), "%s/%s/%s", gp->root, dir, p) >= (int)sizeof(abs))
			return false;
		return protect_git_outside_ok(abs, (void *)gp);
	}
	t = beneath(gp, target);
	if (leads_out(t))
		return out_ok(gp, target);
	if (t >= 0)
		close(t);
	return true;
}

/* gitconfig_where.inside_ok: a local URL inside the root by its text. git
 * (enter_repo) tries PATH, PATH/.git, PATH.git/.git and PATH.git, and reads
 * a file among them as a gitfile whatever its name (finding 12); each that
 * leads out through a symlink on the way, or names a git directory out of
 * the root, must lead where it is trusted (finding 02). */
bool protect_git_url_inside_ok(const char *path, void *ctx)
{
	static const char *const suffix[] = { "", "/.git", ".git/.git", ".git" };
	const struct git_pass *gp = ctx;
	char rel[PATH_MAX], cand[PATH_MAX];

	if (!protect_git_target(gp->root, "", path, rel, sizeof(rel)))
		return false;
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		struct stat st;
		int fd;

		if (snprintf(cand, sizeof(cand), "%s%s", rel, suffix[i]) >= (int)sizeof(cand))
			return false;
		fd = beneath(gp, cand);
		if (leads_out(fd)) {
			char abs[PATH_MAX];

			/* Out, to a file: a gitfile there may name any place,
			 * and sbx does not read out of the root for it. */
			if (snprintf(abs, sizeof(abs), "%s/%s", gp->root, cand) >= (int)sizeof(abs) ||
			    (stat(abs, &st) == 0 && !S_ISDIR(st.st_mode)) || !out_ok(gp, cand))
				return false;
			continue;
		}
		if (fd < 0)
			continue;
		bool ok = fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || gitfile_ok(gp, fd, cand);

		close(fd);
		if (!ok)
			return false;
	}
	return true;
}

/* A symlink (name, in the directory rel below dirfd) that leads out of the
 * root to a directory, or to nothing yet: cut unless where it leads is
 * trusted (finding 04: a project's directory moved out and linked, a
 * submodule's git directory, finding 05). A symlink to a file is left: git
 * does not go into one. true: removed (the caller notes it). */
bool protect_git_link(struct git_pass *gp, int dirfd, const char *name, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "", name) >= (int)sizeof(path))
		return false;
	fd = beneath(gp, path);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	if (!leads_out(fd))
		return false;
	if (out_ok(gp, path))
		return false;
	/* Where the kernel resolves it from sbx's own view: a file there is
	 * no directory git would work in. */
	char abs[PATH_MAX];

	if (snprintf(abs, sizeof(abs), "%s/%s", gp->root, path) < (int)sizeof(abs) &&
	    stat(abs, &st) == 0 && !S_ISDIR(st.st_mode))
		return false;
	if (unlinkat(dirfd, name, 0) == 0)
		return true;
	gp->partial = true;
	return false;
}
