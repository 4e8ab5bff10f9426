/* SPDX-License-Identifier: MIT */
/* The namespace view's /dev: a small tmpfs of our own, never the host's (a
 * read-only mount does not stop writes to a device node). It holds the
 * harmless nodes bound from the host, /dev/tty (with no controlling terminal
 * it answers ENXIO, the truth), a private devpts instance for new ptys and a
 * private /dev/shm; nothing else can be created there. Child side. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ns_dev.h"

/* Bound from the host. Landlock (where it is layered) refuses writes to all
 * but /dev/null; without it the read-only seal does not apply to devices,
 * which is why only these are here: harmless to read and to write. */
const char *const ns_dev_nodes[NS_DEV_NODES] = { "null", "zero", "full", "random", "urandom",
						 "tty" };

/* Small: a few empty files, links and directories, and the mount point of a
 * workspace root that lies under /dev (e.g. /dev/shm/x). */
#define DEV_TMPFS_OPTS "mode=0755,size=64k,nr_inodes=64"
#define DEV_TMPFS_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

int ns_dev_grab(struct ns_handle *nodes, struct child_status *st)
{
	char path[32];

	for (size_t i = 0; i < NS_DEV_NODES; i++)
		if (ns_join(path, sizeof(path), "/dev/", ns_dev_nodes[i]) < 0 ||
		    ns_grab_at(AT_FDCWD, path, false, &nodes[i], st) < 0)
			return -1;
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

/* New ptys for the run (script, pty, expect): a devpts instance of its own,
 * so the host's terminals (the caller's among them) are not in it. */
static int mount_ptys(struct child_status *st)
{
	if (mkdir("/dev/pts", 0755) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mkdir", "/dev/pts");
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mount devpts", "/dev/pts");
	if (symlink("pts/ptmx", "/dev/ptmx") < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "symlink", "/dev/ptmx");
	return 0;
}

int ns_dev_populate(struct ns_handle *nodes, const char *shm_opts, struct child_status *st)
{
	static const char *const links[][2] = {
		{ "/dev/fd", "/proc/self/fd" },
		{ "/dev/stdin", "/proc/self/fd/0" },
		{ "/dev/stdout", "/proc/self/fd/1" },
		{ "/dev/stderr", "/proc/self/fd/2" },
	};
	char path[32];

	if (mount("tmpfs", "/dev", "tmpfs", DEV_TMPFS_FLAGS, DEV_TMPFS_OPTS) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", "/dev");
	for (size_t i = 0; i < NS_DEV_NODES; i++)
		if (ns_join(path, sizeof(path), "/dev/", ns_dev_nodes[i]) < 0 ||
		    create_file(path, st) < 0)
			return -1;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][1], links[i][0]) < 0)
			return child_status_set(st, STAGE_MOUNT, errno, "symlink", links[i][0]);
	if (mount_ptys(st) < 0)
		return -1;
	/* POSIX shared memory and semaphores (Python multiprocessing, for one)
	 * need a writable /dev/shm. A private one, in every confined mode: what
	 * the command puts there leaves nothing behind. It lives in memory, so
	 * it is capped. */
	if (mkdir("/dev/shm", 01777) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mkdir", "/dev/shm");
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, shm_opts) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "mount tmpfs", "/dev/shm");
	/* The host's nodes, bound onto the empty files. A tmpfs mounted inside a
	 * user namespace is nodev (SB_I_NODEV), so a node created there would
	 * not open; the clones live on the host's devtmpfs and do. Each is
	 * made read-only: that does not stop writes to the device, but it
	 * stops chmod, chown, utimes and xattrs of the host's node (a root
	 * caller's command owns it, and the clone kept devtmpfs' writable
	 * flag). */
	for (size_t i = 0; i < NS_DEV_NODES; i++)
		if (ns_join(path, sizeof(path), "/dev/", ns_dev_nodes[i]) < 0 ||
		    ns_attach(&nodes[i], path, false, st) < 0 || ns_remount_readonly(path, st) < 0)
			return -1;
	return 0;
}

/* Nothing more can be created in /dev. The mounts inside it (nodes, ptys,
 * /dev/shm) are separate and keep working. */
int ns_dev_seal(struct child_status *st)
{
	if (mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | DEV_TMPFS_FLAGS, NULL) < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "remount read-only", "/dev");
	return 0;
}
