/* SPDX-License-Identifier: MIT */
/* The init of a run's own PID namespace (namespace runner), and a run's
 * keeper where it has none (keeper.h). */
#ifndef SBX_PIDNS_INIT_H
#define SBX_PIDNS_INIT_H

#include <sys/types.h>

#include "child.h"

/* In init (a keeper): report the view's facts on spec->exit_fd, then start the
 * command's process the vfork way (it runs fn(spec) and execs bash; a keeper's
 * with spec->command_clone_flags). Returns its pid once it has exec'd or given
 * up, or -1 with st filled. */
pid_t pidns_init_start_command(const struct child_spec *spec, int (*fn)(void *),
			       struct child_status *st);
/* In init, for the rest of the run: reap every orphan, report the command's
 * wait status on spec->exit_fd, and exit when spec->deadman_fd turns readable
 * (sbx wrote the end, closed it or died). The kernel then kills every process
 * left in the namespace: a dead-man switch on any kernel. A keeper
 * (spec->keeper) kills and reaps what is left below it first. Never
 * returns. */
__attribute__((noreturn)) void pidns_init_serve(const struct child_spec *spec, pid_t command);

#endif
