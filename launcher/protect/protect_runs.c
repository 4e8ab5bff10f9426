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
 * Kept in sbx's state directory, protect/runs (one list per state
 * directory, every root's runs in it, so that a run on ROOT/sub and a later
 * one on ROOT see each other), written whole under a new name and renamed
 * over, under an open file description lock on protect/runs.lock (byte 0,
 * the turn, polled with a time-out):
 *
 *   "SBXRN\0\1\n"  u32 count
 *   count * (u64 id, u64 from, u64 to (0: still live), u32 flags,
 *            u32 length, the root's path)
 *   u64 FNV-1a of all before it
 *
 * A run adds its record, open, before its command starts (a run that cannot
 * is refused: a run left out would be one a later run could use, and the
 * command of an earlier run may have filled the disk for that), and holds
 * a read lock on a byte of runs.lock its id names for as long as it is
 * live; its end (after the run's last process is gone) closes the record.
 * An open record whose byte no one holds is a run whose sbx died: it counts
 * up to now, and the next write closes it there. Records are never dropped:
 * past RUNS_MAX, the two closed ones nearest in time become one covering
 * both and the gap between, for the roots' common ancestor (a wider window
 * only makes more count as a run's). A list that fails its checks is read
 * as one run covering all time before now on every root. */
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

#define RUNS_MAX 256
#define RUNS_MAX_BYTES (sizeof(magic) + 4 + (size_t)RUNS_MAX * (32 + PATH_MAX) + 8)
/* The record could write the host's /tmp and /dev/shm (landlock runner; an
 * open record, whose runner was not yet known, too). */
#define RUN_HOST_TMP 1u
/* runs.lock: the turn, and each live run's byte. */
#define LOCK_TURN 0
#define LOCK_LIVE_BASE (1LL << 20)
#define LOCK_LIVE_SLOTS (1LL << 30)
#define TURN_WAIT_MS 30000
#define TURN_POLL_MS 5

static const char magic[8] = { 'S', 'B', 'X', 'R', 'N', 0, 1, '\n' };

struct rec {
	uint64_t id, from, to;
	uint32_t flags;
	char *root;
};

struct runs {
	struct rec *r;
	size_t n, cap;
};

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static uint64_t get_u(const unsigned char *p, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_u(unsigned char *p, uint64_t v, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The end of a window: now, and one tick of the clock file systems stamp
 * changes with. */
static uint64_t window_end(void)
{
	struct timespec res = { 0, 0 };

	clock_getres(CLOCK_REALTIME_COARSE, &res);
	return now_ns(CLOCK_REALTIME) + (uint64_t)res.tv_nsec + (uint64_t)res.tv_sec * 1000000000u;
}

static void runs_free(struct runs *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->r[i].root);
	free(l->r);
	memset(l, 0, sizeof(*l));
}

static int runs_add(struct runs *l, const struct rec *r)
{
	char *root = strdup(r->root);

	if (!root)
		return -ENOMEM;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct rec *p = realloc(l->r, cap * sizeof(*p));

		if (!p) {
			free(root);
			return -ENOMEM;
		}
		l->r = p;
		l->cap = cap;
	}
	l->r[l->n] = *r;
	l->r[l->n++].root = root;
	return 0;
}

/* A list that cannot be trusted: as if one run had covered every root
 * until now. */
static int runs_all_before_now(struct runs *l)
{
	runs_free(l);
	return runs_add(l, &(struct rec){ 0, 0, window_end(), RUN_HOST_TMP, "/" });
}

/* 0 (a list, maybe empty), -ENOENT (no file), -EINVAL (one that fails its
 * checks), or another -errno. */
static int runs_read(int dir, struct runs *l)
{
	int fd = openat(dir, "runs", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	unsigned char *buf;
	size_t len, at, count;
	struct stat st;

	memset(l, 0, sizeof(*l));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size > RUNS_MAX_BYTES || (size_t)st.st_size < sizeof(magic) + 12) {
		close(fd);
		return -EINVAL;
	}
	len = (size_t)st.st_size;
	buf = malloc(len);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (at = 0; at < len;) {
		ssize_t r = read(fd, buf + at, len - at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		at += (size_t)r;
	}
	close(fd);
	if (at != len || memcmp(buf, magic, sizeof(magic)) != 0 ||
	    get_u(buf + len - 8, 8) != fnv1a(buf, len - 8) ||
	    (count = (size_t)get_u(buf + sizeof(magic), 4)) > RUNS_MAX)
		goto bad;
	at = sizeof(magic) + 4;
	for (size_t i = 0; i < count; i++) {
		struct rec r;
		size_t rl;
		char *root;

		if (at + 32 > len - 8)
			goto bad;
		r.id = get_u(buf + at, 8);
		r.from = get_u(buf + at + 8, 8);
		r.to = get_u(buf + at + 16, 8);
		r.flags = (uint32_t)get_u(buf + at + 24, 4);
		rl = (size_t)get_u(buf + at + 28, 4);
		at += 32;
		if (rl == 0 || rl >= PATH_MAX || at + rl > len - 8 || buf[at] != '/' ||
		    memchr(buf + at, '\0', rl) || (r.to && r.to < r.from))
			goto bad;
		root = strndup((const char *)buf + at, rl);
		r.root = root;
		if (!root || runs_add(l, &r) < 0) {
			free(root);
			goto bad;
		}
		free(root);
		at += rl;
	}
	if (at != len - 8)
		goto bad;
	free(buf);
	return 0;
bad:
	free(buf);
	runs_free(l);
	return -EINVAL;
}

static int runs_write(int dir, const struct runs *l)
{
	size_t len = sizeof(magic) + 4 + 8, at;
	unsigned char *buf;
	int fd, rc = 0;

	for (size_t i = 0; i < l->n; i++)
		len += 32 + strlen(l->r[i].root);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, magic, sizeof(magic));
	put_u(buf + sizeof(magic), l->n, 4);
	at = sizeof(magic) + 4;
	for (size_t i = 0; i < l->n; i++) {
		size_t rl = strlen(l->r[i].root);

		put_u(buf + at, l->r[i].id, 8);
		put_u(buf + at + 8, l->r[i].from, 8);
		put_u(buf + at + 16, l->r[i].to, 8);
		put_u(buf + at + 24, l->r[i].flags, 4);
		put_u(buf + at + 28, rl, 4);
		memcpy(buf + at + 32, l->r[i].root, rl);
		at += 32 + rl;
	}
	put_u(buf + at, fnv1a(buf, at), 8);
	unlinkat(dir, "runs.new", 0);
	fd = openat(dir, "runs.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (size_t off = 0; rc == 0 && off < len;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w > 0)
			off += (size_t)w;
		else if (w < 0 && errno != EINTR)
			rc = -errno;
		else if (w == 0)
			rc = -EIO;
	}
	free(buf);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dir, "runs.new", dir, "runs") < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(dir, "runs.new", 0);
	return rc;
}

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

/* The deepest directory holding both (absolute) paths. */
static void common_ancestor(const char *a, const char *b, char *out, size_t size)
{
	size_t n = 0, last = 0;

	while (a[n] && a[n] == b[n]) {
		if (a[n] == '/')
			last = n;
		n++;
	}
	if ((a[n] == '\0' || a[n] == '/') && (b[n] == '\0' || b[n] == '/'))
		last = n;
	if (last == 0)
		last = 1; /* "/" */
	if (last >= size)
		last = size - 1;
	memcpy(out, a, last);
	out[last] = '\0';
}

/* Room for one more: the two closed records nearest in time (of the roots
 * nearest, first the same root) become one covering both and the time
 * between. */
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

		common_ancestor(a->root, b->root, root, sizeof(root));
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

/* Under the turn: the list as it is, every open record of a run that is
 * gone closed at now. */
static void close_dead(struct runs *l, int lock_fd, uint64_t own)
{
	uint64_t end = window_end();

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
		ps->run_id = now_ns(CLOCK_MONOTONIC) ^ ((uint64_t)getpid() << 32);
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
	rc = runs_read(dir, &l);
	if (rc == -ENOENT)
		rc = 0;
	else if (rc == -EINVAL)
		rc = runs_all_before_now(&l);
	if (rc == 0) {
		close_dead(&l, lock, ps->run_id);
		rc = coalesce(&l);
	}
	if (rc == 0) {
		uint64_t from = (uint64_t)ps->since.tv_sec * 1000000000u + (uint64_t)ps->since.tv_nsec;

		rc = runs_add(&l, &(struct rec){ ps->run_id, from, 0, RUN_HOST_TMP, (char *)root });
	}
	if (rc == 0)
		rc = runs_write(dir, &l);
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
		rc = runs_read(ps->runs_dir[0], &l);
		if (rc == -ENOENT)
			rc = 0;
		else if (rc == -EINVAL)
			rc = runs_all_before_now(&l);
		if (rc == 0) {
			close_dead(&l, ps->runs_lock, ps->run_id);
			for (size_t i = 0; i < l.n; i++)
				if (l.r[i].id == ps->run_id && !l.r[i].to) {
					l.r[i].to = window_end();
					l.r[i].flags = ps->host_tmp ? RUN_HOST_TMP : 0;
					found = true;
				}
			if (!found) {
				uint64_t from = (uint64_t)ps->since.tv_sec * 1000000000u +
						(uint64_t)ps->since.tv_nsec;

				rc = coalesce(&l);
				if (rc == 0)
					rc = runs_add(&l, &(struct rec){ ps->run_id, from, window_end(),
									 RUN_HOST_TMP, (char *)root });
			}
		}
		if (rc == 0)
			runs_write(ps->runs_dir[0], &l);
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

int protect_runs_when(const struct protect_state *ps, const char *root, struct timespec since,
		      struct protect_when *w)
{
	struct protect_span *s = NULL;
	size_t n = 0, cap = 0;

	memset(w, 0, sizeof(*w));
	w->since = since;
	for (size_t d = 0; d < ps->n_runs_dir; d++) {
		struct runs l;
		int rc = runs_read(ps->runs_dir[d], &l), lock;

		if (rc == -ENOENT)
			continue;
		if (rc == -EINVAL)
			rc = runs_all_before_now(&l);
		if (rc < 0) {
			free(s);
			return rc;
		}
		lock = open_lock(ps->runs_dir[d], false);
		for (size_t i = 0; i < l.n; i++) {
			const struct rec *r = &l.r[i];

			/* This run's own is since's. */
			if ((ps->run_open && r->id == ps->run_id) || !relevant_here(ps, r, root))
				continue;
			if (n == cap) {
				size_t c = cap ? 2 * cap : 16;
				struct protect_span *p = realloc(s, c * sizeof(*p));

				if (!p) {
					if (lock >= 0)
						close(lock);
					runs_free(&l);
					free(s);
					return -ENOMEM;
				}
				s = p;
				cap = c;
			}
			/* Open: live, or gone without its end; either way up
			 * to now and on. */
			s[n++] = (struct protect_span){ r->from, r->to ? r->to : UINT64_MAX };
		}
		if (lock >= 0)
			close(lock);
		runs_free(&l);
	}
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

int protect_runs_each(const int *dirs, size_t n_dirs,
		      void (*each)(void *ctx, uint64_t from, uint64_t to, bool host_tmp,
				   const char *root),
		      void *ctx)
{
	for (size_t d = 0; d < n_dirs; d++) {
		struct runs l;
		int rc = runs_read(dirs[d], &l);

		if (rc == -ENOENT)
			continue;
		if (rc == -EINVAL)
			rc = runs_all_before_now(&l);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < l.n; i++)
			each(ctx, l.r[i].from, l.r[i].to ? l.r[i].to : UINT64_MAX,
			     l.r[i].flags & RUN_HOST_TMP, l.r[i].root);
		runs_free(&l);
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
