/* SPDX-License-Identifier: MIT */
/* The file systems' own ioctls under the landlock runner. Landlock confines
 * opening a path, not what an ioctl on the open file then changes: a
 * read-only command opened a host file for reading and set its flags and
 * generation (chattr +dAS -v 4242: FS_IOC_SETFLAGS, FS_IOC_SETVERSION), and
 * on btrfs made and removed whole subvolumes in directories outside the
 * writable set. So every ioctl of the file systems' types ('f', 'X', 'v',
 * btrfs's and the FICLONE family's 0x94, f2fs's 0xf5, 0x15) reaches us
 * (seccomp_notify.c), and an allow-list decides, by request number:
 *
 *  - a request that only reads (GETFLAGS, FIEMAP, the encryption and
 *    verity queries, btrfs's info calls): the kernel performs it
 *    (SECCOMP_USER_NOTIF_FLAG_CONTINUE). Safe to let go on: whatever file
 *    another thread puts at that fd number meanwhile, nothing changes;
 *  - a request the kernel grants only on a file open for writing (FICLONE,
 *    FICLONERANGE, ext4's MOVE_EXT), or one that changes no byte of the file
 *    (FIDEDUPERANGE shares extents only where both sides hold the same
 *    bytes): the kernel performs it; its own FMODE_WRITE check stands on an
 *    open Landlock decided;
 *  - a change to the inode's attributes (flags, generation, FSSETXATTR's
 *    flags and project id, and their 32-bit numbers): decided on the object
 *    behind the command's fd (our pidfd_getfd copy: the same open file) by
 *    the writable set, and performed on that copy with the argument we
 *    read, so neither a swapped fd nor a rewritten argument can redirect it;
 *    refused with EACCES outside the writable set;
 *  - everything else of those types (fs-verity, encryption policies and
 *    keys, labels, btrfs's subvolumes and snapshots, defragmentation, any
 *    request we do not know): refused (EPERM). Why not decided by object:
 *    their arguments carry pointers and fd numbers of the command's
 *    (btrfs's snapshot source, verity's salt), and what they change is
 *    rarely a workspace's business (a verity file or an encryption policy
 *    cannot be undone; a key lives in the file system's keyring). */
#include <errno.h>
#include <linux/btrfs.h>
#include <linux/capability.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "supervisor_int.h"

/* ext4's own numbers for the generation, and what 6.1's headers lack. */
#define SV_EXT4_IOC_GETVERSION _IOR('f', 3, long)
#define SV_EXT4_IOC_SETVERSION _IOW('f', 4, long)
#define SV_EXT4_IOC32_GETVERSION _IOR('f', 3, int)
#define SV_EXT4_IOC32_SETVERSION _IOW('f', 4, int)
#define SV_EXT4_IOC_MOVE_EXT _IOWR('f', 15, char[40])
#define SV_EXT4_IOC_GETSTATE _IOW('f', 41, unsigned)
#define SV_EXT4_IOC_GET_ES_CACHE _IOWR('f', 42, char[32])
#define SV_EXT4_IOC_PRECACHE_EXTENTS _IO('f', 18)
#define SV_FS_IOC_GETFSUUID _IOR(0x15, 0, char[17])
#define SV_FS_IOC_GETFSSYSFSPATH _IOR(0x15, 1, char[129])

/* The request's type byte: the file systems' own. */
static bool fs_type(uint32_t req)
{
	switch ((req >> 8) & 0xff) {
	case 'f': case 'X': case 'v': case 0x94: case 0xf5: case 0x15:
		return true;
	default:
		return false;
	}
}

bool sv_is_inode_ioctl_call(const struct seccomp_notif *n)
{
	return n->data.nr == SYS_ioctl && fs_type((uint32_t)n->data.args[1]);
}

static bool reads_only(uint32_t req)
{
	switch (req) {
	case FS_IOC_GETFLAGS: case FS_IOC32_GETFLAGS:
	case FS_IOC_GETVERSION: case FS_IOC32_GETVERSION:
	case SV_EXT4_IOC_GETVERSION: case SV_EXT4_IOC32_GETVERSION:
	case FS_IOC_FSGETXATTR: case FS_IOC_FIEMAP:
	case FS_IOC_GET_ENCRYPTION_POLICY: case FS_IOC_GET_ENCRYPTION_POLICY_EX:
	case FS_IOC_GET_ENCRYPTION_PWSALT: case FS_IOC_GET_ENCRYPTION_KEY_STATUS:
	case FS_IOC_GET_ENCRYPTION_NONCE:
	case FS_IOC_MEASURE_VERITY: case FS_IOC_READ_VERITY_METADATA:
	case FS_IOC_GETFSLABEL: case SV_FS_IOC_GETFSUUID: case SV_FS_IOC_GETFSSYSFSPATH:
	case SV_EXT4_IOC_GETSTATE: case SV_EXT4_IOC_GET_ES_CACHE: case SV_EXT4_IOC_PRECACHE_EXTENTS:
	case BTRFS_IOC_FS_INFO: case BTRFS_IOC_DEV_INFO: case BTRFS_IOC_SPACE_INFO:
	case BTRFS_IOC_INO_LOOKUP_USER: case BTRFS_IOC_GET_SUBVOL_INFO:
	case BTRFS_IOC_GET_SUBVOL_ROOTREF: case BTRFS_IOC_GET_FEATURES:
	case BTRFS_IOC_GET_SUPPORTED_FEATURES: case BTRFS_IOC_SUBVOL_GETFLAGS:
	case BTRFS_IOC_SYNC: case BTRFS_IOC_START_SYNC: case BTRFS_IOC_WAIT_SYNC:
		return true;
	default:
		return false;
	}
}

/* Granted by the kernel on a file open for writing only (the destination
 * of a clone, both files of ext4's extent move), or changing no byte (a
 * dedupe, which the kernel makes only of equal bytes). */
static bool writer_only(uint32_t req)
{
	return req == FICLONE || req == FICLONERANGE || req == FIDEDUPERANGE ||
	       req == SV_EXT4_IOC_MOVE_EXT;
}

/* An attribute change: the size of its argument (the kernel reads an int
 * for the flags and the generation, whatever the number says), or 0. */
static size_t attribute_change(uint32_t req)
{
	switch (req) {
	case FS_IOC_SETFLAGS: case FS_IOC32_SETFLAGS:
	case FS_IOC_SETVERSION: case FS_IOC32_SETVERSION:
	case SV_EXT4_IOC_SETVERSION: case SV_EXT4_IOC32_SETVERSION:
		return sizeof(int);
	case FS_IOC_FSSETXATTR:
		return sizeof(struct fsxattr);
	default:
		return 0;
	}
}

/* Whether the caller could have changed the object without sbx (its owner,
 * or CAP_FOWNER): only then is a refusal the sandbox's, and counted. */
static int refuse(struct sv_call *c, int copy, int err)
{
	struct stat st;
	bool could = (c->sv->caps & (1ULL << CAP_FOWNER)) ||
		     (fstat(copy, &st) == 0 && st.st_uid == geteuid());

	return could ? sv_refuse(c->sv, err) : -err;
}

/* Pipes, sockets, anonymous inodes: no file of the host's tree. */
static bool anonymous(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && (sf.f_type == 0x50495045 /* PIPEFS */ ||
					 sf.f_type == 0x534F434B /* SOCKFS */ ||
					 sf.f_type == 0x09041934 /* ANON_INODE_FS */);
}

static void attribute_call(struct sv_call *c, uint32_t req, size_t size, struct sv_answer *a)
{
	union {
		int i;
		struct fsxattr x;
	} arg;
	char view[PATH_MAX];
	int copy = sv_getfd(c, (int)c->n.data.args[0]), rc;

	if (copy < 0) {
		a->err = -copy;
		return;
	}
	memset(&arg, 0, sizeof(arg));
	rc = sv_read(c, c->n.data.args[2], &arg, size);
	/* Everything is read: is it still the call we were asked about? */
	if (rc == 0 && !sv_still_valid(c)) {
		a->abandon = true;
		sv_release_fd(c->sv, copy);
		return;
	}
	/* Decided on the open file the command holds, by where it lies in
	 * the command's view (not a name looked up again). */
	if (rc == 0 && sv_view_path(c, copy, view, sizeof(view)) < 0)
		rc = refuse(c, copy, EACCES);
	else if (rc == 0 && !(view[0] != '/' && anonymous(copy)) &&
		 !supervise_in_writable(&c->sv->writable, view))
		rc = refuse(c, copy, EACCES);
	/* Performed on that very file, with the argument we read, by our
	 * thread with the command's credentials. */
	if (rc == 0 && ioctl(copy, req, &arg) < 0)
		rc = -errno;
	sv_release_fd(c->sv, copy);
	a->err = rc < 0 ? -rc : 0;
}

void sv_inode_ioctl_call(struct sv_call *c, struct sv_answer *a)
{
	uint32_t req = (uint32_t)c->n.data.args[1];
	size_t size = attribute_change(req);

	if (reads_only(req) || writer_only(req)) {
		a->cont = true;
		return;
	}
	if (size) {
		attribute_call(c, req, size, a);
		return;
	}
	a->err = -sv_refuse(c->sv, EPERM);
}
