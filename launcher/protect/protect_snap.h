/* SPDX-License-Identifier: MIT */
/* Inside a protected path's snapshot (protect_snapshot.c), shared with the
 * baseline file's codec (protect_base_file.c) and nothing else. */
#ifndef SBX_PROTECT_SNAP_H
#define SBX_PROTECT_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How deep a snapshot goes (deeper: too big to take). */
#define PROTECT_SNAP_MAX_DEPTH 32
/* A symlink's target, at most (readlink's buffer). */
#define PROTECT_SNAP_MAX_LINK 4095

struct snap_entry {
	char *rel;              /* below the protected path ("" for itself) */
	mode_t mode;            /* type and permission bits */
	uid_t uid;
	gid_t gid;
	char *data;             /* file content or symlink target (NUL-terminated) */
	size_t len;
};

/* Entries in pre-order: a directory comes before what it holds, and what it
 * holds comes right after it. */
struct snap {
	struct snap_entry *e;
	size_t n, cap;
	size_t bytes;
	bool too_big;
};

/* A fresh zeroed entry at the end, or NULL (too many: too_big is set). */
struct snap_entry *protect_snap_add(struct snap *s);
void protect_snap_free(struct snap *s);

#endif
