/* SPDX-License-Identifier: MIT */
/* Inside launcher/protect: records, ancestors, snapshots and the baseline
 * file, shared by its files and the unit tests, nothing else. */
#ifndef SBX_PROTECT_INT_H
#define SBX_PROTECT_INT_H

#include "protect.h"

/* protect_record.c: one record, taken from what is on disk now, put back to what
 * it holds: 1 it had changed and is put back, 0 it had not, -errno it could
 * not be put back (what the run left there was removed where it could be). */
void protect_record_take(struct protect_record *rec, int root_fd);
int protect_record_restore(const struct protect_record *rec, int root_fd);
struct protect_when;
bool protect_record_changed(const struct protect_record *rec, int root_fd,
			    const struct protect_when *when);
/* Its files given names of their own (protect_alias_break, below). */
int protect_record_unalias(const struct protect_record *rec, int root_fd, bool *unsure);
void protect_base_clear(struct protect_base *b);
/* protect_ancestors.c: the same for a directory on the way. */
void protect_ancestor_take(struct protect_record *rec, int root_fd);
int protect_ancestor_restore(const struct protect_record *rec, int root_fd);

/* protect_base_file.c: the baseline file in dir_fd ("base"), written
 * whole or not at all, read back with every field checked. */
int protect_base_encode(const struct protect_base *b, char **out, size_t *len);
int protect_base_decode(const char *buf, size_t len, struct protect_base *b);
int protect_base_read(int dir_fd, struct protect_base *b); /* -ENOENT: none */
int protect_base_write(int dir_fd, const struct protect_base *b);
void protect_base_remove(int dir_fd);
/* A relative path of plain components (none empty, "." or ".."). */
bool protect_path_plain(const char *p, size_t len);

/* protect_snapshot.c. put_back: 0 (*changed: it differed and is put back)
 * or -errno: not put back, and what was at name removed if it could be. */
int protect_snapshot_take(struct protect_snapshot *ps, int parent_fd, const char *name);
int protect_snapshot_put_back(const struct protect_snapshot *ps, int parent_fd, const char *name,
			      bool *changed);
void protect_snapshot_free(struct protect_snapshot *ps);

/* protect_alias.c: every regular file at name below parent_fd (and, with
 * tree, below it) that has another name (a hard link) gets a copy of its
 * own at this name. 1 one was copied, 0 none had another name, -errno one
 * could not be copied (its other name stays). *unsure is set where a tree
 * was past a snapshot's bounds or could not be looked into. */
int protect_alias_break(int parent_fd, const char *name, bool tree, bool *unsure);

/* protect_git.c, protect_walk.c: the git pass after a run (see
 * protect_git.c): every git directory under the root, each held to the
 * allow-list. */
/* protect_runs.c: when confined runs were live (ns since the epoch; to
 * UINT64_MAX: still live, or gone without its end), and what a change at a
 * time counts as: a run's when it falls at or after since (this run's
 * start) or in any span of a run that could write there. */
struct protect_span {
	uint64_t from, to;
};
struct protect_when {
	struct timespec since;
	struct protect_span *span; /* sorted, merged */
	size_t n;
};
bool protect_when_changed(const struct protect_when *w, const struct timespec *t);
/* This run's record, listed open (protect_begin) and closed (protect_end). */
int protect_runs_open(struct protect_state *ps, const char *root);
void protect_runs_close(struct protect_state *ps, const char *root);
/* The spans of every recorded run that could have written below root. */
int protect_runs_when(const struct protect_state *ps, const char *root, struct timespec since,
		      struct protect_when *w);
void protect_when_free(struct protect_when *w);

struct git_pass {
	int root_fd;
	const char *root;           /* absolute, resolved */
	struct protect_when when;   /* what changed then is a run's */
	const struct protect_base *base; /* paths with records: put back by them */
	char **changed;             /* out: paths made inert (relative to the root) */
	size_t n_changed, cap_changed;
	char **found;               /* out: git directories seen (the next index) */
	size_t n_found, cap_found;
	bool partial;               /* out: somewhere could not be looked at */
	struct {
		dev_t dev;
		ino_t ino;
	} *seen;                    /* git directories done */
	size_t n_seen, cap_seen;
	size_t dirs;                /* directories walked */
	const struct protect_ident *writable; /* what the run may write outside the root */
	size_t n_writable;
	/* The walk's (protect_walk.c): called by protect_git_dir for each
	 * directory git writes in a git directory it held to the rules
	 * (objects, refs, logs...), so that the walk looks in it too: a
	 * repository made there is one the user may later work in. */
	void (*inner)(struct git_pass *gp, int gfd, const char *name, const char *rel);
	void *walk;                 /* the walk's own state */
};

void protect_git_pass(struct git_pass *gp);
void protect_git_pass_free(struct git_pass *gp);
bool protect_git_allowed(const char *name, bool is_dir, bool worktree_admin);
bool protect_git_changed(int dirfd, const char *name, const struct protect_when *when);
void protect_git_dir(struct git_pass *gp, int fd, const char *rel, bool worktree_admin);
bool protect_git_looks_like(int fd);
/* A directory handle (any, O_PATH too) opened to be listed: its owner's
 * rights given back first if a run took them (changed then). */
int protect_git_open_listable(int fd, const struct protect_when *when);
bool protect_git_recorded(const struct git_pass *gp, const char *rel, const char *name);
bool protect_git_target(const char *root, const char *dir, const char *target, char *out,
			size_t size);
bool protect_git_read_line(int dirfd, const char *name, const char *prefix, char *out,
			   size_t size);
void protect_git_note(struct git_pass *gp, const char *dir, const char *name, const char *sub);
/* protect_links.c: pointers out of the root (symlinks, gitfiles, remote
 * URLs), trusted only where no run may write. */
bool protect_git_outside_ok(const char *path, void *ctx);
bool protect_git_url_inside_ok(const char *path, void *ctx);
bool protect_git_link(struct git_pass *gp, int dirfd, const char *name, const char *rel);
/* protect_links.c too: protect_git_target (above, pure). */
/* rel (relative to the root) opened O_PATH as a directory, symlinks inside
 * the root followed, none out of it: the fd, or -errno (-EXDEV: out). */
int protect_git_open_beneath(int root_fd, const char *rel);

/* protect_above.c: the directories above a root in /tmp or /dev/shm, up
 * to its top: taken when the run begins; after it, what a run made a
 * repository of there goes (returns how many paths it noted in
 * ps->git_changed, relative to the root: "../../.git"). */
void protect_above_take(struct protect_state *ps, int root_fd, const char *root);
size_t protect_above_end(struct protect_state *ps, int root_fd, const struct protect_when *when);
/* The root's own path given back: where a run that could write its parent
 * (a root in the host's /tmp) renamed the root aside and left something
 * else, or nothing, at its name, the root (found by its inode in the
 * directory it is in now) and that are swapped back, so the user's path
 * names the root the run was held to (noted as "."). The parent is the one
 * of the run's start, reached with no symlink; otherwise the result says
 * partial. true when it moved something. */
bool protect_above_root_back(struct protect_state *ps, int root_fd);
void protect_above_free(struct protect_state *ps);

/* protect_index.c: the git directories the last run's end found, kept in
 * the root's state directory between runs (file "repos"). */
int protect_index_read(int dir_fd, char ***paths, size_t *n);
int protect_index_write(int dir_fd, char *const *paths, size_t n);
void protect_index_free(char **paths, size_t n);

#endif
