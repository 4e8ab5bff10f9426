/* SPDX-License-Identifier: MIT */
/* The namespace runner's file view: everything read-only, a minimal /dev, and
 * in workspace-write a writable root and a private /tmp. Built in the clone
 * child, inside its new user and mount namespaces. */
#ifndef SBX_NS_VIEW_H
#define SBX_NS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "child.h"

/* Size of the /tmp tmpfs of a workspace-write run (see ns_view.c). */
#define NS_VIEW_TMP_SIZE "1g"

/* Child (no allocation): build the view. Call after the identity maps are
 * written and "/" was made MS_PRIVATE recursively. spec->scratch holds
 * /proc/self/mountinfo if the kernel lacks mount_setattr (< 5.12), so it
 * should be at least 64 KiB. 0, or -1 with st filled (STAGE_MOUNT). */
int ns_view_build(const struct child_spec *spec, struct child_status *st);

/* Pure: copy the mount point (5th field) of one /proc/self/mountinfo line into
 * out, decoding the kernel's \ooo octal escapes (space is \040). Returns its
 * length, or -1 if the line is malformed or the path does not fit. */
ssize_t ns_mountinfo_mount_point(const char *line, size_t line_len, char *out,
				 size_t out_size);

/* ns_readonly.c: make every mount read-only (one recursive mount_setattr, or
 * the remount walk where the kernel lacks it). Mount points under /dev, and
 * under tmp when ww, are about to be covered and may stay as they are. */
int ns_make_all_readonly(const struct child_spec *spec, bool ww, const char *tmp,
			 struct child_status *st);
/* The per-mount flags a MS_REMOUNT|MS_BIND must restate (from statfs). */
unsigned long ns_restate_flags(unsigned long f_flags);

#endif
