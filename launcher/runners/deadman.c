/* SPDX-License-Identifier: MIT */
/* The run's dead-man switch (Landlock ABI 6+): a tiny process that sits in an
 * outer Landlock domain of the run's own, which scopes signals and nothing
 * else, while the command lives in a nested domain below it. The command can
 * neither signal it nor escape its reach. When sbx closes the trigger pipe
 * (the run is over) or dies (the kernel closes it), the helper sends
 * kill(-1, SIGKILL): with signals scoped, that reaches exactly the processes
 * of this run, all at once, however fast they fork or setsid. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "fds.h"
#include "deadman.h"

#define LL_REFER (1ULL << 13) /* LANDLOCK_ACCESS_FS_REFER, ABI 2 */

struct scope_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

static void helper(int trigger, pid_t sbx)
{
	struct child_status st;
	char byte;

	/* It needs no privilege to signal its own run: hold none (a root
	 * launcher's helper would otherwise keep every capability). */
	if (caps_drop_all(&st) < 0)
		_exit(1);
	/* Named (after the drop), so that a `ps` inside the run says what it is. */
	prctl(PR_SET_NAME, "sbx-deadman", 0, 0, 0);
	/* Only the trigger stays open: no pipe of the run is held, so output
	 * collection never waits for us. Signals stay blocked (inherited from
	 * the spawn); only SIGKILL, from sbx, can end us early. */
	struct fds_bound bound;

	/* Each last close bounded (fds.h): what we inherited may hold a copy
	 * of another run's lingering socket. */
	if (fds_bound_begin(&bound) < 0 || dup2(trigger, 3) < 0)
		_exit(1);
	fds_close_from(4, false);
	close(0);
	close(1);
	close(2);
	fds_bound_end(&bound);
	/* Safety first, while sbx surely lives (it waits for our parent's
	 * exec): if the scope did not hold, kill(-1) would reach every process
	 * of this uid. sbx lies outside our domain: it must be out of reach. */
	if (kill(sbx, 0) == 0 || errno != EPERM)
		_exit(1);
	while (read(3, &byte, 1) < 0 && errno == EINTR)
		;
	kill(-1, SIGKILL);
	_exit(0);
}

/* Landlock denies cross-directory links and renames in any domain that does
 * not grant REFER, handled or not: the outer domain handles REFER and grants
 * it everywhere, so it restricts nothing on the file tree. */
static int grant_refer_everywhere(int ruleset)
{
	struct {
		uint64_t allowed_access;
		int32_t parent_fd;
	} __attribute__((packed)) rule = { .allowed_access = LL_REFER };
	int fd = open("/", O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rule.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, 1 /* PATH_BENEATH */, &rule, 0);
	close(fd);
	return rc;
}

int deadman_start(const struct child_spec *spec, struct child_status *st)
{
	struct scope_attr attr = {
		.handled_access_fs = LL_REFER,
		.scoped = 1ULL << 1 /* LANDLOCK_SCOPE_SIGNAL */,
	};
	pid_t sbx = getppid(), pid;
	int ruleset;

	if (spec->deadman_fd < 0 || spec->landlock_abi < 6)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_NO_NEW_PRIVS, errno, "prctl(PR_SET_NO_NEW_PRIVS)", NULL);
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return child_status_set(st, STAGE_LANDLOCK, errno, "landlock_create_ruleset (scope)", NULL);
	if (grant_refer_everywhere(ruleset) < 0 || syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
		int e = errno;

		close(ruleset);
		return child_status_set(st, STAGE_LANDLOCK, e, "landlock_restrict_self (scope)", NULL);
	}
	close(ruleset);
	/* A real fork (not CLONE_VM): the helper gets its own copy of memory and
	 * runs nothing but the few system calls above. CLONE_PARENT: sbx's
	 * child, not the command's, which would otherwise find a child it never
	 * made, one that never exits (script(1), anything that waits for all
	 * its children, hung on it). Still made here, after the command's
	 * process joined the scope domain, and before the seccomp filter (which
	 * refuses CLONE_PARENT to the command). */
	pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0)
		return child_status_set(st, STAGE_LANDLOCK, errno, "fork dead-man helper", NULL);
	if (pid == 0)
		helper(spec->deadman_fd, sbx);
	/* Shared memory (CLONE_VM): the parent reads it once we exec. */
	if (spec->deadman_pid)
		*spec->deadman_pid = pid;
	return 0;
}
