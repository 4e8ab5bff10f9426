/* SPDX-License-Identifier: MIT */
/* How a step between clone and exec reports its failure: a fixed-size record
 * (stage, errno, the failing step and path) written through the status pipe.
 * Shared by the runners and the kernel mechanisms they call; allocation-free,
 * so it works in a child that shares the parent's memory. */
#ifndef SBX_CHILD_STATUS_H
#define SBX_CHILD_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* Setup stages, reported by the child through the status pipe. */
enum child_stage {
	STAGE_NONE = 0,
	STAGE_SIGNALS,
	STAGE_FDS,
	STAGE_SESSION,
	STAGE_USERNS,       /* setgroups / uid_map / gid_map: "runner unusable here" */
	STAGE_MOUNT_PRIVATE,/* first mount in the new namespace: "runner unusable here" */
	STAGE_MOUNT,        /* building the view */
	STAGE_NETNS,
	STAGE_KEYRING,
	STAGE_LANDLOCK,
	STAGE_CAPS,
	STAGE_NO_NEW_PRIVS,
	STAGE_SECCOMP,
	STAGE_CHDIR,
	STAGE_EXEC,
	STAGE_LIMITS,       /* resource limits and the run's cgroup */
	STAGE_CLONE,        /* a keeper's clone of the command: as sbx's own clone */
};

/* What goes through the status pipe when a setup step fails. */
struct child_status {
	int32_t stage;          /* enum child_stage */
	int32_t err;            /* errno */
	char what[224];         /* the failing step and path, e.g. "mount_setattr /" */
};

/* Fill st; always returns -1 so a runner can `return child_status_set(...)`. */
int child_status_set(struct child_status *st, enum child_stage stage, int err,
		     const char *what, const char *path);
const char *child_stage_name(enum child_stage stage);
/* Allocation-free string building for the child: append src (or v in
 * decimal) at pos, keep dst NUL-terminated within size; return the new pos. */
size_t child_put_str(char *dst, size_t pos, size_t size, const char *src);
size_t child_put_uint(char *dst, size_t pos, size_t size, unsigned long v);

#endif
