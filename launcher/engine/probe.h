/* SPDX-License-Identifier: MIT */
/* What this kernel offers and what sbx does with it (CONTRACT section 8). */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <jansson.h>
#include <stddef.h>

/* The facts as a JSON object (caller owns it). Runs `true` once under each
 * runner and mode to report what `auto` really picks, not what it might. */
json_t *probe_facts(void);
/* Runner names that can enforce here (a JSON array, caller owns it). */
json_t *probe_usable_runners(const json_t *facts);

/* probe_causes.c: why a piece is missing here, and what fixes it. */
struct probe_cause {
	char reason[256];       /* "" when nothing is missing */
	char fix[512];
};
/* runner_reason: the namespace runner's own probe reason (sysctls), or NULL. */
void probe_userns_cause(const char *runner_reason, struct probe_cause *c);
/* err: what landlock_create_ruleset answered (ENOSYS, EOPNOTSUPP, EPERM). */
void probe_landlock_cause(int err, struct probe_cause *c);
void probe_io_uring_cause(const char *reason, struct probe_cause *c);
/* The fix for a runner that cannot enforce here, given the facts above. */
void probe_runner_fix(const char *runner, const char *reason, const struct probe_cause *userns,
		      const struct probe_cause *landlock, char *fix, size_t size);

#endif
