/* SPDX-License-Identifier: MIT */
/* The directories above a root that lies in a place runs may write beside
 * their roots: the host's /tmp and /dev/shm, which the landlock runner
 * grants workspace-write whole. git looks for a repository from where it
 * runs upwards (a ".git" directory, file or symlink in each directory, or
 * the directory itself a git directory), so with the root at /tmp/a/b/proj
 * a run could make /tmp/a/.git (or /tmp/.git, a gitfile in /tmp/a/b, /tmp/a
 * itself a git directory), and the user's next git in the root would take
 * its hooks and config.
 *
 * So each directory from the root's parent up to the top of /tmp or
 * /dev/shm is treated like a protected path's place, by identity (walked
 * up through "..", never by name): before the run, what its ".git" is (a
 * gitfile or symlink: a snapshot; a directory: the user's repository, its
 * config's snapshot) and whether it is a git directory itself; after it:
 *
 * - a ".git" absent before (or one a run changed) that a run changed goes;
 * - a gitfile or symlink that changed is put back from its snapshot;
 * - a repository that was there (".git", or the directory itself) is held
 *   to git's allow-list like any under the root (protect_git.c), and its
 *   config put back as it was;
 * - a directory that was no git directory and is one now loses what a run
 *   made of HEAD, commondir, objects and refs.
 *
 * "Changed by a run" is protect_runs.c's: under the namespace runner,
 * whose /tmp is private, only what earlier runs (landlock ones) changed
 * there counts, never what the user did during this run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "protect_int.h"

/* How far above the root the places are looked for. */
#define ABOVE_MAX_LEVELS 64

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* O_PATH handles on the root's parent, its parent... up to the top of
 * /tmp or /dev/shm (included): how many, 0 when the root lies under
 * neither. */
static size_t chain(int root_fd, int *fds, size_t max)
{
	struct stat tops[2], top_root, st;
	bool have[2] = { stat("/tmp", &tops[0]) == 0, stat("/dev/shm", &tops[1]) == 0 };
	size_t n = 0;
	int fd;

	if (stat("/", &top_root) < 0)
		return 0;
	fd = openat(root_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0) {
		if (n == max || fstat(fd, &st) < 0) {
			close(fd);
			break;
		}
		fds[n++] = fd;
		if ((have[0] && same(&st, &tops[0])) || (have[1] && same(&st, &tops[1])))
			return n;
		if (same(&st, &top_root))
			break;
		fd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	while (n)
		close(fds[--n]);
	return 0;
}

static void config_snapshot(struct protect_snapshot *snap, int dir, const char *name)
{
	int g = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (g < 0)
		return;
	protect_snapshot_take(snap, g, "config");
	close(g);
}

void protect_above_take(struct protect_state *ps, int root_fd, const char *root)
{
	int fds[ABOVE_MAX_LEVELS];
	size_t n = chain(root_fd, fds, ABOVE_MAX_LEVELS);
	struct protect_when earlier;
	bool have_when;

	if (n == 0)
		return;
	/* What an earlier run left (a run whose sbx died) is not taken for
	 * the user's: only their windows, never this run's start. */
	have_when = protect_runs_when(ps, root, (struct timespec){ INT64_MAX, 0 }, &earlier) == 0;
	ps->above = calloc(n, sizeof(*ps->above));
	for (size_t i = 0; ps->above && i < n; i++) {
		struct protect_above *a = &ps->above[i];
		struct stat st;
		bool run_made;

		fstat(fds[i], &st);
		a->dev = (uint64_t)st.st_dev;
		a->ino = (uint64_t)st.st_ino;
		a->git = PROTECT_ABSENT;
		run_made = !have_when || protect_git_changed(fds[i], ".git", &earlier);
		if (fstatat(fds[i], ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(st.st_mode)) {
				a->git = PROTECT_DIR;
				config_snapshot(&a->cfg, fds[i], ".git");
			} else if (!run_made) {
				a->git = PROTECT_PRESENT;
				protect_snapshot_take(&a->snap, fds[i], ".git");
			}
		}
		a->gitdir = protect_git_looks_like(fds[i]) &&
			    !(have_when && protect_git_changed(fds[i], "HEAD", &earlier));
		if (a->gitdir)
			config_snapshot(&a->cfg, fds[i], ".");
	}
	if (ps->above)
		ps->n_above = n;
	if (have_when)
		protect_when_free(&earlier);
	while (n)
		close(fds[--n]);
}

static const struct protect_above *find(const struct protect_state *ps, const struct stat *st)
{
	for (size_t i = 0; i < ps->n_above; i++)
		if (ps->above[i].dev == (uint64_t)st->st_dev && ps->above[i].ino == (uint64_t)st->st_ino)
			return &ps->above[i];
	return NULL;
}

static void note(struct protect_state *ps, size_t level, const char *rel)
{
	char *p = NULL, up[3 * ABOVE_MAX_LEVELS + 1];
	char **c;

	for (size_t i = 0; i < level && i < ABOVE_MAX_LEVELS; i++)
		memcpy(up + 3 * i, "../", 3);
	up[3 * (level < ABOVE_MAX_LEVELS ? level : ABOVE_MAX_LEVELS)] = '\0';
	if (asprintf(&p, "%s%s", up, rel) < 0)
		return;
	c = realloc(ps->git_changed, (ps->n_git_changed + 1) * sizeof(*c));
	if (!c) {
		free(p);
		return;
	}
	ps->git_changed = c;
	c[ps->n_git_changed++] = p;
}

/* A repository that was there: held to the allow-list (name: ".git", or
 * "." for the directory itself), its config put back as it was. */
static void hold(struct protect_state *ps, int dir, size_t level, const char *name,
		 const struct protect_snapshot *cfg, const struct protect_when *when)
{
	char proc[32], path[PATH_MAX];
	ssize_t len;
	int g = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool changed;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dir);
	len = readlink(proc, path, sizeof(path) - 1);
	if (g < 0 || len <= 0) {
		if (g >= 0)
			close(g);
		ps->git_partial = true;
		return;
	}
	path[len] = '\0';
	struct git_pass gp = { .root_fd = dir, .root = path, .when = *when,
			       .writable = ps->writable, .n_writable = ps->n_writable };

	protect_git_dir(&gp, g, strcmp(name, ".") == 0 ? "" : name, false);
	for (size_t i = 0; i < gp.n_changed; i++)
		note(ps, level, gp.changed[i]);
	if (gp.partial)
		ps->git_partial = true;
	protect_git_pass_free(&gp);
	/* After the pass, which cut a config a run changed down to the
	 * allow-list: the user's own keys come back. */
	g = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (g >= 0 && protect_snapshot_put_back(cfg, g, "config", &changed) == 0 && changed)
		note(ps, level, strcmp(name, ".") == 0 ? "config" : ".git/config");
	if (g >= 0)
		close(g);
}

static void remove_if_changed(struct protect_state *ps, int dir, size_t level, const char *name,
			      const struct protect_when *when)
{
	if (!protect_git_changed(dir, name, when))
		return;
	if (protect_remove_tree(dir, name) == 0)
		note(ps, level, name);
	else
		ps->git_partial = true;
}

size_t protect_above_end(struct protect_state *ps, int root_fd, const struct protect_when *when)
{
	static const char *const makes[] = { "HEAD", "commondir", "objects", "refs" };
	int fds[ABOVE_MAX_LEVELS];
	size_t n, before = ps->n_git_changed;

	if (ps->n_above == 0)
		return 0;
	n = chain(root_fd, fds, ABOVE_MAX_LEVELS);
	for (size_t i = 0; i < n; i++) {
		const struct protect_above *a;
		struct stat st;
		bool changed;

		if (fstat(fds[i], &st) < 0)
			continue;
		a = find(ps, &st);
		if (fstatat(fds[i], ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (a && a->git == PROTECT_DIR && S_ISDIR(st.st_mode)) {
				hold(ps, fds[i], i + 1, ".git", &a->cfg, when);
			} else if (a && a->git == PROTECT_PRESENT && a->snap.snap) {
				if (protect_snapshot_put_back(&a->snap, fds[i], ".git", &changed) == 0 &&
				    changed)
					note(ps, i + 1, ".git");
			} else {
				remove_if_changed(ps, fds[i], i + 1, ".git", when);
			}
		}
		if (!protect_git_looks_like(fds[i]))
			continue;
		if (a && a->gitdir) {
			hold(ps, fds[i], i + 1, ".", &a->cfg, when);
			continue;
		}
		for (size_t k = 0; k < sizeof(makes) / sizeof(makes[0]); k++)
			remove_if_changed(ps, fds[i], i + 1, makes[k], when);
	}
	while (n)
		close(fds[--n]);
	return ps->n_git_changed - before;
}

/* In dir, the name of the entry that is st's inode (by identity, each
 * entry asked with fstatat): copied to out, or false. */
static bool name_of(int dir, const struct stat *st, char *out, size_t size)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat es;
	bool found = false;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
			fstatat(dirfd(d), e->d_name, &es, AT_SYMLINK_NOFOLLOW) == 0 && same(&es, st) &&
			(size_t)snprintf(out, size, "%s", e->d_name) < size;
	closedir(d);
	return found;
}

bool protect_above_root_back(struct protect_state *ps, int root_fd)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	const char *root = ps->base.root, *base;
	char parent[PATH_MAX], now_name[NAME_MAX + 1];
	struct stat rs, pst, st;
	bool back = false, there;
	int pfd, now;

	if (ps->n_above == 0 || !root || root[0] != '/' || fstat(root_fd, &rs) < 0)
		return false;
	base = strrchr(root, '/');
	snprintf(parent, sizeof(parent), "%.*s", base == root ? 1 : (int)(base - root), root);
	base++;
	pfd = (int)syscall(SYS_openat2, AT_FDCWD, parent, &how, sizeof(how));
	there = pfd >= 0 && fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (there && same(&st, &rs)) {
		close(pfd);
		return false;
	}
	/* The parent must be the one the root was in when the run began
	 * (ps->above[0]); anything else, and the user's path is not ours to
	 * mend: said, as a git pass that could not look everywhere. */
	if (pfd < 0 || fstat(pfd, &pst) < 0 || ps->above[0].dev != (uint64_t)pst.st_dev ||
	    ps->above[0].ino != (uint64_t)pst.st_ino) {
		if (pfd >= 0)
			close(pfd);
		ps->git_partial = true;
		return false;
	}
	now = openat(root_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (now >= 0 && name_of(now, &rs, now_name, sizeof(now_name)))
		back = syscall(SYS_renameat2, now, now_name, pfd, base,
			       there ? RENAME_EXCHANGE : RENAME_NOREPLACE) == 0;
	if (now >= 0)
		close(now);
	close(pfd);
	if (back)
		note(ps, 0, ".");
	else
		ps->git_partial = true;
	return back;
}

void protect_above_free(struct protect_state *ps)
{
	for (size_t i = 0; i < ps->n_above; i++) {
		protect_snapshot_free(&ps->above[i].snap);
		protect_snapshot_free(&ps->above[i].cfg);
	}
	free(ps->above);
	ps->above = NULL;
	ps->n_above = 0;
}
