/* SPDX-License-Identifier: MIT */
/* The identity maps of a user namespace sbx creates (child side: no
 * allocation, no stdio). Shared by the namespace runner and by the landlock
 * runner's --net none. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
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
	int fd = open(path, USERNS_MAP_OPEN_FLAGS);
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

/* Every id our own namespace has, onto itself: "0 0 4294967295" in the
 * initial namespace; inside another, as many lines as its own map has (a
 * map may name no id its parent lacks). */
static int own_ids_map(const char *own, char *out, size_t size)
{
	char buf[1024];
	size_t pos = 0;
	ssize_t n;
	int fd = open(own, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return EIO;
	buf[n] = '\0';
	for (char *line = buf, *next; line && *line; line = next) {
		unsigned long inside, outside, count;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) != 3)
			continue;
		n = snprintf(out + pos, size - pos, "%lu %lu %lu\n", inside, inside, count);
		if (n < 0 || (size_t)n >= size - pos)
			return E2BIG;
		pos += (size_t)n;
	}
	return pos ? 0 : EIO;
}

bool userns_can_map_all(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint32_t want = CAP_TO_MASK(CAP_SETUID) | CAP_TO_MASK(CAP_SETGID);

	memset(data, 0, sizeof(data));
	return syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & want) == want;
}

int userns_map_all(pid_t pid)
{
	static const char *const files[] = { "setgroups", "uid_map", "gid_map" };
	static const char *const own[] = { NULL, "/proc/self/uid_map", "/proc/self/gid_map" };
	char path[64], map[1024];
	int err = 0;

	for (size_t i = 0; i < 3 && !err; i++) {
		size_t n = child_put_str(path, 0, sizeof(path), "/proc/");

		n = child_put_uint(path, n, sizeof(path), (unsigned long)pid);
		n = child_put_str(path, n, sizeof(path), "/");
		child_put_str(path, n, sizeof(path), files[i]);
		/* setgroups first: "deny" stays, as for any other caller, so
		 * that no nested namespace can drop a group used to deny. */
		if (i == 0)
			err = write_proc(path, "deny", 4);
		else if (!(err = own_ids_map(own[i], map, sizeof(map))))
			err = write_proc(path, map, strlen(map));
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
