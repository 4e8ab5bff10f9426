/* SPDX-License-Identifier: MIT */
/* The namespace view's /dev (ns_dev.c). */
#ifndef SBX_NS_DEV_H
#define SBX_NS_DEV_H

#include "ns_mounts.h"

#define NS_DEV_NODES 6
extern const char *const ns_dev_nodes[NS_DEV_NODES];

/* Before the view hides them: handles on the host's nodes. */
int ns_dev_grab(struct ns_handle *nodes, struct child_status *st);
/* A tmpfs on /dev with the nodes, the fd links, private ptys and /dev/shm. */
int ns_dev_populate(struct ns_handle *nodes, const char *shm_opts, struct child_status *st);
/* Last: /dev itself read-only. */
int ns_dev_seal(struct child_status *st);

#endif
