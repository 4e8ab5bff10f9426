/* SPDX-License-Identifier: MIT */
/* The runners compiled into this build, in the order `auto` tries them:
 * namespace first (it also covers metadata: chmod, chown, utimes, xattrs),
 * then landlock (works where user namespaces are refused). */
#include <stddef.h>

#include "launcher.h"
#include "runner.h"

const struct runner_ops *const runner_table[] = {
#ifdef CONFIG_RUNNER_NAMESPACE
	&runner_namespace,
#endif
#ifdef CONFIG_RUNNER_LANDLOCK
	&runner_landlock,
#endif
	NULL,
};

const struct runner_ops *runner_by_id(enum sbx_runner id)
{
	for (size_t i = 0; runner_table[i]; i++)
		if (runner_table[i]->id == id)
			return runner_table[i];
	return NULL;
}
