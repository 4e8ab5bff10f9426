/* SPDX-License-Identifier: MIT */
/* The init of a run's own PID namespace. It is a fork of sbx (not sharing its
 * memory), pid 1 of the namespace: it starts the command, reaps whatever the
 * command leaves behind, tells sbx how bash ended, and, when sbx closes the
 * trigger pipe or dies, exits. Its exit makes the kernel SIGKILL every
 * process still in the namespace, however it forked or called setsid: the
 * run's dead-man switch, on any kernel with PID namespaces.
 *
 * A keeper (keeper.c) lives the same life without the namespace: a child
 * subreaper instead of pid 1, and it kills what is left below it itself
 * before it exits. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "fds.h"
#include "ns_view.h"
#include "keeper.h"
#include "pidns_init.h"

#define COMMAND_STACK_SIZE (256 * 1024)
#define TRIGGER_FD 3
#define REPORT_FD 4

static int write_record(int fd, const void *rec, size_t len)
{
	ssize_t n;

	do
		n = write(fd, rec, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

pid_t pidns_init_start_command(const struct child_spec *spec, int (*fn)(void *),
			       struct child_status *st)
{
	struct init_header hdr = { .private_proc = spec->view && spec->view->private_proc };
	void *stack;
	pid_t pid;

	/* Before the command exists: sbx reads it once bash runs. */
	if (write_record(spec->exit_fd, &hdr, sizeof(hdr)) < 0)
		return child_status_set(st, STAGE_SESSION, errno ? errno : EIO, "report to sbx",
					NULL);
	stack = mmap(NULL, COMMAND_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return child_status_set(st, STAGE_SESSION, errno, "mmap command stack", NULL);
	/* Signals are still all blocked (sbx blocked them around its clone):
	 * nothing of ours runs in the command's process before it resets them.
	 * A keeper's command gets the runner's namespaces here (a network
	 * namespace for --net none): the keeper stays in the caller's. */
	pid = clone(fn, (char *)stack + COMMAND_STACK_SIZE,
		    CLONE_VM | CLONE_VFORK | SIGCHLD | spec->command_clone_flags, (void *)spec);
	if (pid < 0) {
		int err = errno;

		munmap(stack, COMMAND_STACK_SIZE);
		/* A keeper's clone makes the runner's namespaces: its failure
		 * is what sbx's own clone's would be (run_pick.c). */
		return child_status_set(st, spec->keeper ? STAGE_CLONE : STAGE_SESSION, err,
					"clone command", NULL);
	}
	munmap(stack, COMMAND_STACK_SIZE);
	/* The command has exec'd (its copy closed) or written why not: our copy
	 * goes too, so sbx sees end of file, or the record. */
	close(spec->status_fd);
	return pid;
}

/* Only the trigger and the report pipe stay open: init holds none of the
 * run's output pipes, so collection never waits for it. */
static void keep_only_pipes(const struct child_spec *spec)
{
	int trigger = fcntl(spec->deadman_fd, F_DUPFD_CLOEXEC, 16);
	int report = fcntl(spec->exit_fd, F_DUPFD_CLOEXEC, 16);
	struct fds_bound bound;

	/* We are a fork of sbx: each last close bounded (fds.h). A copy of
	 * another run's lingering socket, inherited, kept this init in its
	 * close for the linger, and the run hung until its timeout. */
	if (fds_bound_begin(&bound) < 0)
		_exit(1);
	if (trigger < 0 || report < 0 || dup2(trigger, TRIGGER_FD) < 0 ||
	    dup2(report, REPORT_FD) < 0)
		_exit(1);
	close(0);
	close(1);
	close(2);
	fds_close_from(REPORT_FD + 1, false);
	fds_bound_end(&bound);
}

/* Reap every child; report the command's end, with whether any child is
 * left, and later, once none is, that too: then nothing of the run is left
 * but us (no process can join a PID namespace from inside it, nor reach a
 * subreaper's tree from outside, and we never fork again). One record when
 * both are known at once, so sbx never sees the first without the second.
 * A keeper's one child left may be the landlock runner's dead-man helper,
 * which waits for the trigger: with nothing else of the run left, it has
 * nothing to kill, and goes now (*deadman then 0). */
static void reap(pid_t command, pid_t *deadman, bool *reported, bool *empty, int32_t *status)
{
	bool just_ended = false;

	for (;;) {
		int ws;
		pid_t pid = waitpid(-1, &ws, WNOHANG | __WALL);

		if (pid == 0 && *reported && *deadman > 0 && keeper_only_child_is(*deadman)) {
			kill(*deadman, SIGKILL);
			while (waitpid(*deadman, NULL, __WALL) < 0 && errno == EINTR)
				;
			*deadman = 0;
			continue;
		}
		if (pid > 0 && pid == *deadman)
			*deadman = 0;
		if (pid <= 0) {
			bool none = pid < 0 && errno == ECHILD;

			if (*reported && (just_ended || (none && !*empty))) {
				struct init_exit rec = { .wstatus = *status, .empty = none };

				write_record(REPORT_FD, &rec, sizeof(rec));
				*empty = none;
			}
			return;
		}
		if (pid == command && !*reported) {
			*status = ws;
			*reported = true;
			just_ended = true;
		}
	}
}

void pidns_init_serve(const struct child_spec *spec, pid_t command)
{
	struct child_status st;
	struct pollfd p[2];
	sigset_t chld;
	bool reported = false, empty = false;
	int32_t status = 0;
	uint64_t keep = 0;
	/* The landlock runner's dead-man helper, if the command started one:
	 * our child (CLONE_PARENT), its pid written into our memory by the
	 * command's process, which shared it until exec. */
	pid_t deadman = spec->keeper && spec->deadman_pid ? *spec->deadman_pid : 0;

	keep_only_pipes(spec);
	/* It needs no privilege to reap and to die: hold none. A keeper kills
	 * what is left itself, and a root caller's danger-full-access command
	 * may have changed its uid: CAP_KILL stays where it was held. */
	if ((spec->keeper && keeper_caps_to_keep(&keep) < 0) || caps_keep_only(keep, &st) < 0)
		_exit(1);
	/* Why: a keeper is outside the command's Landlock domain, filters and
	 * keyring; a command of the same uid that could ptrace it would make
	 * every call through it (Landlock forbids that from ABI 1, this does on
	 * any kernel and in danger-full-access). Set now, not earlier: until
	 * the command's exec it shared our memory, and a non-dumpable process
	 * cannot write its own uid_map (--net none). */
	if (spec->keeper && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(1);
	prctl(PR_SET_NAME, spec->keeper ? "sbx-keeper" : "sbx-init", 0, 0, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	p[0] = (struct pollfd){ .fd = TRIGGER_FD, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK),
				.events = POLLIN };
	if (p[1].fd < 0)
		_exit(1);
	/* The command may already be gone (SIGCHLD came before signalfd). */
	reap(command, &deadman, &reported, &empty, &status);
	for (;;) {
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		/* A byte (the run's end) or end of file (sbx died). */
		if (p[0].revents) {
			if (spec->keeper)
				keeper_end(deadman, p[1].fd);
			_exit(0);
		}
		while (read(p[1].fd, &si, sizeof(si)) > 0)
			;
		reap(command, &deadman, &reported, &empty, &status);
	}
}
