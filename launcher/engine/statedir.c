/* SPDX-License-Identifier: MIT */
/* sbx's own state directories (see statedir.h). Made by sbx itself, outside
 * any policy, so every step is made relative to a handle, never through a
 * symlink, and checked to be ours: a confined command that shares our uid
 * could otherwise plant a symlink on the way and steer our writes. */
#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h" /* path_is_within */
#include "protect.h"
#include "statedir.h"

/* Open (making it if missing) the directory name below dirfd: no symlink
 * followed, ours, no write bit for group or others. */
static int open_own_dir(int dirfd, const char *name, unsigned mode)
{
	struct stat st;
	int fd;

	if (mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022 && !(st.st_mode & S_ISVTX))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The run's own /tmp or cache, below a directory of ours that no one else
 * may enter: the command may change its mode (chmod 777 /tmp, chmod 000
 * $XDG_CACHE_HOME) and, as a root caller, its owner, and that must not leave
 * every later run of the root without its /tmp and cache. So not refused
 * like the levels above it: its owner and the mode it asks for (the umask
 * trimmed it at mkdir) are put back, through the handle, never the path. */
static int run_dir(int parent, const char *name, unsigned mode)
{
	char proc[32];
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) < 0 ||
	    (st.st_uid != geteuid() &&
	     fchownat(fd, "", geteuid(), getegid(), AT_EMPTY_PATH) < 0) ||
	    chmod(proc, mode) < 0) {
		int e = errno ? errno : EPERM;

		close(fd);
		return -e;
	}
	return fd;
}

/* Walk an absolute path from "/", making the components from `make_from`
 * (a byte offset) on. Components before it must exist; they need not be
 * ours (/home, /var/tmp). */
static int open_path(const char *path, size_t make_from, unsigned mode)
{
	char buf[PATH_MAX];
	char *p, *save = NULL;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	size_t off;

	if (fd < 0)
		return -errno;
	if (strlen(path) >= sizeof(buf) || path[0] != '/') {
		close(fd);
		return -EINVAL;
	}
	strcpy(buf, path);
	for (p = strtok_r(buf + 1, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		int next;

		off = (size_t)(p - buf);
		if (off >= make_from)
			next = open_own_dir(fd, p, mode);
		else if ((next = openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			next = -errno;
		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	return fd;
}

/* Why avoid: a state directory inside what the command may write could be
 * filled with links and planted directories by it, for this run or a later
 * one, and could not be hidden from it under the landlock runner. */
static bool inside(const char *dir, const char *const *avoid)
{
	char real[PATH_MAX];

	if (!avoid || !realpath(dir, real))
		return false;
	for (; *avoid; avoid++)
		if (path_is_within(real, *avoid))
			return true;
	return false;
}

static int try_base(const char *dir, const char *suffix, const char *const *avoid, char *out,
		    size_t size)
{
	int fd;

	if (!dir || dir[0] != '/' || (size_t)snprintf(out, size, "%s%s", dir, suffix) >= size)
		return -EINVAL;
	if (inside(dir, avoid))
		return -EPERM;
	fd = open_path(out, strlen(dir), 0700);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int statedir_candidate(unsigned i, char *out, size_t size)
{
	static const char *const suffix[] = { "/sbx", "/.cache/sbx" };
	const char *dir = i == 0 ? getenv("XDG_CACHE_HOME") : i == 1 ? getenv("HOME") : "/var/tmp";
	char fallback[64];

	if (i > 2 || !dir || dir[0] != '/')
		return -EINVAL;
	snprintf(fallback, sizeof(fallback), "/sbx-%u", (unsigned)geteuid());
	return (size_t)snprintf(out, size, "%s%s", dir, i < 2 ? suffix[i] : fallback) < size
		       ? 0
		       : -ENAMETOOLONG;
}

/* Makes dir's missing components (0700, ours), where `always` or where they
 * lie in the host's /tmp or /dev/shm. Why: a candidate below a missing
 * directory is not made, so it cannot be hidden, and a command that may
 * write where the directory would be (a landlock run, which is granted the
 * host's /tmp and /dev/shm whole in workspace-write) made it itself, to be
 * found later as sbx's state (new-user passes 2 and 6: in a shared /tmp,
 * and below a directory of the caller's own there). The XDG base directory
 * spec has a missing $XDG_CACHE_HOME made 0700, so always there; a missing
 * $HOME only there (never /nonexistent). */
static void make_missing(const char *dir, bool always)
{
	char buf[PATH_MAX], at[PATH_MAX] = "";
	char *p, *save = NULL;
	int fd;

	if (strlen(dir) >= sizeof(buf) || (fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	strcpy(buf, dir);
	for (p = strtok_r(buf + 1, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		/* at: the path of fd, the directory the component is in. */
		if (next < 0 && errno == ENOENT &&
		    (always || path_is_within(at, "/tmp") || path_is_within(at, "/dev/shm"))) {
			next = open_own_dir(fd, p, 0700);
			always = true; /* below a directory just made: ours */
		}
		close(fd);
		if (next < 0)
			return;
		fd = next;
		snprintf(at + strlen(at), sizeof(at) - strlen(at), "/%s", p);
	}
	close(fd);
}

void statedir_make_candidate(unsigned i)
{
	const char *dir = i == 0 ? getenv("XDG_CACHE_HOME") : i == 1 ? getenv("HOME") : "/var/tmp";
	char c[PATH_MAX];
	int fd;

	if (statedir_candidate(i, c, sizeof(c)) < 0)
		return;
	if (i < 2)
		make_missing(dir, i == 0);
	fd = open_path(c, strlen(dir), 0700);
	if (fd >= 0)
		close(fd);
}

bool statedir_is_candidate(const char *path)
{
	char c[PATH_MAX];

	for (unsigned i = 0; i < STATEDIR_CANDIDATES; i++)
		if (statedir_candidate(i, c, sizeof(c)) == 0 && strcmp(c, path) == 0)
			return true;
	return false;
}

int statedir_open_kind(const char *base, const char *kind)
{
	struct stat st;
	int fd = open_path(base, strlen(base) + 1, 0700), sub;

	if (fd < 0)
		return fd;
	sub = openat(fd, kind, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	if (sub < 0)
		return -errno;
	if (fstat(sub, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(sub);
		return -EPERM;
	}
	return sub;
}

int statedir_base(const char *const *avoid, char *out, size_t size, struct sbx_error *err)
{
	char fallback[64];
	int rc;

	if (try_base(getenv("XDG_CACHE_HOME"), "/sbx", avoid, out, size) == 0)
		return 0;
	if (try_base(getenv("HOME"), "/.cache/sbx", avoid, out, size) == 0)
		return 0;
	/* No usable home (nobody's is /nonexistent): a directory of our own
	 * in /var/tmp, which lasts across reboots like a cache should. */
	snprintf(fallback, sizeof(fallback), "/sbx-%u", (unsigned)geteuid());
	rc = try_base("/var/tmp", fallback, avoid, out, size);
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_INTERNAL, out,
				     "unable to make sbx's state directory %s: %s (set XDG_CACHE_HOME "
				     "to a directory of your own)", out, strerror(-rc));
	return 0;
}

void statedir_key(const char *root, char *out, size_t size)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	const char *name = strrchr(root, '/');
	char clean[32];
	size_t n = 0;

	for (const char *p = root; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	/* The root's last component, for a human looking at the directory. */
	for (name = name ? name + 1 : root; *name && n < sizeof(clean) - 1; name++)
		clean[n++] = (*name == '.' || *name == '-' || *name == '_' ||
			      (*name >= '0' && *name <= '9') || (*name >= 'a' && *name <= 'z') ||
			      (*name >= 'A' && *name <= 'Z')) ? *name : '_';
	clean[n] = '\0';
	snprintf(out, size, "%s%s%016llx", clean, n ? "-" : "", (unsigned long long)h);
}

int statedir_for_root(const char *base, const char *kind, const char *root, unsigned mode,
		      char *out, size_t size, int *fd, struct sbx_error *err)
{
	char base_buf[PATH_MAX], key[96];
	size_t base_len;
	int rc;

	if (!base) {
		rc = statedir_base(NULL, base_buf, sizeof(base_buf), err);
		if (rc < 0)
			return rc;
		base = base_buf;
	}
	statedir_key(root, key, sizeof(key));
	if ((size_t)snprintf(out, size, "%s%s%s/%s", base, kind ? "/" : "", kind ? kind : "", key) >=
	    size)
		return sbx_error_set(err, ENAMETOOLONG, SBX_E_INTERNAL, NULL, "state path too long");
	base_len = strlen(base);
	/* Every level but the last is checked as ours and closed (open_path);
	 * the last is the run's /tmp or cache, taken as it is (run_dir). */
	char *slash = strrchr(out, '/');

	*slash = '\0';
	rc = open_path(out, base_len, 0700);
	*slash = '/';
	if (rc >= 0) {
		int parent = rc;

		rc = run_dir(parent, slash + 1, mode);
		close(parent);
	}
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_INTERNAL, out, "unable to make %s: %s", out,
				     strerror(-rc));
	*fd = rc;
	return 0;
}

/* Why bounded: a first start after months may find thousands; each start
 * removes a few, so none pays for all. */
#define EXPIRE_PER_START 16
/* Why a stamp: a sweep reads every entry, and a machine that has seen many
 * workspaces has thousands (16,000 here made each run ~40 ms slower). One
 * sweep an hour per kind is enough for ages counted in days; a sweep that
 * stopped at its bound leaves the stamp old, so the next start goes on. */
#define EXPIRE_EVERY_S 3600
#define EXPIRE_STAMP ".swept"

static bool swept_lately(int dirfd, time_t now)
{
	struct stat st;

	return fstatat(dirfd, EXPIRE_STAMP, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_mtime <= now && now - st.st_mtime < EXPIRE_EVERY_S;
}

static void stamp_swept(int dirfd)
{
	int fd = openat(dirfd, EXPIRE_STAMP, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
}

void statedir_expire(const char *base, const char *kind, uint64_t max_age_s, const char *keep)
{
	char dir[PATH_MAX];
	int fd, removed = 0;
	DIR *d;
	struct dirent *e;
	time_t now = time(NULL);

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", base, kind) >= sizeof(dir))
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (swept_lately(fd, now)) {
		close(fd);
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while (removed < EXPIRE_PER_START && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' || (keep && strcmp(e->d_name, keep) == 0))
			continue;
		/* Only directories of ours, untouched for max_age_s: a run
		 * touches its own when it starts, files written there touch it
		 * too. A time ahead of ours is a fresh one, never an old one:
		 * the file system's fine-grained clock can run a second past
		 * time()'s coarse one, and another run's new directory then
		 * looked ~2^64 seconds old and went from under it. */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || st.st_mtime >= now ||
		    (uint64_t)(now - st.st_mtime) < max_age_s)
			continue;
		if (protect_remove_tree(dirfd(d), e->d_name) == 0)
			removed++;
	}
	if (removed < EXPIRE_PER_START)
		stamp_swept(dirfd(d));
	closedir(d);
}

void statedir_forget_root(const char *root)
{
	static const char *const kinds[] = { "tmp", "cache", "protect" };
	char base[PATH_MAX], key[96];

	statedir_key(root, key, sizeof(key));
	for (unsigned i = 0; i < STATEDIR_CANDIDATES; i++) {
		if (statedir_candidate(i, base, sizeof(base)) < 0)
			continue;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			int fd = statedir_open_kind(base, kinds[k]);

			if (fd < 0)
				continue;
			(void)protect_remove_tree(fd, key);
			close(fd);
		}
	}
}
