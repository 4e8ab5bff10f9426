/* SPDX-License-Identifier: MIT */
/* Protected paths under the landlock runner. Landlock's rules are allow-lists
 * on whole hierarchies: a writable root cannot have a read-only hole (granting
 * file creation in the root grants it in .git/hooks too, and git needs to
 * create files in .git/). So sbx takes a snapshot of each protected path that
 * exists when the run starts, and when the run is over puts back whatever
 * changed. Bounded: past PROTECT_SNAP_MAX_BYTES or _ENTRIES the path is not
 * snapshotted and the result says the protection was partial.
 *
 * sbx does this unconfined on the user's workspace: everything is relative
 * to handles, no symlink is ever followed, and what is put back is built
 * whole beside the protected place and swapped in (never written into what
 * the run left there, never half of it left there). */
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

void protect_snap_free(struct snap *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].rel);
		free(s->e[i].data);
	}
	free(s->e);
	memset(s, 0, sizeof(*s));
}

struct snap_entry *protect_snap_add(struct snap *s)
{
	if (s->n >= PROTECT_SNAP_MAX_ENTRIES) {
		s->too_big = true;
		return NULL;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct snap_entry *e = realloc(s->e, cap * sizeof(*e));

		if (!e) {
			s->too_big = true;
			return NULL;
		}
		s->e = e;
		s->cap = cap;
	}
	memset(&s->e[s->n], 0, sizeof(s->e[0]));
	return &s->e[s->n++];
}

static char *read_all(int fd, size_t size, size_t *len)
{
	char *buf = malloc(size + 1);
	size_t got = 0;

	if (!buf)
		return NULL;
	while (got <= size) {
		ssize_t n = read(fd, buf + got, size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	*len = got;
	return buf;
}

static int snap_walk(struct snap *s, int dirfd, const char *name, const char *rel, int depth);

static int snap_dir(struct snap *s, int fd, const char *rel, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(fd);
		return -errno;
	}
	while (rc == 0 && (de = readdir(d))) {
		char *sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) < 0)
			return closedir(d), -ENOMEM;
		rc = snap_walk(s, dirfd(d), de->d_name, sub, depth + 1);
		free(sub);
	}
	closedir(d);
	return rc;
}

static int snap_walk(struct snap *s, int dirfd, const char *name, const char *rel, int depth)
{
	struct stat st, now;
	struct snap_entry *e;
	int fd;

	if (s->too_big)
		return 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (depth > PROTECT_SNAP_MAX_DEPTH || !(e = protect_snap_add(s)))
		return (s->too_big = true), 0;
	e->rel = strdup(rel);
	e->mode = st.st_mode;
	e->uid = st.st_uid;
	e->gid = st.st_gid;
	if (!e->rel)
		return -ENOMEM;
	if (S_ISLNK(st.st_mode)) {
		char target[PROTECT_SNAP_MAX_LINK + 1];
		ssize_t n = readlinkat(dirfd, name, target, sizeof(target));

		if (n < 0)
			return -errno;
		if (n == 0 || (size_t)n > PROTECT_SNAP_MAX_LINK)
			return (s->too_big = true), 0;
		e->data = strndup(target, (size_t)n);
		e->len = (size_t)n;
		return e->data ? 0 : -ENOMEM;
	}
	if (S_ISDIR(st.st_mode)) {
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		return fd < 0 ? -errno : snap_dir(s, fd, rel, depth);
	}
	if (!S_ISREG(st.st_mode))
		return 0; /* fifos, sockets: kept by type and mode only */
	/* Why not taken: sbx, unconfined and perhaps root, must never be the
	 * one that makes a set-id file (from a snapshot read back from its
	 * state directory, say). No hook or config is set-id. */
	if (st.st_mode & (S_ISUID | S_ISGID))
		return (s->too_big = true), 0;
	if (s->bytes + (size_t)st.st_size > PROTECT_SNAP_MAX_BYTES)
		return (s->too_big = true), 0;
	/* NONBLOCK and a second look: a fifo swapped in since the stat would
	 * otherwise hold sbx in open(2) for good. */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode) || now.st_ino != st.st_ino ||
	    now.st_dev != st.st_dev) {
		close(fd);
		return -ESTALE;
	}
	e->data = read_all(fd, (size_t)st.st_size, &e->len);
	close(fd);
	if (!e->data)
		return -ENOMEM;
	s->bytes += e->len;
	return 0;
}

static bool snap_equal(const struct snap *a, const struct snap *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct snap_entry *x = &a->e[i];
		const struct snap_entry *y = strcmp(x->rel, b->e[i].rel) == 0 ? &b->e[i] : NULL;

		/* readdir order can differ between two walks: match by name. */
		for (size_t j = 0; j < b->n && !y; j++)
			if (strcmp(x->rel, b->e[j].rel) == 0)
				y = &b->e[j];
		if (!y || x->mode != y->mode || x->uid != y->uid || x->gid != y->gid ||
		    x->len != y->len || (x->len && memcmp(x->data, y->data, x->len) != 0))
			return false;
	}
	return true;
}

static int write_all_fd(int fd, const char *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			off += (size_t)n;
	}
	return 0;
}

/* Create one entry (by its last component) in the directory parent. */
static int make_entry(const struct snap_entry *e, int parent, const char *last)
{
	int fd, rc;

	if (S_ISDIR(e->mode))
		return mkdirat(parent, last, 0700) < 0 ? -errno : 0;
	if (S_ISLNK(e->mode))
		return symlinkat(e->data, parent, last) < 0 ? -errno : 0;
	if (!S_ISREG(e->mode))
		return 0;
	fd = openat(parent, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = write_all_fd(fd, e->data, e->len);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* Owner first, mode after (chown clears setuid bits); a caller that is not
 * root keeps its own ids anyway. Never through a symlink. */
static void set_owner_mode(const struct snap_entry *e, int parent, const char *last)
{
	if (S_ISLNK(e->mode))
		return;
	if (geteuid() == 0 && fchownat(parent, last, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(e->mode) || S_ISREG(e->mode)) {
		int fd = openat(parent, last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		/* Never a set-id file (see snap_walk); a directory's setgid bit
		 * (shared repositories) is only inherited group ownership. */
		mode_t mode = e->mode & (S_ISDIR(e->mode) ? 07777 : 01777);
		char proc[32];

		if (fd < 0)
			return;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		/* Best effort: a mode that cannot be set leaves the content
		 * put back (and the file ours). */
		if (chmod(proc, mode) < 0)
			errno = 0;
		close(fd);
	}
}

#define RESTORE_DEPTH 34

/* Build what the snapshot holds at name below dirfd, where nothing is. The
 * entries come parents first (a pre-order walk); each directory made is
 * opened with O_NOFOLLOW and its children are made relative to that handle,
 * so nothing a concurrent process swaps in on the way is followed. Modes are
 * set last, children before parents, so a read-only directory is filled
 * before it closes. */
static int snap_build(const struct snap *s, int dirfd, const char *name)
{
	int dirs[RESTORE_DEPTH + 1];
	int rc = 0;

	for (int i = 0; i <= RESTORE_DEPTH; i++)
		dirs[i] = -1;
	dirs[0] = dirfd;
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		const struct snap_entry *e = &s->e[i];
		const char *slash = strrchr(e->rel, '/');
		const char *last = e->rel[0] ? (slash ? slash + 1 : e->rel) : name;
		int depth = 0;

		for (const char *p = e->rel; e->rel[0] && *p; p++)
			depth += *p == '/';
		depth += e->rel[0] ? 1 : 0;
		if (depth >= RESTORE_DEPTH || dirs[depth] < 0) {
			rc = -ELOOP;
			break;
		}
		rc = make_entry(e, dirs[depth], last);
		if (rc == 0 && S_ISDIR(e->mode)) {
			if (dirs[depth + 1] >= 0 && dirs[depth + 1] != dirfd)
				close(dirs[depth + 1]);
			dirs[depth + 1] = openat(dirs[depth], last,
						 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (dirs[depth + 1] < 0)
				rc = -errno;
		}
	}
	for (int i = 1; i <= RESTORE_DEPTH; i++)
		if (dirs[i] >= 0)
			close(dirs[i]);
	if (rc < 0)
		return rc;
	/* Second pass, deepest first: owners and modes, each through a fresh
	 * walk from dirfd that follows no symlink. */
	for (size_t i = s->n; i-- > 0;) {
		const struct snap_entry *e = &s->e[i];
		char rel[4096];
		char *last;
		int parent;

		if (snprintf(rel, sizeof(rel), "%s%s%s", name, e->rel[0] ? "/" : "", e->rel) >=
		    (int)sizeof(rel))
			continue;
		last = strrchr(rel, '/');
		if (last) {
			*last++ = '\0';
			parent = protect_open_dir_nofollow(dirfd, rel);
		} else {
			last = rel;
			parent = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
		}
		if (parent < 0)
			continue;
		set_owner_mode(e, parent, last);
		close(parent);
	}
	return 0;
}

/* The built tree (at tmp) into name's place: exchanged with what is there,
 * which then goes from tmp, or renamed in where nothing is. */
static int swap_in(int dirfd, const char *tmp, const char *name)
{
	if (renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE) == 0) {
		protect_remove_tree(dirfd, tmp);
		return 0;
	}
	if (errno == EINVAL) {
		/* No RENAME_EXCHANGE on this file system: what is there goes
		 * first (a directory cannot be renamed over one that is not
		 * empty). */
		int rc = protect_remove_tree(dirfd, name);

		if (rc < 0)
			return rc;
	} else if (errno != ENOENT) {
		return -errno;
	}
	return renameat(dirfd, tmp, dirfd, name) < 0 ? -errno : 0;
}

/* Why under a temporary name, swapped in only when whole: a write that
 * fails half-way (the file system full: a run can fill it before it ends)
 * must never leave half a put-back in the protected place, an empty hook
 * or config taken for the user's (issue 29, adversarial pass 3, finding
 * 06). On failure the temporary goes. */
static int build_in(const struct snap *s, int dirfd, const char *name)
{
	static unsigned long seq;
	char tmp[64];
	int rc;

	/* Unique per call: serve's clean-ups of several runs are threads. */
	snprintf(tmp, sizeof(tmp), ".sbx-back-%d-%lu", (int)getpid(),
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	rc = protect_remove_tree(dirfd, tmp);
	if (rc == 0)
		rc = snap_build(s, dirfd, tmp);
	if (rc == 0)
		rc = swap_in(dirfd, tmp, name);
	if (rc < 0)
		protect_remove_tree(dirfd, tmp);
	return rc;
}

int protect_snapshot_take(struct protect_snapshot *ps, int parent_fd, const char *name)
{
	struct snap *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	rc = snap_walk(s, parent_fd, name, "", 0);
	if (rc < 0 || s->too_big) {
		ps->partial = true;
		protect_snap_free(s);
		free(s);
		return rc;
	}
	ps->snap = s;
	return 0;
}

int protect_snapshot_put_back(const struct protect_snapshot *ps, int parent_fd, const char *name,
			      bool *changed)
{
	struct snap now = { 0 };
	int rc;

	*changed = false;
	if (!ps->snap)
		return 0;
	rc = snap_walk(&now, parent_fd, name, "", 0);
	if (rc == 0 && !now.too_big && snap_equal(ps->snap, &now)) {
		protect_snap_free(&now);
		return 0;
	}
	protect_snap_free(&now);
	rc = build_in(ps->snap, parent_fd, name);
	/* Not put back: what the run left there must not stay for the
	 * user's git or editor to run (a hook, a config naming a command),
	 * so it goes, whatever it is; then one more try, in the room that
	 * frees. Failing that the place is left empty, never the run's. */
	if (rc < 0 && protect_remove_tree(parent_fd, name) == 0)
		rc = build_in(ps->snap, parent_fd, name);
	*changed = rc == 0;
	return rc;
}

void protect_snapshot_free(struct protect_snapshot *ps)
{
	if (ps->snap) {
		protect_snap_free(ps->snap);
		free(ps->snap);
	}
	ps->snap = NULL;
	ps->partial = false;
}
