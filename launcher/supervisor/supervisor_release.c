/* SPDX-License-Identifier: MIT */
/* The one thread that closes our copies of the command's files (pidfd_getfd).
 * Why: such a close may drop the last reference (the command closed its fd,
 * or exited, meanwhile), and some last closes wait: a TCP socket with
 * SO_LINGER and unsent data waits for its peer as long as the command set, a
 * day or more. On the dispatcher that stopped every later call of the run,
 * and in serve outlived it (test_supervisor.c:
 * last_reference_to_a_lingering_socket_holds_no_thread).
 *
 * Waiting copies are kept out of our fd table: each is sent over a socket
 * pair (SCM_RIGHTS) and our fd closed at once (never the last reference:
 * the message holds one). Why: a run's child is cloned from this process and
 * inherits its fd table; had it inherited a copy the closer then dropped, its
 * own close at exec would be the last, and the next run (another session's,
 * in serve) would hang in it. A closer takes one copy at a time and may get
 * caught in such a wait; nobody waits for it. A closer in one drop for
 * 100 ms is cancelled when 64 copies wait behind it, or after 10 ms once
 * the run has ended: the
 * signal that carries the cancellation ends the wait (the kernel finishes
 * the close at once and sends the data in the background, as it does for a
 * process that exits), the cancelled closer puts its copy back, and another
 * takes over. The copy is first swapped for /dev/null (dup3, which drops the
 * file), so its fd number stays ours until a close that cannot wait, and a
 * second swap is harmless. A copy the pair refuses (ETOOMANYREFS: hold()),
 * or that finds no closer (no thread to be had), waits in our table, taken
 * first.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inflight.h"
#include "supervisor_int.h"

#define CLOSER_IDLE_SECONDS 5
#define CLOSER_STACK (128 * 1024)
#define LOOK_AGAIN_NS (10 * 1000 * 1000)
/* A drop longer than this is a wait on a peer, not work: cancelled when it
 * holds others up. */
#define STUCK_AFTER_NS (100 * 1000 * 1000LL)
/* Once the run is over, sooner: nothing of the run is left to be held up,
 * but each lingering copy still costs one wait this long, and a run can
 * leave a thousand (its share of the fds sends may pass): at 100 ms that
 * kept a closer cancelled and replaced for over a minute after the run. */
#define STUCK_AT_END_NS (10 * 1000 * 1000LL)
/* At the run's end, how many looks (LOOK_AGAIN_NS apart) for a thread to
 * close with before a copy is closed in place. */
#define NO_THREAD_TRIES 300

struct sv_closer {
	struct supervisor *sv;
	pthread_t thread;
	int fd;       /* the copy in hand, -1: none */
	long long since; /* when it took it (CLOCK_MONOTONIC, ns) */
	int null_fd;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* pthread_cond_timedwait's clock (CLOCK_REALTIME), ns from now. */
static struct timespec realtime_in(long long ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns += ts.tv_nsec;
	ts.tv_sec += ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	return ts;
}

/* The drop itself, the only place a closer may be cancelled: nothing but
 * a raw syscall between enabling and disabling, so an asynchronous
 * cancellation can land anywhere in it. */
static void drop(int null_fd, int fd)
{
	int old;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	(void)syscall(SYS_dup3, null_fd, fd, O_CLOEXEC);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
}

static void closer_free(struct sv_closer *cl)
{
	struct supervisor *sv = cl->sv;

	close(cl->null_fd);
	free(cl);
	sv_unref(sv);
}

static bool start_closer(struct supervisor *sv);

/* With drop_lock held: copies wait for a closer. */
static bool queued(const struct supervisor *sv)
{
	return sv->n_drops || sv->n_held || sv->put_back >= 0;
}

/* With drop_lock held: fd (a copy the pair would not take) waits in our
 * table instead. Why: a send with SCM_RIGHTS fails with ETOOMANYREFS once
 * the user has more files in flight than RLIMIT_NOFILE, and a command of
 * the same user (sbx performs its sends) can put them there; closing the
 * copy on the caller then (the dispatcher, a worker, neither cancellable
 * there) let it wait out a lingering socket: a day-long stall of the run,
 * and in serve two threads and the socket kept past it. false: no memory. */
static bool hold(struct supervisor *sv, int fd)
{
	if (sv->n_held == sv->cap_held) {
		size_t cap = sv->cap_held ? 2 * sv->cap_held : 16;
		int *grown = realloc(sv->held, cap * sizeof(*grown));

		if (!grown)
			return false;
		sv->held = grown;
		sv->cap_held = cap;
	}
	sv->held[sv->n_held++] = fd;
	return true;
}

/* One copy (with drop_lock held): put back, held, or off the pair; or -1. */
static int take(struct supervisor *sv)
{
	char byte, control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *cm;
	int fd = -1;

	if (sv->put_back >= 0) {
		fd = sv->put_back;
		sv->put_back = -1;
		return fd;
	}
	/* First: they are in our table, where a run's child cloned now
	 * would inherit them. */
	if (sv->n_held)
		return sv->held[--sv->n_held];
	if (recvmsg(sv->handoff[1], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0) {
		sv->n_drops = 0; /* nothing in flight after all */
		return -1;
	}
	sv->n_drops--;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

/* With drop_lock held: 0, or -errno. */
static int send_copy(struct supervisor *sv, int fd)
{
	char byte = 0, control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	if (sv->handoff[0] < 0 &&
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv->handoff) < 0) {
		sv->handoff[0] = sv->handoff[1] = -1;
		return -errno;
	}
	memset(control, 0, sizeof(control));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (inflight_sendmsg(sv->handoff[0], &m, MSG_DONTWAIT | MSG_NOSIGNAL, false) < 0)
		return -errno;
	sv->n_drops++;
	return 0;
}

/* Cancelled inside drop(): the copy goes back, to the kept slot or, when the
 * copy of the closer cancelled before is still there, with the held ones. */
static void closer_cancelled(void *arg)
{
	struct sv_closer *cl = arg;
	struct supervisor *sv = cl->sv;

	int lost = -1;

	pthread_mutex_lock(&sv->drop_lock);
	/* The slot may still hold the copy of the closer cancelled before us:
	 * ours started (taking from the pair) before that one put its copy
	 * back. Overwritten, that copy stayed in our table for good (a
	 * /dev/null or the lingering socket itself, one per few lingering
	 * copies: supervisor::many_lingering_copies_leave_no_fd). */
	if (cl->fd >= 0 && sv->put_back < 0)
		sv->put_back = cl->fd;
	else if (cl->fd >= 0 && !hold(sv, cl->fd))
		lost = cl->fd;
	sv->cancelled_pending--;
	if (!sv->closer && queued(sv))
		start_closer(sv);
	pthread_cond_broadcast(&sv->drop_room);
	pthread_cond_signal(&sv->drop_work);
	pthread_mutex_unlock(&sv->drop_lock);
	/* No memory to hold it: closed here, on a thread nobody waits for. */
	if (lost >= 0)
		close(lost);
	closer_free(cl);
}

static void *closer_main(void *arg)
{
	struct sv_closer *cl = arg;
	struct supervisor *sv = cl->sv;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_push(closer_cancelled, cl);
	pthread_mutex_lock(&sv->drop_lock);
	for (;;) {
		struct timespec until = realtime_in(CLOSER_IDLE_SECONDS * 1000000000LL);

		while (sv->closer == cl && !queued(sv) &&
		       !__atomic_load_n(&sv->stopping, __ATOMIC_ACQUIRE) &&
		       pthread_cond_timedwait(&sv->drop_work, &sv->drop_lock, &until) == 0)
			;
		/* Replaced (a cancellation is pending and would act in drop):
		 * take nothing more. */
		if (sv->closer != cl || !queued(sv))
			break;
		cl->fd = take(sv);
		if (cl->fd < 0)
			continue;
		cl->since = now_ns();
		pthread_cond_broadcast(&sv->drop_room);
		pthread_mutex_unlock(&sv->drop_lock);
		drop(cl->null_fd, cl->fd);
		close(cl->fd); /* /dev/null now */
		pthread_mutex_lock(&sv->drop_lock);
		cl->fd = -1;
		pthread_cond_broadcast(&sv->drop_room);
	}
	if (sv->closer == cl)
		sv->closer = NULL;
	else
		sv->cancelled_pending--; /* cancelled where it could not act */
	if (!sv->closer && queued(sv))
		start_closer(sv);
	pthread_cond_broadcast(&sv->drop_room);
	pthread_mutex_unlock(&sv->drop_lock);
	pthread_cleanup_pop(0);
	closer_free(cl);
	return NULL;
}

/* With drop_lock held. false: no thread to be had. */
static bool start_closer(struct supervisor *sv)
{
	struct sv_closer *cl = calloc(1, sizeof(*cl));
	pthread_attr_t attr;
	bool ok;

	if (!cl)
		return false;
	cl->sv = sv;
	cl->fd = -1;
	cl->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ok = cl->null_fd >= 0 && pthread_attr_init(&attr) == 0;
	if (ok) {
		sv_ref(sv);
		sv->closer = cl;
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, CLOSER_STACK);
		ok = pthread_create(&cl->thread, &attr, closer_main, cl) == 0;
		pthread_attr_destroy(&attr);
		if (!ok) {
			sv->closer = NULL;
			__atomic_sub_fetch(&sv->refs, 1, __ATOMIC_SEQ_CST);
		}
	}
	if (!ok) {
		if (cl->null_fd >= 0)
			close(cl->null_fd);
		free(cl);
	}
	return ok;
}

/* With drop_lock held: a closer caught in one drop for a while is cancelled
 * and replaced. One cancellation at a time; the copy it puts back goes to
 * the kept slot, or with the held ones when the slot is still taken (its
 * successor may have taken from the pair before the slot was filled). */
static void cancel_if_stuck(struct supervisor *sv, long long after_ns)
{
	struct sv_closer *cl = sv->closer;

	if (!cl || cl->fd < 0 || sv->cancelled_pending || now_ns() - cl->since < after_ns)
		return;
	pthread_cancel(cl->thread);
	sv->cancelled_pending++;
	sv->closer = NULL;
	start_closer(sv);
}

void sv_release_fd(struct supervisor *sv, int fd)
{
	int rc;

	if (fd < 0)
		return;
	pthread_mutex_lock(&sv->drop_lock);
	for (;;) {
		struct timespec until = realtime_in(LOOK_AGAIN_NS);

		if (!sv->closer && !start_closer(sv)) {
			rc = -EAGAIN;
			break;
		}
		if (sv->n_drops + sv->n_held >= SV_DROP_LOOK_AT)
			cancel_if_stuck(sv, STUCK_AFTER_NS);
		rc = send_copy(sv, fd);
		if (rc != -EAGAIN && rc != -ENOBUFS)
			break;
		/* The pair is full behind a closer: room comes as it takes
		 * copies, or once a stuck one gives way. */
		cancel_if_stuck(sv, STUCK_AFTER_NS);
		pthread_cond_timedwait(&sv->drop_room, &sv->drop_lock, &until);
	}
	if (rc == 0) {
		/* Before a closer can take the message (it takes under the
		 * lock): the message holds the file, so this is not the last
		 * close. */
		close(fd);
		fd = -1;
		pthread_cond_signal(&sv->drop_work);
	} else if (hold(sv, fd)) {
		/* No closer to be had (its user out of processes: a command
		 * can take every slot, RLIMIT_NPROC) waits too: the next
		 * release, or the run's end (sv_release_drain, its processes
		 * gone), starts one. Closed here, on a worker or the
		 * dispatcher, it kept both caught after the run in a
		 * lingering close (supervisor::lingering_socket_with_no_
		 * thread_to_be_had_holds_no_thread). */
		fd = -1;
		pthread_cond_signal(&sv->drop_work);
	}
	pthread_mutex_unlock(&sv->drop_lock);
	/* Neither sent nor held (no memory to be had): closed here, as sbx
	 * did before. */
	if (fd >= 0)
		close(fd);
}

void sv_release_drain(struct supervisor *sv)
{
	int no_thread = 0;

	pthread_mutex_lock(&sv->drop_lock);
	pthread_cond_broadcast(&sv->drop_work);
	for (;;) {
		bool busy = sv->closer && sv->closer->fd >= 0;
		struct timespec until = realtime_in(LOOK_AGAIN_NS);

		if (!queued(sv) && !busy && !sv->cancelled_pending &&
		    !__atomic_load_n(&sv->n_workers, __ATOMIC_ACQUIRE))
			break;
		if (queued(sv) && !sv->closer && !start_closer(sv)) {
			int fd;

			/* No thread yet: the run's processes may still be
			 * going (killed, not yet reaped), holding the slots
			 * of its user. A while, then in place. */
			if (++no_thread < NO_THREAD_TRIES) {
				pthread_cond_timedwait(&sv->drop_room, &sv->drop_lock, &until);
				continue;
			}
			fd = take(sv);

			pthread_mutex_unlock(&sv->drop_lock);
			if (fd >= 0)
				close(fd);
			pthread_mutex_lock(&sv->drop_lock);
			continue;
		}
		/* The run is over: a drop still waiting after a while waits
		 * for nobody but us. */
		if (pthread_cond_timedwait(&sv->drop_room, &sv->drop_lock, &until) == ETIMEDOUT)
			cancel_if_stuck(sv, STUCK_AT_END_NS);
	}
	pthread_mutex_unlock(&sv->drop_lock);
}
