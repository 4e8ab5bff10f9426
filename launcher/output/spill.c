/* SPDX-License-Identifier: MIT */
/* Where a stream past the output limit is kept whole.
 *
 * sbx writes spill files itself, unconfined, while the command runs. So the
 * place is fixed before the command starts (a handle on the base directory);
 * everything below it is created relative to that handle with O_NOFOLLOW and
 * O_EXCL; and the base never lies below what the command may write, where it
 * could swap a path component for a symlink, now or for a later run.
 *
 * The default base is the caller's spill home, $XDG_CACHE_HOME/sbx/spill
 * (~/.cache/sbx/spill), else $XDG_RUNTIME_DIR/sbx/spill: 0700 directories of
 * the caller's own that no other user can enter, outside /tmp. Each run that
 * spills gets a fresh sbx-spill-<hex> directory there (0700) with its files
 * (0600). When neither can be used, the last home is /var/tmp/sbx-UID/spill,
 * sbx's state directory there; when none can be, a directory under $TMPDIR,
 * but never where a confined command of the caller may write (this run's
 * root, the host's /tmp and /dev/shm): else no spill. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "classify.h"
#include "spill.h"

const char *spill_stop_name(enum spill_stop stop)
{
	switch (stop) {
	case SPILL_STOP_CAP: return "spill_max_bytes";
	case SPILL_STOP_SPACE: return "free_space";
	case SPILL_STOP_ERROR: return "error";
	case SPILL_WHOLE: break;
	}
	return "whole";
}

void spill_place_init(struct spill_place *p, uint64_t max_bytes)
{
	memset(p, 0, sizeof(*p));
	p->base_fd = -ENOENT;
	p->dir_fd = -1;
	p->max_bytes = max_bytes;
}

void spill_place_close(struct spill_place *p)
{
	if (p->base_fd >= 0)
		close(p->base_fd);
	if (p->dir_fd >= 0)
		close(p->dir_fd);
	p->base_fd = -ENOENT;
	p->dir_fd = -1;
}

int spill_home_path(char *out, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	/* The XDG spec: a relative value is invalid and is ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(out, size, "%s/sbx/spill", xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, size, "%s/.cache/sbx/spill", strcmp(home, "/") ? home : "");
	else
		return -ENOENT;
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int spill_runtime_path(char *out, size_t size)
{
	const char *run = getenv("XDG_RUNTIME_DIR");
	int n;

	if (!run || run[0] != '/')
		return -ENOENT;
	n = snprintf(out, size, "%s/sbx/spill", run);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int spill_var_tmp_path(char *out, size_t size)
{
	int n = snprintf(out, size, "/var/tmp/sbx-%u/spill", (unsigned)geteuid());

	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int spill_home_split(const char *path, char *parent, size_t parent_size, char *own,
		     size_t own_size)
{
	const char *spill = strrchr(path, '/'), *mine;
	size_t len;

	if (!spill || strcmp(spill, "/spill") != 0)
		return -EINVAL;
	for (mine = spill; mine > path && mine[-1] != '/'; mine--)
		;
	if (mine == path || mine == spill)
		return -EINVAL;
	len = (size_t)(mine - 1 - path);
	if (len >= parent_size || (size_t)(spill - mine) >= own_size)
		return -ENAMETOOLONG;
	memcpy(parent, path, len);
	parent[len] = '\0';
	memcpy(own, mine, (size_t)(spill - mine));
	own[spill - mine] = '\0';
	return 0;
}

/* One level of sbx's own directory under parent: made 0700 if missing,
 * opened without following a symlink, and refused unless the caller owns
 * it; a wider mode of the caller's own directory is narrowed. */
static int own_dir_at(int parent, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Open (making what is missing) a home like ~/.cache/sbx/spill: the first
 * part is the user's own setup (it may be a symlink, and is made 0700 when
 * missing, as the XDG spec asks); the last two ("sbx", or "sbx-UID" in
 * /var/tmp, and "spill") are sbx's own. */
static int home_open(const char *path, bool make_parent)
{
	char parent[PATH_MAX], own[NAME_MAX + 1];
	int pfd, sfd, fd;

	if (spill_home_split(path, parent, sizeof(parent), own, sizeof(own)) < 0 ||
	    parent[0] == '\0')
		return -EINVAL;
	/* Not /var/tmp: a system's directory, not a user's cache (a root
	 * caller made a missing one 0700, closed to every other user). */
	if (make_parent && mkdir(parent, 0700) < 0 && errno != EEXIST)
		return -errno;
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	sfd = own_dir_at(pfd, own);
	close(pfd);
	if (sfd < 0)
		return sfd;
	fd = own_dir_at(sfd, "spill");
	close(sfd);
	return fd;
}

/* Below one of them, or one of them itself: a spill dir that IS the root,
 * /tmp or /dev/shm takes files the command can rewrite as well as one below. */
static bool within_any(const char *path, const char *const *writable, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (path_is_within(path, writable[i]))
			return true;
	return false;
}

/* path (resolved) or a directory above it IS one of them by identity: a
 * bind mount shows a directory at another name (adversarial pass 9,
 * finding 13: --spill-dir through a bind of the root). */
static bool inside_by_identity(const char *real, const char *const *writable, size_t n)
{
	char p[PATH_MAX];
	struct stat a, w;

	if (snprintf(p, sizeof(p), "%s", real) >= (int)sizeof(p))
		return true;
	for (;;) {
		if (stat(p, &a) == 0)
			for (size_t i = 0; i < n; i++)
				if (stat(writable[i], &w) == 0 && a.st_dev == w.st_dev &&
				    a.st_ino == w.st_ino)
					return true;
		char *slash = strrchr(p, '/');

		if (!slash || slash == p) {
			if (strcmp(p, "/") == 0)
				return false;
			strcpy(p, "/");
			continue;
		}
		*slash = '\0';
	}
}

/* Could a command that writes there have steered the way to path? Each
 * directory on the way as given, resolved, is judged by name and by
 * identity: one inside what the command writes could hold a symlink it
 * left (run 1 replaced the spill directory with a link, run 2's spill
 * followed it), whatever the final place resolves to. */
static bool steerable(const char *given, const char *const *writable, size_t n)
{
	char prefix[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(given);

	if (given[0] != '/' || len >= sizeof(prefix))
		return true;
	for (size_t end = 1; end <= len; end++) {
		if (end < len && given[end] != '/')
			continue;
		memcpy(prefix, given, end);
		prefix[end] = '\0';
		if (!realpath(prefix, real))
			continue;
		if (within_any(real, writable, n) || inside_by_identity(real, writable, n))
			return true;
	}
	return false;
}

/* Where path really is, as far as it exists: the realpath of its deepest
 * existing ancestor with the rest appended (a symlinked ~/.cache included). */
static int resolve_existing(const char *path, char *out, size_t size)
{
	char head[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(head))
		return -ENAMETOOLONG;
	memcpy(head, path, len + 1);
	for (;;) {
		char *slash = strrchr(head, '/');

		if (realpath(head[0] ? head : "/", out)) {
			size_t n = strlen(out);
			const char *rest = path + strlen(head);

			if (n + strlen(rest) + 1 > size)
				return -ENAMETOOLONG;
			memcpy(out + (strcmp(out, "/") == 0 && rest[0] == '/' ? n - 1 : n), rest,
			       strlen(rest) + 1);
			return 0;
		}
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
}

/* A spill home, if it is usable here. Judged before anything is made, so a
 * home inside what a command may write is left untouched; a home that is
 * one of those directories itself (a root of .../sbx/spill) is as much the
 * command's. */
static bool try_home(struct spill_place *p, int (*path_of)(char *, size_t),
		     const char *const *writable, size_t n)
{
	char path[PATH_MAX], real[PATH_MAX];
	int fd;

	if (path_of(path, sizeof(path)) < 0 || resolve_existing(path, real, sizeof(real)) < 0 ||
	    within_any(real, writable, n) || steerable(path, writable, n))
		return false;
	fd = home_open(path, path_of != spill_var_tmp_path);
	if (fd < 0)
		return false;
	/* Made now: judge the final place once more. */
	if (!realpath(path, real) || within_any(real, writable, n) ||
	    inside_by_identity(real, writable, n)) {
		close(fd);
		return false;
	}
	snprintf(p->base, sizeof(p->base), "%s", real);
	p->base_fd = fd;
	p->private_dir = true;
	return true;
}

int spill_place_choose(struct spill_place *p, const char *explicit_dir,
		       const char *const *writable, size_t n_writable, struct sbx_error *err)
{
	const char *tmp = getenv("TMPDIR");

	p->dir_fd = -1;
	if (explicit_dir) {
		if (!realpath(explicit_dir, p->base))
			return sbx_error_set(err, errno, SBX_E_USAGE, explicit_dir, "spill dir %s: %s",
					     explicit_dir, strerror(errno));
		if (steerable(explicit_dir, writable, n_writable))
			return sbx_error_set(err, EINVAL, SBX_E_USAGE, p->base,
					     "spill dir %s lies inside what the command may write; "
					     "choose one outside the root, /tmp, /dev/shm and the tool caches",
					     p->base);
		p->private_dir = false;
		p->base_fd = open(p->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (p->base_fd < 0)
			p->base_fd = -errno; /* reported if a spill is ever needed */
		return 0;
	}
	/* /var/tmp/sbx-UID/spill: for a caller with no usable home (nobody's
	 * is /nonexistent); sbx's state directory there is hidden from
	 * confined runs, as the homes are. */
	if (try_home(p, spill_home_path, writable, n_writable) ||
	    try_home(p, spill_runtime_path, writable, n_writable) ||
	    try_home(p, spill_var_tmp_path, writable, n_writable))
		return 0;
	/* The last resort: a private directory under $TMPDIR, never where a
	 * confined command of the caller may write, this run's or another's:
	 * this run's root, and in every mode the host's /tmp and /dev/shm,
	 * which every workspace-write run under the landlock runner writes.
	 * Why: the private directory is the caller's, and so the command's
	 * (same uid); a workspace-write command under the landlock runner read
	 * and rewrote another run's spill file in /tmp (newuser7), a read-only
	 * run's too, and its own in a $TMPDIR in /dev/shm. No such place: no
	 * spill, said in the result when a stream needs one. */
	const char *avoid[SPILL_AVOID_MAX + 2];
	size_t n_avoid = 0;

	for (size_t i = 0; i < n_writable && i < SPILL_AVOID_MAX; i++)
		avoid[n_avoid++] = writable[i];
	avoid[n_avoid++] = "/tmp";
	avoid[n_avoid++] = "/dev/shm";
	p->private_dir = true;
	if (!(tmp && tmp[0] == '/' && realpath(tmp, p->base)) ||
	    within_any(p->base, avoid, n_avoid) || steerable(tmp, avoid, n_avoid)) {
		snprintf(p->base, sizeof(p->base), "%s", "(none)");
		p->base_fd = -EACCES;
		return 0;
	}
	p->base_fd = open(p->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->base_fd < 0)
		p->base_fd = -errno;
	return 0;
}

static int random_text(char *out, size_t n)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[32];

	if (n > sizeof(rnd) || getrandom(rnd, n, 0) != (ssize_t)n)
		return -EIO;
	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
	out[n] = '\0';
	return 0;
}

/* A fresh sbx-spill-<hex> directory under the base, made and opened without
 * following a symlink, checked to be ours and 0700. */
static int private_dir_at(int base_fd, char *name, size_t name_size)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char rnd[SPILL_DIR_HEX / 2];
		struct stat st;
		int dfd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		snprintf(name, name_size, SPILL_DIR_PREFIX "%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1],
			 rnd[2], rnd[3], rnd[4], rnd[5]);
		if (mkdirat(base_fd, name, 0700) < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		dfd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			return -errno;
		if (fstat(dfd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 077) != 0) {
			close(dfd);
			return -EPERM;
		}
		return dfd;
	}
	return -EEXIST;
}

/* O_EXCL|O_NOFOLLOW under dirfd with a random suffix: never follows or
 * reuses what someone else put there. */
static int create_unique_at(int dirfd, const char *prefix, char *name, size_t name_size)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		char suffix[SPILL_FILE_RANDOM + 1];
		int fd;

		if (random_text(suffix, SPILL_FILE_RANDOM) < 0)
			return -EIO;
		if (snprintf(name, name_size, "%s-%s", prefix, suffix) >= (int)name_size)
			return -ENAMETOOLONG;
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int spill_place_create(struct spill_place *p, const char *stream, char **path)
{
	char name[64], prefix[32];
	int fd;

	if (p->base_fd < 0)
		return p->base_fd;
	if (!p->private_dir) {
		/* --spill-dir: the caller's directory; names say whose files they are. */
		snprintf(prefix, sizeof(prefix), "sbx-%s", stream);
		fd = create_unique_at(p->base_fd, prefix, name, sizeof(name));
		if (fd >= 0 && asprintf(path, "%s/%s", p->base, name) < 0)
			goto nomem;
		return fd;
	}
	/* One private directory per run, made by the first stream to spill. */
	if (p->dir_fd < 0) {
		p->dir_fd = private_dir_at(p->base_fd, p->dir_name, sizeof(p->dir_name));
		if (p->dir_fd < 0) {
			int e = p->dir_fd;

			p->dir_fd = -1;
			return e;
		}
	}
	fd = create_unique_at(p->dir_fd, stream, name, sizeof(name));
	if (fd >= 0 && asprintf(path, "%s/%s/%s", strcmp(p->base, "/") ? p->base : "",
				p->dir_name, name) < 0)
		goto nomem;
	return fd;
nomem:
	*path = NULL;
	close(fd);
	return -ENOMEM;
}

uint64_t spill_headroom(int fd)
{
	struct statvfs sv;
	uint64_t size, avail, floor;

	if (fstatvfs(fd, &sv) < 0)
		return UINT64_MAX; /* unknown: the write itself will say ENOSPC */
	size = (uint64_t)sv.f_blocks * sv.f_frsize;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	floor = size / 20;
	if (floor < SPILL_FLOOR_MIN)
		floor = SPILL_FLOOR_MIN;
	if (floor > SPILL_FLOOR_MAX)
		floor = SPILL_FLOOR_MAX;
	return avail > floor ? avail - floor : 0;
}

bool spill_has_room(int fd, uint64_t want)
{
	return spill_headroom(fd) >= want;
}
