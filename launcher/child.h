/* What the child needs between clone and exec, prepared by the parent.
 *
 * The child is started with clone(CLONE_VM|CLONE_VFORK): it shares the
 * parent's memory until exec, so it must not allocate, must not take locks and
 * must only use the fields below (all set up by the parent beforehand). */
#ifndef SBX_CHILD_H
#define SBX_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx.h"

struct runner_ops;
struct sock_fprog;

struct child_spec {
	enum sbx_mode mode;
	const char *root;          /* resolved once (realpath) by the parent */
	const char *cwd;           /* resolved, absolute, inside the visible tree */
	const char *tmp_dir;       /* "/tmp" */
	enum sbx_net net;
	int landlock_abi;          /* ABI to enforce with (capped, probed); 0: none */
	uid_t uid;                 /* caller's ids, for identity maps */
	gid_t gid;
	const struct runner_ops *runner; /* NULL: danger-full-access */

	const char *bash;          /* absolute path of bash */
	char *const *argv;         /* {"bash", "-c", COMMAND, NULL} */
	char *const *envp;         /* scrubbed environment */
	int stdin_fd;              /* /dev/null */
	int stdout_fd;             /* write ends of the collection pipes */
	int stderr_fd;
	int status_fd;             /* CLOEXEC write end of the status pipe */
	int deadman_fd;            /* read end of the dead-man trigger (-1: none) */
	pid_t *deadman_pid;        /* where the child reports the helper's pid */

	const struct sock_fprog *seccomp; /* installed last; NULL: none */
	uint64_t signals_to_reset; /* bit N-1: signal N is ignored or caught here */

	char *scratch;             /* parent-allocated memory the child may use */
	size_t scratch_size;
};

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
	STAGE_LANDLOCK,
	STAGE_CAPS,
	STAGE_NO_NEW_PRIVS,
	STAGE_SECCOMP,
	STAGE_CHDIR,
	STAGE_EXEC,
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
