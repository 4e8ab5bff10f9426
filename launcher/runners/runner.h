/* SPDX-License-Identifier: MIT */
/* launcher/runners: what enforces a confined mode, and the child's path
 * from clone to exec (child.c: no allocation, no lock, no stdio there).
 * The namespace runner builds a view of mounts (ns_*.c) and a PID
 * namespace with its init (pidns_init.c); the landlock runner a ruleset
 * (runner_landlock.c, its cache); both attach the seccomp filter
 * (runner_filter.c) and the dead-man switch (deadman.c). Called by the
 * engine; calls only launcher/kernel.
 *
 * A runner enforces a confined mode. Each is a small table of functions with
 * one shape, so `auto` is a loop over the table. danger-full-access never
 * reaches it. */
#ifndef SBX_RUNNER_H
#define SBX_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "child.h"
#include "classify.h"
#include "sbx.h"
#include "seccomp_rules.h"

struct runner_ops {
	const char *name;           /* "namespace", "landlock" */
	enum sbx_runner id;
	/* Parent, cheap: can this runner enforce here? 0, or -errno with a plain
	 * reason ("user namespaces disabled (user.max_user_namespaces=0)"). */
	int (*probe)(char *reason, size_t reason_size);
	/* Parent: extra clone(2) flags this runner's child is started with. */
	int (*clone_flags)(const struct child_spec *spec);
	/* Parent, right before the clone: build what the child only applies
	 * (the seccomp filter for this runner; the landlock runner's ruleset;
	 * the namespace runner's identity-map helper for a root caller), into
	 * spec. 0, or -errno with a plain reason. release undoes it after the
	 * spawn, whether or not the spawn happened (also after a failed
	 * prepare); both may be called again for the next spawn. */
	int (*prepare)(struct child_spec *spec, char *reason, size_t reason_size);
	void (*release)(struct child_spec *spec);
	/* Child, after clone, before exec: enter the confinement. 0, or -1 with st
	 * filled (st->stage says how far it got). With pid_namespace, this runs
	 * in the namespace's init, before the command's process exists. */
	int (*enter)(const struct child_spec *spec, struct child_status *st);
	/* Child, in the command's own process right before the seccomp filter
	 * and exec (NULL: nothing more). */
	int (*confine)(const struct child_spec *spec, struct child_status *st);
	/* The child starts as the init of a new PID namespace (CLONE_NEWPID). */
	bool pid_namespace;
	/* Protected paths that exist are kept read-only by its mounts; without
	 * that, the engine snapshots them and puts back what changed. */
	bool protects_by_mounts;
	/* Denial dialects (DIALECT_* mask) its denials are spoken in. */
	unsigned dialects;
	/* full or partial, given the Landlock ABI the run uses. */
	enum sbx_enforcement (*enforcement)(const struct child_spec *spec);
};

/* runner_filter.c: the seccomp filter with a runner's rules into spec->seccomp
 * (none in a build without CONFIG_SECCOMP). 0, or -errno with reason. */
int runner_prepare_filter(struct child_spec *spec, enum seccomp_rules_for rules, char *reason,
			  size_t reason_size);

extern const struct runner_ops runner_namespace;
extern const struct runner_ops runner_landlock;
/* Its per-run leftovers end (runners_run_over). */
void runner_landlock_run_over(struct child_spec *spec);

#endif
