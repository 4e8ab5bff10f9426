/* SPDX-License-Identifier: MIT */
/* Copying a socket call out of the command: its socket (pidfd_getfd), the
 * peer's name, the data, and the control messages with SCM_RIGHTS fds
 * replaced by sbx's copies of the same files. Everything is bounded (see
 * NET_MAX_*): a command cannot make sbx allocate without end. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "supervisor_net.h"

static int read_name(struct sv_call *c, uint64_t addr, uint64_t len, struct net_msg *m)
{
	if (len == 0)
		return 0;
	if ((int64_t)len < 0 || len > sizeof(m->name))
		return -EINVAL;
	m->namelen = (socklen_t)len;
	return sv_read(c, addr, &m->name, (size_t)len);
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

/* Copies of passed fds held now, by every run of this process: they sit in
 * one fd table, which a serve shares with every session. */
static size_t passing;

/* The bound: SV_MAX_PASSING, or a quarter of our fd table when that is
 * smaller, but room for one full message. */
static size_t passing_bound(void)
{
	static size_t bound;
	struct rlimit rl;

	if (!__atomic_load_n(&bound, __ATOMIC_RELAXED)) {
		size_t b = SV_MAX_PASSING;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 4 < b)
			b = rl.rlim_cur / 4 > SCM_MAX_FDS ? rl.rlim_cur / 4 : SCM_MAX_FDS;
		__atomic_store_n(&bound, b, __ATOMIC_RELAXED);
	}
	return bound;
}

void sv_passing_give_back(struct supervisor *sv, size_t n)
{
	__atomic_sub_fetch(&passing, n, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&sv->passing, n, __ATOMIC_SEQ_CST);
}

/* n more copies for sv's run, within the process's bound and the run's
 * share of it: a quarter, room for one full message at least. Why a
 * share: one run's 16 waiting sends held the whole bound, and every other
 * serve session's sends with fds were refused for as long as it lived. */
static bool passing_take(struct supervisor *sv, size_t n)
{
	size_t bound = passing_bound(), share = bound / 4 > SCM_MAX_FDS ? bound / 4 : SCM_MAX_FDS;
	bool ok = __atomic_add_fetch(&passing, n, __ATOMIC_SEQ_CST) <= bound;

	ok = __atomic_add_fetch(&sv->passing, n, __ATOMIC_SEQ_CST) <= share && ok;
	if (!ok)
		sv_passing_give_back(sv, n);
	return ok;
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
		/* Why a bound for the process (and a run's share of it:
		 * passing_take): each fd passed is a copy in our fd table
		 * until the send is done, which a serve shares with every
		 * session; a batch of 1024 messages of 1012 fds filled it, and
		 * so did five runs under a bound each (other sessions' runs
		 * then failed to start: no pipes). A refused send is the
		 * lesser harm. The kernel's own error for too many fds in
		 * flight. */
		if (!passing_take(c->sv, n))
			return sv_refuse(c->sv, ETOOMANYREFS);
		m->n_counted += n;
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
		rc = sv_net_decide_name(c, op, m);
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
	return rc == 0 ? sv_net_decide_name(c, op, m) : rc;
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

int sv_net_read(struct sv_call *c, struct sv_net_op *op)
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
		return rc == 0 ? sv_net_decide_name(c, op, &op->msgs[0]) : rc;
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
				/* What it holds already (copies of the fds read
				 * before a bad one) goes back now: the batch's
				 * end is no longer freed with it. */
				sv_net_msg_clear(op, &op->msgs[i]);
				op->n_msgs = i;
				break;
			}
		}
		return 0;
	}
	}
	return -ENOSYS;
}

void sv_net_msg_clear(struct sv_net_op *op, struct net_msg *m)
{
	for (size_t k = 0; k < m->n_fds; k++)
		sv_release_fd(op->sv, m->fds[k]);
	sv_passing_give_back(op->sv, m->n_counted);
	free(m->fds);
	if (m->target >= 0)
		close(m->target);
	free(m->data);
	free(m->control);
	memset(m, 0, sizeof(*m));
	m->target = -1;
}
