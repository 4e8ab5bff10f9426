/* SPDX-License-Identifier: MIT */
/* The errno rules of the confined command's seccomp filter (seccomp_rules.c),
 * one set per runner. */
#ifndef SBX_SECCOMP_RULES_H
#define SBX_SECCOMP_RULES_H

#include <stddef.h>

enum seccomp_rules_for {
	SECCOMP_RULES_NAMESPACE, /* nested user namespaces and private mounts allowed */
	SECCOMP_RULES_LANDLOCK,  /* no new namespace, no mount call */
	SECCOMP_RULES_NAMESPACE_ROOT, /* a root caller's: no new namespace, no mount call */
	SECCOMP_RULES_COUNT,
};

/* The verdict of a refusal (the REFUSE action, EPERM); the other errno
 * verdict is ENOSYS, for calls the command should take as absent. */
#define SECCOMP_RULES_REFUSED (0x00050000U | 1U) /* SECCOMP_RET_ERRNO | EPERM */

/* Every namespace flag clone(2) takes; unshare(2) also takes CLONE_NEWTIME,
 * which in clone's flags is a bit of the exit signal. (sched.h's values.) */
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif
#define CLONE_NAMESPACES                                                              \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
	 CLONE_NEWPID | CLONE_NEWNET)

/* Add the rules for a command confined by `runner` to a libseccomp context
 * (scmp_filter_ctx; default action ALLOW, arches already added). The one
 * place the rules live: the build-time generator (seccomp_gen.c) and the
 * unit test that checks the embedded copy both compile from here. 0 or
 * -errno. */
int seccomp_rules_add(void *ctx, enum seccomp_rules_for runner);
/* The calls refused for `runner` that libseccomp has no name for (newer
 * than its table), by their number, the same on every ABI sbx filters:
 * seccomp_compile puts their refusal before libseccomp's program. Writes
 * at most max numbers to nr; returns how many. */
size_t seccomp_rules_unnamed(enum seccomp_rules_for runner, unsigned *nr, size_t max);

#endif
