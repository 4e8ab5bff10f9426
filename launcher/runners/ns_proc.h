/* SPDX-License-Identifier: MIT */
#ifndef SBX_NS_PROC_H
#define SBX_NS_PROC_H

#include <stdbool.h>

#include "child_status.h"

/* A private procfs on /proc (we are in the run's PID namespace). Where the
 * kernel refuses one, *private_proc stays false and /proc stays the host's
 * (read-only like the rest). 0, or -1 with st. */
int ns_proc_mount(bool *private_proc, struct child_status *st);

#endif
