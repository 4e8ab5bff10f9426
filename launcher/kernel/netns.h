/* SPDX-License-Identifier: MIT */
/* --net none: a network namespace of the run's own with only loopback up. */
#ifndef SBX_NETNS_H
#define SBX_NETNS_H

#include <stdint.h>

#include "child_status.h"

/* Child (no allocation): set `lo` up over rtnetlink. Needs CAP_NET_ADMIN in
 * the namespace, so it runs before capabilities are dropped. 0 or -1 with st.
 * cookie (or NULL): where the namespace's cookie goes (SO_NETNS_COOKIE,
 * Linux 5.14+; 0 where the kernel has none), for the supervisor to know a
 * socket of the run's own namespace by. */
int netns_loopback_up(struct child_status *st, uint64_t *cookie);

#endif
