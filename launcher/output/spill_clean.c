/* SPDX-License-Identifier: MIT */
/* The lifetime of spill files (docs/output.md): a caller removes the files a
 * result names when it is done with them (sbx_spill_remove; serve does so
 * when a task or session is closed), and sbx removes its own spill
 * directories that nobody touched for spill_max_age when a front end that
 * spills starts: sbx run --json, serve, mcp (sbx_spill_cleanup).
 *
 * Both delete only what sbx itself made: a directory named sbx-spill-<hex>,
 * owned by the caller, mode 0700, holding nothing but at most one stdout-*
 * and one stderr-* regular file of the caller's. Another user's directory,
 * a symlink, or a directory holding anything else is left alone. Every step
 * goes through handles opened without following symlinks, so a directory
 * swapped in between the check and the removal is not followed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "spill.h"

static bool all_of(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return s[n] == '\0';
}

bool spill_is_dir_name(const char *name)
{
	size_t p = sizeof(SPILL_DIR_PREFIX) - 1;

	return strncmp(name, SPILL_DIR_PREFIX, p) == 0 &&
	       all_of(name + p, SPILL_DIR_HEX, "0123456789abcdef");
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

bool spill_is_file_name(const char *name)
{
	return (strncmp(name, "stdout-", 7) == 0 || strncmp(name, "stderr-", 7) == 0) &&
	       all_of(name + 7, SPILL_FILE_RANDOM, ALNUM);
}

/* A file made directly in a --spill-dir: sbx-stdout-XXXXXXXX. */
static bool is_loose_file_name(const char *name)
{
	return strncmp(name, "sbx-", 4) == 0 && spill_is_file_name(name + 4);
}

static bool is_ours(const struct stat *st, mode_t type)
{
	return (st->st_mode & S_IFMT) == type && st->st_uid == geteuid();
}

static int64_t ms_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000;
}

struct spill_dir_scan {
	char files[2][32];
	size_t n_files;
	int64_t newest_ms; /* the newest mtime of the directory and its files */
};

/* Whether the open directory dfd holds only what sbx puts there. */
static bool scan_dir(int dfd, struct spill_dir_scan *scan)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	bool seen_out = false, seen_err = false, ok = true;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (ok && (e = readdir(d))) {
		struct stat st;
		bool *seen;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!spill_is_file_name(e->d_name)) {
			ok = false;
			break;
		}
		seen = e->d_name[3] == 'o' ? &seen_out : &seen_err;
		if (*seen ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !is_ours(&st, S_IFREG)) {
			ok = false;
			break;
		}
		*seen = true;
		memcpy(scan->files[scan->n_files++], e->d_name, strlen(e->d_name) + 1); /* 15 bytes, checked */
		if (ms_of(&st.st_mtim) > scan->newest_ms)
			scan->newest_ms = ms_of(&st.st_mtim);
	}
	closedir(d);
	return ok;
}

/* Remove base/name if it is one of sbx's spill directories and, when
 * max_age_ms > 0, nothing in it changed for that long. Returns 1 when
 * removed, 0 when left alone. */
static int remove_spill_dir(int base_fd, const char *name, int64_t now_ms, uint64_t max_age_ms)
{
	struct spill_dir_scan scan = { .n_files = 0 };
	struct stat st, st2;
	int dfd, removed = 0;

	if (!spill_is_dir_name(name) || fstatat(base_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !is_ours(&st, S_IFDIR) || (st.st_mode & 07777) != 0700)
		return 0;
	/* A directory changed lately is young whatever its files say: skip it
	 * without opening it (most are, on a busy machine). */
	if (max_age_ms && now_ms - ms_of(&st.st_mtim) <= (int64_t)max_age_ms)
		return 0;
	dfd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	/* The directory we checked is the one we opened. */
	if (fstat(dfd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)
		goto out;
	scan.newest_ms = ms_of(&st2.st_mtim);
	if (!scan_dir(dfd, &scan))
		goto out;
	if (max_age_ms && now_ms - scan.newest_ms <= (int64_t)max_age_ms)
		goto out;
	for (size_t i = 0; i < scan.n_files; i++)
		unlinkat(dfd, scan.files[i], 0);
	/* Fails (ENOTEMPTY) if something arrived since: then it stays. */
	removed = unlinkat(base_fd, name, AT_REMOVEDIR) == 0;
out:
	close(dfd);
	return removed;
}

/* An existing spill home, opened without making anything: "sbx" and "spill"
 * must be the caller's own 0700 directories, not symlinks. */
static int home_open_existing(const char *path)
{
	char parent[PATH_MAX], own[NAME_MAX + 1];
	struct stat st;
	int fd, next;

	if (spill_home_split(path, parent, sizeof(parent), own, sizeof(own)) < 0)
		return -EINVAL;
	fd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (const char *const *part = (const char *const[]){ own, "spill", NULL };
	     fd >= 0 && *part; part++) {
		next = openat(fd, *part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		if (fd >= 0 && (fstat(fd, &st) < 0 || !is_ours(&st, S_IFDIR) ||
				(st.st_mode & 07777) != 0700)) {
			close(fd);
			fd = -EPERM;
		}
	}
	return fd < 0 ? -ENOENT : fd;
}

static int clean_base(int base_fd, int64_t now_ms, uint64_t max_age_ms)
{
	int fd = dup(base_fd), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(d)))
		if (spill_is_dir_name(e->d_name))
			n += remove_spill_dir(base_fd, e->d_name, now_ms, max_age_ms);
	closedir(d);
	return n;
}

int sbx_spill_cleanup(uint64_t max_age_ms)
{
	char homes[3][PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	struct timespec now;
	int n = 0, fd;

	if (max_age_ms == 0)
		return 0; /* spill_max_age = never */
	clock_gettime(CLOCK_REALTIME, &now);
	if (spill_home_path(homes[0], sizeof(homes[0])) < 0)
		homes[0][0] = '\0';
	if (spill_runtime_path(homes[1], sizeof(homes[1])) < 0)
		homes[1][0] = '\0';
	if (spill_var_tmp_path(homes[2], sizeof(homes[2])) < 0)
		homes[2][0] = '\0';
	for (size_t i = 0; i < 3; i++) {
		if (!homes[i][0] || (fd = home_open_existing(homes[i])) < 0)
			continue;
		n += clean_base(fd, ms_of(&now), max_age_ms);
		close(fd);
	}
	/* Where a run falls back to, and where earlier versions spilled. */
	const char *tmp_bases[2] = { tmp && tmp[0] == '/' ? tmp : NULL, "/tmp" };

	for (size_t i = 0; i < 2; i++) {
		if (!tmp_bases[i] || (i == 1 && tmp_bases[0] && strcmp(tmp_bases[0], "/tmp") == 0))
			continue;
		fd = open(tmp_bases[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n += clean_base(fd, ms_of(&now), max_age_ms);
		close(fd);
	}
	return n;
}

/* Split an absolute path into a handle on its directory and its last name.
 * The paths sbx reports hold no symlink (their base was resolved when the
 * run started): a directory swapped for one since is not followed. */
static int open_parent(const char *path, char *name, size_t name_size)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (path[0] != '/' || !slash || !slash[1] || (size_t)(slash - path) >= sizeof(dir) ||
	    strlen(slash + 1) >= name_size)
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	snprintf(name, name_size, "%s", slash + 1);
	return open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int sbx_spill_remove(const char *path)
{
	char name[NAME_MAX + 1], dir_name[NAME_MAX + 1], dir_path[PATH_MAX];
	struct stat st, dst, dst2;
	int dfd, gfd, rc;

	if (!path)
		return -EINVAL;
	dfd = open_parent(path, name, sizeof(name));
	if (dfd < 0)
		return dfd == -EINVAL ? -EINVAL : -errno;
	if (!spill_is_file_name(name) && !is_loose_file_name(name)) {
		close(dfd);
		return -EINVAL; /* not a name sbx gives its spill files */
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	if (!is_ours(&st, S_IFREG)) {
		close(dfd);
		return -EPERM;
	}
	rc = unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	/* The run's private directory goes with its last file. */
	size_t dlen = strlen(path) - strlen(name) - 1;

	if (rc == 0 && spill_is_file_name(name) && dlen < sizeof(dir_path)) {
		memcpy(dir_path, path, dlen);
		dir_path[dlen] = '\0';
		gfd = open_parent(dir_path, dir_name, sizeof(dir_name));
		if (gfd >= 0) {
			/* Only the directory the file was in, and only sbx's. */
			if (spill_is_dir_name(dir_name) && fstat(dfd, &dst) == 0 &&
			    fstatat(gfd, dir_name, &dst2, AT_SYMLINK_NOFOLLOW) == 0 &&
			    dst.st_dev == dst2.st_dev && dst.st_ino == dst2.st_ino &&
			    is_ours(&dst2, S_IFDIR) && (dst2.st_mode & 07777) == 0700)
				unlinkat(gfd, dir_name, AT_REMOVEDIR); /* ENOTEMPTY: the other stream's file stays */
			close(gfd);
		}
	}
	close(dfd);
	return rc;
}

int spill_remove_result(const json_t *result)
{
	const json_t *spill = json_object_get(result, "spill");
	const char *stream;
	json_t *path;
	int n = 0;

	json_object_foreach((json_t *)spill, stream, path)
		if (json_is_string(path) && sbx_spill_remove(json_string_value(path)) == 0)
			n++;
	return n;
}
