/* SPDX-License-Identifier: MIT */
/* launcher/supervisor: the syscall supervisor. This header is its one entry;
 * the engine starts and stops one per confined run (run_supervise.c). Calls
 * run one way: the dispatcher (supervisor.c) at the top; below it the
 * decisions, one file per family of calls (metadata: supervisor_meta.c,
 * mkdir, watches; sockets: supervisor_net*.c, supervisor_peer.c,
 * supervisor_listen.c; ptys: supervisor_pty*.c; the errno rules' refusals:
 * supervisor_refusal.c); below those, blocking calls on workers
 * (supervisor_worker.c); at the bottom, reading the command
 * (supervisor_call.c), releasing our copies of its files
 * (supervisor_release.c), the run's object and its answers
 * (supervisor_state.c), the runs of this process and the soft refusals
 * noted. Internals: supervisor_int.h, supervisor_net.h.
 *
 * The syscall supervisor (CONTRACT section 10): sbx answers the seccomp user
 * notifications of one confined run. It resolves each object in the
 * command's view, decides by the run's writable set and the unix_sockets
 * allow-list, and performs the call itself with the command's privileges;
 * refusals are EACCES. It never lets the kernel continue a decided call
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE): a second thread of the command could
 * swap the path or the address between the decision and the kernel's own
 * look-up. (listen(2), which it only notes, has no such argument: it
 * continues; so does ioctl(TIOCGPTN), whose only pointer the kernel writes:
 * supervisor_ptypool.c.) mkdir(2) too: the kernel decides it alone, and we
 * only note a refusal (supervisor_mkdir.c). */
#ifndef SBX_SUPERVISOR_H
#define SBX_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "policy.h"

struct supervisor;
struct sock_fprog;
struct pty_pool;
struct scope_thread;

/* A confined run's time window (ns since the epoch; to UINT64_MAX: still
 * open) and a place it could write (its root, or a place outside it every
 * run may write: /tmp, /dev/shm, sbx's state). */
struct supervise_window {
	uint64_t from, to;
	const char *below;
};

struct supervisor_params {
	bool metadata;           /* decide chmod/chown/utimes/xattrs (landlock runner) */
	struct supervise_writable writable; /* canonical paths in the command's view */
	const char *const *allow; /* unix_sockets entries */
	size_t n_allow;
	/* The hidden paths (credential stores, sbx's state) and what stays
	 * readable below them: no watch is placed there (landlock runner). */
	const char *const *hidden;
	size_t n_hidden;
	const char *const *revealed;
	size_t n_revealed;
	/* The capabilities the command holds (bit N: capability N), and so the
	 * supervisor's threads: never more. */
	uint64_t caps;
	/* The runner's errno rules, when the joined filter hands their
	 * refusals to us (seccomp_filter_join): answered, counted. */
	const struct sock_fprog *rules;
	/* The landlock runner's pty pool (kernel/pty_pool.h), referenced
	 * while we run; NULL: none. */
	struct pty_pool *pty_pool;
	/* The run's first process (bash, or its PID namespace's init): whose
	 * descendants are searched first for a listener (supervisor_peer.c). */
	pid_t run;
	/* The run's scope thread (kernel/scope_thread.h), referenced while we
	 * run; NULL: the kernel does not scope abstract unix sockets for this
	 * run, and we decide them (supervisor_abstract.c). */
	struct scope_thread *scope;
	/* The landlock runner's --net none namespace, by its cookie (0: none):
	 * a root caller's is the host user namespace's, and we may not ask a
	 * socket there which namespace it is in. */
	uint64_t netns_cookie;
	/* The run's opener's socket (runners/opener.h), ours from now on, or
	 * -1: opens for writing are not ours to perform (read-only mode). */
	int opener;
	/* The Landlock ABI the run is confined with. */
	int landlock_abi;
	/* When the run began, taken before its command was spawned, on the
	 * clock file systems stamp changes with. */
	struct timespec started;
	/* The windows of every recorded confined run (the runs record,
	 * protect/protect_runs.c): a socket an allow-list entry names that
	 * changed in one of them was put there by a run. */
	const struct supervise_window *past;
	size_t n_past;
};

/* Take over listener and start answering on threads of our own (serve's loop
 * is never blocked). NULL with *err set on failure: the listener is closed,
 * and the run's supervised calls then fail (ENOSYS), never pass unchecked. */
struct supervisor *supervisor_start(int listener, const struct supervisor_params *p, int *err);
/* The run is over: calls still in flight are abandoned (their threads are
 * cancelled), and everything is released once the last thread is out.
 * Never blocks. NULL is fine. */
void supervisor_stop(struct supervisor *sv);

/* How many calls the policy refused so far: ours (EACCES) and the errno
 * rules' that reached us. A failed run with any is a denied one. */
unsigned supervisor_refusals(const struct supervisor *sv);

/* Whether text (len bytes) names the path of a soft refusal, or a path
 * below it: a mkdir the kernel refused (the sandbox's view), a watch we
 * refused. Such a refusal is no denial by itself (many programs try a cache
 * in $HOME, or watch what they can, and go on); a failed run whose output
 * names it is one (`go env -w`: "open ~/.config/go/env: no such file or
 * directory"). */
bool supervisor_refusal_named(struct supervisor *sv, const char *text, size_t len,
			      const struct supervise_local *local);
/* Whether command (the run's bash command line, run in cwd) names the path
 * of a soft refusal while text says, on a line that is no warning, that
 * something is read-only (supervise_says_read_only): a program that went on
 * read-only after a refused read-write open and failed in its own words. */
bool supervisor_refusal_commanded(struct supervisor *sv, const char *command, const char *cwd,
				  const char *text, size_t len);
/* Whether any soft refusal was noted yet (cheap: no lock). */
bool supervisor_noted_any(struct supervisor *sv);

/* Parent: can this kernel and process supervise (cached)? 0, or -errno with
 * a plain reason. */
int supervisor_probe(char *reason, size_t reason_size);
/* Whether a listener's owner can be told by its pidfd (SO_PEERPIDFD, Linux
 * 6.5+); else by its pid, which a patient command could recycle. */
bool supervisor_peer_pidfd(void);

#endif
