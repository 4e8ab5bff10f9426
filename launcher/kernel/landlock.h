/* SPDX-License-Identifier: MIT */
/* Landlock rulesets, shared by the landlock runner and the namespace runner
 * (which layers one on top to close the /proc/<pid>/root|cwd|fd routes).
 * Built against Debian 12's 6.1 headers: what they lack is defined here. */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/syscall.h>

#include "child_status.h"

/* Debian 12 ships the 6.1 headers: the syscall numbers where they lack them. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#define SBX_LANDLOCK_ABI_KNOWN 7

/* Parent: the kernel's ABI (>= 1), or -errno: -ENOSYS (not built in),
 * -EOPNOTSUPP (built in but disabled at boot). reason gets a plain sentence. */
int landlock_abi_probe(char *reason, size_t reason_size);
/* Every filesystem access right the given ABI knows. */
uint64_t landlock_fs_rights(int abi);

/* Child (no allocation): enforce a ruleset handling every filesystem right of
 * abi: read and execute everywhere; every right on each of write_dirs;
 * write (and truncate) on /dev/null. Sets no_new_privs first (required by
 * landlock_restrict_self for unprivileged callers). 0 or -1 with st filled. */
int landlock_enforce(int abi, const char *const *write_dirs, size_t n_write_dirs,
		     struct child_status *st);

/* Child (no allocation): on ABI 6+, enter a domain that handles no file
 * access and only scopes signals and abstract unix sockets to the run (the
 * namespace runner with a private /proc). Nothing below ABI 6. 0 or -1. */
int landlock_scope_enforce(int abi, struct child_status *st);

#endif
