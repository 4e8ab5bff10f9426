/* SPDX-License-Identifier: MIT */
/* `sbx run --syscalls-as-of VERSION`: the command sees ENOSYS for every
 * system call introduced after that kernel release (syscall_table.def). */
#ifndef SBX_SYSCALLS_AS_OF_H
#define SBX_SYSCALLS_AS_OF_H

#include "child_status.h"

struct sock_fprog;

/* Parent: the filter for release (a KERNEL_RELEASE()), into out; out->filter
 * is malloc'd (free it). 0, or -EINVAL (release outside the table), -ENOSYS
 * (no table for this architecture), -ENOMEM. */
int syscalls_as_of_build(unsigned release, struct sock_fprog *out);
/* Child (no allocation): no_new_privs, then the filter. 0, or -1 with st
 * filled. */
int syscalls_as_of_install(const struct sock_fprog *prog, struct child_status *st);

#endif
