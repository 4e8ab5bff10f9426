/* SPDX-License-Identifier: MIT */
/* The namespace runner's file view: everything read-only, a minimal /dev with
 * private ptys and /dev/shm, a private /proc, credential stores hidden, and in
 * workspace-write a writable root (its protected paths read-only), a /tmp of
 * the workspace's own and its tool-cache directory. Built in the child,
 * inside its new user, mount and PID namespaces. */
#ifndef SBX_NS_VIEW_H
#define SBX_NS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "child.h"

/* Size of the private tmpfs mounts (/dev/shm; /tmp where no directory of
 * the workspace's own is given), and their inodes (engine/run_limits.c:
 * one per 16 KiB), where the parent gave no options of the run's. */
#define NS_VIEW_TMP_SIZE "1g"
#define NS_VIEW_TMP_INODES "65536"

#define NS_VIEW_MAX_PATHS 256
/* $HOME and the passwd home. */
#define NS_VIEW_MAX_HOMES 2

/* A list of paths, prepared by the parent (pointers into its memory). */
struct ns_path_list {
	const char *path[NS_VIEW_MAX_PATHS];
	size_t n;
};

/* The view's extras, prepared by the parent; the child only reads them,
 * except for the facts it reports back (marked "out"). */
struct ns_view_spec {
	/* workspace-write: a directory of the workspace's own, bound on /tmp so
	 * that files there last across the calls of one root or session
	 * (-1: a fresh tmpfs per run). */
	const char *tmp_path;
	int tmp_fd;
	/* workspace-write: the tool-cache directory, writable at its own path
	 * (NULL: none). */
	const char *cache_dir;
	int cache_fd;
	/* workspace-write: the caller's homes that lie in the host's /tmp,
	 * outside the root (resolved, none inside another), with the parent's
	 * handles on them: brought into the run's own /tmp at their own path,
	 * read-only, their hidden paths covered there. */
	const char *home_path[NS_VIEW_MAX_HOMES];
	int home_fd[NS_VIEW_MAX_HOMES];
	size_t n_homes;
	/* Paths relative to the root that stay read-only inside it (those that
	 * exist when the run starts). */
	struct ns_path_list protect;
	/* Absolute paths hidden from the command: an empty read-only directory
	 * or file in their place. */
	struct ns_path_list hide;
	/* The directories that hold a credential store, or would (the deepest
	 * directory of its path that exists), absolute and resolved, shallow
	 * first: each shown as it was when the run started (ns_rebuild.c), so
	 * that a store made or renamed in during the run is not in view. */
	struct ns_path_list rebuild;
	/* Hidden paths (sbx's own state) whose directories between the root and
	 * them stay in place in workspace-write (ns_hide.c): later runs find
	 * them by path. */
	struct ns_path_list pinned;
	/* Absolute paths below a hidden directory that stay readable
	 * (~/.ssh/known_hosts, public keys). */
	struct ns_path_list reveal;
	/* Unix sockets under /tmp the command may still reach (allow-listed),
	 * bound into the workspace's own /tmp at the same path. */
	struct ns_path_list sockets;
	/* out: whether a private /proc could be mounted. */
	bool private_proc;
};

/* Where a path lies in a workspace-write view (root NULL: read-only, all
 * NS_OUTSIDE): inside the root, inside a home brought into the run's /tmp
 * (and not the root), or elsewhere. Pure. */
enum ns_place { NS_OUTSIDE, NS_IN_HOME, NS_IN_ROOT };
enum ns_place ns_place_of(const struct ns_view_spec *v, const char *root, const char *path);

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
