/* SPDX-License-Identifier: MIT */
/* Worker threads for supervised calls that may block (a connect, a send on
 * a blocking socket): the dispatcher hands them over and goes on taking
 * calls. A worker that finished waits a while for the next one (creating a
 * thread per connect costs more than the connect to loopback).
 *
 * Cancellation: when a caller dies, or its run ends, the dispatcher cancels
 * the worker of that call. A worker enables cancellation only around its
 * blocking syscall, where everything it holds is in the op that the cleanup
 * frees. A cancellation that arrives just after that syscall returned stays
 * pending: the worker sweeps it (pthread_testcancel, and so exits) before it
 * takes another call, so it never lands on the wrong one. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "scope_thread.h"
#include "supervisor_int.h"

#define WORKER_IDLE_SECONDS 5
#define WORKER_STACK (256 * 1024)

struct worker {
	struct supervisor *sv;
	size_t slot;      /* the call being performed */
	bool in_call;
	bool scoped;      /* made by the run's scope thread: takes scoped calls only */
};

/* The call in w->slot is over: free it, tell the dispatcher. */
static void finish_call(struct worker *w)
{
	struct supervisor *sv = w->sv;
	struct sv_inflight *f = &sv->inflight[w->slot];

	sv_net_free(f->op);
	sv_open_free(f->open);
	pthread_mutex_lock(&sv->lock);
	f->op = NULL;
	f->open = NULL;
	f->done = true;
	pthread_mutex_unlock(&sv->lock);
	w->in_call = false;
	sv_wake(sv);
}

/* Cancelled: inside a call (its caller is gone: nothing to answer), or in
 * the sweep after one. Either way this thread ends. */
static void worker_cancelled(void *arg)
{
	struct worker *w = arg;
	struct supervisor *sv = w->sv;

	if (w->in_call)
		finish_call(w);
	pthread_mutex_lock(&sv->lock);
	sv->n_workers--;
	pthread_mutex_unlock(&sv->lock);
	free(w);
	sv_unref(sv);
}

static void perform(struct worker *w, bool refuse)
{
	struct sv_inflight *f = &w->sv->inflight[w->slot];
	struct sv_answer a = { 0 };
	struct sv_net_op *op;

	w->in_call = true;
	if (refuse)
		a.err = -sv_refuse(w->sv, EACCES);
	else if (f->open)
		sv_open_perform(f->open, &a);
	else
		sv_net_perform(f->op, &a);
	/* The copies go back before the answer, as on the dispatcher. Why:
	 * answered first, a command that sends and receives 253 fds at a time
	 * ran ahead of the workers still handing their copies to the closer
	 * (a few at a time through its pair), and hit the run's bound of
	 * SV_MAX_PASSING with 253 in flight (test_supervisor.c:
	 * passing_fds_in_lockstep_stays_under_the_bound). No cancellation
	 * lands here: it is enabled only inside the send. */
	struct sv_open_op *open;

	pthread_mutex_lock(&w->sv->lock);
	op = f->op;
	f->op = NULL;
	open = f->open;
	f->open = NULL;
	pthread_mutex_unlock(&w->sv->lock);
	sv_net_free(op);
	sv_open_free(open);
	sv_respond(w->sv, f->id, &a);
	finish_call(w);
	/* A cancellation aimed at the call just done ends us here. */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	pthread_testcancel();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
}

/* With the lock held: a call handed over and not taken yet, or none. */
static bool take_call(struct supervisor *sv, struct worker *w)
{
	for (size_t i = 0; i < SV_MAX_INFLIGHT; i++) {
		struct sv_inflight *f = &sv->inflight[i];

		if (f->used && !f->running && !f->done && f->scoped == w->scoped) {
			f->running = true;
			f->thread = pthread_self();
			sv->n_unclaimed[w->scoped]--;
			w->slot = i;
			/* so the dispatcher watches this caller from now on */
			sv_wake(sv);
			return true;
		}
	}
	return false;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct supervisor *sv = w->sv;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_push(worker_cancelled, w);
	/* A worker of the scope domain was made by the scope thread, which
	 * keeps sbx's capabilities: it lowers its own to the command's, as the
	 * dispatcher did (the others inherit the dispatcher's). If it cannot,
	 * it performs nothing: its calls are refused. */
	bool refuse = w->scoped && sv_lower_caps(sv->caps) < 0;
	for (;;) {
		struct timespec until;
		bool got = false;

		pthread_mutex_lock(&sv->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += WORKER_IDLE_SECONDS;
		sv->n_idle[w->scoped]++;
		while (!(got = take_call(sv, w)) && !sv->stopping &&
		       pthread_cond_timedwait(&sv->work[w->scoped], &sv->lock, &until) == 0)
			;
		sv->n_idle[w->scoped]--;
		pthread_mutex_unlock(&sv->lock);
		if (!got)
			break; /* idle too long, or the run is over */
		perform(w, refuse);
	}
	pthread_cleanup_pop(1);
	return NULL;
}

static bool start(struct supervisor *sv, struct sv_call *c, struct sv_net_op *op,
		  struct sv_open_op *open, bool scoped)
{
	size_t slot = SV_MAX_INFLIGHT;
	bool ok = true;

	if (sv_pidfd(c) < 0)
		return false;
	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < SV_MAX_INFLIGHT && slot == SV_MAX_INFLIGHT; i++)
		if (!sv->inflight[i].used)
			slot = i;
	if (slot == SV_MAX_INFLIGHT) {
		pthread_mutex_unlock(&sv->lock);
		return false;
	}
	sv->inflight[slot] = (struct sv_inflight){
		.used = true, .op = op, .open = open, .id = c->n.id, .scoped = scoped,
		.pidfd = fcntl(c->pidfd, F_DUPFD_CLOEXEC, 3) };
	sv->n_unclaimed[scoped]++;
	if (sv->n_idle[scoped] >= sv->n_unclaimed[scoped]) {
		pthread_cond_signal(&sv->work[scoped]);
	} else {
		struct worker *w = calloc(1, sizeof(*w));
		pthread_attr_t attr;
		pthread_t t;

		ok = w && (scoped ? sv->scope != NULL : pthread_attr_init(&attr) == 0);
		if (ok) {
			w->sv = sv;
			w->scoped = scoped;
			sv_ref(sv);
			sv->n_workers++;
			if (scoped) {
				/* Made there, it is in the run's scope domain. */
				ok = scope_thread_spawn(sv->scope, WORKER_STACK, worker_main, w) == 0;
			} else {
				pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
				pthread_attr_setstacksize(&attr, WORKER_STACK);
				ok = pthread_create(&t, &attr, worker_main, w) == 0;
				pthread_attr_destroy(&attr);
			}
			if (!ok) {
				sv->n_workers--;
				__atomic_sub_fetch(&sv->refs, 1, __ATOMIC_SEQ_CST);
			}
		}
		if (!ok) {
			free(w);
			if (sv->inflight[slot].pidfd >= 0)
				close(sv->inflight[slot].pidfd);
			sv->inflight[slot] = (struct sv_inflight){ 0 };
			sv->n_unclaimed[scoped]--;
		}
	}
	pthread_mutex_unlock(&sv->lock);
	return ok;
}

bool sv_worker_start(struct supervisor *sv, struct sv_call *c, struct sv_net_op *op, bool scoped)
{
	return start(sv, c, op, NULL, scoped);
}

bool sv_worker_start_open(struct supervisor *sv, struct sv_call *c, struct sv_open_op *op)
{
	return start(sv, c, NULL, op, false);
}

/* With the lock held. */
static void cancel_slot(struct sv_inflight *f)
{
	if (f->used && f->running && !f->done && !f->cancelled) {
		f->cancelled = true;
		pthread_cancel(f->thread);
	}
}

void sv_worker_caller_gone(struct supervisor *sv, size_t slot)
{
	pthread_mutex_lock(&sv->lock);
	cancel_slot(&sv->inflight[slot]);
	pthread_mutex_unlock(&sv->lock);
}

void sv_worker_stop_all(struct supervisor *sv)
{
	struct sv_net_op *untaken[SV_MAX_INFLIGHT];
	struct sv_open_op *untaken_open[SV_MAX_INFLIGHT];
	size_t n = 0;

	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < SV_MAX_INFLIGHT; i++) {
		struct sv_inflight *f = &sv->inflight[i];

		cancel_slot(f);
		if (f->used && !f->running && !f->done) {
			untaken_open[n] = f->open;
			untaken[n++] = f->op;
			f->op = NULL;
			f->open = NULL;
			f->done = true;
			sv->n_unclaimed[f->scoped]--;
		}
	}
	pthread_cond_broadcast(&sv->work[0]);
	pthread_cond_broadcast(&sv->work[1]);
	pthread_mutex_unlock(&sv->lock);
	/* Outside the lock: freeing hands the ops' copies to the closer. */
	for (size_t i = 0; i < n; i++) {
		sv_net_free(untaken[i]);
		sv_open_free(untaken_open[i]);
	}
}

size_t sv_worker_watch(struct supervisor *sv, struct pollfd *pfd, size_t *slot_of)
{
	size_t n = 0;

	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < SV_MAX_INFLIGHT; i++) {
		struct sv_inflight *f = &sv->inflight[i];

		if (f->used && f->done) {
			if (f->pidfd >= 0)
				close(f->pidfd);
			*f = (struct sv_inflight){ 0 };
		} else if (f->used && f->running && !f->cancelled && f->pidfd >= 0) {
			pfd[n] = (struct pollfd){ .fd = f->pidfd, .events = POLLIN };
			slot_of[n++] = i;
		}
	}
	pthread_mutex_unlock(&sv->lock);
	return n;
}
