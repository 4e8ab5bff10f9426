/* SPDX-License-Identifier: MIT */
/* The identity maps of a user namespace sbx creates (child side: no
 * allocation, no stdio). Shared by the namespace runner and by the landlock
 * runner's --net none. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

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


/* ---- a full identity map for a root caller ---- */

/* Only a process in the parent user namespace holding CAP_SETUID and
 * CAP_SETGID there may write a map of more than its own id, and the child is
 * born inside its new namespace: so sbx writes it for the child, which waits
 * until it is there. */

#define FULL_MAP "0 0 4294967295\n" /* ids 0..4294967294 onto themselves */

/* Every id mapped onto itself in our own namespace (the initial one, or a
 * container's full map): only then can the full map be written below it.
 * sbx as "root" in a namespace that maps only a few ids (unshare -r) writes
 * the caller's own map instead. Read once: our namespace does not change. */
static bool own_map_is_full(void)
{
	static int full = -1;

	if (full < 0) {
		char buf[256];
		int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		unsigned long inside, outside, count;

		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = '\0';
		full = n > 0 && sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) == 3 &&
		       inside == 0 && outside == 0 && count == 4294967295UL;
	}
	return full == 1;
}

bool userns_can_map_all(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint32_t want = CAP_TO_MASK(CAP_SETUID) | CAP_TO_MASK(CAP_SETGID);

	memset(data, 0, sizeof(data));
	return syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & want) == want &&
	       own_map_is_full();
}

int userns_map_all(pid_t pid)
{
	static const char *const files[] = { "setgroups", "uid_map", "gid_map" };
	char path[64];
	int err = 0;

	for (size_t i = 0; i < 3 && !err; i++) {
		size_t n = child_put_str(path, 0, sizeof(path), "/proc/");

		n = child_put_uint(path, n, sizeof(path), (unsigned long)pid);
		n = child_put_str(path, n, sizeof(path), "/");
		child_put_str(path, n, sizeof(path), files[i]);
		/* setgroups first: "deny" stays, as for any other caller, so
		 * that no nested namespace can drop a group used to deny. */
		err = i == 0 ? write_proc(path, "deny", 4) : write_proc(path, FULL_MAP, strlen(FULL_MAP));
	}
	return err;
}

int userns_wait_full_map(int fd, struct child_status *st)
{
	int err = 0;
	ssize_t n;

	do {
		n = read(fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(err))
		return child_status_set(st, STAGE_USERNS, n < 0 ? errno : EPROTO,
					"full identity map: no word from sbx", NULL);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write full identity map", NULL);
	return 0;
}
