/* SPDX-License-Identifier: MIT */
/* Capabilities of the command, set in the child right before exec (caps.c). */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "child_status.h"

/* One capability a root caller keeps. */
struct caps_kept {
	int cap;                /* CAP_* */
	const char *name;       /* "CAP_CHOWN" */
};

/* What a root caller keeps inside the policy (so a workspace owned by
 * another user works as it does for root), and nothing else. */
extern const struct caps_kept caps_root_keeps[];
extern const size_t caps_root_keeps_count;

/* Parent: the capability mask (bit N: capability N) the command of a caller
 * with real uid `uid` keeps: for root, caps_root_keeps as far as this process
 * holds them in its effective set; for anyone else, nothing. */
uint64_t caps_for_caller(uid_t uid);

/* Child (no allocation): keep exactly the capabilities in `keep` (effective,
 * permitted, inheritable, ambient so that they survive execve of bash, and
 * the bounding set) and drop every other one; lock the securebits where we
 * hold CAP_SETPCAP; set no_new_privs. `keep` must be a subset of what the
 * process holds. For an unprivileged caller (keep 0) the bounding set and
 * securebits cannot be changed and need not be: it holds nothing and
 * no_new_privs stops it from gaining anything at exec. 0 or -1 with st. */
int caps_keep_only(uint64_t keep, struct child_status *st);
/* caps_keep_only(0): every capability gone. */
int caps_drop_all(struct child_status *st);

#endif
