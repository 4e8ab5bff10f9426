/* SPDX-License-Identifier: MIT */
/* Landlock rulesets, shared by the landlock runner (built in the parent,
 * landlock_ruleset.c, enforced in the child) and the namespace runner (which
 * layers one on top, built in the child because it names mounts made there,
 * to close the /proc/<pid>/root|cwd|fd routes). Built against Debian 12's
 * 6.1 headers: what they lack is defined here. */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/landlock.h>
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

/* ... and the rights and scopes later kernels added. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)       /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)    /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)   /* ABI 5 */
#endif
#define SBX_LANDLOCK_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SBX_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */

/* struct landlock_ruleset_attr as of ABI 6 (the 6.1 header has only the
 * first field); the kernel takes a longer struct if the extra bytes are 0. */
struct sbx_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/* The rights Landlock accepts on a rule for a non-directory: a rule naming a
 * file with a directory-only right fails with EINVAL. */
#define LL_FS_FILE                                                             \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |          \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |          \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LL_READ_EXEC                                                           \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |           \
	 LANDLOCK_ACCESS_FS_READ_DIR)

#define SBX_LANDLOCK_ABI_KNOWN 7

/* Parent: the kernel's ABI (>= 1), or -errno: -ENOSYS (not built in),
 * -EOPNOTSUPP (built in but disabled at boot). reason gets a plain sentence. */
int landlock_abi_probe(char *reason, size_t reason_size);
/* Every filesystem access right the given ABI knows. */
uint64_t landlock_fs_rights(int abi);
/* The scopes every confined run gets at this ABI (signals and abstract
 * unix sockets from ABI 6, nothing before). */
uint64_t landlock_scopes(int abi);

/* ---- parent: a ruleset built before the clone (landlock_ruleset.c) ---- */

/* A new ruleset handling every filesystem right of abi and the given scopes.
 * A CLOEXEC fd, or -errno. */
int landlock_ruleset_create(int abi, uint64_t scoped);
/* Allow `rights` beneath the file or directory fd names (a non-directory
 * gets only the file rights among them). 0 or -errno. */
int landlock_allow_fd(int ruleset, int fd, uint64_t rights);
/* The same by path (opened O_PATH, symlinks followed). 0 or -errno. */
int landlock_allow_path(int ruleset, const char *path, uint64_t rights);
/* Allow `rights` beneath dir except beneath each path in `except` (absolute;
 * resolved first, and one that does not exist as its deepest existing
 * ancestor resolves, the rest appended: the directories on its way are
 * walked, and nothing made there later is granted; one not strictly below
 * dir is ignored). How: the entries beside the way from dir to each excluded path
 * get `rights`; each directory on the way gets only `along` beneath it (which
 * therefore reaches the excluded paths too: READ_DIR lets them be listed,
 * nothing more). Symlinks met are granted nothing: what they point to is
 * granted, or not, where it lies. A directory on the way that cannot be
 * listed gets `along` only. Entries made after this call are not covered.
 * 0 or -errno, with failed naming the path. */
int landlock_allow_except(int ruleset, const char *dir, uint64_t rights, uint64_t along,
			  const char *const *except, size_t n_except, char *failed,
			  size_t failed_size);

/* The directories whose listings a walk read (landlock_allow_except_logged),
 * to tell later whether the same walk would still grant the same: each one
 * is still the same directory (device, inode) and lists the same entries
 * (inode, type, name, in order). */
#define LANDLOCK_WALK_MAX 64
struct landlock_walked {
	char *path;
	dev_t dev;
	ino_t ino;
	uint64_t hash;
};
struct landlock_walk_log {
	struct landlock_walked dir[LANDLOCK_WALK_MAX];
	size_t n;
	bool broken;               /* not all recorded: never fresh */
};
int landlock_allow_except_logged(int ruleset, const char *dir, uint64_t rights, uint64_t along,
				 const char *const *except, size_t n_except, char *failed,
				 size_t failed_size, struct landlock_walk_log *log);
/* Whether every directory logged still lists what it listed. */
bool landlock_walk_log_fresh(const struct landlock_walk_log *log);
void landlock_walk_log_free(struct landlock_walk_log *log);

/* ---- child: no allocation ---- */

/* Set no_new_privs (required by landlock_restrict_self for unprivileged
 * callers) and enforce a ruleset the parent built. 0 or -1 with st. */
int landlock_restrict(int ruleset, struct child_status *st);
/* Build and enforce a ruleset handling every filesystem right of abi (and
 * the scopes of landlock_scopes): read and execute everywhere; every right
 * on each of write_dirs; write (and truncate) on /dev/null. The namespace
 * runner's layer: its view already hides what must not be read. 0 or -1
 * with st filled. */
int landlock_enforce(int abi, const char *const *write_dirs, size_t n_write_dirs,
		     struct child_status *st);

/* Child (no allocation): on ABI 6+, enter a domain that handles no file
 * access and only scopes signals and abstract unix sockets to the run (the
 * namespace runner with a private /proc). Nothing below ABI 6. 0 or -1. */
int landlock_scope_enforce(int abi, struct child_status *st);

#endif
