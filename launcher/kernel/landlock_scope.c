/* SPDX-License-Identifier: MIT */
/* A Landlock domain that restricts no file access, only what it scopes: no
 * signal to, and no connect to an abstract unix socket of, anything outside
 * the run (ABI 6+). The namespace runner with a private /proc uses it: the
 * mounts decide every file access. Why no file rights at all: a domain that
 * handles any refuses every mount, and nested sandboxes (a user and mount
 * namespace of the command's own) must keep working there. Child side: raw
 * system calls only. */
#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"

#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

struct scope_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int landlock_scope_enforce(int abi, struct child_status *st)
{
	struct scope_attr attr = { .scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL };
	int ruleset;

	/* Below ABI 6 there are no scopes; the PID namespace already keeps the
	 * run's signals inside, and --net none its abstract sockets. */
	if (abi < 6)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_NO_NEW_PRIVS, errno, "prctl(PR_SET_NO_NEW_PRIVS)",
					NULL);
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return child_status_set(st, STAGE_LANDLOCK, errno, "landlock_create_ruleset (scopes)",
					NULL);
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
		int err = errno;

		close(ruleset);
		return child_status_set(st, STAGE_LANDLOCK, err, "landlock_restrict_self (scopes)",
					NULL);
	}
	close(ruleset);
	return 0;
}
