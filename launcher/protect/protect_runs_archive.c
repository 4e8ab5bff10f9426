/* SPDX-License-Identifier: MIT */
/* The runs record's archive: where the recent list's oldest closed records
 * go when it is full, kept by root.
 *
 * Why: the list used to make room by merging two records into one for
 * their roots' common ancestor. After a few hundred runs on varied roots
 * (a workspace per task, a test suite's scratch roots) one record rooted
 * at "/" covered hours, and everything anyone changed anywhere in them
 * counted as a run's: the user's own hooks and config keys were held to
 * git's allow-list, an allowed daemon's socket refused. A record here is
 * never widened to a root its run was not on, for any run but one on an
 * ancestor of both.
 *
 * protect/runs.d/, in the list format (protect_runs_list.c), one file per
 * root, named by a hash of its path:
 *   - the root's own runs (root: that root): what they changed counts as
 *     a run's for runs on that root and below it;
 *   - RUN_BELOW: runs on roots below it, for runs on that root itself
 *     (such a run could move what they left anywhere in it);
 * and two files no root's hash is:
 *   - "tmp": the runs that could write the host's /tmp and /dev/shm, for
 *     runs on roots there;
 *   - "any": every archived run's window, for the places every run writes
 *     outside its root (the supervisor's shared windows).
 * A file past ARCHIVE_MAX merges its two records nearest in time of one
 * kind: wider in time, never beyond the file's root. Written only under
 * the record's turn (protect_runs.c), read without it: the writer writes
 * here before it takes the records out of the recent list, and a reader
 * reads the recent list first, so a record moving is seen at least once. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h" /* path_is_within */
#include "protect_runs_archive.h"

#define ARCHIVE_MAX 64
#define NAME_TMP "tmp"
#define NAME_ANY "any"

static void file_name(const char *root, char out[17])
{
	snprintf(out, 17, "%016" PRIx64, runs_hash((const unsigned char *)root, strlen(root)));
}

static int archive_dir(int protect_dir, bool create)
{
	int fd = openat(protect_dir, "runs.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(protect_dir, "runs.d", 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(protect_dir, "runs.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	/* why: ours only, like the directory it is in (statedir.c). */
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* A file as its writer or reader takes it: missing is empty, one that
 * fails its checks one run over everything until now. */
static int load(int dir, const char *name, struct runs *l)
{
	int rc = runs_read(dir, name, l);

	if (rc == -ENOENT)
		return 0;
	if (rc == -EINVAL)
		return runs_all_before_now(l);
	return rc;
}

static bool same_kind(const struct rec *a, const struct rec *b)
{
	if ((a->flags & RUN_BELOW) != (b->flags & RUN_BELOW) ||
	    (a->flags & RUN_HOST_TMP) != (b->flags & RUN_HOST_TMP))
		return false;
	/* Below: any two, to their common ancestor, still below the file's
	 * root; its own: of one root. */
	return (a->flags & RUN_BELOW) || strcmp(a->root, b->root) == 0;
}

static int merge_pair(struct runs *l, size_t i, size_t j)
{
	struct rec *a = &l->r[i], *b = &l->r[j];
	bool same = same_kind(a, b);
	char root[PATH_MAX];

	runs_common_ancestor(a->root, b->root, root, sizeof(root));
	if (strcmp(root, a->root) != 0) {
		char *p = strdup(root);

		if (!p)
			return -ENOMEM;
		free(a->root);
		a->root = p;
	}
	a->from = a->from < b->from ? a->from : b->from;
	a->to = a->to > b->to ? a->to : b->to;
	/* Of two kinds (no pair of one left): the wider reading, for
	 * every run below the merged root. */
	if (!same)
		a->flags = (a->flags | b->flags) & ~RUN_BELOW;
	free(b->root);
	l->r[j] = l->r[--l->n];
	return 0;
}

/* Down to ARCHIVE_MAX: the pair of one kind nearest in time, else (never
 * expected: a file holds one root's own runs) the pair nearest in time. */
static int shrink(struct runs *l)
{
	while (l->n > ARCHIVE_MAX) {
		size_t bi = 0, bj = 1;
		uint64_t best = UINT64_MAX;
		bool best_same = false;

		for (size_t i = 0; i < l->n; i++)
			for (size_t j = i + 1; j < l->n; j++) {
				const struct rec *a = &l->r[i], *b = &l->r[j];
				uint64_t gap = a->to < b->from	 ? b->from - a->to
					       : b->to < a->from ? a->from - b->to
								 : 0;
				bool same = same_kind(a, b);

				if ((same && !best_same) || (same == best_same && gap < best)) {
					bi = i;
					bj = j;
					best = gap;
					best_same = same;
				}
			}
		int rc = merge_pair(l, bi, bj);

		if (rc < 0)
			return rc;
	}
	return 0;
}

struct pending {
	char name[17];
	struct runs l;
};

struct batch {
	int dir;
	struct pending *p;
	size_t n, cap;
};

static int batch_add(struct batch *b, const char *name, const struct rec *r)
{
	size_t i;

	for (i = 0; i < b->n && strcmp(b->p[i].name, name) != 0; i++)
		;
	if (i == b->n) {
		if (b->n == b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 16;
			struct pending *p = realloc(b->p, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			b->p = p;
			b->cap = cap;
		}
		snprintf(b->p[i].name, sizeof(b->p[i].name), "%s", name);
		int rc = load(b->dir, name, &b->p[i].l);

		if (rc < 0)
			return rc;
		b->n++;
	}
	return runs_add(&b->p[i].l, r);
}

/* Where one record goes: its root's file, each ancestor's as below, and
 * "tmp" and "any". */
static int batch_record(struct batch *b, const struct rec *r)
{
	char name[17], anc[PATH_MAX];
	struct rec own = *r, below = *r, all = *r;
	int rc;

	own.flags &= ~RUN_BELOW;
	file_name(r->root, name);
	if ((rc = batch_add(b, name, &own)) < 0)
		return rc;
	below.flags |= RUN_BELOW;
	snprintf(anc, sizeof(anc), "%s", r->root);
	while (strcmp(anc, "/") != 0) {
		char *slash = strrchr(anc, '/');

		slash[slash == anc ? 1 : 0] = '\0';
		file_name(anc, name);
		if ((rc = batch_add(b, name, &below)) < 0)
			return rc;
	}
	all.root = "/";
	all.flags &= RUN_HOST_TMP;
	if ((r->flags & RUN_HOST_TMP) && (rc = batch_add(b, NAME_TMP, &all)) < 0)
		return rc;
	return batch_add(b, NAME_ANY, &all);
}

int runs_archive(int protect_dir, const struct rec *const *recs, size_t n)
{
	struct batch b = { .dir = archive_dir(protect_dir, true) };
	int rc = b.dir < 0 ? b.dir : 0;

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = batch_record(&b, recs[i]);
	for (size_t i = 0; rc == 0 && i < b.n; i++) {
		rc = shrink(&b.p[i].l);
		if (rc == 0)
			rc = runs_write(b.dir, b.p[i].name, &b.p[i].l);
	}
	for (size_t i = 0; i < b.n; i++)
		runs_free(&b.p[i].l);
	free(b.p);
	if (b.dir >= 0)
		close(b.dir);
	return rc;
}

/* Each record of one file that keep() accepts; shared: a record of a
 * window only, whose root is not where it applies ("tmp", "any"). */
static int collect_file(int dir, const char *name, const char *query,
			bool (*keep)(const struct rec *r, const char *query), bool shared,
			runs_each_fn *each, void *ctx)
{
	struct runs l;
	int rc = load(dir, name, &l);

	for (size_t i = 0; rc == 0 && i < l.n; i++)
		if (keep(&l.r[i], query))
			each(ctx, &l.r[i], shared);
	runs_free(&l);
	return rc;
}

/* In an ancestor's file: its own runs (or a record that fails its checks,
 * on "/"), never its below: those were on other roots below it. */
static bool keep_above(const struct rec *r, const char *query)
{
	return !(r->flags & RUN_BELOW) && path_is_within(query, r->root);
}

/* In the query's own file: its runs, and those below it. */
static bool keep_here(const struct rec *r, const char *query)
{
	return path_is_within(query, r->root) || path_is_within(r->root, query);
}

static bool keep_all(const struct rec *r, const char *query)
{
	(void)r;
	(void)query;
	return true;
}

static int collect_root(int dir, const char *path, runs_each_fn *each, void *ctx)
{
	char anc[PATH_MAX], name[17], query[PATH_MAX];
	size_t len = strlen(path);
	int rc = 0;

	if (path[0] != '/' || len >= sizeof(query))
		return -EINVAL;
	/* "/a/b/" is "/a/b", as the archive keeps roots. */
	memcpy(query, path, len + 1);
	while (len > 1 && query[len - 1] == '/')
		query[--len] = '\0';
	/* "/", then each ancestor down to the query's parent. */
	for (const char *slash = query; rc == 0 && len > 1 && slash;
	     slash = strchr(slash + 1, '/')) {
		size_t k = slash == query ? 1 : (size_t)(slash - query);

		memcpy(anc, query, k);
		anc[k] = '\0';
		file_name(anc, name);
		rc = collect_file(dir, name, query, keep_above, false, each, ctx);
	}
	file_name(query, name);
	if (rc == 0)
		rc = collect_file(dir, name, query, keep_here, false, each, ctx);
	if (rc == 0 && (path_is_within(query, "/tmp") || path_is_within(query, "/dev/shm")))
		rc = collect_file(dir, NAME_TMP, query, keep_all, true, each, ctx);
	return rc;
}

int runs_archive_each(int protect_dir, const char *query, bool any, runs_each_fn *each, void *ctx)
{
	int dir = archive_dir(protect_dir, false), rc = 0;

	if (dir == -ENOENT)
		return 0;
	if (dir < 0)
		return dir;
	if (query)
		rc = collect_root(dir, query, each, ctx);
	if (rc == 0 && any)
		rc = collect_file(dir, NAME_ANY, NULL, keep_all, true, each, ctx);
	close(dir);
	return rc;
}
