/* SPDX-License-Identifier: MIT */
/* Protected paths inside the root, the parts the engine does (protect.c):
 * ones that did not exist when a run started cannot be covered by a
 * read-only mount (there is nothing to mount on, and making a placeholder
 * would write into the user's workspace), so whatever the run put there is
 * removed when the run is over; under the landlock runner, which has no
 * mounts, existing ones are snapshotted and put back if they changed
 * (protect_snapshot.c). Both are reported. */
#ifndef SBX_PROTECT_H
#define SBX_PROTECT_H

#include <stdbool.h>
#include <stddef.h>

#include "ns_view.h"

/* Bounds of one protected path's snapshot (landlock runner). */
#define PROTECT_SNAP_MAX_BYTES (4u << 20)
#define PROTECT_SNAP_MAX_ENTRIES 2048u

struct snap;
struct protect_snapshot {
	struct snap *snap;      /* NULL: none taken */
	bool partial;           /* too big (or unreadable) to take */
};

/* A directory on the way to a protected path (".git"), as the run found it
 * (protect_ancestors.c). */
#define PROTECT_ANCESTORS_MAX NS_VIEW_MAX_PATHS
enum protect_ancestor_was { PROTECT_ANC_ABSENT, PROTECT_ANC_DIR, PROTECT_ANC_OTHER };
struct protect_ancestor {
	char *path;                       /* relative to the root */
	enum protect_ancestor_was was;
	struct protect_snapshot snap;     /* PROTECT_ANC_OTHER: the file or symlink */
};

struct protect_state {
	bool absent[NS_VIEW_MAX_PATHS];   /* did not resolve inside the root at start */
	struct protect_snapshot snap[NS_VIEW_MAX_PATHS];
	bool snapshots;                   /* taken: put back what changed at the end */
	struct protect_ancestor anc[PROTECT_ANCESTORS_MAX];
	size_t n_anc;
};

/* Before the command starts: which protected paths are absent. */
void protect_begin(struct protect_state *ps, int root_fd, const struct ns_path_list *paths);
/* Where no mount can keep them read-only (landlock runner): a snapshot of
 * each existing protected path, put back at the end if it changed. Returns
 * false when one was too big to take (the protection is then partial). */
bool protect_snapshot_all(struct protect_state *ps, int root_fd, const struct ns_path_list *paths);
/* After every process of the run is gone: remove what appeared at an absent
 * protected path, and put back a snapshotted one that changed. Returns how
 * many were reverted; their paths (relative to the root) are appended to
 * removed[] (at most max; valid until protect_free). Frees the snapshots. */
size_t protect_end(struct protect_state *ps, int root_fd, const struct ns_path_list *paths,
		   const char **removed, size_t max);
void protect_free(struct protect_state *ps);

/* protect_ancestors.c: what the ancestors are at the start; at the end, one
 * that was a directory (or absent) and is not one now is removed, one that
 * was a file or symlink is put back. Returns how many changed (their paths
 * appended to removed[], at most max). */
void protect_ancestors_begin(struct protect_state *ps, int root_fd, const struct ns_path_list *paths);
size_t protect_ancestors_end(struct protect_state *ps, int root_fd, const char **removed,
			     size_t max);
void protect_ancestors_free(struct protect_state *ps);

/* protect_snapshot.c */
int protect_snapshot_take(struct protect_snapshot *ps, int parent_fd, const char *name);
int protect_snapshot_put_back(const struct protect_snapshot *ps, int parent_fd, const char *name,
			      bool *changed);
void protect_snapshot_free(struct protect_snapshot *ps);
/* The directory rel below dirfd, reached without following any symlink. */
int protect_open_dir_nofollow(int dirfd, const char *rel);

/* Remove name below dirfd, recursively, never following a symlink. 0 or
 * -errno. */
int protect_remove_tree(int dirfd, const char *name);

#endif
