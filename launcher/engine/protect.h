/* SPDX-License-Identifier: MIT */
/* Protected paths that did not exist when a run started cannot be covered by
 * a read-only mount (there is nothing to mount on, and making a placeholder
 * would write into the user's workspace). Whatever the run put there is
 * removed when the run is over, and reported (protect.c). */
#ifndef SBX_PROTECT_H
#define SBX_PROTECT_H

#include <stdbool.h>
#include <stddef.h>

#include "ns_view.h"

struct protect_state {
	bool absent[NS_VIEW_MAX_PATHS];   /* did not resolve inside the root at start */
};

/* Before the command starts: which protected paths are absent. */
void protect_begin(struct protect_state *ps, int root_fd, const struct ns_path_list *paths);
/* After every process of the run is gone: remove what appeared at an absent
 * protected path. Returns how many were removed; their paths (relative to
 * the root) are appended to removed[] (at most max). */
size_t protect_end(const struct protect_state *ps, int root_fd, const struct ns_path_list *paths,
		   const char **removed, size_t max);

/* Remove name below dirfd, recursively, never following a symlink. 0 or
 * -errno. */
int protect_remove_tree(int dirfd, const char *name);

#endif
