/* SPDX-License-Identifier: MIT */
/* Socket calls that can name a peer: connect, sendto with an address,
 * sendmsg, sendmmsg (both runners). The address of connect and sendmsg is in
 * the command's memory, where another of its threads can change it after we
 * read it: so every such call is performed here, on the command's own socket
 * (pidfd_getfd), with the address we read and decided on. A unix socket path
 * is looked up by us in the command's view and reached through our handle on
 * the socket file (/proc/self/fd/N), never by its name again.
 *
 * A unix socket is reachable when the unix_sockets allow-list names it, or
 * when it lies in the run's writable set, belongs to the command's user and a
 * process of ours listens on it (supervisor_peer.c). Datagram sockets have no
 * listener to ask: they are reachable through the allow-list only. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "inflight.h"
#include "supervisor_net.h"

bool sv_is_socket_call(const struct seccomp_notif *n)
{
	return n->data.nr == SYS_connect || n->data.nr == SYS_sendto ||
	       n->data.nr == SYS_sendmsg || n->data.nr == SYS_sendmmsg;
}

int sv_net_socket(const struct sv_net_op *op)
{
	return op->sock;
}

bool sv_net_scoped(const struct sv_net_op *op)
{
	return op->scoped;
}

/* An error of a call performed in the run's scope domain: the scope's
 * refusal (Landlock's EPERM) is the sandbox's, EACCES as every refusal of
 * ours, counted; the rest are the kernel's answers. */
static int scoped_error(const struct sv_net_op *op, int err)
{
	return op->scoped && err == EPERM ? -sv_refuse(op->sv, EACCES) : err;
}

void sv_net_free(struct sv_net_op *op)
{
	if (!op)
		return;
	for (size_t i = 0; i < op->n_msgs; i++)
		sv_net_msg_clear(op, &op->msgs[i]);
	free(op->msgs);
	sv_release_fd(op->sv, op->sock);
	if (op->pidfd >= 0)
		close(op->pidfd);
	if (op->mem >= 0)
		close(op->mem);
	if (op->net_unix >= 0)
		close(op->net_unix);
	free(op);
}

struct sv_net_op *sv_net_prepare(struct sv_call *c, struct sv_answer *a)
{
	struct sv_net_op *op = calloc(1, sizeof(*op));
	int rc;

	if (!op) {
		a->err = ENOMEM;
		return NULL;
	}
	op->sv = c->sv;
	op->sock = op->pidfd = op->mem = op->net_unix = -1;
	op->kind = c->n.data.nr == SYS_connect ? NET_CONNECT : c->n.data.nr == SYS_sendto ? NET_SENDTO
		   : c->n.data.nr == SYS_sendmsg ? NET_SENDMSG : NET_SENDMMSG;
	rc = sv_net_read(c, op);
	if (rc == 0 && sv_pidfd(c) >= 0)
		op->pidfd = fcntl(c->pidfd, F_DUPFD_CLOEXEC, 3);
	if (rc == 0 && op->kind == NET_SENDMMSG)
		op->mem = sv_open_mem(c);
	/* Everything is read: is it still the call we were asked about? */
	if (rc == 0 && !sv_still_valid(c)) {
		a->abandon = true;
		rc = -ECANCELED;
	}
	if (rc < 0) {
		a->err = -rc;
		sv_net_free(op);
		return NULL;
	}
	return op;
}

bool sv_net_may_block(const struct sv_net_op *op)
{
	int fl = fcntl(op->sock, F_GETFL);

	if (fl < 0 || (fl & O_NONBLOCK))
		return false;
	if (op->kind == NET_CONNECT)
		return op->type != SOCK_DGRAM;
	return !(op->flags & MSG_DONTWAIT);
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A send that passes fds on a socket the command would block on, made
 * without blocking in the kernel: each try is checked against the user's
 * fds in flight anew. Why: the kernel checks when a send starts and counts
 * when the message is queued; blocking sends to a full peer waited in
 * between, and 32 of them from two runs passed the check together and took
 * the count past the hard limit once queued, where every later run's setup
 * (its listener's hand-off) failed. Waits as the kernel would: in poll,
 * without a timeout of its own (a connected peer's queue counts there; a
 * timeout made 64 waiting sends cost a third of a core), in naps only where
 * poll cannot tell (writable, yet the send would wait: a datagram to a named
 * peer), up to the socket's SO_SNDTIMEO. A stream send
 * that went out in part sends the rest as the command asked, without the
 * fds, which went with the first part. */
static ssize_t send_passing(int sock, struct msghdr *h, int flags)
{
	struct pollfd p = { .fd = sock, .events = POLLOUT };
	struct timeval tmo = { 0 };
	socklen_t tl = sizeof(tmo);
	int64_t until = -1;
	int nap_ms = 1;
	ssize_t n;

	if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tmo, &tl) == 0 && (tmo.tv_sec || tmo.tv_usec))
		until = now_ms() + (int64_t)tmo.tv_sec * 1000 + tmo.tv_usec / 1000;
	while ((n = inflight_sendmsg(sock, h, flags | MSG_DONTWAIT, false)) < 0 && errno == EAGAIN) {
		int64_t left = until >= 0 ? until - now_ms() : -1;

		if (until >= 0 && left <= 0)
			return -1;
		if (poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left) > 0) {
			poll(NULL, 0, nap_ms);
			nap_ms = nap_ms < 50 ? 2 * nap_ms : 50;
		}
		errno = EAGAIN;
	}
	size_t total = h->msg_iov[0].iov_len;

	if (n > 0 && (size_t)n < total) {
		int type = 0;
		socklen_t len = sizeof(type);

		if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM) {
			struct iovec rest;
			struct msghdr more = { .msg_iov = &rest, .msg_iovlen = 1 };

			while ((size_t)n < total) {
				ssize_t k;

				rest.iov_base = (char *)h->msg_iov[0].iov_base + n;
				rest.iov_len = total - (size_t)n;
				k = sendmsg(sock, &more, flags);
				if (k <= 0)
					break;
				n += k;
			}
		}
	}
	return n;
}

/* The blocking syscalls are the only points where a worker may be
 * cancelled (supervisor_stop, or the caller died): everything it holds is
 * in the op, which the cancellation's cleanup frees. */
static ssize_t do_sendmsg(struct sv_net_op *op, struct net_msg *m, int flags)
{
	struct iovec iov = { .iov_base = m->data, .iov_len = m->len };
	struct msghdr h = {
		.msg_name = m->namelen ? &m->name : NULL,
		.msg_namelen = m->namelen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = m->control,
		.msg_controllen = m->controllen,
	};
	/* Why never exempt: fds passed for the command count against its
	 * user's in-flight limit as its own send would (inflight.h); a root
	 * caller's thread would not be checked at all. */
	uint64_t exempt = m->controllen ? inflight_exempt_drop() : 0;
	bool passing = m->n_fds && !(flags & MSG_DONTWAIT) && !(fcntl(op->sock, F_GETFL) & O_NONBLOCK);
	int old, err;
	ssize_t n;

	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	n = passing ? send_passing(op->sock, &h, flags)
	    : m->n_fds ? inflight_sendmsg(op->sock, &h, flags, false) : sendmsg(op->sock, &h, flags);
	err = errno;
	pthread_setcancelstate(old, NULL);
	inflight_exempt_restore(exempt);
	errno = err;
	return n;
}

static void close_fd(void *arg)
{
	close(*(int *)arg);
}

/* Who listens on the socket file, asked on a connection of our own that no
 * one else holds: 1 ours, 0 not, or -errno (that connect failed). Never on
 * the command's socket: it is the command's open file, and from the moment
 * it is connected any other thread or process of the command that holds it
 * writes into the connection (a tmux client's whole request, which runs a
 * command outside the sandbox, needs no answer first), whatever we decide
 * after. The listener sees a connection closed at once, with no byte. */
static int probe_listener(struct sv_net_op *op, struct net_msg *m)
{
	int fl = fcntl(op->sock, F_GETFL), old, rc;
	int s = socket(AF_UNIX, op->type | SOCK_CLOEXEC |
				(fl >= 0 && (fl & O_NONBLOCK) ? SOCK_NONBLOCK : 0), 0);

	if (s < 0)
		return -errno;
	pthread_cleanup_push(close_fd, &s);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	rc = connect(s, (struct sockaddr *)&m->name, m->namelen) < 0 ? -errno : 0;
	pthread_setcancelstate(old, NULL);
	pthread_cleanup_pop(0);
	if (rc == 0)
		rc = sv_peer_listener_is_ours(op->sv, s, m->target);
	close(s);
	return rc;
}

static void perform_connect(struct sv_net_op *op, struct sv_answer *a)
{
	struct net_msg *m = &op->msgs[0];
	int old, err, rc;

	/* The listener is known to be ours before the command's socket is
	 * connected: found among our processes' sockets, or else asked on a
	 * connection of our own (probe_listener). A socket file is bound to
	 * one socket for good, and we connect through our handle on it. */
	if (op->check_listener && !sv_bound_listener_is_ours(op->sv, m->target, op->net_unix)) {
		rc = probe_listener(op, m);
		if (rc <= 0) {
			a->err = rc < 0 ? -rc : -sv_refuse(op->sv, EACCES);
			return;
		}
	}
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	rc = connect(op->sock, m->namelen ? (struct sockaddr *)&m->name : NULL, m->namelen);
	err = errno;
	pthread_setcancelstate(old, NULL);
	if (rc < 0)
		a->err = scoped_error(op, err);
}

void sv_net_perform(struct sv_net_op *op, struct sv_answer *a)
{
	/* Our thread must never take a SIGPIPE: it would end sbx. The command
	 * gets its own below when it asked for one. Zero-copy would send from
	 * our buffer after we freed it. */
	int flags = (op->flags | MSG_NOSIGNAL) & ~MSG_ZEROCOPY;
	size_t n_msgs = op->kind == NET_SENDMMSG ? op->n_msgs : 1, sent = 0;

	if (op->kind == NET_CONNECT) {
		perform_connect(op, a);
		return;
	}
	for (size_t i = 0; i < n_msgs; i++) {
		ssize_t n = do_sendmsg(op, &op->msgs[i], flags);
		int err = errno;

		if (n < 0) {
			if (err == EPIPE && !(op->flags & MSG_NOSIGNAL) && op->pidfd >= 0)
				syscall(SYS_pidfd_send_signal, op->pidfd, SIGPIPE, NULL, 0);
			if (sent == 0)
				a->err = scoped_error(op, err);
			break;
		}
		if (op->kind != NET_SENDMMSG) {
			a->val = n;
			return;
		}
		/* sendmmsg tells each message's length in the caller's vector,
		 * through the mem file opened while the call was known valid. */
		uint32_t len = (uint32_t)n;
		off_t at = (off_t)(op->vec + i * sizeof(struct mmsghdr) +
				   offsetof(struct mmsghdr, msg_len));

		if (op->mem < 0 || pwrite(op->mem, &len, sizeof(len), at) != sizeof(len)) {
			if (sent == 0)
				a->err = EFAULT;
			break;
		}
		sent++;
	}
	if (sent)
		a->val = (int64_t)sent;
}
