/* SPDX-License-Identifier: MIT */
/* The workspace root, pinned: resolved once, held as an O_PATH handle, and
 * checked again before every run that uses the handle. A confined command may
 * rename or replace directories it can write; what a run confines must be the
 * directory the caller named, never whatever the path names later. */
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

#include "launcher.h"
#include "protect.h"
#include "statedir.h"

#define ROOT_MAX_LINKS 40

/* Places any confined workspace-write run may write (the landlock runner
 * leaves the host's /tmp and /dev/shm writable): a symlink there may have
 * been planted by an earlier run. */
static const char *const confined_writable[] = { "/tmp", "/dev/shm", NULL };

static bool in_confined_writable(const char *path)
{
	for (size_t i = 0; confined_writable[i]; i++)
		if (path_is_within(path, confined_writable[i]))
			return true;
	return false;
}

struct link_check {
	const char *link;
	uint64_t ctime;
	bool by_a_run;
};

static void link_in_window(void *ctx, uint64_t from, uint64_t to, bool host_tmp, const char *root)
{
	struct link_check *c = ctx;

	(void)host_tmp;
	if (root && c->ctime >= from && c->ctime <= to && path_is_within(c->link, root))
		c->by_a_run = true;
}

/* The symlink at link (lstat st) was made or changed while a recorded
 * confined run whose root holds it was live (the runs record, in every
 * state directory the caller has). Why: a workspace is a place confined
 * runs write; a symlink one left there names a directory outside it, and a
 * later root opened through it would hand that directory to a run as its
 * writable root (adversarial pass 3). A record that cannot be read: as if
 * it were. */
static bool made_by_a_run(const char *link, const struct stat *st)
{
	struct link_check c = { link,
				(uint64_t)st->st_ctim.tv_sec * 1000000000u +
					(uint64_t)st->st_ctim.tv_nsec,
				false };
	char cand[PATH_MAX];
	int dirs[STATEDIR_CANDIDATES];
	size_t n = 0;

	for (unsigned i = 0; i < STATEDIR_CANDIDATES; i++) {
		int fd;

		if (statedir_candidate(i, cand, sizeof(cand)) == 0 &&
		    (fd = statedir_open_kind(cand, "protect")) >= 0)
			dirs[n++] = fd;
	}
	if (protect_runs_each(dirs, n, &link, 1, link_in_window, &c) < 0)
		c.by_a_run = true;
	while (n)
		close(dirs[--n]);
	return c.by_a_run;
}

/* Follow `given` component by component as the kernel would, and refuse it
 * when a symlink on the way lies where a confined run could have made it. */
static int refuse_planted_symlinks(const char *given, struct sbx_error *err)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX], next[PATH_MAX], target[PATH_MAX];
	int links = 0;

	if (snprintf(rest, sizeof(rest), "%s", given) >= (int)sizeof(rest))
		return sbx_error_set(err, ENAMETOOLONG, SBX_E_USAGE, NULL, "root too long");
	while (rest[0]) {
		char *p = rest, *slash;
		struct stat st;
		ssize_t n;

		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		if (p[0] == '\0' || strcmp(p, ".") == 0) {
			/* nothing */
		} else if (strcmp(p, "..") == 0) {
			char *last = strrchr(cur, '/');

			if (last)
				*last = '\0';
		} else if (snprintf(next, sizeof(next), "%s/%s", cur, p) >= (int)sizeof(next)) {
			return sbx_error_set(err, ENAMETOOLONG, SBX_E_USAGE, NULL, "root too long");
		} else if (lstat(next, &st) < 0) {
			return 0; /* realpath reports it */
		} else if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, sizeof(cur));
		} else {
			if (in_confined_writable(next))
				return sbx_error_set(err, EPERM, SBX_E_USAGE, next,
						     "root %s is reached through the symlink %s, which "
						     "lies where a confined command could have made it; "
						     "name the directory itself",
						     given, next);
			if (made_by_a_run(next, &st))
				return sbx_error_set(err, EPERM, SBX_E_USAGE, next,
						     "root %s is reached through the symlink %s, which "
						     "a confined run made in its workspace; name the "
						     "directory itself if you mean it",
						     given, next);
			n = readlink(next, target, sizeof(target) - 1);
			if (n < 0 || ++links > ROOT_MAX_LINKS)
				return 0; /* realpath reports it */
			target[n] = '\0';
			if (target[0] == '/')
				cur[0] = '\0';
			if (snprintf(next, sizeof(next), "%s/%s", target, slash ? slash + 1 : "") >=
			    (int)sizeof(next))
				return sbx_error_set(err, ENAMETOOLONG, SBX_E_USAGE, NULL,
						     "root too long");
			memcpy(rest, next, sizeof(rest));
			continue;
		}
		if (!slash)
			break;
		memmove(rest, slash + 1, strlen(slash + 1) + 1);
	}
	return 0;
}

/* Open an already resolved path without following any symlink on the way
 * (openat2 RESOLVE_NO_SYMLINKS; before 5.6, O_NOFOLLOW on the last part and
 * a second realpath). */
static int open_resolved_dir(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	char again[PATH_MAX];
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return fd;
	fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (!realpath(path, again) || strcmp(again, path) != 0)) {
		close(fd);
		errno = ELOOP;
		return -1;
	}
	return fd;
}

int root_pin(const char *given, char resolved[PATH_MAX], int *fd_out, struct sbx_error *err)
{
	struct stat st;
	int fd, rc = refuse_planted_symlinks(given, err);

	if (rc < 0)
		return rc;
	if (!realpath(given, resolved))
		return sbx_error_set(err, errno, SBX_E_USAGE, given, "root %s: %s", given,
				     strerror(errno));
	fd = open_resolved_dir(resolved);
	if (fd < 0 && errno == ELOOP)
		return sbx_error_set(err, ELOOP, SBX_E_USAGE, resolved,
				     "root %s changed while it was being resolved", given);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return sbx_error_set(err, ENOTDIR, SBX_E_USAGE, resolved,
				     "root %s: not a directory", resolved);
	}
	*fd_out = fd;
	return 0;
}

int root_verify(const char *resolved, int fd, struct sbx_error *err)
{
	struct stat pinned, now;
	int cur = open_resolved_dir(resolved);
	bool same;

	if (fstat(fd, &pinned) < 0)
		return sbx_error_set(err, errno, SBX_E_INTERNAL, NULL, "pinned root: %s",
				     strerror(errno));
	same = cur >= 0 && fstat(cur, &now) == 0 && now.st_dev == pinned.st_dev &&
	       now.st_ino == pinned.st_ino;
	if (cur >= 0)
		close(cur);
	if (!same)
		return sbx_error_set(err, ESTALE, SBX_E_USAGE, resolved,
				     "root %s no longer names the directory pinned when the "
				     "session opened (moved, removed or replaced by a symlink); "
				     "nothing ran",
				     resolved);
	return 0;
}
