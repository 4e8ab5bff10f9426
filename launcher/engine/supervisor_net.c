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
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor_int.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/* Bytes copied for one call. A stream socket then sends less, as it may
 * (programs loop); a message that must go whole may be this large (more than
 * the kernel's default socket buffers allow anyway). Bounded so that a
 * command blocking many sends at once cannot grow serve without end. */
#define NET_MAX_STREAM (256u << 10)
#define NET_MAX_DATA (1u << 20)
#define NET_MAX_CONTROL (256u << 10)
#define NET_MAX_MSGS 1024           /* UIO_MAXIOV */
#define NET_MAX_IOV 1024
#define SCM_MAX_FDS 253

enum net_kind { NET_CONNECT, NET_SENDTO, NET_SENDMSG, NET_SENDMMSG };

struct net_msg {
	struct sockaddr_storage name;
	socklen_t namelen;
	char *data;
	size_t len;
	char *control;
	size_t controllen;
	int *fds;                 /* our copies of SCM_RIGHTS fds */
	size_t n_fds;
	int target;               /* O_PATH on the unix socket file, -1 */
};

struct sv_net_op {
	struct supervisor *sv;
	enum net_kind kind;
	int sock;                 /* our copy of the command's socket */
	int type;                 /* SOCK_STREAM, ... */
	bool unix_family;
	bool check_listener;      /* connect: the listener must be ours */
	int flags;                /* send flags, as the command gave them */
	int pidfd;                /* the caller (SIGPIPE) */
	int mem;                  /* sendmmsg: the caller's memory, for msg_len */
	uint64_t vec;             /* sendmmsg: where msg_len goes */
	size_t n_msgs;
	struct net_msg *msgs;
};

bool sv_is_socket_call(const struct seccomp_notif *n)
{
	return n->data.nr == SYS_connect || n->data.nr == SYS_sendto ||
	       n->data.nr == SYS_sendmsg || n->data.nr == SYS_sendmmsg;
}

int sv_net_socket(const struct sv_net_op *op)
{
	return op->sock;
}

void sv_net_free(struct sv_net_op *op)
{
	if (!op)
		return;
	for (size_t i = 0; i < op->n_msgs; i++) {
		struct net_msg *m = &op->msgs[i];

		for (size_t k = 0; k < m->n_fds; k++)
			close(m->fds[k]);
		free(m->fds);
		if (m->target >= 0)
			close(m->target);
		free(m->data);
		free(m->control);
	}
	free(op->msgs);
	if (op->sock >= 0)
		close(op->sock);
	if (op->pidfd >= 0)
		close(op->pidfd);
	if (op->mem >= 0)
		close(op->mem);
	free(op);
}

/* The abstract name as /proc/net/unix prints it: '@', NULs as '@'. */
static void abstract_name(const struct sockaddr_un *a, socklen_t len, char *out, size_t size)
{
	size_t n = len - offsetof(struct sockaddr_un, sun_path) - 1, k = 0;

	out[k++] = '@';
	for (size_t i = 0; i < n && k + 1 < size; i++)
		out[k++] = a->sun_path[1 + i] ? a->sun_path[1 + i] : '@';
	out[k] = '\0';
}

static bool listed(struct supervisor *sv, const char *name)
{
	return supervise_socket_listed((const char *const *)sv->allow, sv->n_allow, name);
}

/* An allow-list entry names a host path: the socket the command reached
 * must be the one that path names for us too, not something a nested mount
 * namespace of the command put there. */
static bool listed_here(struct supervisor *sv, const char *view, int target)
{
	struct stat a, b;
	int fd;
	bool same;

	if (!listed(sv, view))
		return false;
	fd = open(view, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	same = fstat(fd, &a) == 0 && fstat(target, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
	close(fd);
	return same;
}

/* A unix address for a lookup: decide, and replace a path by our handle.
 * 0: go on (m->name holds what to use); 1: performed as given (no lookup
 * happens); -errno: refuse. *check_listener: connect must verify who
 * listens. */
static int decide_unix(struct sv_call *c, struct sv_net_op *op, struct net_msg *m,
		       bool *check_listener)
{
	struct sockaddr_un *a = (struct sockaddr_un *)&m->name;
	char path[sizeof(a->sun_path) + 1], view[PATH_MAX];
	size_t plen;
	struct stat st;
	int h;

	*check_listener = false;
	if (m->namelen <= offsetof(struct sockaddr_un, sun_path) ||
	    m->namelen > sizeof(struct sockaddr_un) || a->sun_family != AF_UNIX)
		return 1; /* the kernel refuses it without looking anything up */
	if (a->sun_path[0] == '\0') {
		abstract_name(a, m->namelen, view, sizeof(view));
		if (listed(c->sv, view))
			return 0;
		if (op->type == SOCK_DGRAM)
			return -EACCES;
		*check_listener = true;
		return 0;
	}
	plen = m->namelen - offsetof(struct sockaddr_un, sun_path);
	memcpy(path, a->sun_path, plen);
	path[plen] = '\0';
	h = sv_resolve(c, AT_FDCWD, path, SV_FOLLOW);
	if (h < 0)
		return h;
	m->target = h;
	if (fstat(h, &st) < 0)
		return -EACCES;
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED; /* what the kernel says for a non-socket */
	if (sv_view_path(c, h, view, sizeof(view)) < 0)
		return -EACCES;
	if (listed_here(c->sv, view, h)) {
		/* ok */
	} else if (op->type != SOCK_DGRAM && st.st_uid == geteuid() &&
		   supervise_in_writable(&c->sv->writable, view)) {
		*check_listener = true;
	} else {
		return -EACCES;
	}
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d", h);
	m->namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a->sun_path) + 1);
	return 0;
}

static int read_name(struct sv_call *c, uint64_t addr, uint64_t len, struct net_msg *m)
{
	if (len == 0)
		return 0;
	if ((int64_t)len < 0 || len > sizeof(m->name))
		return -EINVAL;
	m->namelen = (socklen_t)len;
	return sv_read(c, addr, &m->name, (size_t)len);
}

/* The name of one message: decided where the kernel would look it up. */
static int name_decision(struct sv_call *c, struct sv_net_op *op, struct net_msg *m)
{
	bool check;
	int rc;

	/* Only unix datagram sockets look a send's name up; stream sockets
	 * refuse it and seqpacket ignores it, without a look-up. */
	if (m->namelen == 0 || !op->unix_family ||
	    (op->kind != NET_CONNECT && op->type != SOCK_DGRAM))
		return 0;
	rc = decide_unix(c, op, m, &check);
	if (rc < 0)
		return rc;
	if (check)
		op->check_listener = true;
	return 0;
}

/* The data of iov[0..n), copied into one buffer (bounded: see NET_MAX_*). */
static int read_iov(struct sv_call *c, struct sv_net_op *op, uint64_t iov_addr, uint64_t n,
		    struct net_msg *m)
{
	struct iovec *iov;
	size_t total = 0;
	int rc = 0;

	if (n > NET_MAX_IOV)
		return -EMSGSIZE;
	if (n == 0)
		return 0;
	iov = calloc((size_t)n, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	rc = sv_read(c, iov_addr, iov, (size_t)n * sizeof(*iov));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			rc = -EINVAL;
		else if (total + iov[i].iov_len > NET_MAX_DATA || total + iov[i].iov_len < total)
			total = NET_MAX_DATA + 1;
		else
			total += iov[i].iov_len;
	}
	if (rc == 0 && total > NET_MAX_DATA && op->type != SOCK_STREAM)
		rc = -EMSGSIZE;
	if (rc == 0 && op->type == SOCK_STREAM && total > NET_MAX_STREAM)
		total = NET_MAX_STREAM;
	if (rc == 0 && total) {
		m->data = malloc(total);
		if (!m->data)
			rc = -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < n && m->len < total; i++) {
		size_t take = iov[i].iov_len < total - m->len ? iov[i].iov_len : total - m->len;

		rc = sv_read(c, (uint64_t)(uintptr_t)iov[i].iov_base, m->data + m->len, take);
		m->len += take;
	}
	free(iov);
	return rc;
}

/* Control messages, with the command's SCM_RIGHTS fds replaced by our
 * copies of the same files. */
static int read_control(struct sv_call *c, uint64_t addr, uint64_t len, struct net_msg *m)
{
	struct msghdr h = { 0 };
	int rc;

	if (len == 0)
		return 0;
	if (len > NET_MAX_CONTROL)
		return -ENOBUFS;
	m->control = calloc(1, (size_t)len);
	if (!m->control)
		return -ENOMEM;
	m->controllen = (size_t)len;
	rc = sv_read(c, addr, m->control, (size_t)len);
	if (rc < 0)
		return rc;
	h.msg_control = m->control;
	h.msg_controllen = m->controllen;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&h); cm; cm = CMSG_NXTHDR(&h, cm)) {
		size_t n;
		int *fds;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		if (cm->cmsg_len < CMSG_LEN(0))
			return -EINVAL;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > SCM_MAX_FDS || m->n_fds + n > 4 * SCM_MAX_FDS)
			return -EINVAL;
		int *grown = realloc(m->fds, (m->n_fds + n) * sizeof(int));

		if (!grown)
			return -ENOMEM;
		m->fds = grown;
		fds = (int *)CMSG_DATA(cm);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, &fds[i], sizeof(fd));
			fd = sv_getfd(c, fd);
			if (fd < 0)
				return -EBADF;
			m->fds[m->n_fds++] = fd;
			memcpy(&fds[i], &fd, sizeof(fd));
		}
	}
	return 0;
}

static int read_msghdr(struct sv_call *c, struct sv_net_op *op, uint64_t addr, struct net_msg *m)
{
	struct msghdr h;
	int rc = sv_read(c, addr, &h, sizeof(h));

	if (rc == 0)
		rc = read_name(c, (uint64_t)(uintptr_t)h.msg_name, h.msg_name ? h.msg_namelen : 0, m);
	if (rc == 0)
		rc = read_iov(c, op, (uint64_t)(uintptr_t)h.msg_iov, h.msg_iovlen, m);
	if (rc == 0)
		rc = read_control(c, (uint64_t)(uintptr_t)h.msg_control, h.msg_controllen, m);
	if (rc == 0)
		rc = name_decision(c, op, m);
	return rc;
}

static int read_sendto(struct sv_call *c, struct sv_net_op *op, struct net_msg *m)
{
	const __u64 *a = c->n.data.args;
	size_t len = (size_t)a[2];
	int rc;

	if (len > NET_MAX_DATA && op->type != SOCK_STREAM)
		return -EMSGSIZE;
	if (op->type == SOCK_STREAM && len > NET_MAX_STREAM)
		len = NET_MAX_STREAM;
	rc = read_name(c, a[4], (uint32_t)a[5], m);
	if (rc == 0 && len) {
		m->data = malloc(len);
		rc = m->data ? sv_read(c, a[1], m->data, len) : -ENOMEM;
		m->len = len;
	}
	return rc == 0 ? name_decision(c, op, m) : rc;
}

static int new_msgs(struct sv_net_op *op, size_t n)
{
	op->msgs = calloc(n ? n : 1, sizeof(*op->msgs));
	if (!op->msgs)
		return -ENOMEM;
	for (size_t i = 0; i < (n ? n : 1); i++)
		op->msgs[i].target = -1;
	op->n_msgs = n;
	return 0;
}

static int prepare(struct sv_call *c, struct sv_net_op *op)
{
	const __u64 *a = c->n.data.args;
	int domain = 0, rc;
	socklen_t len = sizeof(int);

	op->sock = sv_getfd(c, (int)a[0]);
	if (op->sock < 0)
		return op->sock;
	if (getsockopt(op->sock, SOL_SOCKET, SO_TYPE, &op->type, &len) < 0)
		return -ENOTSOCK;
	len = sizeof(int);
	if (getsockopt(op->sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return -ENOTSOCK;
	op->unix_family = domain == AF_UNIX;
	switch (op->kind) {
	case NET_CONNECT:
		if ((rc = new_msgs(op, 1)) < 0)
			return rc;
		rc = read_name(c, a[1], (uint32_t)a[2], &op->msgs[0]);
		return rc == 0 ? name_decision(c, op, &op->msgs[0]) : rc;
	case NET_SENDTO:
		op->flags = (int)a[3];
		if ((rc = new_msgs(op, 1)) < 0)
			return rc;
		return read_sendto(c, op, &op->msgs[0]);
	case NET_SENDMSG:
		op->flags = (int)a[2];
		if ((rc = new_msgs(op, 1)) < 0)
			return rc;
		return read_msghdr(c, op, a[1], &op->msgs[0]);
	case NET_SENDMMSG: {
		size_t n = (size_t)(uint32_t)a[2], total = 0;

		op->flags = (int)a[3];
		op->vec = a[1];
		if (n > NET_MAX_MSGS)
			n = NET_MAX_MSGS;
		if ((rc = new_msgs(op, n)) < 0)
			return rc;
		for (size_t i = 0; i < n; i++) {
			rc = read_msghdr(c, op, a[1] + i * sizeof(struct mmsghdr), &op->msgs[i]);
			total += op->msgs[i].len;
			/* A refusal after the first message ends the batch
			 * there, as the kernel's own error would. */
			if (rc < 0 || total > NET_MAX_DATA) {
				if (i == 0)
					return rc < 0 ? rc : -EMSGSIZE;
				op->n_msgs = i;
				break;
			}
		}
		return 0;
	}
	}
	return -ENOSYS;
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
	op->sock = op->pidfd = op->mem = -1;
	op->kind = c->n.data.nr == SYS_connect ? NET_CONNECT : c->n.data.nr == SYS_sendto ? NET_SENDTO
		   : c->n.data.nr == SYS_sendmsg ? NET_SENDMSG : NET_SENDMMSG;
	rc = prepare(c, op);
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
	int old, err;
	ssize_t n;

	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	n = sendmsg(op->sock, &h, flags);
	err = errno;
	pthread_setcancelstate(old, NULL);
	errno = err;
	return n;
}

static void perform_connect(struct sv_net_op *op, struct sv_answer *a)
{
	struct net_msg *m = &op->msgs[0];
	int old, err, rc;

	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	rc = connect(op->sock, m->namelen ? (struct sockaddr *)&m->name : NULL, m->namelen);
	err = errno;
	pthread_setcancelstate(old, NULL);
	if (rc < 0) {
		a->err = err;
		return;
	}
	/* Connected: kept only if a process of ours listens. The peer sees a
	 * connection closed at once, before any byte. */
	if (op->check_listener && !sv_listener_is_ours(op->sv, op->sock, m->target)) {
		shutdown(op->sock, SHUT_RDWR);
		a->err = EACCES;
	}
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
				a->err = err;
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
