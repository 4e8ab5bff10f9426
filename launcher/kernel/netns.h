/* SPDX-License-Identifier: MIT */
/* --net none: a network namespace of the run's own with only loopback up. */
#ifndef SBX_NETNS_H
#define SBX_NETNS_H

#include "child_status.h"

/* Child (no allocation): set `lo` up over rtnetlink. Needs CAP_NET_ADMIN in
 * the namespace, so it runs before capabilities are dropped. 0 or -1 with st. */
int netns_loopback_up(struct child_status *st);

#endif
