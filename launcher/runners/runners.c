/* SPDX-License-Identifier: MIT */
/* The runners compiled into this build, in the order `auto` tries them:
 * namespace first (it also covers metadata: chmod, chown, utimes, xattrs),
 * then landlock (works where user namespaces are refused). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "landlock_cache.h"
#include "launcher.h"
#include "runner.h"
#include "syscall_filter.h"

const struct runner_ops *const runner_table[] = {
#ifdef CONFIG_RUNNER_NAMESPACE
	&runner_namespace,
#endif
#ifdef CONFIG_RUNNER_LANDLOCK
	&runner_landlock,
#endif
	NULL,
};

void runners_long_lived(void)
{
#ifdef CONFIG_RUNNER_LANDLOCK
	ll_cache_enable();
#endif
}

void runners_run_over(struct child_spec *spec)
{
#ifdef CONFIG_RUNNER_LANDLOCK
	runner_landlock_run_over(spec);
#else
	(void)spec;
#endif
}

const struct runner_ops *runner_by_id(enum sbx_runner id)
{
	for (size_t i = 0; runner_table[i]; i++)
		if (runner_table[i]->id == id)
			return runner_table[i];
	return NULL;
}

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
