/* SPDX-License-Identifier: MIT */
/* The namespace runner's file view, built in the run's PID namespace init,
 * inside its new user and mount namespaces: no allocation, no stdio, no
 * locks; paths are built on the stack, /proc/self/mountinfo goes into
 * spec->scratch.
 *
 * In this order, each step for a reason:
 *   1. take handles on what the view is about to hide or make read-only: the
 *      /dev nodes, the entries a hidden directory keeps readable, the allowed
 *      sockets under /tmp and, in workspace-write, the root, its /tmp, its
 *      tool cache (a detached clone keeps the host's writable flags) and a
 *      home of the caller's in the host's /tmp (its clone made read-only);
 *   2. make every mount read-only, recursively, in one call;
 *   3. a private /proc (the run's processes only);
 *   4. cover /dev with a small tmpfs holding only the safe nodes, private
 *      ptys and a private /dev/shm;
 *   5. show each directory that holds a credential store as it was (its
 *      entries bound back into a read-only tmpfs: a store made or renamed
 *      in later is not in view), then cover the hidden paths outside the
 *      root with empty read-only mounts;
 *   6. workspace-write: the workspace's own /tmp, a home in the host's /tmp
 *      brought back into it (read-only; shown as it was and covered as in
 *      step 5, since its clone predates the covers), the root's clone
 *      attached back at its own path (after /tmp, which may hide it, and the
 *      home, which may hold it), the tool cache, then the hidden paths inside
 *      the root and the protected ones;
 *   7. the revealed entries; the covers and /dev sealed read-only.
 * New mounts made after step 2 are writable until we say otherwise, which is
 * why the read-only step comes before them and the seals come last. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "classify.h" /* path_is_within: pure, allocation-free */
#include "ns_dev.h"
#include "ns_hide.h"
#include "ns_proc.h"
#include "ns_view.h"

struct handles {
	struct ns_handle dev[NS_DEV_NODES];
	struct ns_handle root, tmp, cache, home[NS_VIEW_MAX_HOMES];
	struct ns_hide_handles hide;
};

/* The options of the private tmpfs mounts (/dev/shm; /tmp without a
 * directory of the workspace's own): the run's tmp_size, set by the parent. */
static const char *ns_view_tmpfs_opts(const struct child_spec *spec)
{
	return spec->tmpfs_opts ? spec->tmpfs_opts
				: "mode=1777,size=" NS_VIEW_TMP_SIZE ",nr_inodes=" NS_VIEW_TMP_INODES;
}

/* How much of path lies on a tmpfs of ours that hides the host's tree there
 * (so a mount point must be made in it), or 0. */
static size_t cover_of(const struct ns_view_spec *v, const char *path, const char *tmp, bool ww)
{
	size_t cover = ns_hide_cover(v, path);

	if (path_is_within(path, "/dev/shm") && strlen("/dev/shm") > cover)
		cover = strlen("/dev/shm");
	else if (path_is_within(path, "/dev") && strlen("/dev") > cover)
		cover = strlen("/dev");
	if (ww && path_is_within(path, tmp) && strlen(tmp) > cover)
		cover = strlen(tmp);
	return cover;
}

static int attach_at(const struct ns_view_spec *v, struct ns_handle *h, const char *path,
		     const char *tmp, struct child_status *st)
{
	size_t cover = cover_of(v, path, tmp, true);

	if (cover && ns_make_mount_point(path, cover, true, st) < 0)
		return -1;
	if (ns_attach(h, path, true, st) < 0)
		return -1;
	/* The bind fallback copied the read-only flag of step 2: lift it on
	 * the mount itself. Mounts nested inside stay read-only there (only
	 * open_tree keeps their host flags). A clone kept the host's dev
	 * flag: a device node in the workspace would write a disk. */
	return h->detached ? ns_nodev(path, st) : ns_remount_writable(path, st);
}

/* /tmp of the workspace's own (a directory sbx keeps for this root or
 * session), or a fresh capped tmpfs. */
static int mount_tmp(const struct child_spec *spec, struct handles *h, const char *tmp,
		     struct child_status *st)
{
	if (h->tmp.fd >= 0) {
		if (ns_attach(&h->tmp, tmp, false, st) < 0)
			return -1;
		return h->tmp.detached ? ns_nodev(tmp, st) : ns_remount_writable(tmp, st);
	}
	if (mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, ns_view_tmpfs_opts(spec)) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", tmp);
	return 0;
}

static int grab_all(const struct child_spec *spec, bool ww, struct handles *h,
		    struct child_status *st)
{
	const struct ns_view_spec *v = spec->view;

	if (ns_dev_grab(h->dev, st) < 0 || ns_hide_grab(v, ww, &h->hide, st) < 0)
		return -1;
	if (!ww)
		return 0;
	/* Recursive, so mounts inside the workspace come along as the host
	 * has them. From the handle the engine opened: whatever the path
	 * names by now, the root is the directory that was resolved. */
	if (ns_grab_same(spec->root, spec->root_fd, true, &h->root, st) < 0)
		return -1;
	if (v->tmp_path && v->tmp_fd >= 0 && ns_grab_same(v->tmp_path, v->tmp_fd, false, &h->tmp, st) < 0)
		return -1;
	if (v->cache_dir && v->cache_fd >= 0 &&
	    ns_grab_same(v->cache_dir, v->cache_fd, false, &h->cache, st) < 0)
		return -1;
	/* From the engine's handle too, and before any cover, so that what
	 * is covered in it is chosen on the home's own tree (step 6), not on
	 * whatever a path under the host's /tmp names by then. A home that
	 * changed since fails the run: its hidden paths were chosen on the
	 * one resolved. */
	for (size_t i = 0; i < v->n_homes && i < NS_VIEW_MAX_HOMES; i++)
		if (v->home_path[i] && v->home_fd[i] >= 0 &&
		    ns_grab_same_readonly(v->home_path[i], v->home_fd[i], &h->home[i], st) < 0)
			return -1;
	return 0;
}

/* A home of the caller's in the host's /tmp, outside the root: ~ and what
 * reads its settings there (git's identity, tools' config) work as in any
 * other home. Why read-only: a workspace-write run writes its root and its
 * own /tmp, not the user's home (a shell start-up file or a git config
 * written there would run outside the sandbox later). */
static int attach_home(const struct ns_view_spec *v, struct ns_handle *h, const char *path,
		       const char *tmp, struct child_status *st)
{
	size_t cover = cover_of(v, path, tmp, true);
	struct statfs sf;

	if (cover && ns_make_mount_point(path, cover, true, st) < 0)
		return -1;
	if (ns_attach(h, path, true, st) < 0)
		return -1;
	/* Fail closed: the clone was made read-only, and the bind fallback
	 * copied the flags step 2 gave every mount. */
	if (statfs(path, &sf) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "statfs", path);
	if (!(sf.f_flags & ST_RDONLY))
		return child_status_set(st, STAGE_MOUNT, EPERM, "home still writable", path);
	return 0;
}

/* Each home, shown and covered as step 5 does elsewhere: on its clone now. */
static int attach_homes(const struct child_spec *spec, struct handles *h, const char *tmp,
			struct child_status *st)
{
	const struct ns_view_spec *v = spec->view;

	for (size_t i = 0; i < v->n_homes && i < NS_VIEW_MAX_HOMES; i++)
		if (h->home[i].fd >= 0 && attach_home(v, &h->home[i], v->home_path[i], tmp, st) < 0)
			return -1;
	if (ns_rebuild_apply(v, spec->root, NS_IN_HOME, st) < 0)
		return -1;
	return ns_hide_apply(v, spec->root, NS_IN_HOME, st);
}

static int build(const struct child_spec *spec, bool ww, const char *tmp, struct handles *h,
		 struct child_status *st)
{
	struct ns_view_spec *v = spec->view;

	if (grab_all(spec, ww, h, st) < 0 || ns_make_all_readonly(spec, ww, tmp, st) < 0 ||
	    ns_proc_mount(&v->private_proc, st) < 0 ||
	    ns_dev_populate(h->dev, ns_view_tmpfs_opts(spec), st) < 0 ||
	    ns_rebuild_apply(v, ww ? spec->root : NULL, NS_OUTSIDE, st) < 0 ||
	    ns_hide_apply(v, ww ? spec->root : NULL, NS_OUTSIDE, st) < 0)
		return -1;
	if (ww) {
		if (mount_tmp(spec, h, tmp, st) < 0 || ns_hide_sockets(v, &h->hide, st) < 0 ||
		    attach_homes(spec, h, tmp, st) < 0 || attach_at(v, &h->root, spec->root, tmp, st) < 0)
			return -1;
		if (h->cache.fd >= 0 && attach_at(v, &h->cache, v->cache_dir, tmp, st) < 0)
			return -1;
		if (ns_hide_apply(v, spec->root, NS_IN_ROOT, st) < 0 || ns_protect(v, spec->root, st) < 0)
			return -1;
	}
	if (ns_hide_reveal(v, &h->hide, st) < 0 || ns_hide_seal(v, st) < 0)
		return -1;
	return ns_dev_seal(st);
}

int ns_view_build(const struct child_spec *spec, struct child_status *st)
{
	bool ww = spec->mode == SBX_MODE_WORKSPACE_WRITE;
	const char *tmp = spec->tmp_dir && spec->tmp_dir[0] ? spec->tmp_dir : "/tmp";
	struct handles h;
	int rc;

	if (spec->mode != SBX_MODE_READ_ONLY && !ww)
		return child_status_set(st, STAGE_MOUNT, EINVAL, "namespace runner: unconfined mode",
					NULL);
	if (!spec->view)
		return child_status_set(st, STAGE_MOUNT, EINVAL, "namespace runner: no view", NULL);
	/* A root of "/" or "/dev" would hand the command the host's device
	 * nodes (and "/" is danger-full-access anyway); a relative path or a
	 * /tmp of "/" would defeat the path checks below. */
	if (ww && (!spec->root || spec->root[0] != '/' || path_is_within("/dev", spec->root) ||
		   spec->root_fd < 0))
		return child_status_set(st, STAGE_MOUNT, EINVAL, "workspace root not allowed",
					spec->root);
	if (ww && (tmp[0] != '/' || tmp[1] == '\0'))
		return child_status_set(st, STAGE_MOUNT, EINVAL, "tmp dir not allowed", tmp);

	for (size_t i = 0; i < NS_DEV_NODES; i++)
		h.dev[i] = NS_HANDLE_NONE;
	h.root = h.tmp = h.cache = NS_HANDLE_NONE;
	for (size_t i = 0; i < NS_VIEW_MAX_HOMES; i++)
		h.home[i] = NS_HANDLE_NONE;
	for (size_t i = 0; i < NS_VIEW_MAX_PATHS; i++)
		h.hide.reveal[i] = h.hide.sockets[i] = NS_HANDLE_NONE;
	rc = build(spec, ww, tmp, &h, st);
	for (size_t i = 0; i < NS_DEV_NODES; i++)
		ns_handle_close(&h.dev[i]);
	ns_handle_close(&h.root);
	ns_handle_close(&h.tmp);
	ns_handle_close(&h.cache);
	for (size_t i = 0; i < NS_VIEW_MAX_HOMES; i++)
		ns_handle_close(&h.home[i]);
	ns_hide_close(&h.hide);
	return rc;
}
