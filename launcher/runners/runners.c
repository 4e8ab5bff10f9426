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
