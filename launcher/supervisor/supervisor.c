/* SPDX-License-Identifier: MIT */
/* One run's supervisor: a dispatcher thread takes each notification, reads
 * and decides it, and performs it, on the spot when it cannot block, else on
 * a worker thread of its own (a slow connect never holds up the next call,
 * nor serve's loop, which only starts and stops us). A worker whose caller
 * dies, or whose run ends, is cancelled inside its blocking call.
 *
 * The threads hold the command's privileges and no more: sbx's uid and gids
 * are already the command's (both come from the caller), so the dispatcher
 * only lowers its capabilities, on itself alone (raw capset(2)), before it
 * takes the first call; the workers it starts inherit that. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf_eval.h"
#include "pty_pool.h"
#include "scope_thread.h"
#include "seccomp_notify.h"
#include "supervisor_int.h"
#include "syscall_abi.h"

/* Linux 6.6 headers; Debian 12 has 6.1's. */
#define SV_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define SV_USER_NOTIF_FD_SYNC_WAKE_UP 1UL

/* A copy of n strings we own; *n_out counts the ones made. 0 or ENOMEM. */
static int copy_list(char ***out, size_t *n_out, const char *const *in, size_t n)
{
	*out = calloc(n ? n : 1, sizeof(char *));
	if (!*out)
		return ENOMEM;
	for (size_t i = 0; i < n; i++) {
		(*out)[i] = strdup(in[i]);
		if (!(*out)[i])
			return ENOMEM;
		*n_out = i + 1;
	}
	return 0;
}

static int copy_windows(struct supervisor *sv, const struct supervise_window *in, size_t n)
{
	sv->past = calloc(n ? n : 1, sizeof(*sv->past));
	if (!sv->past)
		return ENOMEM;
	for (size_t i = 0; i < n; i++) {
		sv->past[i] = in[i];
		sv->past[i].below = strdup(in[i].below);
		if (!sv->past[i].below)
			return ENOMEM;
		sv->n_past = i + 1;
	}
	return 0;
}

/* The errno rules' refusals reach us only to be counted: answered with the
 * rules' own errno, never performed. Asked before anything else, since some
 * (chmod with a setgid bit) are calls we would otherwise decide and perform.
 * A program we cannot evaluate refuses everything it is asked (EPERM).
 * Counted where the caller could have made the call without sbx. */
static bool refused_by_rules(struct supervisor *sv, struct sv_call *c, struct sv_answer *a)
{
	uint32_t v;
	int err;

	if (!sv->rules)
		return false;
	if (bpf_eval(sv->rules, &c->n.data, &v, NULL) < 0)
		err = EPERM;
	else if ((v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
		err = (int)(v & SECCOMP_RET_DATA);
	else
		return false;
	a->err = sv_rules_refusal_counts(c) ? -sv_refuse(sv, err) : err;
	return true;
}

static void handle_socket_call(struct supervisor *sv, struct sv_call *c, struct sv_answer *a)
{
	struct sv_net_op *op = sv_net_prepare(c, a);

	if (!op)
		return;
	/* A call the kernel decides in the run's scope domain is performed
	 * there, never here: the dispatcher has no domain. */
	if (sv_net_scoped(op)) {
		if (sv_worker_start(sv, c, op, true)) {
			a->abandon = true;
			return;
		}
		a->err = EAGAIN; /* no thread to be had: the command may try again */
		sv_net_free(op);
		return;
	}
	if (sv_net_may_block(op) && sv_worker_start(sv, c, op, false)) {
		a->abandon = true; /* the worker answers */
		return;
	}
	sv_net_perform(op, a);
	sv_net_free(op);
}

static void handle_open_call(struct supervisor *sv, struct sv_call *c, struct sv_answer *a)
{
	struct sv_open_op *op = sv_open_prepare(c, a);

	if (!op)
		return;
	/* A FIFO's open waits for its reader: on a worker. */
	if (sv_open_may_block(op) && sv_worker_start_open(sv, c, op)) {
		a->abandon = true;
		return;
	}
	sv_open_perform(op, a);
	sv_open_free(op);
}

/* false: the listener is finished (no filter user is left, or it broke). */
static bool handle_one(struct supervisor *sv, bool refuse_all)
{
	struct sv_call c;
	struct sv_answer a = { 0 };

	sv_call_init(&c, sv);
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_RECV, &c.n) < 0)
		return errno == ENOENT || errno == EINTR;
	if (refuse_all) {
		a.err = -sv_refuse(sv, EACCES);
	} else if (refused_by_rules(sv, &c, &a)) {
		/* answered */
	} else if (sv->metadata && sv_is_listen_call(&c.n)) {
		sv_listen_call(&c, &a);
	} else if (sv_is_mkdir_call(&c.n)) {
		sv_mkdir_call(&c, &a);
	} else if (sv->opener >= 0 && sv_is_open_call(&c.n)) {
		/* a read-write open is noted where the sandbox refuses it
		 * (issue 31) before the opener performs it */
		if (sv_is_rw_open_call(&c.n))
			sv_rw_open_note(&c);
		handle_open_call(sv, &c, &a); /* i386's too: performed alike */
	} else if (sv_is_rw_open_call(&c.n)) {
		sv_rw_open_call(&c, &a);
	} else if (!syscall_abi_native(&c.n.data)) {
		/* i386's calls are trapped so they are no way around us, and
		 * refused rather than emulated (x32's never get here: the
		 * filters refuse that ABI whole, ENOSYS; arm64's 32-bit ARM
		 * neither: the filter kills it). */
		a.err = -sv_refuse(sv, EACCES);
	} else if (sv_is_metadata_call(&c.n)) {
		sv_metadata_call(&c, &a);
	} else if (sv->metadata && sv_is_pty_peer_call(&c.n)) {
		sv_pty_peer_call(&c, &a);
	} else if (sv->metadata && sv_is_pty_number_call(&c.n)) {
		sv_pty_number_call(&c, &a);
	} else if (sv->metadata && sv_is_inode_ioctl_call(&c.n)) {
		sv_inode_ioctl_call(&c, &a);
	} else if (sv_is_watch_call(&c.n)) {
		sv_watch_call(&c, &a);
	} else if (sv_is_socket_call(&c.n)) {
		handle_socket_call(sv, &c, &a);
	} else {
		a.err = ENOSYS; /* the filter sends us nothing else */
	}
	sv_respond(sv, c.n.id, &a);
	sv_call_release(&c);
	return true;
}

static void *dispatcher_main(void *arg)
{
	struct supervisor *sv = arg;
	struct pollfd pfd[2 + SV_MAX_INFLIGHT];
	size_t slot_of[SV_MAX_INFLIGHT];
	bool listening = true;
	/* If we cannot hold exactly the command's privileges we perform
	 * nothing: every call is refused. */
	bool refuse_all = sv_lower_caps(sv->caps) < 0;

	while (!__atomic_load_n(&sv->stopping, __ATOMIC_ACQUIRE)) {
		size_t n = 0, first;

		pfd[n++] = (struct pollfd){ .fd = sv->wake_fd, .events = POLLIN };
		if (listening)
			pfd[n++] = (struct pollfd){ .fd = sv->listener, .events = POLLIN };
		first = n;
		n += sv_worker_watch(sv, pfd + first, slot_of);
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents) {
			uint64_t v;
			ssize_t r = read(sv->wake_fd, &v, sizeof(v));

			(void)r;
		}
		/* POLLHUP: every process under the filter is gone. */
		if (listening && (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL)) &&
		    !(pfd[1].revents & POLLIN)) {
			listening = false;
			/* No process of the command is left to open anything:
			 * the opener may go (it ends at end of file). Not
			 * closed: a worker may still be sending on it. */
			if (sv->opener >= 0)
				shutdown(sv->opener, SHUT_RDWR);
		}
		else if (listening && (pfd[1].revents & POLLIN))
			listening = handle_one(sv, refuse_all);
		/* A caller died: its call is over, end its worker. */
		for (size_t i = first; i < n; i++)
			if (pfd[i].revents)
				sv_worker_caller_gone(sv, slot_of[i - first]);
	}
	sv_worker_stop_all(sv);
	sv_release_drain(sv);
	sv_unref(sv);
	return NULL;
}

struct supervisor *supervisor_start(int listener, const struct supervisor_params *p, int *err)
{
	struct supervisor *sv = calloc(1, sizeof(*sv));
	pthread_attr_t attr;
	pthread_t thread;
	int rc;

	if (!sv) {
		close(listener);
		if (p->opener >= 0)
			close(p->opener);
		*err = ENOMEM;
		return NULL;
	}
	sv->listener = listener;
	sv->opener = -1;
	/* Linux 6.6+: the command waits for each answer, so the kernel may run
	 * our thread and then the command's on the caller's CPU, with no trip
	 * through the scheduler's balancing. Older kernels say no: fine. */
	(void)ioctl(listener, SV_IOCTL_NOTIF_SET_FLAGS, SV_USER_NOTIF_FD_SYNC_WAKE_UP);
	sv->refs = 2; /* the engine's and the dispatcher's */
	sv->metadata = p->metadata;
	sv->caps = p->caps;
	sv->rules = p->rules;
	sv->pty_pool = p->pty_pool;
	if (sv->pty_pool)
		pty_pool_ref(sv->pty_pool);
	sv->run = p->run;
	sv->scope = p->scope;
	sv->netns_cookie = p->netns_cookie;
	sv->opener = p->opener;
	sv->landlock_abi = p->landlock_abi;
	sv->started = p->started;
	if (sv->scope)
		scope_thread_ref(sv->scope);
	pthread_mutex_init(&sv->lock, NULL);
	pthread_cond_init(&sv->work[0], NULL);
	pthread_cond_init(&sv->work[1], NULL);
	sv->handoff[0] = sv->handoff[1] = sv->put_back = -1;
	pthread_mutex_init(&sv->drop_lock, NULL);
	pthread_cond_init(&sv->drop_work, NULL);
	pthread_cond_init(&sv->drop_room, NULL);
	for (size_t i = 0; i < p->writable.n && i < SUPERVISE_MAX_WRITABLE; i++) {
		strncpy(sv->writable_dirs[i], p->writable.dirs[i], PATH_MAX - 1);
		sv->writable.dirs[i] = sv->writable_dirs[i];
		sv->writable.below_only[i] = p->writable.below_only[i];
		sv->writable.n = i + 1;
	}
	for (size_t i = 0; i < p->writable.n_except && i < SUPERVISE_MAX_EXCEPT; i++) {
		strncpy(sv->writable_except[i], p->writable.except[i], PATH_MAX - 1);
		sv->writable.except[i] = sv->writable_except[i];
		sv->writable.n_except = i + 1;
	}
	sv->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = sv->wake_fd >= 0 ? 0 : ENOMEM;
	if (rc == 0)
		rc = copy_list(&sv->allow, &sv->n_allow, p->allow, p->n_allow);
	if (rc == 0)
		rc = copy_list(&sv->hidden, &sv->n_hidden, p->hidden, p->n_hidden);
	if (rc == 0)
		rc = copy_list(&sv->revealed, &sv->n_revealed, p->revealed, p->n_revealed);
	if (rc == 0)
		rc = copy_windows(sv, p->past, p->n_past);
	/* Its processes are a run's from the first call we answer on
	 * (supervisor_runs.c). */
	if (rc == 0)
		sv_runs_add(p->run);
	if (rc == 0 && pthread_attr_init(&attr) == 0) {
		sigset_t all, old;

		/* Born with every signal blocked (its workers inherit that):
		 * the caller's signals (SIGCHLD, SIGTERM) belong to its own
		 * threads, and none of its handlers runs on ours. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 1024 * 1024);
		rc = pthread_create(&thread, &attr, dispatcher_main, sv);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		sv->refs = 1;
		if (sv->wake_fd < 0)
			sv->wake_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		sv_runs_remove(p->run);
		sv_unref(sv);
		*err = rc;
		return NULL;
	}
	return sv;
}

void supervisor_stop(struct supervisor *sv)
{
	if (!sv)
		return;
	sv_runs_remove(sv->run);
	__atomic_store_n(&sv->stopping, true, __ATOMIC_RELEASE);
	sv_wake(sv);
	sv_unref(sv);
}

int supervisor_probe(char *reason, size_t reason_size)
{
	return notify_kernel_probe(reason, reason_size);
}
