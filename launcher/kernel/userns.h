/* SPDX-License-Identifier: MIT */
#ifndef SBX_USERNS_H
#define SBX_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "child_status.h"

/* Child, just after clone(CLONE_NEWUSER): map the caller's uid and gid onto
 * themselves and deny setgroups. 0, or -1 with st (STAGE_USERNS). */
int userns_write_identity_maps(uid_t uid, gid_t gid, struct child_status *st);

#endif
