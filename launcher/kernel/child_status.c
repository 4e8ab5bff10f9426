/* SPDX-License-Identifier: MIT */
/* The child's status record and its allocation-free string helpers. */
#include <errno.h>

#include "child_status.h"

size_t child_put_str(char *dst, size_t pos, size_t size, const char *src)
{
	while (src && *src && pos + 1 < size)
		dst[pos++] = *src++;
	dst[pos] = '\0';
	return pos;
}

size_t child_put_uint(char *dst, size_t pos, size_t size, unsigned long v)
{
	char tmp[24];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(tmp));
	while (n && pos + 1 < size)
		dst[pos++] = tmp[--n];
	dst[pos] = '\0';
	return pos;
}

int child_status_set(struct child_status *st, enum child_stage stage, int err, const char *what,
		     const char *path)
{
	size_t pos = 0;

	st->stage = stage;
	st->err = err;
	st->what[0] = '\0';
	pos = child_put_str(st->what, pos, sizeof(st->what), what);
	if (path && *path) {
		pos = child_put_str(st->what, pos, sizeof(st->what), " ");
		child_put_str(st->what, pos, sizeof(st->what), path);
	}
	return -1;
}

const char *child_stage_name(enum child_stage stage)
{
	switch (stage) {
	case STAGE_SIGNALS: return "signals";
	case STAGE_FDS: return "fds";
	case STAGE_SESSION: return "session";
	case STAGE_USERNS: return "user namespace";
	case STAGE_MOUNT_PRIVATE: return "mount namespace";
	case STAGE_MOUNT: return "mount";
	case STAGE_NETNS: return "network namespace";
	case STAGE_KEYRING: return "session keyring";
	case STAGE_LANDLOCK: return "landlock";
	case STAGE_CAPS: return "capabilities";
	case STAGE_NO_NEW_PRIVS: return "no_new_privs";
	case STAGE_SECCOMP: return "seccomp";
	case STAGE_CHDIR: return "chdir";
	case STAGE_EXEC: return "exec";
	case STAGE_LIMITS: return "resource limits";
	case STAGE_CLONE: return "clone";
	case STAGE_NONE: break;
	}
	return "setup";
}

