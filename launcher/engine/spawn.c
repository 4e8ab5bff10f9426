/* SPDX-License-Identifier: MIT */
/* Start the child: clone(CLONE_VM|CLONE_VFORK) on a private stack, so no page
 * tables are copied (fork costs 0.2-0.4 ms more here) and the parent resumes
 * only once the child has exec'd bash or given up. The child reports a setup
 * failure through a CLOEXEC status pipe: when exec succeeds the pipe closes
 * unread, so "EOF" means the command runs and "a record" means it never did. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#include "runner.h"
#include "userns.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#define CHILD_STACK_SIZE (256 * 1024)

static char found[PATH_MAX];
static pthread_once_t found_once = PTHREAD_ONCE_INIT;

/* Once per process, and whole before any run reads it: a run on another
 * thread read the buffer while it held a PATH entry being tried, and could
 * not start bash (library/first_runs_on_several_threads_find_bash). */
static void find_bash(void)
{
	const char *path = getenv("PATH");

	if (path) {
		const char *p = path;

		while (*p) {
			const char *colon = strchr(p, ':');
			size_t len = colon ? (size_t)(colon - p) : strlen(p);

			if (len > 0 && p[0] == '/' && len + 6 < sizeof(found)) {
				memcpy(found, p, len);
				memcpy(found + len, "/bash", 6);
				if (access(found, X_OK) == 0)
					return;
			}
			p += len;
			if (*p == ':')
				p++;
		}
	}
	strcpy(found, "/bin/bash");
}

const char *bash_path(void)
{
	pthread_once(&found_once, find_bash);
	return found;
}

/* A PID namespace run: init writes its header before the command starts, so
 * once the status pipe says the command runs, the header is there. */
static int read_init_header(int fd, struct spawn_outcome *out)
{
	struct init_header hdr;
	ssize_t n;

	do
		n = read(fd, &hdr, sizeof(hdr));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(hdr))
		return -1;
	out->private_proc = hdr.private_proc != 0;
	return 0;
}

int spawn_child(struct child_spec *spec, int extra_clone_flags, struct spawn_outcome *out)
{
	int status_pipe[2], exit_pipe[2] = { -1, -1 }, map_pipe[2] = { -1, -1 };
	bool pidns = spec->runner && spec->runner->pid_namespace;
	/* A PID namespace's init, or a keeper (keeper.c): a process of ours
	 * that starts the command and reports its end on an exit pipe. */
	bool init = pidns || spec->keeper;
	/* Why not CLONE_VM for either: it outlives the command's exec and must
	 * not share our memory; it is a real fork, and it starts the command
	 * the vfork way itself (pidns_init.c). A keeper stays in our
	 * namespaces: the runner's go to the command's clone. */
	int share = init ? 0 : CLONE_VM | CLONE_VFORK;
	sigset_t all, old;
	void *stack;
	pid_t pid;
	int pidfd = -1;
	bool use_pidfd = exit_watch_pidfd_usable();
	ssize_t n;

	memset(out, 0, sizeof(*out));
	out->pidfd = -1;
	out->exit_fd = -1;
	out->pid = -1;
	if (pipe2(status_pipe, O_CLOEXEC) < 0)
		return -errno;
	spec->command_clone_flags = 0;
	if (spec->keeper) {
		spec->command_clone_flags = extra_clone_flags;
		extra_clone_flags = 0;
	}
	if (init && pipe2(exit_pipe, O_CLOEXEC) < 0) {
		int e = errno;

		close(status_pipe[0]);
		close(status_pipe[1]);
		return -e;
	}
	/* A full identity map is written by us once the child exists (only a
	 * process outside its namespace may write one); it waits for our word. */
	if (pidns && spec->full_map && pipe2(map_pipe, O_CLOEXEC) < 0) {
		int e = errno;

		close(status_pipe[0]);
		close(status_pipe[1]);
		close(exit_pipe[0]);
		close(exit_pipe[1]);
		return -e;
	}
	spec->full_map_fd = map_pipe[0];
	stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		int e = errno;

		close(status_pipe[0]);
		close(status_pipe[1]);
		for (int i = 0; init && i < 2; i++) {
			close(exit_pipe[i]);
			if (map_pipe[i] >= 0)
				close(map_pipe[i]);
		}
		return -e;
	}
	spec->status_fd = status_pipe[1];
	spec->exit_fd = exit_pipe[1];
#ifdef __SANITIZE_ADDRESS__
	/* A fresh mapping may reuse the address of an earlier child's stack,
	 * whose frames AddressSanitizer still remembers as poisoned. */
	__asan_unpoison_memory_region(stack, CHILD_STACK_SIZE);
#endif

	/* No handler of ours may run in the child while it shares our memory
	 * (or, for init, ever: it keeps every signal blocked). */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(child_main, (char *)stack + CHILD_STACK_SIZE,
		    share | (use_pidfd ? CLONE_PIDFD : 0) | SIGCHLD | extra_clone_flags, spec,
		    &pidfd);
	int clone_errno = errno;

	sigprocmask(SIG_SETMASK, &old, NULL);
	munmap(stack, CHILD_STACK_SIZE);
	close(status_pipe[1]);
	spec->status_fd = -1;
	if (init)
		close(exit_pipe[1]);
	spec->exit_fd = -1;
	if (map_pipe[0] >= 0) {
		int map_err = pid > 0 ? userns_map_all(pid) : 0;

		/* Said even on failure: the child reports it and gives up. */
		(void)!write(map_pipe[1], &map_err, sizeof(map_err));
		close(map_pipe[0]);
		close(map_pipe[1]);
	}
	spec->full_map_fd = -1;

	if (pid < 0) {
		close(status_pipe[0]);
		if (init)
			close(exit_pipe[0]);
		out->clone_failed = true;
		out->clone_errno = clone_errno;
		return 0;
	}
	out->pid = pid;
	out->pidfd = pidfd;
	/* CLONE_VFORK: the child has exec'd or exited by now, so this read does
	 * not block. A PID namespace's init (a keeper): it blocks until the
	 * command has exec'd (both copies of the pipe closed) or a record says
	 * why not. */
	do {
		n = read(status_pipe[0], &out->status, sizeof(out->status));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		child_status_set(&out->status, STAGE_NONE, errno, "read status pipe", NULL);
	close(status_pipe[0]);
	if (n == 0 && init && read_init_header(exit_pipe[0], out) < 0) {
		child_status_set(&out->status, STAGE_SESSION, EIO, "init: no report", NULL);
		n = 1;
	}
	if (n != 0) {
		out->failed = true;
		if (n > 0 && n != (ssize_t)sizeof(out->status))
			child_status_set(&out->status, STAGE_NONE, EIO, "short status record", NULL);
		/* Nothing of the command is left but, at most, the dead-man
		 * helper it started, which ends with the trigger. */
		if (init)
			kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		close(pidfd);
		out->pidfd = -1;
		if (init)
			close(exit_pipe[0]);
		/* The keeper's clone of the command failed: as our own clone. */
		if (spec->keeper && out->status.stage == STAGE_CLONE) {
			out->failed = false;
			out->clone_failed = true;
			out->clone_errno = out->status.err;
		}
		return 0;
	}
	/* Init reports more than once (run.c reads what is there). */
	if (init)
		fcntl(exit_pipe[0], F_SETFL, O_NONBLOCK);
	out->exit_fd = init ? exit_pipe[0] : -1;
	/* Without pidfds (before 5.3) the loop still needs an fd that turns
	 * readable when bash exits; init and a keeper report on a pipe. */
	if (!init && out->pidfd < 0) {
		out->pidfd = exit_watch_thread(pid);
		if (out->pidfd < 0) {
			int e = -out->pidfd;

			kill(pid, SIGKILL);
			waitpid(pid, NULL, __WALL);
			out->pidfd = -1;
			return -e;
		}
	}
	return 0;
}

/* The signals this process ignores or catches, asked of the kernel one by
 * one (rt_sigaction with no new action): cheaper than reading and parsing
 * /proc/self/status, and it works without /proc. glibc's sigaction refuses
 * its two reserved real-time signals; they are never ours to have changed,
 * but a caller may have left them ignored, so ask the raw system call. */
uint64_t signals_not_default(void)
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} old;
	uint64_t mask = 0;

	for (int sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (syscall(SYS_rt_sigaction, sig, NULL, &old, sizeof(old.mask)) < 0)
			continue;
		if (old.handler != SIG_DFL)
			mask |= 1ULL << (sig - 1);
	}
	return mask;
}
