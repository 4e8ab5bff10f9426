/* SPDX-License-Identifier: MIT */
/* A protected file reachable by another name (issue 29, adversarial pass 3,
 * finding 09). The namespace runner's read-only binds guard a name, not the
 * inode behind it: a hard link to .git/config or a hook, made where a run may
 * write (by a landlock run, which has no mounts; by an older sbx; by any
 * tool between runs), is a second name through which a later run writes the
 * user's file while the user's git reads it. sbx cannot find the other name
 * (that would take a walk of every file system a run may write), so it gives
 * the protected name a copy of its own: a new inode, written beside it and
 * renamed over, owner, mode and times kept; the other name keeps the old
 * inode, an ordinary file of whoever holds it. The engine does this before
 * a run's command starts (before any bind) and when the run is over.
 *
 * Bounded like a snapshot (protect.h): past PROTECT_SNAP_MAX_ENTRIES entries,
 * PROTECT_SNAP_MAX_DEPTH levels or PROTECT_SNAP_MAX_BYTES of copies, the rest
 * is not looked at and the caller is told. Unconfined, on the user's
 * workspace: relative to handles, no symlink followed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protect_int.h"
#include "protect_snap.h"

struct alias_walk {
	size_t entries, bytes;
	bool copied;
	bool unsure;
	int err; /* the first copy that failed */
};

static int copy_data(int src, int dst)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(src, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(dst, buf + off, (size_t)(n - off));

			if (w < 0 && errno != EINTR)
				return -errno;
			if (w > 0)
				off += w;
		}
	}
}

/* name (below dirfd, st its stat) replaced by a copy of itself. */
static int copy_over(int dirfd, const char *name, const struct stat *st)
{
	static unsigned long seq;
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	struct stat now;
	char tmp[64];
	int src, dst, rc;

	src = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (src < 0)
		return -errno;
	if (fstat(src, &now) < 0 || !S_ISREG(now.st_mode) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		close(src);
		return -ESTALE;
	}
	/* Unique per call: serve's clean-ups of several runs are threads. */
	snprintf(tmp, sizeof(tmp), ".sbx-own-%d-%lu", (int)getpid(),
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	unlinkat(dirfd, tmp, 0);
	dst = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dst < 0) {
		rc = -errno;
		close(src);
		return rc;
	}
	rc = copy_data(src, dst);
	close(src);
	/* Owner first (a root caller's workspace of another user), then the
	 * mode: never a set-id bit (sbx, unconfined and perhaps root, does
	 * not make set-id files; see protect_snapshot.c). */
	if (rc == 0 && geteuid() == 0 && fchown(dst, st->st_uid, st->st_gid) < 0)
		rc = -errno;
	if (rc == 0 && fchmod(dst, st->st_mode & 0777) < 0)
		rc = -errno;
	if (rc == 0)
		futimens(dst, times);
	if (close(dst) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -errno;
	/* Never half a copy in the protected place: only a whole one is
	 * renamed in. */
	if (rc < 0)
		unlinkat(dirfd, tmp, 0);
	return rc;
}

static void walk_at(struct alias_walk *w, int dirfd, const char *name, int depth, bool tree);

/* A directory's entries, read first and looked at after: the renames onto
 * its names would otherwise change what readdir goes on to return. */
static void walk_dir(struct alias_walk *w, int parent, const char *name, int depth)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (fd < 0) {
		w->unsure = true;
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		w->unsure = true;
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (w->entries + n >= PROTECT_SNAP_MAX_ENTRIES) {
			w->unsure = true;
			break;
		}
		if (n == cap) {
			size_t c = cap ? 2 * cap : 16;
			char **p = realloc(names, c * sizeof(*p));

			if (!p) {
				w->unsure = true;
				break;
			}
			names = p;
			cap = c;
		}
		if (!(names[n] = strdup(e->d_name))) {
			w->unsure = true;
			break;
		}
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		walk_at(w, dirfd(d), names[i], depth + 1, true);
		free(names[i]);
	}
	free(names);
	closedir(d);
}

static void walk_at(struct alias_walk *w, int dirfd, const char *name, int depth, bool tree)
{
	struct stat st;
	int rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			w->unsure = true;
		return;
	}
	if (++w->entries > PROTECT_SNAP_MAX_ENTRIES) {
		w->unsure = true;
		return;
	}
	if (S_ISDIR(st.st_mode) && tree) {
		if (depth >= PROTECT_SNAP_MAX_DEPTH)
			w->unsure = true;
		else
			walk_dir(w, dirfd, name, depth);
		return;
	}
	/* Why the link count: one name is the protected one; any other is
	 * one a run may have written through (or may write through next). */
	if (!S_ISREG(st.st_mode) || st.st_nlink <= 1)
		return;
	if (w->bytes + (size_t)st.st_size > PROTECT_SNAP_MAX_BYTES) {
		w->unsure = true;
		return;
	}
	w->bytes += (size_t)st.st_size;
	rc = copy_over(dirfd, name, &st);
	if (rc == 0)
		w->copied = true;
	else if (!w->err)
		w->err = rc;
}

int protect_alias_break(int parent_fd, const char *name, bool tree, bool *unsure)
{
	struct alias_walk w = { 0 };

	walk_at(&w, parent_fd, name, 0, tree);
	if (w.unsure)
		*unsure = true;
	return w.err ? w.err : w.copied ? 1 : 0;
}
