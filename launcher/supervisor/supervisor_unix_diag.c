/* SPDX-License-Identifier: MIT */
/* The unix sockets of our network namespace as the kernel lists them
 * (sock_diag): by their exact bound name and the file they are bound to,
 * never by a printed table (/proc/net/unix prints names ambiguously). */
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

void sv_unix_diag_each(uint32_t states, uint32_t show, sv_unix_diag_fn each, void *ctx)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = states, .udiag_show = show },
	};
	long buf[2048];
	bool done = false;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		done = true;
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);

		if (len <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			const struct unix_diag_msg *m = NLMSG_DATA(h);
			int alen = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
			const struct rtattr *name = NULL, *vfs = NULL;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
			     a = RTA_NEXT(a, alen)) {
				if (a->rta_type == UNIX_DIAG_NAME)
					name = a;
				else if (a->rta_type == UNIX_DIAG_VFS &&
					 RTA_PAYLOAD(a) >= sizeof(struct unix_diag_vfs))
					vfs = a;
			}
			each(ctx, m, name ? RTA_DATA(name) : NULL, name ? RTA_PAYLOAD(name) : 0,
			     vfs ? RTA_DATA(vfs) : NULL);
		}
	}
	close(fd);
}

bool sv_unix_diag_vfs_is(const struct unix_diag_vfs *v, const struct stat *st)
{
	/* the kernel's dev_t: major above bit 20; its inode 32 bits */
	return v && v->udiag_vfs_ino == (uint32_t)st->st_ino &&
	       v->udiag_vfs_dev >> 20 == major(st->st_dev) &&
	       (v->udiag_vfs_dev & 0xfffff) == minor(st->st_dev);
}

struct bound_by {
	const struct stat *st;
	const char *path;
	bool found, named;
};

static void bound_by_one(void *ctx, const struct unix_diag_msg *m, const char *name,
			 size_t name_len, const struct unix_diag_vfs *vfs)
{
	struct bound_by *b = ctx;
	size_t len = strlen(b->path);

	(void)m;
	if (!sv_unix_diag_vfs_is(vfs, b->st))
		return;
	while (name && name_len > 0 && name[name_len - 1] == '\0')
		name_len--;
	/* One socket is bound to a file, for good; a second answer would be
	 * a kernel we do not know: not trusted. */
	b->named = !b->found && name && name_len == len && memcmp(name, b->path, len) == 0;
	b->found = true;
}

/* Why the bound name: a daemon binds the name it means; a hard link or a
 * renamed directory gives its socket another path later, and no one can
 * change what bind(2) was given. */
bool sv_bound_by_that_name(const struct stat *st, const char *path)
{
	struct bound_by b = { st, path, false, false };

	sv_unix_diag_each(1U << 10 /* TCP_LISTEN */, UDIAG_SHOW_VFS | UDIAG_SHOW_NAME, bound_by_one,
			  &b);
	return b.named;
}
