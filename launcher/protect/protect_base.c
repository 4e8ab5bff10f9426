/* SPDX-License-Identifier: MIT */
/* One baseline of the protected paths per root, shared by the runs that
 * overlap on it (see protect.h). A run that took its own view at its start
 * would take what a concurrent run already planted there (a serve background
 * task, a second `sbx run`) for the user's: the landlock runner would put
 * the planted hook back when it ends, the namespace runner would bind it
 * read-only instead of sweeping it.
 *
 * Kept in sbx's state directory, protect/KEY/ (KEY as statedir_key gives):
 *   lock  open file description locks (fcntl F_OFD_*): byte 0, the turn, is
 *         held exclusively while a run records, joins, restores or leaves;
 *         byte 1 is held shared by every live run. The locks go with the
 *         process, so a holder that died holds nothing.
 *   base  the baseline (protect_base_file.c).
 * A run that takes the turn and finds no live holder is alone: a baseline
 * left there belongs to an sbx that died before it could restore (a command
 * that killed it below Landlock ABI 6, the OOM killer, a reboot); the run
 * puts the paths back to it first, says so, then records its own. Later
 * runs join the recorded one. Each run, when it ends, puts its paths back
 * to the baseline whoever changed them; the last one out removes it.
 *
 * All of this is sbx's own work, unconfined: the state directory is reached
 * through the handle view_prepare opened (no symlink followed, ours), the
 * workspace through the pinned root (protect.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "protect_int.h"

#define TIME_MAX ((time_t)(~0ULL >> 1))

#define LOCK_TURN 0
#define LOCK_LIVE 1
/* How long a run waits for another sbx to finish its turn (recording a
 * baseline takes milliseconds): past it, a start fails and an end restores
 * without the turn. */
#define TURN_WAIT_MS 30000
#define TURN_POLL_MS 5

static int lock_byte(int fd, short type, off_t at)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &l) < 0 ? -errno : 0;
}

/* Whether another run of the root is live (holds the live byte). Not known
 * counts as live: the baseline is then kept, never lost. */
static bool others_live(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = LOCK_LIVE, .l_len = 1 };

	return fcntl(fd, F_OFD_GETLK, &l) < 0 || l.l_type != F_UNLCK;
}

/* Polled rather than F_OFD_SETLKW: serve's loop must not hang for good
 * behind an sbx that was stopped in its turn. */
static int take_turn(int fd)
{
	struct timespec nap = { 0, TURN_POLL_MS * 1000000L };

	for (int waited = 0;; waited += TURN_POLL_MS) {
		int rc = lock_byte(fd, F_WRLCK, LOCK_TURN);

		if (rc == 0 || (rc != -EAGAIN && rc != -EACCES && rc != -EINTR))
			return rc;
		if (waited >= TURN_WAIT_MS)
			return -EWOULDBLOCK;
		nanosleep(&nap, NULL);
	}
}

static int open_lock(int dir_fd)
{
	int fd = openat(dir_fd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static ssize_t find(const struct protect_base *b, const char *path, size_t len, bool ancestor)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->rec[i].ancestor == ancestor && strlen(b->rec[i].path) == len &&
		    strncmp(b->rec[i].path, path, len) == 0)
			return (ssize_t)i;
	return -1;
}

/* The record for path (its first len bytes): the baseline's, else taken
 * from the disk now and added. */
static int record_for(struct protect_state *ps, int root_fd, const char *path, size_t len,
		      bool ancestor, size_t *idx, bool *added)
{
	struct protect_base *b = &ps->base;
	ssize_t found = find(b, path, len, ancestor);
	struct protect_record *rec;

	if (found >= 0) {
		*idx = (size_t)found;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 32;
		struct protect_record *r = realloc(b->rec, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		b->rec = r;
		b->cap = cap;
	}
	rec = &b->rec[b->n];
	memset(rec, 0, sizeof(*rec));
	rec->path = strndup(path, len);
	if (!rec->path)
		return -ENOMEM;
	rec->ancestor = ancestor;
	protect_record_take(rec, root_fd);
	/* Only where the git pass runs: it is what holds a tainted entry. */
	if (!ancestor && ps->taint_when && ps->git)
		rec->tainted = protect_record_changed(rec, root_fd, ps->taint_when);
	*idx = b->n++;
	*added = true;
	return 0;
}

/* The run's protected paths and the directories on their way (shallowest
 * first, each once), mapped to records. */
static int collect(struct protect_state *ps, int root_fd, const struct ns_path_list *paths,
		   bool *added)
{
	for (size_t i = 0; i < paths->n && i < NS_VIEW_MAX_PATHS; i++) {
		const char *p = paths->path[i];
		size_t idx;
		int rc;

		for (const char *slash = strchr(p, '/'); slash; slash = strchr(slash + 1, '/')) {
			bool seen = false;

			rc = record_for(ps, root_fd, p, (size_t)(slash - p), true, &idx, added);
			if (rc < 0)
				return rc;
			for (size_t k = 0; k < ps->n_anc; k++)
				seen = seen || ps->anc_rec[k] == idx;
			if (!seen && ps->n_anc < PROTECT_ANCESTORS_MAX)
				ps->anc_rec[ps->n_anc++] = idx;
		}
		rc = record_for(ps, root_fd, p, strlen(p), false, &ps->path_rec[i], added);
		if (rc < 0)
			return rc;
		ps->n_paths = i + 1;
	}
	return 0;
}

static void note_recovered(struct protect_state *ps, const char *path)
{
	char *p;

	if (ps->n_recovered < PROTECT_REPORT_MAX && (p = strdup(path)))
		ps->recovered[ps->n_recovered++] = p;
}

/* The git pass (protect_git.c) over the whole root, what changed in a git
 * directory since `since` made inert; the git directories seen become the
 * root's index for the next run's start. */
static void git_pass(struct protect_state *ps, int root_fd, const struct protect_base *base,
		     struct timespec since, bool report)
{
	static struct protect_span always = { 0, UINT64_MAX };
	struct git_pass gp = { .root_fd = root_fd, .root = base->root,
			       .base = base, .writable = ps->writable, .n_writable = ps->n_writable };
	bool own = protect_runs_when(ps, base->root, since, &gp.when) == 0;

	/* The record unreadable (out of memory): everything counts as a
	 * run's, never nothing. */
	if (!own)
		gp.when = (struct protect_when){ since, &always, 1 };
	protect_git_pass(&gp);
	if (own)
		protect_when_free(&gp.when);
	if (gp.partial)
		ps->git_partial = true;
	if (!gp.partial && ps->dir_fd >= 0)
		protect_index_write(ps->dir_fd, gp.found, gp.n_found);
	for (size_t i = 0; i < gp.n_changed; i++) {
		if (!report) {
			note_recovered(ps, gp.changed[i]);
			continue;
		}
		char **c = realloc(ps->git_changed, (ps->n_git_changed + 1) * sizeof(*c));

		if (!c)
			continue;
		ps->git_changed = c;
		c[ps->n_git_changed++] = gp.changed[i];
		gp.changed[i] = NULL;
	}
	protect_git_pass_free(&gp);
}

/* The directories above a root in /tmp or /dev/shm (protect_above.c).
 * What this run changed there counts only where its command could write
 * there (the landlock runner); other runs' windows count either way. */
static void above(struct protect_state *ps, int root_fd)
{
	static struct protect_span always = { 0, UINT64_MAX };
	struct timespec never = { INT64_MAX, 0 };
	struct protect_when w;
	bool own;

	if (ps->n_above == 0)
		return;
	own = protect_runs_when(ps, ps->base.root, ps->host_tmp ? ps->since : never, &w) == 0;
	if (!own)
		w = (struct protect_when){ never, &always, 1 };
	protect_above_end(ps, root_fd, &w);
	if (own)
		protect_when_free(&w);
}

/* Every path of a baseline put back (ancestors first: what lies below them
 * is found through them), what changed noted as recovered. false: one
 * could not be. */
static bool restore_all(struct protect_state *ps, const struct protect_base *b, int root_fd)
{
	bool all = true;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < b->n; i++) {
			const struct protect_record *rec = &b->rec[i];
			int rc;

			if (rec->ancestor != (pass == 0))
				continue;
			rc = protect_record_restore(rec, root_fd);
			if (rc < 0)
				all = false;
			if (rc > 0)
				note_recovered(ps, rec->path);
		}
	return all;
}

/* Put back what a run whose sbx died (or whose end could not put it all
 * back) left changed, noting what that was. false: something could not be
 * put back. */
static bool recover(struct protect_state *ps, const struct protect_base *stale, int root_fd)
{
	bool all = restore_all(ps, stale, root_fd);

	/* What that run changed in git directories: made inert, from when it
	 * began (a baseline of an older sbx does not say: passed over). */
	if (stale->since_ns)
		git_pass(ps, root_fd, stale,
			 (struct timespec){ (time_t)(stale->since_ns / 1000000000u),
					    (long)(stale->since_ns % 1000000000u) },
			 false);
	return all;
}

/* The configs of the git directories the last run's end found (the index):
 * recorded, so a change to one is put back as it was. Only those that
 * exist: one the run makes is cut down to the allow-list instead. */
static int collect_git(struct protect_state *ps, int root_fd, bool *added)
{
	static const char *const names[] = { "config", "config.worktree" };
	char **paths = NULL;
	size_t n = 0;
	int rc = 0;

	if (ps->dir_fd < 0 || protect_index_read(ps->dir_fd, &paths, &n) < 0)
		return 0;
	ps->git_rec = calloc(2 * n + 1, sizeof(*ps->git_rec));
	if (!ps->git_rec) {
		protect_index_free(paths, n);
		return -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		for (size_t k = 0; rc == 0 && k < 2; k++) {
			char rel[PATH_MAX];
			struct stat st;
			int g;

			if (snprintf(rel, sizeof(rel), "%s/%s", paths[i], names[k]) >= (int)sizeof(rel))
				continue;
			g = protect_git_open_beneath(root_fd, paths[i]);
			if (g < 0)
				continue;
			if (fstatat(g, names[k], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
				rc = record_for(ps, root_fd, rel, strlen(rel), false,
						&ps->git_rec[ps->n_git_rec++], added);
			close(g);
		}
	}
	protect_index_free(paths, n);
	return rc;
}

static bool all_plain(const struct ns_path_list *paths)
{
	for (size_t i = 0; i < paths->n; i++)
		if (!protect_path_plain(paths->path[i], strlen(paths->path[i])))
			return false;
	return true;
}

/* Under the turn: join the root's baseline, or (alone) recover a stale one
 * and record afresh. Sets ps->shared when the file is the baseline, and
 * ps->stale when a stale one could not be put back whole and is kept as
 * this run's. */
static void join_or_record(struct protect_state *ps, int root_fd, const struct stat *root_st,
			   const char *root, bool alone)
{
	struct protect_base found = { 0 };
	bool ours = protect_base_read(ps->dir_fd, &found) == 0 &&
		    found.root_dev == (uint64_t)root_st->st_dev &&
		    found.root_ino == (uint64_t)root_st->st_ino && strcmp(found.root, root) == 0;

	/* Why kept when not all of it could be put back (the file system
	 * full): it holds the user's files, which are nowhere else; this
	 * run's end tries again, and leaves it for the next run if it fails
	 * too. */
	if (ours && alone) {
		ps->stale = !recover(ps, &found, root_fd);
		if (!ps->stale) {
			protect_base_clear(&found);
			ours = false;
		}
	}
	if (ours) {
		ps->base = found;
		ps->shared = true;
		return;
	}
	if (found.root || found.rec)
		protect_base_clear(&found);
	/* Not readable, or another root's (a hash shared by two paths, a
	 * directory made anew): replaced when alone; when another run is
	 * live it is that run's, and this run keeps its own view. */
	ps->shared = alone;
}

/* *n counts past max: the caller says how many were not listed
 * (adversarial pass 7, finding 06: the 17th path was dropped in silence).
 * Past max a path noted twice counts twice: none is kept to compare. */
static void note(const char **list, size_t *n, size_t max, const char *path)
{
	if (!list)
		return;
	for (size_t i = 0; i < *n && i < max; i++)
		if (strcmp(list[i], path) == 0)
			return;
	if (*n < max)
		list[*n] = path;
	(*n)++;
}

/* The run's records, in sets: the directories on the way first (what lies
 * below them is found through them), its protected paths, the recorded
 * git configs. */
#define RUN_SETS 3
static size_t run_set(const struct protect_state *ps, size_t set, const size_t **idx)
{
	switch (set) {
	case 0:
		*idx = ps->anc_rec;
		return ps->n_anc;
	case 1:
		*idx = ps->path_rec;
		return ps->n_paths;
	default:
		*idx = ps->git_rec;
		return ps->n_git_rec;
	}
}

/* Every protected file of the run (the protected paths and what is in
 * them, a gitfile on the way, the recorded git configs) kept to a name of
 * its own (protect_alias.c), each path that had another name noted. The
 * first that could not be: its record, and *err why. */
static const struct protect_record *unalias(struct protect_state *ps, int root_fd,
					    const char **list, size_t *n, size_t max, int *err)
{
	const struct protect_record *failed = NULL;

	for (size_t k = 0; k < RUN_SETS; k++) {
		const size_t *idx;
		size_t count = run_set(ps, k, &idx);

		for (size_t i = 0; i < count; i++) {
			const struct protect_record *rec = &ps->base.rec[idx[i]];
			int rc = protect_record_unalias(rec, root_fd, &ps->incomplete);

			if (rc > 0)
				note(list, n, max, rec->path);
			if (rc < 0 && !failed) {
				failed = rec;
				*err = rc;
			}
		}
	}
	return failed;
}

int protect_begin(struct protect_state *ps, int root_fd, const char *root,
		  const struct ns_path_list *paths)
{
	struct stat st;
	bool added = false, alone = false;
	int rc;

	ps->lock_fd = -1;
	/* What changes from here on is this run's (protect_git.c): the
	 * coarse clock, as the file systems stamp changes with it, one tick
	 * back. */
	{
		struct timespec res = { 0, 0 };

		clock_gettime(CLOCK_REALTIME_COARSE, &ps->since);
		clock_getres(CLOCK_REALTIME_COARSE, &res);
		ps->since.tv_nsec -= res.tv_nsec;
		if (ps->since.tv_nsec < 0) {
			ps->since.tv_nsec += 1000000000L;
			ps->since.tv_sec--;
		}
	}
	/* Listed before the command starts, or not run at all: a run whose
	 * window no record holds could stage what a later run moves in (a git
	 * directory, a link to a daemon's socket at an allowed name). */
	if (ps->git || ps->record) {
		rc = protect_runs_open(ps, root);
		if (rc < 0) {
			ps->runs_failed = true;
			return rc;
		}
	}
	if (paths->n == 0 && !ps->git)
		return 0;
	if (fstat(root_fd, &st) < 0) {
		protect_runs_close(ps, root);
		return -errno;
	}
	if (ps->git)
		protect_above_take(ps, root_fd, root);
	ps->root_mode = st.st_mode & 07777;
	if (ps->dir_fd >= 0 && all_plain(paths))
		ps->lock_fd = open_lock(ps->dir_fd);
	if (ps->lock_fd >= 0) {
		rc = take_turn(ps->lock_fd);
		if (rc < 0) {
			close(ps->lock_fd);
			ps->lock_fd = -1;
			protect_runs_close(ps, root);
			return rc;
		}
		alone = !others_live(ps->lock_fd);
		/* Live from here on: the last run out cannot miss this one. */
		if (lock_byte(ps->lock_fd, F_RDLCK, LOCK_LIVE) < 0) {
			close(ps->lock_fd);
			ps->lock_fd = -1;
		} else {
			join_or_record(ps, root_fd, &st, root, alone);
		}
	}
	if (!ps->base.root) {
		ps->base.root = strdup(root);
		ps->base.root_dev = (uint64_t)st.st_dev;
		ps->base.root_ino = (uint64_t)st.st_ino;
		ps->base.since_ns = (uint64_t)ps->since.tv_sec * 1000000000u + (uint64_t)ps->since.tv_nsec;
	}
	ps->begun = true;
	/* What other confined runs that are still live (or whose sbx died:
	 * open records) were live for: a git entry they changed is not taken
	 * as this baseline's (struct protect_record, tainted). A run that
	 * ended put back and passed over its own already. The record
	 * unreadable: every git entry counts as changed. */
	struct protect_when others;
	static struct protect_span always = { 0, UINT64_MAX };
	bool have_others = (ps->git || ps->record) &&
			   protect_runs_when(ps, root, (struct timespec){ .tv_sec = TIME_MAX }, &others) == 0;

	if (have_others) {
		size_t o = 0;

		for (size_t i = 0; i < others.n; i++)
			if (others.span[i].to == UINT64_MAX)
				others.span[o++] = others.span[i];
		others.n = o;
	} else {
		others = (struct protect_when){ { .tv_sec = TIME_MAX }, &always, 1 };
	}
	ps->taint_when = &others;
	rc = ps->base.root ? collect(ps, root_fd, paths, &added) : -ENOMEM;
	if (rc == 0 && ps->git)
		rc = collect_git(ps, root_fd, &added);
	ps->taint_when = NULL;
	if (have_others)
		protect_when_free(&others);
	if (rc == 0 && ps->shared && (added || alone) &&
	    protect_base_write(ps->dir_fd, &ps->base) < 0 && alone && !ps->stale) {
		/* No baseline for others to join; and none left behind that
		 * a later run would take for a dead sbx's. */
		protect_base_remove(ps->dir_fd);
		ps->shared = false;
	}
	/* Before the command starts, so before the namespace runner's
	 * read-only binds, which guard a name: a protected file with another
	 * name gets a copy of its own, whoever made that name (a landlock
	 * run, an older sbx, a tool of the user's: sbx cannot tell, nor find
	 * the other name). One that cannot be (the file system full) would
	 * stay writable under its other name: the run is refused. */
	if (rc == 0 && ps->record) {
		const struct protect_record *failed = unalias(ps, root_fd, NULL, NULL, 0, &rc);

		if (failed)
			ps->aliased = failed->path;
	}
	if (ps->lock_fd >= 0)
		lock_byte(ps->lock_fd, F_UNLCK, LOCK_TURN);
	for (size_t i = 0; i < ps->n_paths; i++) {
		const struct protect_record *rec = &ps->base.rec[ps->path_rec[i]];

		if (rec->was == PROTECT_PRESENT && !rec->snap.snap)
			ps->partial = true;
	}
	return rc;
}

size_t protect_end(struct protect_state *ps, int root_fd, const char **reverted, size_t max)
{
	size_t n = 0;
	struct stat st;
	bool turn, failed = false;
	int rc;

	if (!ps->begun)
		return 0;
	ps->begun = false;
	/* Under the turn, so two runs ending at once do not rebuild the same
	 * path over each other. */
	turn = ps->lock_fd >= 0 && take_turn(ps->lock_fd) == 0;
	/* A run that took its owner's write or search on the root (chmod 000
	 * .) would keep what it planted there: given back first. Only when
	 * the run changed the root's mode, never a user's own setting. */
	if (fstat(root_fd, &st) == 0 && (st.st_mode & 07777) != ps->root_mode)
		protect_dir_reopen(root_fd);
	/* A path that could not be put back is not named as put back. */
	for (size_t k = 0; k < RUN_SETS; k++) {
		const size_t *idx;
		size_t count = run_set(ps, k, &idx);

		for (size_t i = 0; i < count; i++) {
			const struct protect_record *rec = &ps->base.rec[idx[i]];

			rc = protect_record_restore(rec, root_fd);
			if (rc > 0)
				note(reverted, &n, max, rec->path);
			if (rc < 0)
				failed = true;
		}
	}
	/* A baseline kept at the start because not all of it could be put
	 * back: all of it, not only this run's paths (one that is absent now
	 * is none of them), or it would be removed below with the user's
	 * files in it. */
	if (ps->stale && !restore_all(ps, &ps->base, root_fd))
		failed = true;
	if (failed)
		ps->incomplete = true;
	/* A name the run gave a protected file (a landlock run's `ln
	 * .git/config x`) is one a later run writes it through past the
	 * namespace runner's binds: the file gets a copy of its own, and the
	 * path is named. One that cannot be makes the protection partial. */
	if (ps->record && unalias(ps, root_fd, reverted, &n, max, &rc))
		ps->incomplete = true;
	/* Every git directory under the root, held to the allow-list: what
	 * the run made or changed there that has no record. */
	if (ps->git) {
		size_t before = ps->n_git_changed;

		/* First: the user's next git runs at the root's path. */
		protect_above_root_back(ps, root_fd);
		git_pass(ps, root_fd, &ps->base, ps->since, true);
		above(ps, root_fd);
		for (size_t i = before; i < ps->n_git_changed; i++)
			note(reverted, &n, max, ps->git_changed[i]);
	}
	/* The window closes after the pass: every process of the run is
	 * gone, and what the pass itself rewrote falls in it too. */
	protect_runs_close(ps, ps->base.root ? ps->base.root : "/");
	if (ps->lock_fd >= 0) {
		lock_byte(ps->lock_fd, F_UNLCK, LOCK_LIVE);
		/* The last one out: the baseline is done. Without the turn it
		 * stays, and the next run puts the paths back to it first,
		 * which is what this run just did. So it does when a path could
		 * not be put back: it holds the user's files, which are nowhere
		 * else, and the next run tries again (sandbox.recovered). */
		if (turn && ps->shared && !others_live(ps->lock_fd) && !failed)
			protect_base_remove(ps->dir_fd);
		/* Kept for its records only: the git pass above was this
		 * run's, and one from this run's start at the next run's
		 * would cut what the user changes in git directories until
		 * then (best effort: the file system may be full). */
		if (turn && ps->shared && failed && ps->base.since_ns) {
			ps->base.since_ns = 0;
			protect_base_write(ps->dir_fd, &ps->base);
		}
		close(ps->lock_fd); /* the turn goes with it */
		ps->lock_fd = -1;
	}
	return n;
}

void protect_free(struct protect_state *ps, int root_fd)
{
	if (ps->begun && root_fd >= 0)
		protect_end(ps, root_fd, NULL, 0);
	protect_runs_close(ps, ps->base.root ? ps->base.root : "/");
	protect_above_free(ps);
	for (size_t i = 0; i < ps->n_runs_dir; i++)
		close(ps->runs_dir[i]);
	ps->n_runs_dir = 0;
	if (ps->lock_fd >= 0)
		close(ps->lock_fd);
	if (ps->dir_fd >= 0)
		close(ps->dir_fd);
	ps->lock_fd = ps->dir_fd = -1;
	ps->begun = false;
	protect_base_clear(&ps->base);
	for (size_t i = 0; i < ps->n_recovered; i++)
		free(ps->recovered[i]);
	ps->n_recovered = 0;
	for (size_t i = 0; i < ps->n_git_changed; i++)
		free(ps->git_changed[i]);
	free(ps->git_changed);
	free(ps->git_rec);
	ps->git_changed = NULL;
	ps->git_rec = NULL;
	ps->n_git_changed = ps->n_git_rec = 0;
}
