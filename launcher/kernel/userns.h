/* SPDX-License-Identifier: MIT */
#ifndef SBX_USERNS_H
#define SBX_USERNS_H

#include <fcntl.h>
#include <stdbool.h>
#include <sys/types.h>

#include "child_status.h"

/* How sbx opens /proc/PID/setgroups, uid_map and gid_map, and nothing else:
 * never through a symlink at the last step. tests/helpers/nofeature matches
 * these exact flags to refuse the open as a host that restricts user
 * namespaces does (userns_nocaps). */
#define USERNS_MAP_OPEN_FLAGS (O_WRONLY | O_CLOEXEC | O_NOFOLLOW)

/* Child, just after clone(CLONE_NEWUSER): map the caller's uid and gid onto
 * themselves and deny setgroups. 0, or -1 with st (STAGE_USERNS). */
int userns_write_identity_maps(uid_t uid, gid_t gid, struct child_status *st);

/* A root caller's full identity map (every uid and gid of our own namespace
 * onto itself: 0..4294967294 on a host), so that the capabilities it keeps apply to every owner inside
 * the writable binds:
 *  - parent: userns_can_map_all() says whether this process may write one
 *    (CAP_SETUID and CAP_SETGID); userns_map_all() writes it for a child
 *    (setgroups denied too): 0 or an errno;
 *  - child, just after clone(CLONE_NEWUSER): userns_wait_full_map() reads
 *    that errno from fd (0, or -1 with STAGE_USERNS). */
bool userns_can_map_all(void);
int userns_map_all(pid_t pid);
int userns_wait_full_map(int fd, struct child_status *st);

#endif
