/* SPDX-License-Identifier: MIT */
/* The child's path from clone to execve. It shares the parent's memory
 * (CLONE_VM|CLONE_VFORK) until exec: no allocation, no stdio, no locks. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "fds.h"
#include "keyring.h"
#include "pidns_init.h"
#include "netns.h"
#include "opener.h"
#include "rlimits.h"
#include "runner.h"
#include "userns.h"
#include "syscall_filter.h"
#include "seccomp_notify.h"
#include "syscalls_as_of.h"

static void report_and_exit(const struct child_spec *spec, const struct child_status *st)
{
	/* A short write to a pipe of PIPE_BUF or less is atomic. */
	ssize_t n = write(spec->status_fd, st, sizeof(*st));

	(void)n;
	_exit(SBX_CHILD_SETUP_EXIT);
}

/* The kernel's struct sigaction (not glibc's): glibc refuses to touch the two
 * real-time signals it reserves, but a caller may have left them ignored and
 * an ignored signal survives execve. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* Signals: the parent blocked every signal before clone so that no handler of
 * the parent's can run on this shared memory. Every signal the parent ignores
 * or catches (spec->signals_to_reset, read once by the parent) goes back to
 * its default: the command must not inherit an ignored SIGPIPE. Then unblock. */
static int reset_signals(const struct child_spec *spec, struct child_status *st)
{
	struct kernel_sigaction dfl = { .handler = SIG_DFL };
	sigset_t none;

	for (int sig = 1; sig < NSIG && sig <= 64; sig++) {
		if (!(spec->signals_to_reset & (1ULL << (sig - 1))))
			continue;
		if (syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(dfl.mask)) < 0)
			return child_status_set(st, STAGE_SIGNALS, errno, "rt_sigaction", NULL);
	}
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		return child_status_set(st, STAGE_SIGNALS, errno, "sigprocmask", NULL);
	return 0;
}

static int setup_fds(const struct child_spec *spec, struct child_status *st)
{
	if (dup2(spec->stdin_fd, 0) < 0 || dup2(spec->stdout_fd, 1) < 0 ||
	    dup2(spec->stderr_fd, 2) < 0)
		return child_status_set(st, STAGE_FDS, errno, "dup2", NULL);
	return 0;
}

/* stdin again, from the null device of the view the runner built (a node
 * on its read-only /dev), not the host's that sbx opened. Why: fd 0 is the
 * one file the namespace runner's view did not open, and fchmod, fchown
 * or futimens on it reached the host's /dev/null, on a mount the view
 * never made read-only (a root caller made it mode 0 for the host). */
static int stdin_from_view(const struct child_spec *spec, struct child_status *st)
{
	int fd;

	if (!spec->runner || spec->runner->id != SBX_RUNNER_NAMESPACE)
		return 0;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, 0) < 0) {
		child_status_set(st, STAGE_FDS, errno, "open", "/dev/null");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The command's own process: fds, confinement, filter, session, exec. */
static int command_main(void *arg)
{
	const struct child_spec *spec = arg;
	struct child_status st = { 0 };
	uint64_t nproc_base;

	/* The run's cgroup first: every process the setup forks (the dead-man
	 * helper) is the run's and counted there. */
	if (reset_signals(spec, &st) < 0 || setup_fds(spec, &st) < 0 ||
	    child_cgroup_join(&spec->limits, &st) < 0)
		report_and_exit(spec, &st);
	/* The caller's tasks, counted before the run makes any of its own
	 * (the dead-man helper is in the run's share, as in a namespace). */
	if (child_nproc_base(&spec->limits, &nproc_base, &st) < 0)
		report_and_exit(spec, &st);
	/* bash becomes the subreaper of its own tree (kept across execve): an
	 * orphan stays below it, so a finished run's leftovers are told apart
	 * from another live run's processes (see tree.c). */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		child_status_set(&st, STAGE_SESSION, errno, "PR_SET_CHILD_SUBREAPER", NULL);
		report_and_exit(spec, &st);
	}
	if (spec->runner && !spec->runner->pid_namespace && spec->runner->enter(spec, &st) < 0)
		report_and_exit(spec, &st);
	if (spec->runner && spec->runner->confine && spec->runner->confine(spec, &st) < 0)
		report_and_exit(spec, &st);
	if (stdin_from_view(spec, &st) < 0)
		report_and_exit(spec, &st);
	/* After the runner's own helpers are started; lowering a limit needs
	 * no capability, and with none left the command cannot raise it. */
	if (child_rlimits_apply(&spec->limits, nproc_base, &st) < 0)
		report_and_exit(spec, &st);
	/* Every confined run has a session keyring of its own. */
	if (spec->runner && keyring_join_new_session(&st) < 0)
		report_and_exit(spec, &st);
#ifdef CONFIG_NETNS
	/* danger-full-access with --net none: only the network namespace. */
	if (!spec->runner && spec->net == SBX_NET_NONE &&
	    ((spec->uid != 0 && userns_write_identity_maps(spec->uid, spec->gid, &st) < 0) ||
	     netns_loopback_up(&st, NULL) < 0))
		report_and_exit(spec, &st);
#endif
#ifdef CONFIG_SECCOMP
	/* Last, so the runner's own setup is not filtered; supervised, the
	 * supervisor's filter carries these rules (notify_joined). */
	if (spec->seccomp && !spec->notify_joined && seccomp_filter_install(spec->seccomp, &st) < 0)
		report_and_exit(spec, &st);
#endif
	/* Own session and process group: job control signals from the caller's
	 * terminal do not reach the command, and a setsid'd escapee is still
	 * found through the process tree, not through the group. */
	if (setsid() < 0) {
		child_status_set(&st, STAGE_SESSION, errno, "setsid", NULL);
		report_and_exit(spec, &st);
	}
	if (chdir(spec->cwd) < 0) {
		child_status_set(&st, STAGE_CHDIR, errno, "chdir", spec->cwd);
		report_and_exit(spec, &st);
	}
	/* What we inherited goes now, each last close bounded (fds.h): among
	 * it may be a copy of another run's lingering socket that sbx held
	 * when it forked us; closed at exec, it kept the new bash from its
	 * first instruction, and this run hung until its timeout. Kept: the
	 * status pipe, until exec succeeds, and the socket the listener goes
	 * over. */
	int keep[3] = { spec->status_fd, spec->runner ? spec->notify_fd : -1,
			spec->runner ? spec->opener_fd : -1 };
	struct fds_bound bound;
	int rc = fds_bound_begin(&bound);

	if (rc == 0) {
		rc = fds_close_from_except(3, keep, 3);
		fds_bound_end(&bound);
	}
	/* Every fd of ours is CLOEXEC from birth; this is the backstop for any
	 * that a library opened without it: the command sees 0, 1, 2 only. The
	 * status pipe stays open until exec succeeds, then closes by itself. */
	if (rc == 0)
		rc = fds_close_from(3, true);

	if (rc < 0) {
		child_status_set(&st, STAGE_FDS, -rc, "close_range", NULL);
		report_and_exit(spec, &st);
	}
#ifdef CONFIG_SUPERVISOR
	/* The very last step: nothing of our own setup may be trapped while
	 * sbx waits for us in vfork. Landlock does not see metadata: under its
	 * runner the supervisor decides those calls too. */
	/* The opener: every confinement above is its own, the supervisor's
	 * filter below is not (it performs what that filter sends us). */
	if (spec->runner && spec->notify_sockets && opener_start(spec, &st) < 0)
		report_and_exit(spec, &st);
	if (spec->runner && spec->notify_sockets) {
		int nrc = notify_install_and_send(spec->notify_joined ? spec->notify_joined
					       : spec->runner->id == SBX_RUNNER_LANDLOCK ? spec->notify_metadata
											  : spec->notify_sockets,
					       spec->notify_fd, &st);

		if (nrc < 0)
			report_and_exit(spec, &st);
#ifdef CONFIG_SECCOMP
		/* Refused (a listener above us): the errno rules on their own. */
		if (nrc == 1 && spec->notify_joined && seccomp_filter_install(spec->seccomp, &st) < 0)
			report_and_exit(spec, &st);
#endif
	}
#endif
	/* Last of all, after the supervisor's filter (prctl is not among the
	 * calls it traps), so nothing of sbx's own setup is told a call is
	 * missing. */
	if (spec->syscalls_as_of && syscalls_as_of_install(spec->syscalls_as_of, &st) < 0)
		report_and_exit(spec, &st);
	execve(spec->bash, spec->argv, spec->envp);
	child_status_set(&st, STAGE_EXEC, errno, "execve", spec->bash);
	report_and_exit(spec, &st);
	return 127;
}

/* The init of a run's own PID namespace: enter the runner (namespaces, the
 * view, a private /proc), start the command, then stay as its reaper and
 * dead-man switch (pidns_init.c). We are a fork of sbx, not sharing its
 * memory, so staying alive is safe. */
static int init_main(const struct child_spec *spec)
{
	struct child_status st = { 0 };
	pid_t pid;

	/* The run's cgroup first, so init and all it starts are held by it. */
	if (child_cgroup_join(&spec->limits, &st) < 0 || spec->runner->enter(spec, &st) < 0)
		report_and_exit(spec, &st);
	/* Why: init stays outside the command's seccomp filters, keyring and
	 * (below Landlock ABI 6) any Landlock domain; a command of the same
	 * uid that could ptrace it would make every call through it. Not
	 * dumpable, it takes CAP_SYS_PTRACE in the host's namespace. After
	 * enter (a non-dumpable process cannot write its own uid_map), before
	 * the command exists. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		child_status_set(&st, STAGE_SESSION, errno, "prctl(PR_SET_DUMPABLE)", NULL);
		report_and_exit(spec, &st);
	}
	pid = pidns_init_start_command(spec, command_main, &st);
	if (pid < 0)
		report_and_exit(spec, &st);
	pidns_init_serve(spec, pid);
	return 0;
}

/* A run's keeper (keeper.c): a child subreaper between the caller and the
 * command, so that what the command leaves behind comes to it, never to the
 * caller, and is ended by it. A fork of sbx, as init is. */
static int keeper_main(const struct child_spec *spec)
{
	struct child_status st = { 0 };
	pid_t pid;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		child_status_set(&st, STAGE_SESSION, errno, "PR_SET_CHILD_SUBREAPER", NULL);
		report_and_exit(spec, &st);
	}
	pid = pidns_init_start_command(spec, command_main, &st);
	if (pid < 0)
		report_and_exit(spec, &st);
	pidns_init_serve(spec, pid);
	return 0;
}

int child_main(void *arg)
{
	const struct child_spec *spec = arg;

	if (spec->runner && spec->runner->pid_namespace)
		return init_main(spec);
	if (spec->keeper)
		return keeper_main(spec);
	return command_main(arg);
}
