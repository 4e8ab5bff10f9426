/* SPDX-License-Identifier: MIT */
/* The namespace runner's file view, built in the clone(CLONE_VM|CLONE_VFORK)
 * child inside its new user and mount namespaces: no allocation, no stdio, no
 * locks; paths are built on the stack, /proc/self/mountinfo goes into
 * spec->scratch.
 *
 * In this order, each step for a reason:
 *   1. take handles on what the view is about to hide or make read-only: the
 *      safe /dev nodes and, in workspace-write, the root (a detached clone
 *      keeps the host's writable flags);
 *   2. make every mount read-only, recursively, in one call;
 *   3. cover /dev with a small tmpfs holding only the safe nodes;
 *   4. workspace-write: a private tmpfs on /tmp, then the root's clone
 *      attached back at its own path (after /tmp, which may hide it);
 *   5. make the /dev tmpfs read-only.
 * New mounts made after step 2 are writable until we say otherwise, which is
 * why the read-only step comes before them and /dev is sealed last. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "classify.h" /* path_is_within: pure, allocation-free */
#include "mount_api.h"
#include "ns_view.h"

/* The only device nodes the command gets. A read-only mount does not stop
 * writes to a device node, so /dev can never be the host's: these five are
 * harmless to read, and Landlock (layered last) refuses writes to all but
 * /dev/null. No tty: the command's stdio are pipes and /dev/null. */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom" };
#define N_DEV_NODES (sizeof(dev_nodes) / sizeof(dev_nodes[0]))

/* Small: five empty files, four symlinks, a directory, and the mount point of
 * a workspace root that lies under /dev (e.g. /dev/shm/x). */
#define DEV_TMPFS_OPTS "mode=0755,size=64k,nr_inodes=64"
#define DEV_TMPFS_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* A handle on a tree taken before the view hides it: a detached clone from
 * open_tree (5.2+), or, where open_tree is missing, an O_PATH fd whose
 * /proc/self/fd link is bind-mounted instead. */
struct handle {
	int fd;
	bool detached;
};

struct handles {
	struct handle dev[N_DEV_NODES];
	struct handle root;
};

/* dst = a + b, on the caller's stack. */
static int join(char *dst, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > size)
		return -1;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb + 1);
	return 0;
}

static int grab(const char *path, bool recursive, struct handle *h, struct child_status *st)
{
	unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0);
	int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path, flags);

	if (fd >= 0) {
		h->fd = fd;
		h->detached = true;
		return 0;
	}
	if (errno != ENOSYS)
		return child_status_set(st, STAGE_MOUNT, errno, "open_tree", path);
	/* No open_tree (before 5.2, or a seccomp profile hides it): keep the
	 * path's dentry instead and bind it later through /proc/self/fd, which
	 * reaches it even once a mount covers its path. */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "open", path);
	h->fd = fd;
	h->detached = false;
	return 0;
}

static int attach(struct handle *h, const char *target, bool recursive, struct child_status *st)
{
	if (h->detached) {
		if (syscall(SYS_move_mount, h->fd, "", AT_FDCWD, target,
			    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "move_mount", target);
	} else {
		char src[32];

		child_put_uint(src, child_put_str(src, 0, sizeof(src), "/proc/self/fd/"),
			       sizeof(src), (unsigned long)h->fd);
		if (mount(src, target, NULL, MS_BIND | (recursive ? MS_REC : 0), NULL) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "mount --bind", target);
	}
	close(h->fd);
	h->fd = -1;
	return 0;
}

static int create_file(const char *path, struct child_status *st)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "create", path);
	close(fd);
	return 0;
}

static int populate_dev(struct handles *h, struct child_status *st)
{
	static const char *const links[][2] = {
		{ "/dev/fd", "/proc/self/fd" },
		{ "/dev/stdin", "/proc/self/fd/0" },
		{ "/dev/stdout", "/proc/self/fd/1" },
		{ "/dev/stderr", "/proc/self/fd/2" },
	};
	char path[64];

	if (mount("tmpfs", "/dev", "tmpfs", DEV_TMPFS_FLAGS, DEV_TMPFS_OPTS) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", "/dev");
	for (size_t i = 0; i < N_DEV_NODES; i++)
		if (join(path, sizeof(path), "/dev/", dev_nodes[i]) < 0 ||
		    create_file(path, st) < 0)
			return -1;
	/* Present so programs that look for it find it, but never writable
	 * (sealed with /dev): the policy allows writes to root and /tmp only,
	 * and the host's /dev/shm is a host-wide writable tmpfs. */
	if (mkdir("/dev/shm", 01777) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mkdir", "/dev/shm");
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][1], links[i][0]) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "symlink", links[i][0]);
	/* The host's nodes, bound onto the empty files. A tmpfs mounted inside a
	 * user namespace is nodev (SB_I_NODEV), so a node created there would
	 * not open; the clones live on the host's devtmpfs and do. */
	for (size_t i = 0; i < N_DEV_NODES; i++)
		if (join(path, sizeof(path), "/dev/", dev_nodes[i]) < 0 ||
		    attach(&h->dev[i], path, false, st) < 0)
			return -1;
	return 0;
}

/* Nothing can be created in /dev nor in /dev/shm. The nodes bound there are
 * separate mounts and keep working. */
static int seal_dev(struct child_status *st)
{
	if (mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | DEV_TMPFS_FLAGS, NULL) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "remount read-only", "/dev");
	return 0;
}

/* mkdir each component of root below cover (a fresh tmpfs of ours). */
static int make_path(const char *root, size_t cover_len, struct child_status *st)
{
	char p[PATH_MAX];
	size_t n = strlen(root);

	if (n >= sizeof(p))
		return child_status_set(st, STAGE_MOUNT, ENAMETOOLONG, "workspace root", root);
	memcpy(p, root, n + 1);
	for (size_t i = cover_len + 1; i <= n; i++) {
		char c = p[i];

		if (c != '/' && c != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return child_status_set(st, STAGE_MOUNT, errno, "mkdir", p);
		p[i] = c;
	}
	return 0;
}

static int attach_root(const char *root, const char *tmp, struct handles *h,
		       struct child_status *st)
{
	/* Our tmpfs on /tmp (or /dev) hides a root below it: give the clone a
	 * mount point inside the tmpfs, at the same path. */
	if (path_is_within(root, tmp) && make_path(root, strlen(tmp), st) < 0)
		return -1;
	if (path_is_within(root, "/dev") && make_path(root, 4, st) < 0)
		return -1;
	if (attach(&h->root, root, true, st) < 0)
		return -1;
	if (!h->root.detached) {
		/* The bind fallback copied the read-only flag of step 2: lift it
		 * on the root's own mount. Mounts nested inside the root stay
		 * read-only there (only open_tree keeps their host flags). */
		struct statfs sf;

		if (statfs(root, &sf) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "statfs", root);
		if (mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | ns_restate_flags(sf.f_flags),
			  NULL) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "remount writable", root);
	}
	return 0;
}

static int build(const struct child_spec *spec, bool ww, const char *tmp, struct handles *h,
		 struct child_status *st)
{
	char path[64];

	/* Step 1. Before anything is covered or made read-only. */
	for (size_t i = 0; i < N_DEV_NODES; i++)
		if (join(path, sizeof(path), "/dev/", dev_nodes[i]) < 0 ||
		    grab(path, false, &h->dev[i], st) < 0)
			return -1;
	/* Recursive, so mounts inside the workspace come along as the host
	 * has them. */
	if (ww && grab(spec->root, true, &h->root, st) < 0)
		return -1;

	/* Step 2. */
	if (ns_make_all_readonly(spec, ww, tmp, st) < 0)
		return -1;

	/* Step 3. */
	if (populate_dev(h, st) < 0)
		return -1;

	/* Step 4. A private tmpfs rather than the host's /tmp: the command's
	 * temporary files neither see nor touch other users' and vanish with
	 * the run. It lives in memory, so it is capped: a runaway command gets
	 * ENOSPC instead of pushing the host towards the OOM killer. */
	if (ww) {
		if (mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV,
			  spec->tmpfs_opts ? spec->tmpfs_opts : "mode=1777,size=" NS_VIEW_TMP_SIZE) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", tmp);
		if (attach_root(spec->root, tmp, h, st) < 0)
			return -1;
	}

	/* Step 5. Last, as a root under /dev needed its mount point made. */
	return seal_dev(st);
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
	/* A root of "/" or "/dev" would hand the command the host's device
	 * nodes (and "/" is danger-full-access anyway); a relative path or a
	 * /tmp of "/" would defeat the path checks below. */
	if (ww && (!spec->root || spec->root[0] != '/' || path_is_within("/dev", spec->root)))
		return child_status_set(st, STAGE_MOUNT, EINVAL, "workspace root not allowed",
					spec->root);
	if (ww && (tmp[0] != '/' || tmp[1] == '\0'))
		return child_status_set(st, STAGE_MOUNT, EINVAL, "tmp dir not allowed", tmp);

	for (size_t i = 0; i < N_DEV_NODES; i++)
		h.dev[i].fd = -1;
	h.root.fd = -1;
	rc = build(spec, ww, tmp, &h, st);
	for (size_t i = 0; i < N_DEV_NODES; i++)
		if (h.dev[i].fd >= 0)
			close(h.dev[i].fd);
	if (h.root.fd >= 0)
		close(h.root.fd);
	return rc;
}
