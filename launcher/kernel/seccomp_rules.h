/* SPDX-License-Identifier: MIT */
/* The errno rules of the confined command's seccomp filter (seccomp_rules.c),
 * one set per runner. */
#ifndef SBX_SECCOMP_RULES_H
#define SBX_SECCOMP_RULES_H

enum seccomp_rules_for {
	SECCOMP_RULES_NAMESPACE, /* nested user namespaces and private mounts allowed */
	SECCOMP_RULES_LANDLOCK,  /* no new user namespace, no mount call */
	SECCOMP_RULES_COUNT,
};

/* Add the rules for a command confined by `runner` to a libseccomp context
 * (scmp_filter_ctx; default action ALLOW, arches already added). The one
 * place the rules live: the build-time generator (seccomp_gen.c) and the
 * unit test that checks the embedded copy both compile from here. 0 or
 * -errno. */
int seccomp_rules_add(void *ctx, enum seccomp_rules_for runner);

#endif
