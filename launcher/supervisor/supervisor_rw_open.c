/* SPDX-License-Identifier: MIT */
/* open(2) and openat(2) for reading and writing (O_RDWR), under both
 * runners: never decided or performed here, only noted where the sandbox
 * refuses them (issue 31), as a refused mkdir is (supervisor_mkdir.c).
 *
 * Why O_RDWR and nothing else: a program that opens a file for reading
 * and writing and is refused commonly goes on with it read-only and fails
 * later in its own words, with no system error text and often no path
 * (sqlite: "attempt to write a readonly database", "unable to open
 * database file"), where a program writing a file (O_WRONLY) reports the
 * refusal itself. Read-write opens are few (databases, lock and temporary
 * files), so supervising them costs little; every write would cost a round
 * trip per file written. The filter asks for nothing else (a register
 * compare on the flags); openat2 keeps its flags in memory a filter cannot
 * read and is not asked for.
 *
 * A failed run whose output names a noted path on an error line, or whose
 * command line names it while its output says something is read-only, is
 * denied (supervisor_noted.c, run_finish.c). Where the run has an opener
 * (supervisor_open.c performs every open for writing), it is only noted
 * here, before the opener's open. */
#include <fcntl.h>
#include <sys/syscall.h>

#include "supervisor_int.h"
#include "syscall_abi.h"

bool sv_is_rw_open_call(const struct seccomp_notif *n)
{
	int nr = syscall_abi_nr(&n->data);

	if (!syscall_abi_native_table(&n->data))
		return false;
#ifdef SYSCALL_ABI_LEGACY_PATHS
	if (nr == SYS_open)
		return ((unsigned)n->data.args[1] & O_ACCMODE) == O_RDWR;
#endif
	if (nr == SYS_openat)
		return ((unsigned)n->data.args[2] & O_ACCMODE) == O_RDWR;
	return false;
}

void sv_rw_open_call(struct sv_call *c, struct sv_answer *a)
{
	a->cont = true;
	sv_rw_open_note(c);
}

void sv_rw_open_note(struct sv_call *c)
{
	const __u64 *arg = c->n.data.args;
	bool at = syscall_abi_nr(&c->n.data) == SYS_openat;
	unsigned flags = (unsigned)(at ? arg[2] : arg[1]);
	char made[PATH_MAX], given[PATH_MAX];

	/* Never x32's (the filters refuse that ABI whole); an O_PATH or
	 * directory open writes nothing. */
	if (!syscall_abi_native(&c->n.data) || (flags & (O_PATH | O_DIRECTORY)))
		return;
	/* without O_CREAT a missing file is ENOENT, with O_EXCL one that
	 * exists is EEXIST, sandbox or not */
	unsigned how = (flags & O_CREAT) ? SV_WRITE_NEW : SV_WRITE_EXISTING;

	if ((flags & O_CREAT) && !(flags & O_EXCL))
		how |= SV_WRITE_EXISTING;
	if (sv_write_refused(c, at ? (int)arg[0] : AT_FDCWD, at ? arg[1] : arg[0], how, made,
			     sizeof(made), given))
		sv_note_refused(c->sv, made, given);
}
