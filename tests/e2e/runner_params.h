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

static int __attribute__((unused)) cp_runner(const void *e)
{
	return ((const struct cp *)e)->runner;
}

static int __attribute__((unused)) cp_who(const void *e)
{
	return ((const struct cp *)e)->user;
}

/* How many of arr's configurations run: all, or the inner loop's diagonal
 * (e2e_matrix, which moves it to the front). */
#define CP_COUNT(arr) e2e_matrix(arr, sizeof arr / sizeof arr[0], sizeof arr[0], cp_runner, cp_who)

#endif
