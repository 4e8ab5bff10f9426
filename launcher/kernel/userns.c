/* SPDX-License-Identifier: MIT */
/* The identity maps of a user namespace sbx creates (child side: no
 * allocation, no stdio). Shared by the namespace runner and by the landlock
 * runner's --net none. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "userns.h"

/* 0 or an errno. */
static int write_proc(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, data, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

/* "ID ID 1": the caller's own ids, mapped onto themselves. A process may
 * write this single line for itself without any privilege in the parent
 * namespace, so it works for root and for any user alike, no setuid helper.
 * setgroups must be denied first for an unprivileged gid_map (and so that
 * nobody in here can drop a supplementary group used to deny access). */
int userns_write_identity_maps(uid_t uid, gid_t gid, struct child_status *st)
{
	char line[64];
	size_t n;
	int err;

	err = write_proc("/proc/self/setgroups", "deny", 4);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write", "/proc/self/setgroups");

	n = child_put_uint(line, 0, sizeof(line), (unsigned long)uid);
	n = child_put_str(line, n, sizeof(line), " ");
	n = child_put_uint(line, n, sizeof(line), (unsigned long)uid);
	n = child_put_str(line, n, sizeof(line), " 1\n");
	err = write_proc("/proc/self/uid_map", line, n);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write", "/proc/self/uid_map");

	n = child_put_uint(line, 0, sizeof(line), (unsigned long)gid);
	n = child_put_str(line, n, sizeof(line), " ");
	n = child_put_uint(line, n, sizeof(line), (unsigned long)gid);
	n = child_put_str(line, n, sizeof(line), " 1\n");
	err = write_proc("/proc/self/gid_map", line, n);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write", "/proc/self/gid_map");
	return 0;
}


/* ---- a full identity map for a root caller ---- */

/* Only a process in the parent user namespace holding CAP_SETUID and
 * CAP_SETGID there may write a map of more than its own id, and the child is
 * born inside its new namespace: so a helper of ours, forked before the
 * clone, writes it when the child asks over a private socket. The kernel
 * attaches the asking process's pid (SO_PASSCRED, in the helper's pid
 * namespace), so the helper needs no pid from anyone. */

#define FULL_MAP "0 0 4294967295\n" /* ids 0..4294967294 onto themselves */

bool userns_can_map_all(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint32_t want = CAP_TO_MASK(CAP_SETUID) | CAP_TO_MASK(CAP_SETGID);

	memset(data, 0, sizeof(data));
	return syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & want) == want;
}

/* 0 or an errno. */
static int map_all(pid_t pid)
{
	static const char *const files[] = { "setgroups", "uid_map", "gid_map" };
	char path[64];
	int err = 0;

	for (size_t i = 0; i < 3 && !err; i++) {
		size_t n = child_put_str(path, 0, sizeof(path), "/proc/");

		n = child_put_uint(path, n, sizeof(path), (unsigned long)pid);
		n = child_put_str(path, n, sizeof(path), "/");
		child_put_str(path, n, sizeof(path), files[i]);
		/* setgroups first: "deny" stays, as for any other caller, so
		 * that no nested namespace can drop a group used to deny. */
		err = i == 0 ? write_proc(path, "deny", 4) : write_proc(path, FULL_MAP, strlen(FULL_MAP));
	}
	return err;
}

static void mapper_main(int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	struct ucred cred;
	int err;

	/* Hold nothing of sbx's (other runs' pipes) while we wait. */
	if (dup2(fd, 3) < 0)
		_exit(1);
	syscall(SYS_close_range, 4, ~0U, 0);
	if (recvmsg(3, &msg, 0) != 1)
		_exit(0); /* the child never asked (it failed earlier) */
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
		_exit(1);
	memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	err = map_all(cred.pid);
	(void)!send(3, &err, sizeof(err), MSG_NOSIGNAL);
	_exit(0);
}

int userns_mapper_start(int *child_fd, pid_t *pid)
{
	int sv[2], one = 1, e;
	sigset_t all, old;
	pid_t p;

	*child_fd = -1;
	*pid = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	/* A real fork (its own memory: it runs alongside us), without the
	 * atfork handlers of whatever library embeds us, and with every signal
	 * blocked for good: no handler of ours may run in it. It ends when the
	 * socket does. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	p = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (p == 0)
		mapper_main(sv[0]);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (p < 0) {
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	close(sv[0]);
	*child_fd = sv[1];
	*pid = p;
	return 0;
}

void userns_mapper_stop(int *child_fd, pid_t *pid)
{
	/* The child has exec'd or given up (CLONE_VFORK): with our end closed
	 * the helper has either answered or sees end of file, and exits. */
	if (*child_fd >= 0)
		close(*child_fd);
	if (*pid > 0)
		while (waitpid(*pid, NULL, __WALL) < 0 && errno == EINTR)
			;
	*child_fd = -1;
	*pid = -1;
}

int userns_ask_full_map(int fd, struct child_status *st)
{
	int err = 0;
	ssize_t n;

	if (send(fd, "m", 1, MSG_NOSIGNAL) != 1)
		return child_status_set(st, STAGE_USERNS, errno, "ask for the full identity map", NULL);
	do {
		n = recv(fd, &err, sizeof(err), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(err))
		return child_status_set(st, STAGE_USERNS, n < 0 ? errno : EPROTO,
					"full identity map: no answer", NULL);
	if (err)
		return child_status_set(st, STAGE_USERNS, err, "write full identity map", NULL);
	return 0;
}
