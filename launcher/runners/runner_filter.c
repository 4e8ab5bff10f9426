/* SPDX-License-Identifier: MIT */
/* The seccomp filter every runner attaches: its errno rules, built once per
 * process (launcher/kernel/seccomp.c), into the child's spec. Below the
 * runners themselves, which call it from their prepare step. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "launcher.h"
#include "runner.h"
#include "syscall_filter.h"

int runner_prepare_filter(struct child_spec *spec, enum seccomp_rules_for rules, char *reason,
			  size_t reason_size)
{
#ifdef CONFIG_SECCOMP
	int e = 0;

	spec->seccomp = seccomp_filter_get(rules, &e);
	if (!spec->seccomp) {
		snprintf(reason, reason_size, "unable to build the seccomp filter: %s", strerror(e));
		return -e;
	}
	/* Supervised: one filter carries both (child.c installs the plain one
	 * only where the kernel refuses the supervisor's). */
	spec->notify_joined = NULL;
	if (spec->notify_sockets && spec->runner)
		spec->notify_joined = seccomp_filter_join(rules, spec->runner->id == SBX_RUNNER_LANDLOCK
									? spec->notify_metadata
									: spec->notify_sockets);
#else
	(void)spec;
	(void)rules;
	(void)reason;
	(void)reason_size;
#endif
	return 0;
}
