/* SPDX-License-Identifier: MIT */
/* Inside the supervisor (supervisor*.c): one run's state, one call's context,
 * and the helpers every handler uses to see what the command sees. */
#ifndef SBX_SUPERVISOR_INT_H
#define SBX_SUPERVISOR_INT_H

#include <limits.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "policy.h"
#include "supervisor.h"

#define SV_MAX_INFLIGHT 64 /* blocking calls performed at once per run */
#define SV_MAX_NOTED 64     /* soft refusals remembered per run, by path */
#define SV_DROP_LOOK_AT 64  /* copies in flight from which a closer may be stuck */
#define SV_MAX_PASSING 4096 /* copies of fds that sends pass, held at once by sbx */
#define SV_ADDFD_FLAG_SETFD (1UL << 0) /* Linux 5.9 */
struct sv_closer;

/* A call handed to a worker (supervisor_worker.c). */
struct sv_inflight {
	bool used;
	bool running;      /* a worker took it: thread is valid */
	bool done;         /* performed (or cancelled); the slot is free again */
	bool cancelled;
	bool scoped;       /* performed on a thread of the run's scope domain */
	pthread_t thread;
	int pidfd;         /* the calling process: readable once it is gone */
	struct sv_net_op *op;
	struct sv_open_op *open;   /* or an open that may block (a FIFO's) */
	uint64_t id;
};

struct supervisor {
	int listener;
	int wake_fd;              /* eventfd: stop, or a worker finished */
	int refs;                 /* engine + dispatcher + workers (atomic) */
	bool stopping;            /* set once by supervisor_stop (atomic) */
	pthread_mutex_t lock;     /* guards inflight and the worker counts */
	/* Idle workers wait here for a call, [1] those of the run's scope
	 * domain (scope_thread.h), [0] the others. */
	pthread_cond_t work[2];
	size_t n_idle[2], n_unclaimed[2], n_workers;
	struct scope_thread *scope; /* the run's scope thread, referenced (NULL: none) */
	uint64_t netns_cookie;    /* the landlock runner's --net none namespace (0: none) */
	int opener;               /* the run's opener's requests (runners/opener.h; -1: none) */
	int landlock_abi;         /* the run's Landlock ABI */
	struct timespec started;  /* before the command's spawn (CLOCK_REALTIME_COARSE) */
	struct supervise_window *past; /* past confined runs' windows (owned) */
	size_t n_past;
	struct sv_inflight inflight[SV_MAX_INFLIGHT];
	size_t passing;           /* copies held for this run's sends' SCM_RIGHTS (atomic) */
	/* supervisor_release.c, under drop_lock */
	pthread_mutex_t drop_lock;
	pthread_cond_t drop_work, drop_room;
	int handoff[2];             /* copies in flight: sent on [0], taken from [1] */
	size_t n_drops;             /* copies in flight on handoff */
	int put_back;               /* the copy a cancelled closer held, or -1 */
	int *held;                  /* copies the pair refused (ETOOMANYREFS), in our table */
	size_t n_held, cap_held;
	struct sv_closer *closer;   /* the one taking drops, or NULL */
	unsigned cancelled_pending; /* closers cancelled, not gone yet */

	bool metadata;
	uint64_t caps;
	pid_t run;                /* this run's first process (supervisor_runs.c) */
	char writable_dirs[SUPERVISE_MAX_WRITABLE][PATH_MAX];
	char writable_except[SUPERVISE_MAX_EXCEPT][PATH_MAX];
	struct supervise_writable writable;
	size_t n_allow;
	char **allow;
	size_t n_hidden, n_revealed;
	char **hidden, **revealed;
	const struct sock_fprog *rules;
	struct pty_pool *pty_pool; /* a reference; NULL: none */
	unsigned refusals;        /* atomic */
	/* The paths of soft refusals (supervisor_noted.c); under lock. */
	char *noted[SV_MAX_NOTED];
	size_t n_noted, n_renoted;
	/* $HOME and its real place, where a symlink is on its way; asked once. */
	char *home, *home_real;
	bool home_known;
	/* The processes of the run that called listen(2), by their pidfs
	 * inode (supervisor_listen.c); under lock. */
	uint64_t *listeners;
	size_t n_listeners, cap_listeners;
};

/* One call, from RECV to SEND. */
struct sv_call {
	struct supervisor *sv;
	struct seccomp_notif n;
	int proc;                 /* O_PATH /proc/<tid>, -1 until needed */
	int pidfd;                /* the caller, -1 until needed */
	int mem;                  /* /proc/<tid>/mem when process_vm_readv is missing */
	char root[PATH_MAX];      /* the command's root as our d_path shows it */
	bool have_root;
};

/* What to answer: val, or the error (a positive errno). */
struct sv_answer {
	int64_t val;
	int err;
	bool abandon;             /* the call is gone (killed), or answered: answer nothing */
	bool cont;                /* let the kernel perform it (only where it decides alone) */
};

/* A refusal by the policy (not an error the kernel gave when we performed
 * the call): counted for the run's denial fact. Returns -err. */
int sv_refuse(struct supervisor *sv, int err);

/* supervisor_refusal.c: whether a refusal of the errno rules is the
 * sandbox's (the caller could have made the call without sbx) */
bool sv_rules_refusal_counts(struct sv_call *c);
/* supervisor_noted.c: a soft refusal of the sandbox's: not counted, noted
 * by its path in the command's view (view) and as the command gave it
 * (given, or NULL), for supervisor_refusal_named. */
void sv_note_refused(struct supervisor *sv, const char *view, const char *given);
void sv_noted_free(struct supervisor *sv);
/* supervisor_meta.c: the same for a chmod-family call (owner, CAP_FOWNER) */
bool sv_chmod_refusal_counts(struct sv_call *c);

void sv_call_init(struct sv_call *c, struct supervisor *sv);
/* O_PATH /proc/<tid> of the caller (cached in c): an fd, or -errno. */
int sv_proc_dir(struct sv_call *c);
void sv_call_release(struct sv_call *c);

/* The command's memory. 0 or -errno (-EFAULT for an address it cannot read). */
int sv_read(struct sv_call *c, uint64_t addr, void *buf, size_t len);
/* The caller's memory as a file (for a write after the call was checked
 * valid: it stays that process's memory even if its pid is reused). */
int sv_open_mem(struct sv_call *c);
/* A NUL-terminated string of at most size-1 bytes: 0, -EFAULT, or
 * -ENAMETOOLONG when no NUL comes within size bytes. */
int sv_read_string(struct sv_call *c, uint64_t addr, char *buf, size_t size);
/* Still the same call (the thread did not die, its pid was not reused):
 * asked after everything was read, before anything is done. */
bool sv_still_valid(struct sv_call *c);

/* A small /proc file read whole at dirfd (AT_FDCWD: an absolute name) into
 * buf, NUL-terminated: its length, or -1. */
ssize_t sv_read_small(int dirfd, const char *name, char *buf, size_t size);
/* The number after key ("\nTgid:") in such a file, in base; -1 without it. */
long long sv_field(const char *buf, const char *key, int base);
/* The caller's thread group (from its status file), or -1. */
pid_t sv_tgid(struct sv_call *c);
/* The caller's pidfd (a thread's own where the kernel has PIDFD_THREAD). */
int sv_pidfd(struct sv_call *c);
/* A copy of the command's fd (pidfd_getfd): the same open file. -errno.
 * Never closed but by sv_release_fd: our close may be the last one. To
 * look at or act on the object alone, take sv_fd_path. */
int sv_getfd(struct sv_call *c, int fd);
/* An O_PATH handle on the object behind the command's fd (its
 * /proc/<tid>/fd/N reopened), released with nothing to wait for. -errno
 * (-EBADF: no such fd). */
int sv_fd_path(struct sv_call *c, int fd);
/* The open flags of the command's fd (its fdinfo), or -EBADF. */
int sv_fd_flags(struct sv_call *c, int fd);

/* supervisor_release.c: our copies of the command's files are closed on a
 * thread of their own, never by the dispatcher or a worker. */
void sv_release_fd(struct supervisor *sv, int fd);
/* The run is over: return once everything handed over is dropped, a drop
 * that keeps waiting cut short. */
void sv_release_drain(struct supervisor *sv);

/* Split path (modified) into the directory a new entry goes in and its
 * name, trailing slashes dropped ("a/b/" makes b in a). false: no name to
 * make ("/", ".", ".."). */
bool sv_split_path(char *path, const char **dir, const char **name);

enum sv_resolve_flags {
	SV_FOLLOW = 1,      /* follow a symlink in the last component */
	SV_EMPTY_OK = 2,    /* "" names dirfd itself (AT_EMPTY_PATH) */
};
/* An O_PATH handle on what path names for the command: relative to its cwd
 * (AT_FDCWD) or dirfd, absolute paths from its root, ".." never above it,
 * looked up in its mount namespace. /proc magic links are not followed (they
 * would be ours, not the command's). The handle, or -errno. */
int sv_resolve(struct sv_call *c, int dirfd, const char *path, int flags);
/* The canonical path of a handle from the root of the command's mount
 * namespace: what the writable set and the allow-list are written in. Not
 * from the command's own root: a command that chroots (in a nested user
 * namespace) into /var must not make /var/tmp/x look like /tmp/x. 0 or
 * -errno; -ENOENT-like strings ("pipe:[12]") are returned as they are. */
int sv_view_path(struct sv_call *c, int handle, char *buf, size_t size);

/* supervisor_meta.c / supervisor_net.c */
bool sv_is_metadata_call(const struct seccomp_notif *n);
void sv_metadata_call(struct sv_call *c, struct sv_answer *a);
bool sv_is_socket_call(const struct seccomp_notif *n);
/* supervisor_pty.c: ioctl(TIOCGPTPEER) (landlock runner) */
bool sv_is_pty_peer_call(const struct seccomp_notif *n);
void sv_pty_peer_call(struct sv_call *c, struct sv_answer *a);
/* fd (ours) is a pty master: /dev/ptmx or a devpts instance's ptmx. */
bool sv_is_ptmx(int fd);
/* supervisor_ptypool.c: ioctl(TIOCGPTN), where the pool's ptys are swapped
 * in (landlock runner) */
bool sv_is_pty_number_call(const struct seccomp_notif *n);
void sv_pty_number_call(struct sv_call *c, struct sv_answer *a);
/* supervisor_ioctl.c: the file systems' own ioctls (landlock runner) */
bool sv_is_inode_ioctl_call(const struct seccomp_notif *n);
void sv_inode_ioctl_call(struct sv_call *c, struct sv_answer *a);
/* supervisor_open.c: opens for writing, performed by the run's opener
 * (workspace-write) */
struct sv_open_op;
bool sv_is_open_call(const struct seccomp_notif *n);
/* Everything read and resolved; the op to perform, or NULL with a filled. */
struct sv_open_op *sv_open_prepare(struct sv_call *c, struct sv_answer *a);
bool sv_open_may_block(const struct sv_open_op *op);
void sv_open_perform(struct sv_open_op *op, struct sv_answer *a);
void sv_open_free(struct sv_open_op *op);
/* supervisor_watch.c: inotify_add_watch, fanotify_mark (landlock runner) */
bool sv_is_watch_call(const struct seccomp_notif *n);
void sv_watch_call(struct sv_call *c, struct sv_answer *a);
/* supervisor_mkdir.c: mkdir, mkdirat (both runners), only noted */
bool sv_is_mkdir_call(const struct seccomp_notif *n);
/* Whether the sandbox refuses the write a call asks for at the path at
 * addr (relative to dirfd), where the caller could make it without sbx: a
 * new entry in its directory (SV_WRITE_NEW), a regular file that exists
 * (SV_WRITE_EXISTING). made gets the path in the command's view, given the
 * path as the command wrote it. Only looked at: the kernel decides. */
#define SV_WRITE_NEW 1u
#define SV_WRITE_EXISTING 2u
bool sv_write_refused(struct sv_call *c, int dirfd, uint64_t addr, unsigned how, char *made,
		      size_t made_size, char given[PATH_MAX]);
/* supervisor_rw_open.c: open, openat for reading and writing (both runners),
 * only noted */
bool sv_is_rw_open_call(const struct seccomp_notif *n);
void sv_rw_open_call(struct sv_call *c, struct sv_answer *a);
void sv_rw_open_note(struct sv_call *c);
void sv_mkdir_call(struct sv_call *c, struct sv_answer *a);
/* supervisor_listen.c: listen(2) (landlock runner), only recorded */
bool sv_is_listen_call(const struct seccomp_notif *n);
void sv_listen_call(struct sv_call *c, struct sv_answer *a);
/* The listening socket sock is connected to was put to listen by a process
 * of the run (SO_PEERPIDFD names it, even after it exited). */
bool sv_listener_recorded(struct supervisor *sv, int sock);
struct sv_net_op;
/* Everything read and decided; the op to perform, or NULL with a filled. */
struct sv_net_op *sv_net_prepare(struct sv_call *c, struct sv_answer *a);
/* Whether performing may block (then a worker thread does it). */
bool sv_net_may_block(const struct sv_net_op *op);
/* Whether the kernel decides it in the run's scope domain: performed on a
 * worker made there (an abstract name, with a scope thread). */
bool sv_net_scoped(const struct sv_net_op *op);
void sv_net_perform(struct sv_net_op *op, struct sv_answer *a);
void sv_net_free(struct sv_net_op *op);
/* The socket the op works on (ours: pidfd_getfd), for cancelling. */
int sv_net_socket(const struct sv_net_op *op);

/* supervisor_state.c: the run's references, its wake-up, the answer to the kernel */
/* Keep only the capabilities in keep on this thread (and never more than it
 * holds). 0 or -errno. */
int sv_lower_caps(uint64_t keep);
void sv_ref(struct supervisor *sv);
void sv_unref(struct supervisor *sv);
void sv_wake(struct supervisor *sv);
void sv_respond(struct supervisor *sv, uint64_t id, const struct sv_answer *a);

/* supervisor_worker.c: calls that may block, on threads of their own. */
struct pollfd;
/* The same for an open that may block (supervisor_open.c). */
bool sv_worker_start_open(struct supervisor *sv, struct sv_call *c, struct sv_open_op *op);
/* Hand op over (the worker answers). false: no room, perform it yourself
 * (scoped: on a thread of the run's scope domain, which the dispatcher is
 * not; false then means refuse). */
bool sv_worker_start(struct supervisor *sv, struct sv_call *c, struct sv_net_op *op, bool scoped);
/* The caller of the call in slot died: end its worker. */
void sv_worker_caller_gone(struct supervisor *sv, size_t slot);
/* The run is over: end every call in flight, send idle workers away. */
void sv_worker_stop_all(struct supervisor *sv);
/* Free finished slots; fill pfd with the callers still waited for. */
size_t sv_worker_watch(struct supervisor *sv, struct pollfd *pfd, size_t *slot_of);

/* supervisor_runs.c: the confined runs of this process, by their first
 * process; whether pid is one of them (still that process). */
void sv_runs_add(pid_t pid);
void sv_runs_remove(pid_t pid);
bool sv_runs_root(pid_t pid);
/* The runs' first processes but skip, at most max. */
size_t sv_runs_list(pid_t *out, size_t max, pid_t skip);

/* supervisor_peer.c: was this listener made by a run of ours? Before any
 * connection: a process of ours holds the listening socket bound to the
 * socket file, in our network namespace or, where net_unix (the caller's
 * /proc/PID/net/unix, or -1) names another, in that one. */
bool sv_bound_listener_is_ours(struct supervisor *sv, int socket_file, int net_unix);
struct stat;
struct unix_diag_msg;
struct unix_diag_vfs;
/* supervisor_unix_diag.c: each unix socket of our network namespace in
 * states (a mask of TCP_* states), with what show asks for: its bound
 * name's exact bytes (NULL: none asked or unbound) and the file it is
 * bound to (NULL: none). */
typedef void (*sv_unix_diag_fn)(void *ctx, const struct unix_diag_msg *m, const char *name,
				size_t name_len, const struct unix_diag_vfs *vfs);
void sv_unix_diag_each(uint32_t states, uint32_t show, sv_unix_diag_fn each, void *ctx);
/* vfs names the file st describes. */
bool sv_unix_diag_vfs_is(const struct unix_diag_vfs *vfs, const struct stat *st);
/* The listener bound to the file st describes was bound with exactly path. */
bool sv_bound_by_that_name(const struct stat *st, const char *path);
/* On a connection sock (one of ours that nobody else holds) to it: the
 * process that called listen(2) is ours, alive or noted. */
bool sv_peer_listener_is_ours(struct supervisor *sv, int sock, int socket_file);
/* A process of this run (the run's first process or below it) holds a
 * socket with one of these sockfs inodes. */
bool sv_run_holds_socket(struct supervisor *sv, const unsigned long *ino, size_t n);

#endif
