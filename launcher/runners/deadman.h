/* SPDX-License-Identifier: MIT */
/* The run's dead-man switch under Landlock ABI 6+ (deadman.c). */
#ifndef SBX_DEADMAN_H
#define SBX_DEADMAN_H

#include "child.h"

/* Child (no allocation), just before the runner's own ruleset: on ABI 6+,
 * enter a signal-scoping domain and leave a helper in it that ends every
 * process of the run when spec->deadman_fd reaches end of file (deadman.c).
 * 0 or -1 with st. */
int deadman_start(const struct child_spec *spec, struct child_status *st);

#endif
