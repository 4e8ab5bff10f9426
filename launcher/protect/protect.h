/* SPDX-License-Identifier: MIT */
/* launcher/protect: the protected paths inside a writable root (.git/hooks,
 * .git/config, editor and agent settings...), the part sbx does outside the
 * runners' views. The engine calls protect_begin before a run and
 * protect_end after it; below them, records (protect_record.c), the
 * directories on the way (protect_ancestors.c), snapshots
 * (protect_snapshot.c), the shared baseline file (protect_base_file.c), and
 * at the bottom directory work no planted symlink can steer (protect_fs.c).
 * Calls run one way, down that list; internals are in protect_int.h.
 *
 * When a run is over, every protected path goes back to the root's baseline: what was
 * absent is removed (the namespace runner's read-only binds cannot cover a
 * path that did not exist, and a placeholder would write into the user's
 * workspace), what existed is put back from a snapshot if it changed (the
 * landlock runner has no mounts at all; a bind of the namespace runner can
 * be detached under it by another run's restore). The directories on the
 * way (.git) are kept too (protect_ancestors.c). Before the command starts
 * and after the run, a protected file with another name (a hard link)
 * gets a copy of its own (protect_alias.c): a read-only bind guards a name.
 *
 * One baseline per root, shared by the runs that overlap on it
 * (protect_base.c): the first run records it in sbx's state directory, the
 * later ones reuse it instead of what they see (which may already hold what
 * another run planted), the last one out removes it; one left by an sbx that
 * died is put back by the next run before anything else. */
#ifndef SBX_PROTECT_H
#define SBX_PROTECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ns_view.h"

/* Bounds of one protected path's snapshot. */
#define PROTECT_SNAP_MAX_BYTES (4u << 20)
#define PROTECT_SNAP_MAX_ENTRIES 2048u

struct snap;
struct protect_snapshot {
	struct snap *snap;      /* NULL: none taken */
	bool partial;           /* too big (or unreadable) to take */
};

/* What a protected path, or a directory on the way to one, was. */
enum protect_was {
	PROTECT_ABSENT,         /* did not resolve inside the root */
	PROTECT_DIR,            /* an ancestor that was a directory */
	PROTECT_PRESENT,        /* snap holds it (snap.snap NULL: too big) */
};

struct protect_record {
	char *path;             /* relative to the root */
	bool ancestor;          /* a directory on the way (".git"), not protected itself */
	/* An entry of a git directory that changed while another confined run
	 * that could write it is live: what it holds may be that run's, so
	 * it is never put back to it; the git pass holds it to the allow-list
	 * instead (adversarial pass 7, finding 17). */
	bool tainted;
	enum protect_was was;
	struct protect_snapshot snap;
};

/* A root's baseline. */
struct protect_base {
	struct protect_record *rec;
	size_t n, cap;
	uint64_t root_dev, root_ino;
	char *root;
	/* When the run that recorded it began (CLOCK_REALTIME, ns; 0: not
	 * known): what changed in a git directory since is that run's
	 * (protect_git.c), for a run that recovers the baseline of a dead sbx. */
	uint64_t since_ns;
};

/* Git directories under the root a run looks at when it starts (the index
 * the last run's end wrote, protect_index.c): their configs are recorded. */
#define PROTECT_INDEX_MAX 256
/* Records a baseline file may hold: 2 * NS_VIEW_MAX_PATHS for the protected
 * paths and the directories on their way, 2 per indexed git directory. */
#define PROTECT_BASE_MAX_RECORDS (4 * NS_VIEW_MAX_PATHS + 2 * PROTECT_INDEX_MAX)
/* The baseline file's size, at most: past it, snapshots are written as too big. */
#define PROTECT_BASE_MAX_BYTES (64u << 20)
#define PROTECT_ANCESTORS_MAX NS_VIEW_MAX_PATHS
#define PROTECT_REPORT_MAX 16

/* A directory by its identity. */
struct protect_ident {
	uint64_t dev, ino;
};
#define PROTECT_WRITABLE_MAX 16
#define PROTECT_RUNS_PLACES 3
#define PROTECT_ROOT_ALIASES 8

/* A directory above a root in the host's /tmp or /dev/shm, as it was when
 * the run began (protect_above.c). */
struct protect_above {
	uint64_t dev, ino;
	enum protect_was git;   /* its ".git": absent, a directory, or present
				 * (a gitfile or symlink: snap) */
	bool gitdir;            /* it was a git directory itself */
	struct protect_snapshot snap;
	struct protect_snapshot cfg; /* the config of the repository there */
};

struct protect_when;

struct protect_state {
	struct protect_base base;
	size_t path_rec[NS_VIEW_MAX_PATHS];    /* the run's protected path i: its record */
	size_t anc_rec[PROTECT_ANCESTORS_MAX]; /* its ancestors, shallowest first */
	size_t n_paths, n_anc;
	bool begun;             /* protect_end still to do */
	bool partial;           /* a protected path too big to snapshot */
	int dir_fd;             /* sbx's state for this root (protect/KEY); -1: none */
	int lock_fd;            /* the root's lock file, -1: not held */
	bool shared;            /* the records are the root's baseline file's */
	unsigned root_mode;     /* the root's mode when the run began */
	/* Git metadata as an allow-list in every repository under the root
	 * (protect_git.c): set by the engine before protect_begin. */
	bool git;
	/* List this run in the runs record (protect_runs.c) even without git's
	 * rules: every workspace-write run. Set by the engine. */
	bool record;
	struct timespec since;  /* changes at or after this are this run's */
	size_t *git_rec;        /* records of indexed git directories' configs */
	size_t n_git_rec;
	char **git_changed;     /* what the git pass put back (reported) */
	size_t n_git_changed;
	bool git_partial;       /* the git pass could not look everywhere */
	/* A protected path the end could not put back (a write failed: the
	 * file system full), or whose files could not all be kept to a name
	 * of their own (protect_alias.c): the result says "partial". */
	bool incomplete;
	/* The baseline is a stale one this run could not put back whole when
	 * it began (the file system full): its end puts back all of it. */
	bool stale;
	/* protect_begin: a protected path whose file has another name (a hard
	 * link) sbx could not give a copy of its own; the run is refused. */
	const char *aliased;
	/* What the run may write outside the root (/tmp, /dev/shm, the tool
	 * cache): a repository a run-made config points to there is not
	 * kept (protect_git.c). */
	struct protect_ident writable[PROTECT_WRITABLE_MAX];
	size_t n_writable;
	/* The record of confined runs' windows (protect_runs.c): sbx's
	 * protect/ directories, [0] this run's own when runs_own (its record
	 * is written there), the others' (other state directories the caller
	 * has) only read. Set by the engine before protect_begin. */
	int runs_dir[PROTECT_RUNS_PLACES];
	size_t n_runs_dir;
	bool runs_own;
	int runs_lock;          /* this run's live byte held on it; -1: none */
	uint64_t run_id;
	bool run_open;          /* its record is listed, open */
	bool runs_failed;       /* protect_begin failed to list it */
	int runs_error;         /* set by the engine: why it cannot be (-errno) */
	/* Set by the engine before protect_end: the command could write the
	 * host's /tmp and /dev/shm (the landlock runner). */
	bool host_tmp;
	/* The directories above a root in /tmp or /dev/shm, parent first. */
	struct protect_above *above;
	size_t n_above;
	/* Paths put back at the start, to a baseline an earlier run left when
	 * its sbx died (sandbox.recovered). */
	char *recovered[PROTECT_REPORT_MAX];
	size_t n_recovered;
	/* protect_begin, while it records: when other confined runs were
	 * live (protect_runs.c), for tainted. */
	const struct protect_when *taint_when;
	/* Other paths that show the root or a part of it (bind mounts): a run
	 * listed there overlaps this one as if by the root's own path
	 * (adversarial pass 7, findings 15 and 16). Set by the engine. */
	const char *root_alias[PROTECT_ROOT_ALIASES];
	bool root_alias_whole[PROTECT_ROOT_ALIASES]; /* shows the whole root */
	size_t n_root_alias;
};

/* protect_base.c. ps zeroed, dir_fd set (-1 when sbx has no state
 * directory: then the run's own view is its baseline). Before the command
 * starts: join the root's baseline or record it. 0, or -errno when another
 * sbx holds the root's lock too long (-EWOULDBLOCK) or memory ran out. */
int protect_begin(struct protect_state *ps, int root_fd, const char *root,
		  const struct ns_path_list *paths);
/* After every process of the run is gone: put every protected path of the
 * run (and the directories on the way) back to the baseline, and leave it
 * (the last run out removes it). Returns how many changed; their paths
 * (relative to the root, valid until protect_free) are appended to
 * reverted[] (at most max; the count returned goes on past it). */
size_t protect_end(struct protect_state *ps, int root_fd, const char **reverted, size_t max);
/* Frees everything; a run that never reached protect_end puts back and
 * leaves here, without a report. */
void protect_free(struct protect_state *ps, int root_fd);

/* protect_git.c: the entries of the root's own git directory (.git) that
 * are not on git's allow-list and exist now, as protected paths
 * (".git/config", ".git/hooks"...; ".git" itself when it is a file or a
 * symlink): the namespace runner binds them read-only. */
void protect_git_root_entries(int root_fd, const char *root,
			      void (*add)(void *ctx, const char *rel), void *ctx);
/* A directory the run may write outside the root (its identity now). */
void protect_add_writable(struct protect_state *ps, const char *path);
/* The confined runs the runs record in these protect/ directories holds
 * (protect_runs.c) that could matter below any of paths (absolute,
 * resolved): its window (ns since the epoch; to UINT64_MAX while open),
 * whether it could write the host's /tmp and /dev/shm, and its root; root
 * NULL: a window only, for the places every run writes outside its root
 * (every recorded run's is given once so). A list that fails its checks
 * reads as one run on "/" until now. 0 or -errno. */
typedef void protect_runs_fn(void *ctx, uint64_t from, uint64_t to, bool host_tmp,
			     const char *root);
int protect_runs_each(const int *dirs, size_t n_dirs, const char *const *paths, size_t n_paths,
		      protect_runs_fn *each, void *ctx);

/* protect_fs.c: directory work no file below a handle can steer (sbx's
 * state directories use it too). */
/* The directory rel below dirfd, reached without following any symlink. */
int protect_open_dir_nofollow(int dirfd, const char *rel);
/* Remove name below dirfd, recursively, never following a symlink. 0 or
 * -errno. */
int protect_remove_tree(int dirfd, const char *name);
/* Give the owner of the directory behind fd (any handle, O_PATH too) back
 * read, write and search on it when it lacks any of them: best effort,
 * never through a path. */
void protect_dir_reopen(int fd);

#endif
