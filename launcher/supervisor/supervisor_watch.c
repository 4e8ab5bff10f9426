/* SPDX-License-Identifier: MIT */
/* inotify_add_watch and fanotify_mark, under both runners. Landlock
 * does not cover either: a command that may not open the caller's terminal
 * could still watch it, and each IN_ACCESS / IN_MODIFY tells when the user
 * typed or the shell printed (keystroke timing, not content). So a watch is
 * placed by us: the path is resolved once into an O_PATH handle, refused if
 * it is a device node, a directory of ptys or of /dev, or a hidden path
 * (credential stores), and the watch is added on that same handle (through
 * its /proc/self/fd link) to the command's own inotify or fanotify instance,
 * a copy of its fd. A symlink swapped by another thread after we looked
 * cannot redirect it. The namespace runner needs it too: its /dev is its
 * own, but /dev/tty there is the host's inode, and a watch on it sees every
 * process's terminal I/O through that name (a password prompt's reads). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "supervisor_int.h"

#ifndef FAN_MARK_FILESYSTEM
#define FAN_MARK_FILESYSTEM 0x00000100
#endif

bool sv_is_watch_call(const struct seccomp_notif *n)
{
	return n->data.nr == SYS_inotify_add_watch || n->data.nr == SYS_fanotify_mark;
}

/* st_dev of what path names for the command, or 0. */
static dev_t dev_of(struct sv_call *c, const char *path)
{
	struct stat st;
	int h = sv_resolve(c, AT_FDCWD, path, SV_FOLLOW);
	dev_t dev = h >= 0 && fstat(h, &st) == 0 ? st.st_dev : 0;

	if (h >= 0)
		close(h);
	return dev;
}

/* A directory of the file system mounted on the command's /dev (the
 * host's devtmpfs), when /dev is a mount of its own. */
static bool on_dev_fs(struct sv_call *c, const struct stat *st)
{
	dev_t dev = dev_of(c, "/dev");

	return dev != 0 && dev == st->st_dev && dev != dev_of(c, "/");
}

/* Why devices: a terminal (the caller's /dev/pts/M, a serial console) tells
 * its reads and writes to a watch; so could a disk. Why devpts directories:
 * a watch there sees every pty of the host opened and closed. Why /dev's:
 * the same of /dev/tty, which every process of the host opens to prompt on
 * its terminal (sudo, ssh: a password typed between the open and the
 * close), and of the consoles. Nothing a build or an editor needs watches
 * either. */
static bool watch_refused(struct sv_call *c, int handle)
{
	struct statfs sf;
	struct stat st;

	if (fstat(handle, &st) < 0)
		return true;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return true;
	if (!S_ISDIR(st.st_mode))
		return false;
	return (fstatfs(handle, &sf) == 0 && sf.f_type == DEVPTS_SUPER_MAGIC) || on_dev_fs(c, &st);
}

/* dir is the directory a hidden path lies directly in (~ for ~/.netrc). */
static bool holds_hidden(const struct supervisor *sv, const char *dir)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (size_t i = 0; i < sv->n_hidden; i++) {
		const char *h = sv->hidden[i], *slash = strrchr(h, '/');
		size_t parent = slash && slash != h ? (size_t)(slash - h) : 1;

		if (slash && parent == len && strncmp(h, dir, len) == 0)
			return true;
	}
	return false;
}

/* Why hidden paths: Landlock keeps their contents unreadable, but a watch
 * there would still tell when ~/.ssh/id_ed25519 or ~/.aws/credentials is
 * used, and a watch on the directory a hidden file lies in (~ for ~/.netrc)
 * names it each time it is opened. What stays readable below them
 * (known_hosts, public keys) and the run's own writable set (its tool cache
 * lies in sbx's hidden state; a root that is $HOME holds hidden paths) can be
 * watched. */
static bool in_hidden(struct sv_call *c, int handle)
{
	const struct supervisor *sv = c->sv;
	char view[PATH_MAX];

	if (sv->n_hidden == 0)
		return false;
	if (sv_view_path(c, handle, view, sizeof(view)) < 0 || view[0] != '/')
		return true;
	if (supervise_in_writable(&sv->writable, view) ||
	    supervise_in_paths((const char *const *)sv->revealed, sv->n_revealed, view))
		return false;
	return supervise_in_paths((const char *const *)sv->hidden, sv->n_hidden, view) ||
	       holds_hidden(sv, view);
}

/* Whether the caller could have placed the watch without sbx (the kernel
 * asks for read permission): only then is the refusal the sandbox's. Our
 * thread holds the command's credentials. */
static bool caller_could(const char *link)
{
	return faccessat(AT_FDCWD, link, R_OK, AT_EACCESS) == 0;
}

/* What the kernel checks before it looks the path up (the mask, the flags,
 * whether group is an instance of the right kind), asked of the kernel
 * itself with a path that cannot exist: -ENOENT when all of it holds, else
 * the kernel's own error, in its order (EINVAL before ENOENT). */
static int early_error(int group, bool inotify, unsigned flags, uint64_t mask)
{
	int rc = inotify ? inotify_add_watch(group, "", (uint32_t)mask)
			 : fanotify_mark(group, flags, mask, AT_FDCWD, "");

	return rc < 0 ? -errno : -ENOENT;
}

void sv_watch_call(struct sv_call *c, struct sv_answer *a)
{
	const __u64 *arg = c->n.data.args;
	bool inotify = c->n.data.nr == SYS_inotify_add_watch;
	/* inotify: (fd, path, mask); fanotify: (fd, flags, mask, dirfd, path) */
	unsigned flags = inotify ? 0 : (unsigned)arg[1];
	uint64_t mask = inotify ? (uint32_t)arg[2] : arg[2];
	uint64_t path_at = inotify ? arg[1] : arg[4];
	int dirfd = inotify ? AT_FDCWD : (int)arg[3];
	bool follow = inotify ? !(mask & IN_DONT_FOLLOW) : !(flags & FAN_MARK_DONT_FOLLOW);
	char path[PATH_MAX], view[PATH_MAX], link[40];
	int group = -1, handle = -1, rc;
	bool handle_copied = false; /* a copy of the command's file: sv_release_fd */

	/* Only an inode mark names an object we must judge. Removing and
	 * flushing add nothing; mount and filesystem marks the kernel gives
	 * only to CAP_SYS_ADMIN in a group made with it, which no confined
	 * command has. The kernel decides those alone. */
	if (!inotify && (!(flags & FAN_MARK_ADD) || (flags & (FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM)))) {
		a->cont = true;
		return;
	}
	/* The kernel takes fds as unsigned ints. */
	group = sv_getfd(c, (int)(uint32_t)arg[0]);
	if (group < 0) {
		/* EBADF is the caller's; anything else (a non-dumpable caller
		 * whose fds we may not take) is our refusal. */
		rc = group == -EBADF ? -EBADF : sv_refuse(c->sv, EACCES);
		goto out;
	}
	rc = early_error(group, inotify, flags, mask);
	if (rc != -ENOENT)
		goto out;
	if (!inotify && path_at == 0) {
		/* fanotify_mark with no path marks dirfd's own object; the
		 * kernel takes neither AT_FDCWD nor an O_PATH fd there. */
		handle = dirfd == AT_FDCWD ? -EBADF : sv_getfd(c, dirfd);
		handle_copied = handle >= 0;
		if (handle >= 0 && (fcntl(handle, F_GETFL) & O_PATH)) {
			sv_release_fd(c->sv, handle);
			handle = -EBADF;
		}
	} else {
		rc = sv_read_string(c, path_at, path, sizeof(path));
		if (rc < 0)
			goto out;
		handle = sv_resolve(c, dirfd, path, follow ? SV_FOLLOW : 0);
	}
	if (handle < 0) {
		rc = handle;
		goto out;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", handle);
	if (!sv_still_valid(c)) {
		a->abandon = true;
		rc = 0;
		goto out;
	}
	if (watch_refused(c, handle) || in_hidden(c, handle)) {
		/* A soft refusal: watchers skip what they cannot watch. */
		if (caller_could(link) && sv_view_path(c, handle, view, sizeof(view)) == 0)
			sv_note_refused(c->sv, view, path_at ? path : NULL);
		rc = -EACCES;
		goto out;
	}
	/* The handle already is what the command's lookup found (its last
	 * symlink followed or not): the magic link lands on exactly it, so
	 * the no-follow flags are dropped, or the watch would be on the
	 * link of /proc. */
	if (inotify)
		rc = inotify_add_watch(group, link, (uint32_t)(mask & ~(uint64_t)IN_DONT_FOLLOW));
	else
		rc = fanotify_mark(group, flags & ~(unsigned)FAN_MARK_DONT_FOLLOW, mask, AT_FDCWD, link);
	if (rc < 0)
		rc = -errno;
out:
	if (handle >= 0 && handle_copied)
		sv_release_fd(c->sv, handle);
	else if (handle >= 0)
		close(handle);
	if (group >= 0)
		sv_release_fd(c->sv, group);
	if (!a->abandon) {
		a->val = rc > 0 ? rc : 0;
		a->err = rc < 0 ? -rc : 0;
	}
}
