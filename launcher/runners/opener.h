/* SPDX-License-Identifier: MIT */
/* The run's opener (workspace-write, supervised): a process forked from the
 * command right before its seccomp filter, so it holds exactly the
 * command's restrictions (its Landlock domain, user and mount namespaces,
 * capabilities, session without a terminal, no_new_privs) and nothing of
 * sbx's. The supervisor has it perform the command's opens for writing: it
 * opens the object the supervisor resolved in the command's view, checks
 * the file it now holds, strips a setuid or setgid bit before any write is
 * possible, and hands the file back to be installed in the command
 * (SECCOMP_IOCTL_NOTIF_ADDFD). So no file of the run is ever open for
 * writing with either bit set: no route (write, a shared writable mapping,
 * ftruncate, copy_file_range, splice, fallocate, a reflink) gives a setuid
 * or setgid file new content. truncate(2) by name is made here too, on a
 * file opened and stripped the same way. */
#ifndef SBX_OPENER_H
#define SBX_OPENER_H

#include <stdint.h>

#include "child.h"

#define OPENER_NAME_MAX 256

enum opener_op {
	OPENER_REOPEN = 1, /* fds[0]: an O_PATH handle on the object */
	OPENER_CREATE = 2, /* fds[0]: the directory; name: the last component */
	OPENER_TRUNCATE = 3, /* fds[0]: the regular file, to truncate(2) to length */
};

/* One request, with SCM_RIGHTS: fds[0] as op says, fds[1] the socket the
 * answer goes to. */
struct opener_req {
	uint32_t op;
	uint32_t flags;            /* open(2)'s, as the command gave them */
	uint32_t mode;             /* with O_CREAT or O_TMPFILE */
	uint32_t umask;            /* the command's */
	uint32_t fork;             /* 1: may block (a FIFO): opened by a child of ours */
	uint64_t length;           /* OPENER_TRUNCATE */
	char name[OPENER_NAME_MAX];
};

/* The answer, with SCM_RIGHTS: the open file, when err is 0. */
struct opener_reply {
	int32_t err;               /* 0, or a positive errno */
	int32_t refused;           /* 1: ours (a setuid or setgid bit we may not clear) */
};

/* Child (no allocation, no stdio): fork the opener from the command's
 * process, serving spec->opener_fd; its pid to *spec->opener_pid where
 * that is sbx's memory. 0, or -1 with st. */
int opener_start(const struct child_spec *spec, struct child_status *st);

#endif
