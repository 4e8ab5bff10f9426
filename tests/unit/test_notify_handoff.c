/* SPDX-License-Identifier: MIT */
/* The helper that hands the supervisor's listener to sbx shares the child's
 * fd table, and with it the status pipe sbx reads until the child's exec.
 * Killed between cloning the helper and waking it, the child left the
 * helper waiting on its futex for good, holding that table: sbx's start of
 * the run waited with it (CI: supervisor::copies_for_passed_fds_are_
 * bounded_across_runs timed out when another run's end killed the child).
 * Here the child is held inside its own seccomp() call by an outer filter
 * that sends that call to us, and killed there, as certain as can be; what
 * is checked from outside is the helper's end and the socket it held. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seccomp_notify.h"

#if defined(CONFIG_SUPERVISOR) && defined(__x86_64__)

/* seccomp() itself goes to a listener; everything else runs. */
static struct sock_filter trap_seccomp[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static struct sock_filter allow_all[] = {
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static int send_fd(int sock, int fd)
{
	char byte = 'L', control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *c;

	memset(control, 0, sizeof(control));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte, control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The child: an outer filter that sends its seccomp() to us, then the
 * handoff, which clones the helper and calls seccomp(). */
static void child(int ctl, int handoff)
{
	struct sock_fprog outer = { .len = sizeof(trap_seccomp) / sizeof(trap_seccomp[0]),
				    .filter = trap_seccomp };
	struct sock_fprog prog = { .len = 1, .filter = allow_all };
	struct child_status st;
	long listener;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(10);
	listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			   &outer);
	if (listener < 0 || send_fd(ctl, (int)listener) < 0)
		_exit(11);
	close((int)listener);
	notify_install_and_send(&prog, handoff, &st);
	_exit(12);
}

/* Our children (we are their subreaper): the helper comes to us once the
 * child is dead. */
static pid_t a_child_of_ours(void)
{
	char path[64], buf[256];
	FILE *f;
	long pid = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		pid = strtol(buf, NULL, 10);
	fclose(f);
	return pid > 0 ? (pid_t)pid : -1;
}

Test(notify_handoff, helper_ends_when_the_child_is_killed_before_the_handoff, .timeout = 60)
{
	int ctl[2], handoff[2], listener, status;
	struct seccomp_notif req;
	struct pollfd p;
	pid_t pid, left = -1;
	char byte;

	cr_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	cr_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) == 0);
	cr_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, handoff) == 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(ctl[0]);
		close(handoff[0]);
		child(ctl[1], handoff[1]);
	}
	close(ctl[1]);
	close(handoff[1]);
	listener = recv_fd(ctl[0]);
	cr_assert(listener >= 0, "the child never sent its outer listener");
	/* The child is inside seccomp(), its helper cloned: kill it there. */
	memset(&req, 0, sizeof(req));
	cr_assert(ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0, "%s", strerror(errno));
	cr_assert(req.pid == (unsigned)pid && req.data.nr == SYS_seccomp);
	cr_assert(kill(pid, SIGKILL) == 0);
	cr_assert(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));

	/* The helper held the child's fd table, our socket's other end in
	 * it: the end of the helper is the end of that socket. */
	p = (struct pollfd){ .fd = handoff[0], .events = POLLIN };
	int ready = poll(&p, 1, 20000);

	if (ready <= 0 || read(handoff[0], &byte, 1) != 0)
		left = a_child_of_ours();
	if (left > 0) {
		kill(left, SIGKILL);
		waitpid(left, NULL, __WALL);
	}
	cr_assert(ready > 0, "the handoff helper outlived the child killed before it woke it "
		  "(pid %d), holding the child's fds", (int)left);
	close(listener);
	close(ctl[0]);
	close(handoff[0]);
}

#endif
