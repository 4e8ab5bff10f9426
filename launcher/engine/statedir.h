/* SPDX-License-Identifier: MIT */
/* sbx's own state for the caller, outside any workspace: a base directory
 * ($XDG_CACHE_HOME/sbx, else ~/.cache/sbx, else /var/tmp/sbx-UID), and below
 * it one directory per workspace root for its /tmp (namespace runner) and its
 * tool caches. Every directory is made and opened without following a
 * symlink, owned by us, closed to others. */
#ifndef SBX_STATEDIR_H
#define SBX_STATEDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

/* The base directory (created if missing): its path in out. A candidate
 * inside one of the avoid directories (NULL-terminated; NULL: none) is passed
 * over. 0 or -errno with err filled. */
int statedir_base(const char *const *avoid, char *out, size_t size, struct sbx_error *err);
/* The i-th place (0 .. STATEDIR_CANDIDATES-1, in statedir_base's order) a
 * base may be, whether it exists or not: 0 or -errno (not applicable). Runs
 * with different roots pick different ones (a workspace-write root passes
 * over those inside it), so every one that exists is hidden. */
#define STATEDIR_CANDIDATES 3
int statedir_candidate(unsigned i, char *out, size_t size);
bool statedir_is_candidate(const char *path);
/* Make the i-th candidate if it is missing (its parent must exist), as
 * statedir_base makes a base, whether or not it lies inside a root. */
void statedir_make_candidate(unsigned i);
/* BASE/KIND/KEY (BASE/KEY when kind is NULL) for a root (KEY: the root's name and a hash of its path),
 * created if missing with mode (the directory itself); its path in out, an
 * O_PATH handle in *fd. base NULL: statedir_base(). */
int statedir_for_root(const char *base, const char *kind, const char *root, unsigned mode,
		      char *out, size_t size, int *fd, struct sbx_error *err);
/* BASE/KIND, an existing directory of ours closed to others, reached
 * without following a symlink: an O_PATH handle, or -errno. Nothing is
 * made. */
int statedir_open_kind(const char *base, const char *kind);
/* Remove at most a few of BASE/KIND's directories (never keep's) that were
 * not touched for max_age_s: workspaces' /tmp and caches do not pile up.
 * At most one full look an hour (BASE/KIND/.swept). */
void statedir_expire(const char *base, const char *kind, uint64_t max_age_s, const char *keep);
/* Remove what every candidate base keeps for a root that is gone (its
 * /tmp, cache and protect directories): a scratch root of sbx's own
 * (probe's) must not leave them behind at every call. */
void statedir_forget_root(const char *root);
/* The name a root's directories get (pure; for tests). */
void statedir_key(const char *root, char *out, size_t size);

#endif
