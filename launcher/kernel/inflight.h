/* SPDX-License-Identifier: MIT */
/* Room for sbx's own fd passing. The kernel refuses an SCM_RIGHTS send once
 * the sender's user has more files in flight (sent, not yet received) than
 * the sender's soft RLIMIT_NOFILE, unless the sending thread has
 * CAP_SYS_RESOURCE or CAP_SYS_ADMIN (net/unix/af_unix.c, too_many_unix_fds).
 * The count is per user, across the host. A command's sends with fds are
 * all performed by sbx's supervisor; these keep them from using up the room
 * a run's setup needs to hand the supervisor its listener. */
#ifndef SBX_INFLIGHT_H
#define SBX_INFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

/* Once per process, where the process opted in (sbx_process_opt_in,
 * SBX_PROCESS_NOFILE_MARGIN): our soft RLIMIT_NOFILE set a margin below the
 * hard one (lowered or raised). Returns the soft limit the process had
 * before (for the child to put back), or 0 when unchanged. */
uint64_t inflight_room_reserve(void);
/* What inflight_room_reserve() returned, or 0 before it (nothing to put
 * back in a command's process). */
uint64_t inflight_room_caller_soft(void);

/* Child side, allocation-free: the soft RLIMIT_NOFILE up to the hard one
 * (0 or -errno). */
int inflight_room_take(void);

/* Put the soft RLIMIT_NOFILE back to soft (0: nothing to do). 0 or -errno. */
int inflight_room_restore(uint64_t soft);

/* A sendmsg with fds, made by sbx (never one that waits: flags should hold
 * MSG_DONTWAIT, or the socket be non-blocking), one at a time in the
 * process. own: a request of sbx's own (the run's opener's,
 * runners/opener.h) that may use the margin: the soft limit is the hard one
 * for that one send. Why one at a time: the limit is the process's, so no
 * send made for a command may overlap that instant and take the margin too.
 * The result of sendmsg, errno as it left it. */
struct msghdr;
long inflight_sendmsg(int sock, const struct msghdr *msg, int flags, bool own);

/* For a send performed for the command: drop CAP_SYS_RESOURCE and
 * CAP_SYS_ADMIN from this thread's effective set (capset is per thread),
 * so the kernel counts it as it counts the command's own. Returns what to
 * pass to inflight_exempt_restore. */
uint64_t inflight_exempt_drop(void);
void inflight_exempt_restore(uint64_t saved);

#endif
