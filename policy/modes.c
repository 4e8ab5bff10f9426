/* SPDX-License-Identifier: MIT */
/* Names of modes and runners, both ways. The parsers accept exactly the names
 * a user may write (CONTRACT sections 1, 2, 6); "none" is a runner name the
 * library reports for danger-full-access but never accepts as a request. */
#include <errno.h>
#include <string.h>

#include "sbx.h"

static const char *const mode_names[] = {
	[SBX_MODE_READ_ONLY] = "read-only",
	[SBX_MODE_WORKSPACE_WRITE] = "workspace-write",
	[SBX_MODE_DANGER_FULL_ACCESS] = "danger-full-access",
};

static const char *const runner_names[] = {
	[SBX_RUNNER_AUTO] = "auto",
	[SBX_RUNNER_NAMESPACE] = "namespace",
	[SBX_RUNNER_LANDLOCK] = "landlock",
	[SBX_RUNNER_NONE] = "none",
};

#define N_MODES (sizeof(mode_names) / sizeof(mode_names[0]))
#define N_RUNNERS (sizeof(runner_names) / sizeof(runner_names[0]))

const char *sbx_mode_name(enum sbx_mode mode)
{
	if ((size_t)mode >= N_MODES)
		return "unknown";
	return mode_names[mode];
}

int sbx_mode_parse(const char *name, enum sbx_mode *out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < N_MODES; i++) {
		if (strcmp(name, mode_names[i]) == 0) {
			*out = (enum sbx_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sbx_runner_name(enum sbx_runner runner)
{
	if ((size_t)runner >= N_RUNNERS)
		return "unknown";
	return runner_names[runner];
}

int sbx_runner_parse(const char *name, enum sbx_runner *out)
{
	if (!name || !out)
		return -EINVAL;
	/* SBX_RUNNER_NONE is an outcome, not a choice: a caller cannot ask for it. */
	for (size_t i = 0; i < N_RUNNERS; i++) {
		if (i == SBX_RUNNER_NONE)
			continue;
		if (strcmp(name, runner_names[i]) == 0) {
			*out = (enum sbx_runner)i;
			return 0;
		}
	}
	return -EINVAL;
}
