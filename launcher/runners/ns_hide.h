/* SPDX-License-Identifier: MIT */
/* Hidden, revealed and protected paths of the namespace view (ns_hide.c). */
#ifndef SBX_NS_HIDE_H
#define SBX_NS_HIDE_H

#include "ns_mounts.h"
#include "ns_view.h"

struct ns_hide_handles {
	struct ns_handle reveal[NS_VIEW_MAX_PATHS];
	struct ns_handle sockets[NS_VIEW_MAX_PATHS];
};

/* Before anything is covered: handles on what stays reachable below a hidden
 * directory, and on the allow-listed sockets under /tmp. */
int ns_hide_grab(const struct ns_view_spec *v, bool ww, struct ns_hide_handles *h,
		 struct child_status *st);
/* ns_rebuild.c: before the covers, each directory of v->rebuild (shallow
 * first) that lies where (ns_place_of) shown as it was: a read-only tmpfs
 * with its entries bound back, an empty one of its kind for each hidden
 * entry. 0, or -1 with st filled. */
int ns_rebuild_apply(const struct ns_view_spec *v, const char *root, enum ns_place where,
		     struct child_status *st);
/* Cover each hidden path that lies where (ns_place_of). */
int ns_hide_apply(const struct ns_view_spec *v, const char *root, enum ns_place where,
		  struct child_status *st);
/* After every hidden path is covered: the revealed entries, read-only. */
int ns_hide_reveal(const struct ns_view_spec *v, struct ns_hide_handles *h,
		   struct child_status *st);
/* workspace-write, after /tmp is the workspace's own: the allowed sockets. */
int ns_hide_sockets(const struct ns_view_spec *v, struct ns_hide_handles *h,
		    struct child_status *st);
/* workspace-write, after the root is attached: protected paths read-only. */
int ns_protect(const struct ns_view_spec *v, const char *root, struct child_status *st);
/* Last: the covers themselves read-only. */
int ns_hide_seal(const struct ns_view_spec *v, struct child_status *st);
/* The length of the hidden directory that covers path, or 0. */
size_t ns_hide_cover(const struct ns_view_spec *v, const char *path);
void ns_hide_close(struct ns_hide_handles *h);

#endif
