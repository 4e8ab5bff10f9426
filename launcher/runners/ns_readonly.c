/* SPDX-License-Identifier: MIT */
/* Step 2 of the namespace view (see ns_view.c): every mount read-only and
 * nodev. One
 * recursive mount_setattr on 5.12+; before that, a remount walk over
 * /proc/self/mountinfo that checks its own result. Child side: no
 * allocation; mountinfo is read into spec->scratch. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "classify.h" /* path_is_within: pure, allocation-free */
#include "mount_api.h"
#include "ns_view.h"

/* The flags a bind remount must restate. MS_REMOUNT|MS_BIND replaces the
 * mount's per-mount flags with exactly those given, and a flag the kernel
 * locked (the mount came from the more privileged namespace with it set) must
 * be given again or the call fails with EPERM. Atime flags are left out on
 * purpose: a remount naming none keeps the mount's current atime mode,
 * locked or not. */
unsigned long ns_restate_flags(unsigned long f_flags)
{
	unsigned long ms = 0;

	if (f_flags & ST_NOSUID)
		ms |= MS_NOSUID;
	if (f_flags & ST_NODEV)
		ms |= MS_NODEV;
	if (f_flags & ST_NOEXEC)
		ms |= MS_NOEXEC;
	if (f_flags & ST_NOSYMFOLLOW)
		ms |= MS_NOSYMFOLLOW;
	return ms;
}

ssize_t ns_mountinfo_mount_point(const char *line, size_t line_len, char *out, size_t out_size)
{
	size_t i = 0, o = 0;
	int spaces = 0;

	/* "36 35 98:0 /mnt1 /mnt2 rw,noatime ...": the mount point is field 5. */
	while (spaces < 4) {
		if (i >= line_len || line[i] == '\n')
			return -1;
		if (line[i++] == ' ')
			spaces++;
	}
	while (i < line_len && line[i] != ' ' && line[i] != '\n') {
		char c = line[i];

		/* show_mountinfo escapes space, tab, newline and backslash as \ooo. */
		if (c == '\\' && i + 3 < line_len && line[i + 1] >= '0' && line[i + 1] <= '3' &&
		    line[i + 2] >= '0' && line[i + 2] <= '7' && line[i + 3] >= '0' &&
		    line[i + 3] <= '7') {
			c = (char)(((line[i + 1] - '0') << 6) | ((line[i + 2] - '0') << 3) |
				   (line[i + 3] - '0'));
			i += 4;
		} else {
			i++;
		}
		if (c == '\0' || o + 1 >= out_size)
			return -1;
		out[o++] = c;
	}
	if (o == 0 || out[0] != '/')
		return -1;
	out[o] = '\0';
	return (ssize_t)o;
}

static int read_mountinfo(const struct child_spec *spec, size_t *len, struct child_status *st)
{
	size_t pos = 0, size = spec->scratch_size;
	int fd;

	if (!spec->scratch || size < 2)
		return child_status_set(st, STAGE_MOUNT, ENOBUFS, "no scratch for",
					"/proc/self/mountinfo");
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return child_status_set(st, STAGE_MOUNT, errno, "open", "/proc/self/mountinfo");
	for (;;) {
		ssize_t n;

		/* Fail closed rather than walk a truncated list. */
		if (pos == size - 1) {
			close(fd);
			return child_status_set(st, STAGE_MOUNT, ENOBUFS,
						"scratch too small for", "/proc/self/mountinfo");
		}
		n = read(fd, spec->scratch + pos, size - 1 - pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			return child_status_set(st, STAGE_MOUNT, err, "read",
						"/proc/self/mountinfo");
		}
		if (n == 0)
			break;
		pos += (size_t)n;
	}
	close(fd);
	spec->scratch[pos] = '\0';
	*len = pos;
	return 0;
}

/* A path we cannot look up (ENOENT: overmounted away or deleted; EACCES: a
 * directory on the way is closed to our uid) is out of the command's reach
 * too: it runs with our uid and fewer capabilities. */
static bool unreachable(int err)
{
	return err == ENOENT || err == EACCES || err == ENOTDIR;
}

static int remount_one(const char *mp, bool covered, struct child_status *st)
{
	struct statfs sf;
	int err;

	if (statfs(mp, &sf) < 0) {
		if (unreachable(errno))
			return 0;
		return child_status_set(st, STAGE_MOUNT, errno, "statfs", mp);
	}
	if (mount(NULL, mp, NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | ns_restate_flags(sf.f_flags),
		  NULL) == 0)
		return 0;
	err = errno;
	/* EINVAL: what the path reaches is not the root of a mount, because a
	 * later mount hides this one; that mount is in the list too. Mounts
	 * under /dev (and /tmp in workspace-write) are about to be covered by
	 * our tmpfs, so they need not be read-only. Anything skipped here is
	 * checked again by verify_readonly. */
	if (err == EINVAL || (covered && (err == EACCES || err == EPERM)))
		return 0;
	return child_status_set(st, STAGE_MOUNT, err, "remount read-only", mp);
}

/* After the walk, every mount point, as the command would resolve it, must
 * be on a read-only mount (or be covered, or out of reach). */
static int verify_readonly(const char *mp, bool covered, struct child_status *st)
{
	struct statfs sf;

	if (covered)
		return 0;
	if (statfs(mp, &sf) < 0) {
		if (unreachable(errno))
			return 0;
		return child_status_set(st, STAGE_MOUNT, errno, "statfs", mp);
	}
	if (!(sf.f_flags & ST_RDONLY))
		return child_status_set(st, STAGE_MOUNT, EPERM, "still writable after remount walk",
					mp);
	return 0;
}

/* Before 5.12 (no mount_setattr): remount each mount read-only, parents
 * before children as mountinfo lists them, then check the result. */
static int remount_walk(const struct child_spec *spec, bool ww, const char *tmp,
			struct child_status *st)
{
	size_t len = 0;

	if (read_mountinfo(spec, &len, st) < 0)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const char *line = spec->scratch, *end = spec->scratch + len;

		while (line < end) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
			char mp[PATH_MAX];
			bool covered;
			int rc;

			if (ns_mountinfo_mount_point(line, ll, mp, sizeof(mp)) < 0)
				return child_status_set(st, STAGE_MOUNT, EINVAL,
							"cannot parse", "/proc/self/mountinfo");
			line += ll + 1;
			/* A home brought back into the run's /tmp is bound from
			 * here (ns_view.c): its mounts must be read-only too. */
			covered = path_is_within(mp, "/dev") ||
				  (ww && path_is_within(mp, tmp) &&
				   ns_place_of(spec->view, spec->root, mp) != NS_IN_HOME);
			rc = pass == 0 ? remount_one(mp, covered, st)
				       : verify_readonly(mp, covered, st);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

int ns_make_all_readonly(const struct child_spec *spec, bool ww, const char *tmp,
			     struct child_status *st)
{
	/* NODEV too: a read-only mount does not stop a write to a device node,
	 * and /dev is not the only place that holds them (a chroot's, a copy
	 * of a disk's node, /dev bound elsewhere): a root caller's command
	 * could write a disk, or read one past every hidden path. The view's
	 * own /dev nodes are mounts of their own, grabbed before this. */
	struct ns_mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV };

	/* One call, all or nothing, for every mount under "/" (5.12+). */
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return child_status_set(st, STAGE_MOUNT, errno, "mount_setattr", "/");
	return remount_walk(spec, ww, tmp, st);
}
