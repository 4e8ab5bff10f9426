/* SPDX-License-Identifier: MIT */
/* What this kernel offers and what sbx does with it (CONTRACT section 8). */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The facts as a JSON object (caller owns it). Runs `true` once under each
 * runner and mode to report what `auto` really picks, not what it might. */
json_t *probe_facts(void);
/* Runner names that can enforce here (a JSON array, caller owns it). */
json_t *probe_usable_runners(const json_t *facts);
/* From the trials' results (runners: each runner alone; modes: auto): what
 * each failed runner's "instead" says, and the fix of a mode auto refused
 * where another runner confines. */
void probe_explain(json_t *runners, json_t *modes);

/* probe_causes.c, probe_userns.c: why a piece is missing here, and what
 * fixes it. */
struct probe_cause {
	char reason[512];       /* what was seen and its cause; "" when nothing is missing */
	char cause[256];        /* the cause alone */
	char fix[512];
};

/* What an attempt at a user namespace saw, made as the namespace runner
 * makes one. */
struct userns_seen {
	int create_err;         /* unshare(CLONE_NEWUSER): 0 or the errno */
	int inside_err;         /* made, then a step inside refused: 0 or the errno */
	char inside_what[224];  /* that step, e.g. "write /proc/self/setgroups" */
};
struct userns_host;
/* The attempt, in a throwaway child. */
void probe_userns_try(struct userns_seen *s);
/* The cause of what s saw (NULL: not tried, a switch settled it), from what
 * the host shows (h); privileged: a caller the switches spare. chrooted: 1
 * or 0, or -1 to ask the kernel where it matters. */
void probe_userns_explain(const struct userns_host *h, bool privileged,
			  const struct userns_seen *s, int chrooted, struct probe_cause *c);
/* For sbx probe: try, read this host, explain. *created: one was made. */
void probe_userns_cause(struct probe_cause *c, bool *created);
/* The namespace runner's reason in a refusal: described (its probe's
 * reason, s NULL; or what its spawn saw, in s too), the cause and the fix. */
void probe_namespace_refusal(const char *described, const struct userns_seen *s, char *out,
			     size_t size);
/* err: what landlock_create_ruleset answered (ENOSYS, EOPNOTSUPP, EPERM). */
void probe_landlock_cause(int err, struct probe_cause *c);
void probe_io_uring_cause(const char *reason, struct probe_cause *c);
/* The fix for a runner that cannot enforce here, given the facts above. */
void probe_runner_fix(const char *runner, const char *reason, const struct probe_cause *userns,
		      const struct probe_cause *landlock, char *fix, size_t size);

#endif
