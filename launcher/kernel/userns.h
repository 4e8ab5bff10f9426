/* SPDX-License-Identifier: MIT */
#ifndef SBX_USERNS_H
#define SBX_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "child_status.h"

/* Child, just after clone(CLONE_NEWUSER): map the caller's uid and gid onto
 * themselves and deny setgroups. 0, or -1 with st (STAGE_USERNS). */
int userns_write_identity_maps(uid_t uid, gid_t gid, struct child_status *st);

/* A root caller's full identity map (uid and gid 0..4294967294 onto
 * themselves), so that the capabilities it keeps apply to every owner inside
 * the writable binds:
 *  - parent: userns_can_map_all() says whether this process may write one
 *    (CAP_SETUID and CAP_SETGID); userns_mapper_start() forks the helper
 *    that writes it and gives the child's end of a private socket;
 *    userns_mapper_stop() (after the spawn) closes it and reaps the helper;
 *  - child, just after clone(CLONE_NEWUSER): userns_ask_full_map() asks
 *    through that end and waits for the maps (0, or -1 with STAGE_USERNS). */
bool userns_can_map_all(void);
int userns_mapper_start(int *child_fd, pid_t *pid);
void userns_mapper_stop(int *child_fd, pid_t *pid);
int userns_ask_full_map(int fd, struct child_status *st);

#endif
