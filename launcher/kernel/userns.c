/* SPDX-License-Identifier: MIT */
/* The identity maps of a user namespace sbx creates (child side: no
 * allocation, no stdio). Shared by the namespace runner and by the landlock
 * runner's --net none. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "userns.h"

/* 0 or an errno. */
static int write_proc(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, data, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

/* "ID ID 1": the caller's own ids, mapped onto themselves. A process may
 * write this single line for itself without any privilege in the parent
 * namespace, so it works for root and for any user alike, no setuid helper.
 * setgroups must be denied first for an unprivileged gid_map (and so that
 * nobody in here can drop a supplementary group used to deny access). */
int userns_write_identity_maps(uid_t uid, gid_t gid, struct child_status *st)
{
	char line[64];
	size_t n;
	int err;

	err = write_proc("/proc/self/setgroups", "deny", 4);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write", "/proc/self/setgroups");

	n = child_put_uint(line, 0, sizeof(line), (unsigned long)uid);
	n = child_put_str(line, n, sizeof(line), " ");
	n = child_put_uint(line, n, sizeof(line), (unsigned long)uid);
	n = child_put_str(line, n, sizeof(line), " 1\n");
	err = write_proc("/proc/self/uid_map", line, n);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write", "/proc/self/uid_map");

	n = child_put_uint(line, 0, sizeof(line), (unsigned long)gid);
	n = child_put_str(line, n, sizeof(line), " ");
	n = child_put_uint(line, n, sizeof(line), (unsigned long)gid);
	n = child_put_str(line, n, sizeof(line), " 1\n");
	err = write_proc("/proc/self/gid_map", line, n);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write", "/proc/self/gid_map");
	return 0;
}

