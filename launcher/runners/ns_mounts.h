/* SPDX-License-Identifier: MIT */
/* Mount helpers shared by the pieces of the namespace view (child side: no
 * allocation, no stdio; every failure reported with the path). */
#ifndef SBX_NS_MOUNTS_H
#define SBX_NS_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "child_status.h"

/* A handle on a tree taken before the view hides it: a detached clone from
 * open_tree (5.2+), or, where open_tree is missing, an O_PATH fd whose
 * /proc/self/fd link is bind-mounted instead. */
struct ns_handle {
	int fd;
	bool detached;
};

#define NS_HANDLE_NONE ((struct ns_handle){ .fd = -1 })

/* Take a handle on path (relative to dirfd; "" with dirfd: the fd itself). */
int ns_grab_at(int dirfd, const char *path, bool recursive, struct ns_handle *h,
	       struct child_status *st);
/* Take a handle on path, which must name the same directory as fd, a handle
 * the parent opened in the host's mount namespace (such a handle cannot be
 * cloned from a new namespace, and a path can be swapped in between). */
int ns_grab_same(const char *path, int fd, bool recursive, struct ns_handle *h,
		 struct child_status *st);
/* The same, recursive, and read-only and nodev wherever it is attached
 * (every mount of it, those below included); attach it after step 2. */
int ns_grab_same_readonly(const char *path, int fd, struct ns_handle *h, struct child_status *st);
/* Mount the handle at target (consumes it). */
int ns_attach(struct ns_handle *h, const char *target, bool recursive, struct child_status *st);
void ns_handle_close(struct ns_handle *h);
/* Make the mount at path read-only (restating the flags it must keep). */
int ns_remount_readonly(const char *path, struct child_status *st);
/* Lift the read-only flag of the bind fallback on the mount at path. */
int ns_remount_writable(const char *path, struct child_status *st);
/* A device node's own mount: read-only (its metadata is the host's), devices
 * allowed (a bind made without open_tree copied step 2's nodev). */
int ns_remount_device(const char *path, struct child_status *st);
/* No device node opens below path (a writable clone of the host's tree:
 * the root, its /tmp, its cache), recursively where the kernel can. */
int ns_nodev(const char *path, struct child_status *st);
/* mkdir each component of path below its first cover_len bytes (a tmpfs of
 * ours); the last one as a directory, or as an empty file when !dir. */
int ns_make_mount_point(const char *path, size_t cover_len, bool dir, struct child_status *st);
/* dst = a + b, within size. */
int ns_join(char *dst, size_t size, const char *a, const char *b);

#endif
