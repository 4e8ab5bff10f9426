/* SPDX-License-Identifier: MIT */
/* Landlock rulesets built in the parent, before the clone: the child only
 * calls landlock_restrict_self. Allocation and directory listing are fine
 * here. The allow-list builder (landlock_allow_except) grants a tree minus
 * some paths below it: Landlock has no deny rule, so an exception is made by
 * granting everything beside it, level by level. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock.h"

int landlock_ruleset_create(int abi, uint64_t scoped)
{
	struct sbx_ruleset_attr attr = {
		/* A right left unhandled is allowed everywhere: handle all. */
		.handled_access_fs = landlock_fs_rights(abi),
		.scoped = abi >= 6 ? scoped : 0,
	};
	size_t size = abi >= 6 ? sizeof(attr) : sizeof(attr.handled_access_fs);
	int fd;

	if (!attr.handled_access_fs)
		return -EINVAL;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	return fd < 0 ? -errno : fd;
}

/* rights must suit the object (file rights only on a non-directory). */
static int add_rule(int ruleset, int fd, uint64_t rights)
{
	struct landlock_path_beneath_attr attr = { .allowed_access = rights, .parent_fd = fd };

	if (!rights)
		return 0;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) < 0)
		return -errno;
	return 0;
}

int landlock_allow_fd(int ruleset, int fd, uint64_t rights)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -errno;
	return add_rule(ruleset, fd, S_ISDIR(sb.st_mode) ? rights : rights & LL_FS_FILE);
}

/* type: DT_DIR, DT_REG (any non-directory) or DT_UNKNOWN (look). */
static int allow_at(int ruleset, int dirfd, const char *path, uint64_t rights, int flags,
		    unsigned char type)
{
	/* O_PATH: a handle on the inode, not the right to read it (a write dir
	 * may be unreadable to us, and a device must not be opened). */
	int fd = openat(dirfd, path, O_PATH | O_CLOEXEC | flags), rc;

	if (fd < 0)
		return -errno;
	if (type == DT_UNKNOWN)
		rc = landlock_allow_fd(ruleset, fd, rights);
	else
		rc = add_rule(ruleset, fd, type == DT_DIR ? rights : rights & LL_FS_FILE);
	close(fd);
	return rc;
}

int landlock_allow_path(int ruleset, const char *path, uint64_t rights)
{
	return allow_at(ruleset, AT_FDCWD, path, rights, 0, DT_UNKNOWN);
}

/* ---- the allow-list builder ---- */

struct except_walk {
	int ruleset;
	uint64_t rights, along;
	char *failed;
	size_t failed_size;
	struct landlock_walk_log *log;
};

/* FNV-1a over what a listing showed: each entry's inode number, type and
 * name, in the order read. */
static uint64_t hash_entry(uint64_t h, const struct dirent *e)
{
	const unsigned char *p = (const unsigned char *)&e->d_ino;

	for (size_t i = 0; i < sizeof(e->d_ino); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h = (h ^ e->d_type) * 0x100000001b3ULL;
	for (p = (const unsigned char *)e->d_name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (h ^ '/') * 0x100000001b3ULL;
}

#define HASH_START 0xcbf29ce484222325ULL

static void log_dir(struct landlock_walk_log *log, const char *dir, DIR *d, uint64_t hash)
{
	struct stat st;
	struct landlock_walked *w;

	if (!log || log->broken)
		return;
	if (log->n == LANDLOCK_WALK_MAX || fstat(dirfd(d), &st) < 0 ||
	    !(log->dir[log->n].path = strdup(dir))) {
		log->broken = true;
		return;
	}
	w = &log->dir[log->n++];
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->hash = hash;
}

bool landlock_walk_log_fresh(const struct landlock_walk_log *log)
{
	if (log->broken)
		return false;
	for (size_t i = 0; i < log->n; i++) {
		const struct landlock_walked *w = &log->dir[i];
		DIR *d = opendir(w->path);
		uint64_t h = HASH_START;
		struct dirent *e;
		struct stat st;
		bool same;

		if (!d)
			return false;
		while ((e = readdir(d)))
			h = hash_entry(h, e);
		same = fstat(dirfd(d), &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino &&
		       h == w->hash;
		closedir(d);
		if (!same)
			return false;
	}
	return true;
}

void landlock_walk_log_free(struct landlock_walk_log *log)
{
	for (size_t i = 0; i < log->n; i++)
		free(log->dir[i].path);
	log->n = 0;
	log->broken = false;
}

static int walk_fail(struct except_walk *w, const char *dir, const char *name, int rc)
{
	if (w->failed_size)
		snprintf(w->failed, w->failed_size, "%s%s%s", dir, name ? "/" : "", name ? name : "");
	return rc;
}

/* rel[i] are the excluded paths relative to dir (no leading '/'). */
static int grant_beside(struct except_walk *w, const char *dir, char **rel, size_t n)
{
	char path[PATH_MAX], **below;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (w->along && (rc = allow_at(w->ruleset, AT_FDCWD, dir, w->along, O_NOFOLLOW, DT_DIR)) < 0)
		return walk_fail(w, dir, NULL, rc);
	d = opendir(dir);
	if (!d)
		/* Unlistable to us: nothing beside the way can be named, so
		 * nothing is granted (more refused, never less); no log can
		 * say whether that changes. */
		return errno == EACCES ? (w->log ? (w->log->broken = true, 0) : 0)
				       : walk_fail(w, dir, NULL, -errno);
	below = calloc(n, sizeof(*below));
	if (!below) {
		closedir(d);
		return -ENOMEM;
	}
	uint64_t hash = HASH_START;

	while (rc == 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name), n_below = 0;
		bool excluded = false;

		hash = hash_entry(hash, e);
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (strncmp(rel[i], e->d_name, len) != 0)
				continue;
			if (rel[i][len] == '\0')
				excluded = true;
			else if (rel[i][len] == '/')
				below[n_below++] = rel[i] + len + 1;
		}
		if (excluded)
			continue;
		/* A symlink is granted nothing: its target is decided where
		 * it lies (maybe in an excluded subtree). */
		unsigned char type = e->d_type;
		struct stat sb;

		if (type == DT_UNKNOWN)
			type = fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ? DT_UNKNOWN
			       : S_ISLNK(sb.st_mode) ? DT_LNK
			       : S_ISDIR(sb.st_mode) ? DT_DIR : DT_REG;
		if (type == DT_LNK)
			continue;
		if (n_below) {
			if (type != DT_DIR)
				continue;
			if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir,
					     dir[strlen(dir) - 1] == '/' ? "" : "/",
					     e->d_name) >= sizeof(path))
				rc = walk_fail(w, dir, e->d_name, -ENAMETOOLONG);
			else
				rc = grant_beside(w, path, below, n_below);
			continue;
		}
		rc = allow_at(w->ruleset, dirfd(d), e->d_name, w->rights, O_NOFOLLOW, type);
		/* Gone meanwhile, or not reachable for us: nothing to grant. */
		if (rc == -ENOENT || rc == -EACCES)
			rc = 0;
		else if (rc < 0)
			rc = walk_fail(w, dir, e->d_name, rc);
	}
	if (rc == 0)
		log_dir(w->log, dir, d, hash);
	free(below);
	closedir(d);
	return rc;
}

int landlock_allow_except(int ruleset, const char *dir, uint64_t rights, uint64_t along,
			  const char *const *except, size_t n_except, char *failed,
			  size_t failed_size)
{
	return landlock_allow_except_logged(ruleset, dir, rights, along, except, n_except, failed,
					    failed_size, NULL);
}

/* What path resolves to; where its end does not exist (yet), what the deepest
 * ancestor that does resolves to, the rest appended. Why: an excluded path
 * that is absent when the ruleset is made (a credential store the user makes
 * during the run) is then left out as one that exists is: the walk goes down
 * to the directory that would hold it and grants that directory's entries
 * one by one, so nothing made there later is granted. malloc'd, or NULL. */
static char *resolve_existing(const char *path)
{
	char *real = realpath(path, NULL), *c, *slash, *out = NULL;

	if (real || path[0] != '/' || !(c = strdup(path)))
		return real;
	while ((slash = strrchr(c, '/')) && slash != c) {
		*slash = '\0';
		real = realpath(c, NULL);
		if (!real)
			continue;
		if (asprintf(&out, "%s%s", strcmp(real, "/") == 0 ? "" : real,
			     path + (slash - c)) < 0)
			out = NULL;
		free(real);
		break;
	}
	free(c);
	return out;
}

int landlock_allow_except_logged(int ruleset, const char *dir, uint64_t rights, uint64_t along,
				 const char *const *except, size_t n_except, char *failed,
				 size_t failed_size, struct landlock_walk_log *log)
{
	struct except_walk w = { ruleset, rights, along, failed, failed_size, log };
	char real_dir[PATH_MAX], **rel = calloc(n_except ? n_except : 1, sizeof(*rel));
	size_t n = 0, dlen;
	int rc;

	if (failed_size)
		failed[0] = '\0';
	if (!rel)
		return -ENOMEM;
	if (!realpath(dir, real_dir)) {
		free(rel);
		return walk_fail(&w, dir, NULL, -errno);
	}
	dlen = strcmp(real_dir, "/") == 0 ? 0 : strlen(real_dir);
	/* Why resolve: an exception named through a symlink would otherwise
	 * miss the real directory, which the walk grants. */
	for (size_t i = 0; i < n_except; i++) {
		char *real = resolve_existing(except[i]);

		if (real && strncmp(real, real_dir, dlen) == 0 && real[dlen] == '/' &&
		    real[dlen + 1] != '\0')
			rel[n++] = real;
		else
			free(real);
	}
	for (size_t i = 0; i < n; i++)
		memmove(rel[i], rel[i] + dlen + 1, strlen(rel[i] + dlen + 1) + 1);
	if (n == 0)
		rc = landlock_allow_path(ruleset, real_dir, rights);
	else
		rc = grant_beside(&w, real_dir, rel, n);
	if (rc < 0 && failed_size && !failed[0])
		snprintf(failed, failed_size, "%s", real_dir);
	for (size_t i = 0; i < n; i++)
		free(rel[i]);
	free(rel);
	return rc;
}
