/* SPDX-License-Identifier: MIT */
/* Bring up loopback in a fresh network namespace: one RTM_NEWLINK request
 * over rtnetlink, built with libmnl's message helpers in a stack buffer (no
 * allocation: this runs in the clone child), then the kernel's ack read back. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns.h"

/* A new network namespace has exactly one device, lo, and it is ifindex 1. */
#define LOOPBACK_IFINDEX 1
/* Room for one small request or its ack (MNL_SOCKET_BUFFER_SIZE is a VLA). */
#define NETNS_BUF_SIZE 8192

static int request_loopback_up(int fd, struct child_status *st)
{
	char buf[NETNS_BUF_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = LOOPBACK_IFINDEX;
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	if (sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return child_status_set(st, STAGE_NETNS, errno, "rtnetlink send", NULL);
	return 0;
}

static int read_ack(int fd, struct child_status *st)
{
	char buf[NETNS_BUF_SIZE];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;

	if (n < 0)
		return child_status_set(st, STAGE_NETNS, errno, "rtnetlink recv", NULL);
	if (!mnl_nlmsg_ok(nlh, (int)n) || nlh->nlmsg_type != NLMSG_ERROR)
		return child_status_set(st, STAGE_NETNS, EPROTO, "rtnetlink: unexpected reply", NULL);
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (e->error != 0)
		return child_status_set(st, STAGE_NETNS, -e->error, "set lo up", NULL);
	return 0;
}

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int netns_loopback_up(struct child_status *st, uint64_t *cookie)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	socklen_t len = sizeof(*cookie);
	int rc;

	if (fd < 0)
		return child_status_set(st, STAGE_NETNS, errno, "rtnetlink socket", NULL);
	if (cookie && getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len) < 0)
		*cookie = 0;
	rc = request_loopback_up(fd, st);
	if (rc == 0)
		rc = read_ack(fd, st);
	close(fd);
	return rc;
}
