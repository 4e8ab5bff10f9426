/* SPDX-License-Identifier: MIT */
/* Every fd from one up closed, or marked close-on-exec, on any kernel. */
#ifndef SBX_FDS_H
#define SBX_FDS_H

#include <stdbool.h>

/* Child side (no allocation): close every fd >= first, or with cloexec_only
 * mark each one close-on-exec. 0, or -errno. */
int fds_close_from(int first, bool cloexec_only);

#endif
