/* SPDX-License-Identifier: MIT */
/* An abstract unix name where the kernel does not scope them (Landlock below
 * ABI 6, --landlock-abi 5, no Landlock, or no scope thread to be had): we
 * decide, by identity. Reachable only when the socket that holds the name is
 * one of this run's processes' own, as the scope would have it:
 *
 *  - where the name is looked up: in the network namespace of the command's
 *    socket (the kernel's rule), not its thread's. A socket made before
 *    unshare(CLONE_NEWUSER|CLONE_NEWNET) still names the host's sockets.
 *  - in a network namespace the run made (--net none) or one made inside the
 *    run (the run's user namespace, or one below it, owns it), every socket
 *    is the run's: reachable. A root caller's landlock run has no user
 *    namespace of its own: its --net none namespace is known by the cookie
 *    its child reported.
 *  - in ours (the host's, --net allow): sock_diag names each socket bound
 *    to exactly these bytes (UNIX_DIAG_NAME carries the name and its length;
 *    /proc/net/unix prints NULs as '@' and a newline as a newline, so a
 *    decoy can print as the host's name), and its sockfs inode; a process of
 *    this run must hold that socket. Another run's, even of this sbx, is
 *    refused as the scope refuses it.
 *  - anywhere else: refused.
 *
 * The name is then reached by the kernel's own look-up: an abstract name has
 * no file to hold on to. Between our look and the connect, the run's socket
 * could close and another process bind the same bytes; that process would
 * have to bind them in that instant, which the command cannot make a host
 * daemon do. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor_net.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* Linux 5.14 */
#endif
#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif
#define MAX_HOLDERS 8
#define TCP_LISTEN_STATE 10

/* Whether sock lies in our network namespace: 1, 0, or -errno. */
static int in_our_netns(int sock)
{
	static uint64_t ours;
	uint64_t cookie, mine = __atomic_load_n(&ours, __ATOMIC_RELAXED);
	socklen_t len = sizeof(cookie);

	if (!mine) {
		int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		len = sizeof(mine);
		if (s >= 0 && getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &mine, &len) < 0)
			mine = 0;
		if (s >= 0)
			close(s);
		__atomic_store_n(&ours, mine, __ATOMIC_RELAXED);
	}
	len = sizeof(cookie);
	if (mine && getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) == 0)
		return cookie == mine;
	/* Before 5.14: is the socket in our sock_diag's table? */
	struct stat st;
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = AF_UNIX, .udiag_cookie = { ~0U, ~0U } },
	};
	long buf[256];
	int fd, found = -EIO;

	if (fstat(sock, &st) < 0)
		return -errno;
	req.r.udiag_ino = (uint32_t)st.st_ino;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) == (ssize_t)sizeof(req)) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n > 0 && NLMSG_OK(h, n))
			found = h->nlmsg_type == SOCK_DIAG_BY_FAMILY ? 1 : 0;
	}
	close(fd);
	return found;
}

static bool same_ns(int fd, const struct stat *want)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

/* The run's user namespace: on the caller's chain of user namespaces, the
 * one right below ours (a command's own nested ones lie deeper; it cannot
 * enter one outside the run). An nsfd, or -1: the caller is in ours (the
 * landlock runner, but for a non-root caller's --net none). */
static int run_userns(struct sv_call *c, const struct stat *mine)
{
	int dir = sv_proc_dir(c), u = dir >= 0 ? openat(dir, "ns/user", O_RDONLY | O_CLOEXEC) : -1;

	for (int depth = 0; u >= 0 && depth < 64; depth++) {
		int parent;

		if (same_ns(u, mine))
			break;
		parent = ioctl(u, NS_GET_PARENT);
		if (parent >= 0 && same_ns(parent, mine)) {
			close(parent);
			return u;
		}
		close(u);
		u = parent;
	}
	if (u >= 0)
		close(u);
	return -1;
}

/* sock lies in a network namespace of the run's: owned by the run's user
 * namespace (--net none) or one below it (made inside the run). */
static bool in_run_netns(struct sv_call *c, int sock)
{
	struct stat mine, run;
	int ns, owner, u;
	bool inside = false;
	uint64_t cookie;
	socklen_t len = sizeof(cookie);

	/* The landlock runner's --net none namespace: the one the run was
	 * made in (a root caller's has no user namespace of the run's). */
	if (c->sv->netns_cookie && getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) == 0 &&
	    cookie == c->sv->netns_cookie)
		return true;
	if (stat("/proc/self/ns/user", &mine) < 0 || (u = run_userns(c, &mine)) < 0)
		return false;
	if (fstat(u, &run) < 0) {
		close(u);
		return false;
	}
	close(u);
	/* Needs CAP_NET_ADMIN over the namespace: ours as the owner of the
	 * run's user namespace (whatever our effective set), not over one the
	 * host's owns (then it is not the run's). */
	ns = ioctl(sock, SIOCGSKNS, 0);
	if (ns < 0)
		return false;
	owner = ioctl(ns, NS_GET_USERNS);
	close(ns);
	for (int depth = 0; owner >= 0 && depth < 64 && !inside; depth++) {
		int parent;

		if (same_ns(owner, &mine))
			break;
		inside = same_ns(owner, &run);
		parent = inside ? -1 : ioctl(owner, NS_GET_PARENT);
		close(owner);
		owner = parent;
	}
	if (owner >= 0)
		close(owner);
	return inside;
}

struct by_name {
	int type;
	const char *name;
	size_t len;
	unsigned long *ino;
	size_t n, max;
};

static void by_name_one(void *ctx, const struct unix_diag_msg *m, const char *name,
			size_t name_len, const struct unix_diag_vfs *vfs)
{
	struct by_name *b = ctx;

	(void)vfs;
	/* The name exactly: its length too. */
	if (m->udiag_type == b->type && name && name_len == b->len &&
	    memcmp(name, b->name, b->len) == 0 && b->n < b->max)
		b->ino[b->n++] = m->udiag_ino;
}

/* The sockfs inodes of our namespace's sockets of this type bound to exactly
 * name[0..len) (stream and seqpacket: listening ones): how many, at most max. */
static size_t bound_to_name(int type, const char *name, size_t len, unsigned long *ino, size_t max)
{
	struct by_name b = { type, name, len, ino, 0, max };

	sv_unix_diag_each(type == SOCK_DGRAM ? ~0U : 1U << TCP_LISTEN_STATE, UDIAG_SHOW_NAME,
			  by_name_one, &b);
	return b.n;
}

int sv_abstract_decide(struct sv_call *c, const struct sv_net_op *op, const struct net_msg *m)
{
	const struct sockaddr_un *a = (const struct sockaddr_un *)&m->name;
	size_t len = m->namelen - offsetof(struct sockaddr_un, sun_path);
	unsigned long ino[MAX_HOLDERS];
	size_t n;
	int ours = in_our_netns(op->sock);

	if (ours == 0)
		return in_run_netns(c, op->sock) ? 0 : sv_refuse(c->sv, EACCES);
	if (ours < 0)
		return sv_refuse(c->sv, EACCES);
	n = bound_to_name(op->type, a->sun_path, len, ino, MAX_HOLDERS);
	/* Nothing bound there: the kernel's answer, without a look-up in which
	 * a host daemon could bind the name meanwhile. */
	if (n == 0)
		return -ECONNREFUSED;
	return sv_run_holds_socket(c->sv, ino, n) ? 0 : sv_refuse(c->sv, EACCES);
}
