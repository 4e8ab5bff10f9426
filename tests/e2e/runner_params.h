/* SPDX-License-Identifier: MIT */
/* The matrix every containment test runs in: both runners, as the caller
 * (root here) and as nobody. Included by one test file each. */
#ifndef SBX_E2E_RUNNER_PARAMS_H
#define SBX_E2E_RUNNER_PARAMS_H

#include "common.h"

enum runner { NAMESPACE = 0, LANDLOCK = 1 };
static const char *const runner_name[] __attribute__((unused)) = { "namespace", "landlock" };

struct cp {
	int runner; /* enum runner */
	int user;   /* enum e2e_user */
};

static struct cp all_params[] __attribute__((unused)) = {
	{ NAMESPACE, AS_CALLER }, { NAMESPACE, AS_NOBODY }, { LANDLOCK, AS_CALLER }, { LANDLOCK, AS_NOBODY }
};

#endif
