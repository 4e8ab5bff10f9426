/* SPDX-License-Identifier: MIT */
/* When confined runs were live: the record that lets the git pass
 * (protect_git.c) tell what a run changed from what the user did.
 *
 * Why: "changed by a run" is read from each entry's ctime, which no call
 * sets back. A run that stages a git directory under another name (config,
 * hooks, a rebase's todo list, no HEAD: no repository, so nothing to hold
 * to the rules) leaves it for a later run to move in as a unit: the rename
 * changes the moved inode's ctime only, and what is inside keeps the first
 * run's. So what changed while ANY confined run that could write there was
 * live counts as a run's, not only what changed during this one; what the
 * user made between runs stays theirs.
 *
 * Kept in sbx's state directory, protect/runs (the recent list: one per
 * state directory, every root's runs in it, so that a run on ROOT/sub and
 * a later one on ROOT see each other; format: protect_runs_list.c),
 * written under an open file description lock on protect/runs.lock (byte
 * 0, the turn, polled with a time-out).
 *
 * A run adds its record, open, before its command starts (a run that cannot
 * is refused: a run left out would be one a later run could use, and the
 * command of an earlier run may have filled the disk for that), and holds
 * a read lock on a byte of runs.lock its id names for as long as it is
 * live; its end (after the run's last process is gone) closes the record.
 * An open record whose byte no one holds is a run whose sbx died: it counts
 * up to now, and the next write closes it there. Records are never dropped:
 * past RUNS_MAX, the oldest closed ones move to the archive, kept by root
 * (protect_runs_archive.c). A list that fails its checks is read as one
 * run covering all time before now on every root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "classify.h" /* path_is_within */
#include "protect_int.h"
#include "protect_runs_archive.h"

/* runs.lock: the turn, and each live run's byte. */
#define LOCK_TURN 0
#define LOCK_LIVE_BASE (1LL << 20)
#define LOCK_LIVE_SLOTS (1LL << 30)
#define TURN_WAIT_MS 30000
#define TURN_POLL_MS 5
/* Records the recent list hands to the archive at once. */
#define ARCHIVE_BATCH 64

static int lock_at(int fd, short type, off_t at, int cmd)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1 };

	return fcntl(fd, cmd, &l) < 0 ? -errno : 0;
}

static off_t live_byte(uint64_t id)
{
	return (off_t)(LOCK_LIVE_BASE + (long long)(id % (uint64_t)LOCK_LIVE_SLOTS));
}

/* Whether the run of an open record is live: someone holds its byte. Not
 * known (no lock file to ask) counts as live. */
static bool rec_live(int lock_fd, const struct rec *r)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = live_byte(r->id),
			   .l_len = 1 };

	return lock_fd < 0 || fcntl(lock_fd, F_OFD_GETLK, &l) < 0 || l.l_type != F_UNLCK;
}

static int take_turn(int fd)
{
	struct timespec nap = { 0, TURN_POLL_MS * 1000000L };

	for (int waited = 0;; waited += TURN_POLL_MS) {
		int rc = lock_at(fd, F_WRLCK, LOCK_TURN, F_OFD_SETLK);

		if (rc == 0 || (rc != -EAGAIN && rc != -EACCES && rc != -EINTR))
			return rc;
		if (waited >= TURN_WAIT_MS)
			return -EWOULDBLOCK;
		nanosleep(&nap, NULL);
	}
}

/* The file system has no locks to give: go on without them (a write may
 * then race another's and lose its record; a record is written again at
 * the run's end). */
static bool no_locks(int rc)
{
	return rc == -ENOLCK || rc == -EOPNOTSUPP || rc == -EINVAL;
}

static int open_lock(int dir, bool create)
{
	int fd = openat(dir, "runs.lock",
			O_RDWR | (create ? O_CREAT : 0) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Where the archive cannot take them (a full disk): the two closed
 * records nearest in time (of the roots nearest, first the same root)
 * become one covering both and the time between, for their common
 * ancestor (wider, never narrower). */
static int coalesce(struct runs *l)
{
	while (l->n >= RUNS_MAX) {
		size_t bi = SIZE_MAX, bj = SIZE_MAX;
		uint64_t best = UINT64_MAX;
		bool best_same = false;

		for (size_t i = 0; i < l->n; i++)
			for (size_t j = i + 1; j < l->n; j++) {
				const struct rec *a = &l->r[i], *b = &l->r[j];
				uint64_t gap;
				bool same;

				if (!a->to || !b->to)
					continue;
				gap = a->to < b->from ? b->from - a->to : b->to < a->from ? a->from - b->to : 0;
				same = strcmp(a->root, b->root) == 0;
				if ((same && !best_same) || (same == best_same && gap < best)) {
					bi = i;
					bj = j;
					best = gap;
					best_same = same;
				}
			}
		if (bi == SIZE_MAX)
			return -EMFILE; /* every record is a live run's */
		struct rec *a = &l->r[bi], *b = &l->r[bj];
		char root[PATH_MAX];

		runs_common_ancestor(a->root, b->root, root, sizeof(root));
		a->from = a->from < b->from ? a->from : b->from;
		a->to = a->to > b->to ? a->to : b->to;
		a->flags |= b->flags;
		if (strcmp(a->root, root) != 0) {
			char *p = strdup(root);

			if (!p)
				return -ENOMEM;
			free(a->root);
			a->root = p;
		}
		free(b->root);
		l->r[bj] = l->r[--l->n];
	}
	return 0;
}

/* Room for one more (under the turn): the oldest closed records go to the
 * archive, by root (protect_runs_archive.c), written there before they
 * leave the list. */
static int make_room(int dir, struct runs *l)
{
	const struct rec *pick[ARCHIVE_BATCH];
	bool *out;
	size_t k = 0, o = 0;

	if (l->n < RUNS_MAX)
		return 0;
	out = calloc(l->n, sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (k < ARCHIVE_BATCH) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < l->n; i++)
			if (l->r[i].to && !out[i] && (best == SIZE_MAX || l->r[i].to < l->r[best].to))
				best = i;
		if (best == SIZE_MAX)
			break;
		out[best] = true;
		pick[k++] = &l->r[best];
	}
	if (k == 0 || runs_archive(dir, pick, k) < 0) {
		free(out);
		return coalesce(l);
	}
	for (size_t i = 0; i < l->n; i++) {
		if (out[i])
			free(l->r[i].root);
		else
			l->r[o++] = l->r[i];
	}
	l->n = o;
	free(out);
	return 0;
}

/* Under the turn: the list as it is, every open record of a run that is
 * gone closed at now. */
static void close_dead(struct runs *l, int lock_fd, uint64_t own)
{
	uint64_t end = runs_window_end();

	for (size_t i = 0; i < l->n; i++)
		if (!l->r[i].to && l->r[i].id != own && !rec_live(lock_fd, &l->r[i]))
			l->r[i].to = end;
}

int protect_runs_open(struct protect_state *ps, const char *root)
{
	struct runs l;
	int rc;

	if (ps->runs_error)
		return ps->runs_error;
	if (ps->n_runs_dir == 0 || !ps->runs_own)
		return 0;
	int dir = ps->runs_dir[0], lock = open_lock(dir, true);

	if (lock < 0)
		return lock;
	if (getrandom(&ps->run_id, sizeof(ps->run_id), GRND_NONBLOCK) != sizeof(ps->run_id))
		ps->run_id = runs_now_ns(CLOCK_MONOTONIC) ^ ((uint64_t)getpid() << 32);
	/* Live before it is listed: no one may read it open and gone. A file
	 * system without locks (ENOLCK) makes it read as gone at once: closed
	 * at the next write, and listed again by its own end, never less. */
	rc = lock_at(lock, F_RDLCK, live_byte(ps->run_id), F_OFD_SETLK);
	if (rc == 0 || !no_locks(rc))
		rc = take_turn(lock);
	if (rc < 0 && !no_locks(rc)) {
		close(lock);
		return rc;
	}
	rc = runs_read(dir, "runs", &l);
	if (rc == -ENOENT)
		rc = 0;
	else if (rc == -EINVAL)
		rc = runs_all_before_now(&l);
	if (rc == 0) {
		close_dead(&l, lock, ps->run_id);
		rc = make_room(dir, &l);
	}
	if (rc == 0) {
		uint64_t from = (uint64_t)ps->since.tv_sec * 1000000000u + (uint64_t)ps->since.tv_nsec;

		rc = runs_add(&l, &(struct rec){ ps->run_id, from, 0, RUN_HOST_TMP, (char *)root });
	}
	if (rc == 0)
		rc = runs_write(dir, "runs", &l);
	runs_free(&l);
	if (rc < 0) {
		close(lock); /* the live byte and the turn go with it */
		return rc;
	}
	lock_at(lock, F_UNLCK, LOCK_TURN, F_OFD_SETLK);
	ps->runs_lock = lock;
	ps->run_open = true;
	return 0;
}

void protect_runs_close(struct protect_state *ps, const char *root)
{
	struct runs l;
	bool found = false;
	int rc;

	if (!ps->run_open)
		return;
	ps->run_open = false;
	/* Without the turn (another sbx held it too long) the record stays
	 * open, and counts up to whenever a later run closes it. */
	rc = take_turn(ps->runs_lock);
	if (rc == 0 || no_locks(rc)) {
		rc = runs_read(ps->runs_dir[0], "runs", &l);
		if (rc == -ENOENT)
			rc = 0;
		else if (rc == -EINVAL)
			rc = runs_all_before_now(&l);
		if (rc == 0) {
			close_dead(&l, ps->runs_lock, ps->run_id);
			for (size_t i = 0; i < l.n; i++)
				if (l.r[i].id == ps->run_id && !l.r[i].to) {
					l.r[i].to = runs_window_end();
					l.r[i].flags = ps->host_tmp ? RUN_HOST_TMP : 0;
					found = true;
				}
			if (!found) {
				uint64_t from = (uint64_t)ps->since.tv_sec * 1000000000u +
						(uint64_t)ps->since.tv_nsec;

				rc = make_room(ps->runs_dir[0], &l);
				if (rc == 0)
					rc = runs_add(&l, &(struct rec){ ps->run_id, from, runs_window_end(),
									 RUN_HOST_TMP, (char *)root });
			}
		}
		if (rc == 0)
			runs_write(ps->runs_dir[0], "runs", &l);
		runs_free(&l);
	}
	close(ps->runs_lock);
	ps->runs_lock = -1;
}

static int span_cmp(const void *a, const void *b)
{
	const struct protect_span *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* Could a run of root p (with flags) have written below root? */
static bool relevant(const struct rec *r, const char *root)
{
	return path_is_within(root, r->root) || path_is_within(r->root, root) ||
	       ((r->flags & RUN_HOST_TMP) &&
		(path_is_within(root, "/tmp") || path_is_within(root, "/dev/shm")));
}

/* The same by any name of this run's root: a bind mount of it, or of a
 * part of it, elsewhere. Each run looks by its own names, so a run listed
 * by one name is found by a run that has it as another. */
static bool relevant_here(const struct protect_state *ps, const struct rec *r, const char *root)
{
	if (relevant(r, root))
		return true;
	for (size_t i = 0; i < ps->n_root_alias; i++)
		if (relevant(r, ps->root_alias[i]))
			return true;
	return false;
}

struct spans {
	const struct protect_state *ps;
	struct protect_span *s;
	size_t n, cap;
	bool failed;
};

static void span_add(struct spans *sp, const struct rec *r)
{
	/* This run's own is since's. */
	if (sp->ps->run_open && r->id == sp->ps->run_id)
		return;
	if (sp->n == sp->cap) {
		size_t c = sp->cap ? 2 * sp->cap : 16;
		struct protect_span *p = realloc(sp->s, c * sizeof(*p));

		if (!p) {
			sp->failed = true;
			return;
		}
		sp->s = p;
		sp->cap = c;
	}
	/* Open: live, or gone without its end; either way up to now and on. */
	sp->s[sp->n++] = (struct protect_span){ r->from, r->to ? r->to : UINT64_MAX };
}

/* An archived record: the archive chose it for the root asked about. */
static void span_of_archived(void *ctx, const struct rec *r, bool shared)
{
	(void)shared;
	span_add(ctx, r);
}

/* One state directory's: the recent list first, then the archive (a record
 * moving between them is then seen at least once). */
static int spans_of_dir(struct spans *sp, int dir, const char *root)
{
	const struct protect_state *ps = sp->ps;
	struct runs l;
	int rc = runs_read(dir, "runs", &l);

	if (rc == -ENOENT)
		rc = 0;
	else if (rc == -EINVAL)
		rc = runs_all_before_now(&l);
	for (size_t i = 0; rc == 0 && i < l.n; i++)
		if (relevant_here(ps, &l.r[i], root))
			span_add(sp, &l.r[i]);
	runs_free(&l);
	if (rc == 0)
		rc = runs_archive_each(dir, root, false, span_of_archived, sp);
	for (size_t i = 0; rc == 0 && i < ps->n_root_alias; i++)
		rc = runs_archive_each(dir, ps->root_alias[i], false, span_of_archived, sp);
	return rc == 0 && sp->failed ? -ENOMEM : rc;
}

int protect_runs_when(const struct protect_state *ps, const char *root, struct timespec since,
		      struct protect_when *w)
{
	struct spans sp = { .ps = ps };
	struct protect_span *s;
	size_t n;

	memset(w, 0, sizeof(*w));
	w->since = since;
	for (size_t d = 0; d < ps->n_runs_dir; d++) {
		int rc = spans_of_dir(&sp, ps->runs_dir[d], root);

		if (rc < 0) {
			free(sp.s);
			return rc;
		}
	}
	s = sp.s;
	n = sp.n;
	if (n) {
		size_t o = 0;

		qsort(s, n, sizeof(*s), span_cmp);
		for (size_t i = 1; i < n; i++) {
			if (s[i].from <= s[o].to) {
				if (s[i].to > s[o].to)
					s[o].to = s[i].to;
			} else {
				s[++o] = s[i];
			}
		}
		n = o + 1;
	}
	w->span = s;
	w->n = n;
	return 0;
}

struct each_ctx {
	protect_runs_fn *each;
	void *ctx;
};

static void each_archived(void *ctx, const struct rec *r, bool shared)
{
	struct each_ctx *e = ctx;

	e->each(e->ctx, r->from, r->to ? r->to : UINT64_MAX, r->flags & RUN_HOST_TMP,
		shared ? NULL : r->root);
}

int protect_runs_each(const int *dirs, size_t n_dirs, const char *const *paths, size_t n_paths,
		      protect_runs_fn *each, void *ctx)
{
	struct each_ctx e = { each, ctx };

	for (size_t d = 0; d < n_dirs; d++) {
		struct runs l;
		int rc = runs_read(dirs[d], "runs", &l);

		if (rc == -ENOENT)
			rc = 0;
		else if (rc == -EINVAL)
			rc = runs_all_before_now(&l);
		for (size_t i = 0; rc == 0 && i < l.n; i++)
			each(ctx, l.r[i].from, l.r[i].to ? l.r[i].to : UINT64_MAX,
			     l.r[i].flags & RUN_HOST_TMP, l.r[i].root);
		runs_free(&l);
		for (size_t i = 0; rc == 0 && i < n_paths; i++)
			rc = runs_archive_each(dirs[d], paths[i], false, each_archived, &e);
		if (rc == 0)
			rc = runs_archive_each(dirs[d], NULL, true, each_archived, &e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void protect_when_free(struct protect_when *w)
{
	free(w->span);
	w->span = NULL;
	w->n = 0;
}

bool protect_when_changed(const struct protect_when *w, const struct timespec *t)
{
	uint64_t ns;
	size_t lo = 0, hi = w->n;

	if (t->tv_sec > w->since.tv_sec ||
	    (t->tv_sec == w->since.tv_sec && t->tv_nsec >= w->since.tv_nsec))
		return true;
	if (t->tv_sec < 0)
		return false;
	ns = (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
	/* The last span starting at or before ns. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->span[mid].from <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ns <= w->span[lo - 1].to;
}
