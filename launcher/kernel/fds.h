/* SPDX-License-Identifier: MIT */
/* Every fd from one up closed, or marked close-on-exec, on any kernel. */
#ifndef SBX_FDS_H
#define SBX_FDS_H

#include <signal.h>
#include <stdbool.h>

/* Child side (no allocation): close every fd >= first, or with cloexec_only
 * mark each one close-on-exec. 0, or -errno. */
int fds_close_from(int first, bool cloexec_only);

/* Every fd >= first closed but the n in keep. 0, or -errno. */
int fds_close_from_except(int first, const int *keep, int n);

/* A fork of sbx inherits whatever copies of a command's files sbx held in
 * that instant (a worker's, for a call it performs; the closer's). Once sbx
 * drops its own, the fork's close is the last, and the last close of a TCP
 * socket with SO_LINGER and unsent data waits out the linger, a day: a run
 * hung until its timeout on it. Between fds_bound_begin and fds_bound_end
 * such a wait ends within 20 ms: an interval timer's SIGALRM (caught, doing
 * nothing) interrupts it, and the kernel finishes the close in the
 * background, as at a process's exit. Child side; 0, or -errno. */
struct fds_bound {
	struct sigaction act;
	sigset_t mask;
};
int fds_bound_begin(struct fds_bound *b);
void fds_bound_end(const struct fds_bound *b);

/* fds_close_from(first, false) between fds_bound_begin and _end. */
int fds_close_from_bounded(int first);

#endif
