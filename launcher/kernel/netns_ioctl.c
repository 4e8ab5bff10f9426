/* SPDX-License-Identifier: MIT */
/* Bring up loopback in a fresh network namespace without netlink: the
 * static sbx where no static libmnl exists to link (see the Makefile and
 * docs/performance.md). SIOCSIFFLAGS, as ifconfig and minijail do: the same
 * one change netns.c asks of rtnetlink through libmnl, with no library, so
 * nothing of libmnl is re-implemented here. Child side: no allocation. */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int netns_loopback_up(struct child_status *st, uint64_t *cookie)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(*cookie);
	int rc = 0;

	if (fd < 0)
		return child_status_set(st, STAGE_NETNS, errno, "socket (lo)", NULL);
	if (cookie && getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len) < 0)
		*cookie = 0;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		rc = child_status_set(st, STAGE_NETNS, errno, "SIOCGIFFLAGS", "lo");
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			rc = child_status_set(st, STAGE_NETNS, errno, "set lo up", NULL);
	}
	close(fd);
	return rc;
}
