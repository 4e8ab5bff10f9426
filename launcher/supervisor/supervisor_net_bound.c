/* SPDX-License-Identifier: MIT */
/* The name a listening unix socket was bound with, asked of the kernel by
 * the file it is bound to: sock_diag's UDIAG_SHOW_VFS names the inode,
 * UDIAG_SHOW_NAME the exact bytes its bind(2) gave. Why: a daemon binds
 * the name it means; a hard link or a renamed directory gives its socket
 * another name later, and no one can change what bind(2) said. */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "supervisor_int.h"

static bool vfs_is(const struct rtattr *a, const struct stat *st)
{
	const struct unix_diag_vfs *v = RTA_DATA(a);

	/* the kernel's dev_t: major above bit 20 */
	return RTA_PAYLOAD(a) >= sizeof(*v) && v->udiag_vfs_ino == (uint32_t)st->st_ino &&
	       v->udiag_vfs_dev >> 20 == major(st->st_dev) &&
	       (v->udiag_vfs_dev & 0xfffff) == minor(st->st_dev);
}

static bool name_is(const struct rtattr *a, const char *path)
{
	size_t n = RTA_PAYLOAD(a), len = strlen(path);
	const char *name = RTA_DATA(a);

	while (n > 0 && name[n - 1] == '\0')
		n--;
	return n == len && memcmp(name, path, len) == 0;
}

/* Whether the listening socket bound to the file st describes (in our
 * network namespace) was bound with exactly path. false when none is
 * found: the caller then asks how the name came to be (its change times). */
bool sv_bound_by_that_name(const struct stat *st, const char *path)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = 1U << 10 /* TCP_LISTEN */,
		       .udiag_show = UDIAG_SHOW_VFS | UDIAG_SHOW_NAME },
	};
	long buf[2048];
	bool done = false, found = false, named = false;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return false;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		done = true;
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);

		if (len <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int alen = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
			const struct rtattr *name = NULL;
			bool this_one = false;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
			     a = RTA_NEXT(a, alen)) {
				if (a->rta_type == UNIX_DIAG_VFS && vfs_is(a, st))
					this_one = true;
				else if (a->rta_type == UNIX_DIAG_NAME)
					name = a;
			}
			if (this_one) {
				/* One socket is bound to a file, for good; a
				 * second answer would be a kernel we do not
				 * know: not trusted. */
				named = !found && name && name_is(name, path);
				found = true;
			}
		}
	}
	close(fd);
	return named;
}
