/* SPDX-License-Identifier: MIT */
/* Capabilities of the command, set in the child right before exec (caps.c). */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

#include "child_status.h"

/* Child (no allocation): drop every capability (effective, permitted,
 * inheritable, bounding, ambient), lock the securebits where we hold
 * CAP_SETPCAP, and set no_new_privs. For an unprivileged caller the bounding
 * set and securebits cannot be changed and need not be: it holds nothing and
 * no_new_privs stops it from gaining anything at exec. 0 or -1 with st. */
int caps_drop_all(struct child_status *st);

#endif
