/* SPDX-License-Identifier: MIT */
/* What the child needs between clone and exec, prepared by the parent.
 *
 * The child is started with clone(CLONE_VM|CLONE_VFORK): it shares the
 * parent's memory until exec, so it must not allocate, must not take locks and
 * must only use the fields below (all set up by the parent beforehand). A
 * runner with its own PID namespace starts the child as a real fork instead:
 * it becomes the namespace's init (pidns_init.c) and starts the command the
 * vfork way from there. A run without one, in a process that has not made
 * itself sbx's subreaper (sbx_process_opt_in), gets a keeper the same way:
 * a real fork that starts the command and stays as its reaper (keeper.c).
 * The same rules hold on every path. */
#ifndef SBX_CHILD_H
#define SBX_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "child_status.h"
#include "sbx.h"

struct runner_ops;
struct sock_fprog;
struct ns_view_spec;
struct pty_pool;

/* The landlock runner's ruleset lent from its cache (landlock_cache.h); gen
 * 0: nothing lent. Parent only. */
struct landlock_lend {
	unsigned long gen;
	int slot;
	size_t pool_rules;         /* rules added for the run's pty pool */
};

/* Per-run resource limits, worked out by the parent (engine/run_limits.c). Each
 * rlimit only ever lowers what the caller had; 0 leaves it as inherited. A
 * zeroed struct asks for nothing. */
struct child_limits {
	uint64_t nproc;            /* RLIMIT_NPROC */
	uint64_t data;             /* RLIMIT_DATA */
	uint64_t fsize;            /* RLIMIT_FSIZE */
	uint64_t nofile_soft;      /* the caller's soft RLIMIT_NOFILE, put back
				    * (sbx keeps its own lower: inflight.h); 0: as is */
	bool cgroup;               /* join the run's cgroup through cgroup_procs_fd */
	int cgroup_procs_fd;       /* O_WRONLY cgroup.procs (v1: tasks) of the run's cgroup */
};

struct child_spec {
	enum sbx_mode mode;
	const char *root;          /* resolved once (realpath) by the parent */
	int root_fd;               /* O_PATH handle on that directory: the child
				    * works from it, and checks that any path it
				    * must still resolve names the same inode */
	const char *cwd;           /* resolved, absolute, inside the visible tree */
	const char *tmp_dir;       /* "/tmp" */
	const char *tmpfs_opts;    /* "mode=1777,size=N": the namespace runner's
				    * private tmpfs mounts (NULL: ns_view.h's) */
	struct child_limits limits;
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
	int exit_fd;               /* PID namespace runs and kept runs: init or the
				    * keeper reports there (-1: none) */
	bool keeper;               /* start a keeper first (keeper.c) */
	int command_clone_flags;   /* the keeper's clone of the command: the
				    * runner's namespaces (CLONE_NEW*) */
	pid_t *deadman_pid;        /* where the child reports the helper's pid */
	uint64_t *netns_cookie;    /* landlock runner, --net none: where the child
				    * reports its network namespace's cookie */
	int opener_fd;             /* the opener's socket (runners/opener.h; -1: none) */
	bool scope_without_refer;  /* spawned under a scope domain that grants no
				    * REFER (kernel/scope_thread.h) */
	pid_t *opener_pid;         /* where the child reports the opener's pid */

	uint64_t caps_keep;        /* capabilities the command keeps (bit N:
				    * capability N; caps_for_caller): a root
				    * caller's few, else 0 */
	/* Set by the runner's prepare in the parent, undone by its release: */
	int landlock_ruleset_fd;   /* the landlock runner's ruleset; -1: none */
	/* Parent only, kept from prepare until the run is over
	 * (runners_run_over): the landlock runner's lent ruleset and the pty
	 * pool whose slaves it grants (kernel/pty_pool.h; NULL: none). */
	struct landlock_lend landlock_lend;
	struct pty_pool *pty_pool;
	bool full_map;             /* a root caller's full identity map, written by
				    * sbx after the clone (PID namespace runs) */
	int full_map_fd;           /* child: where sbx says it is written (-1) */
	const struct sock_fprog *seccomp; /* installed last; NULL: none */
	const struct sock_fprog *syscalls_as_of; /* --syscalls-as-of: right before
						  * exec; NULL: none */
	/* The supervisor's filters (seccomp_notify.h), one of them installed
	 * right before execve, its listener sent over notify_fd; NULL: none. */
	const struct sock_fprog *notify_sockets;  /* namespace runner */
	const struct sock_fprog *notify_metadata; /* landlock runner: metadata too */
	const struct sock_fprog *notify_joined;   /* seccomp's rules, then the runner's
						   * notify set (NULL: two filters) */
	int notify_fd;
	bool supervised;           /* parent, after spawn: a supervisor answers */
	uint64_t signals_to_reset; /* bit N-1: signal N is ignored or caught here */

	char *scratch;             /* parent-allocated memory the child may use */
	size_t scratch_size;

	struct ns_view_spec *view; /* namespace runner: the view's extras (ns_view.h) */
};

/* What a PID namespace's init (or a keeper) writes on exit_fd: first one
 * header, once the view is built and before the command starts, then, when
 * the command's bash exits, its wait status, and again (empty set) once no
 * process is left in the namespace (below the keeper) but init (the keeper):
 * then nothing of the run can start again, and sbx need not wait for its
 * end. */
struct init_header {
	int32_t private_proc;      /* 1: a private /proc; 0: the host's (fallback) */
};
struct init_exit {
	int32_t wstatus;
	int32_t empty;             /* 1: init (the keeper) has no child left */
};

/* The child's exit status when setup failed (the status pipe says why). */
#define SBX_CHILD_SETUP_EXIT 127

/* clone(2)'s entry point: arg is the struct child_spec. */
int child_main(void *arg);

#endif
