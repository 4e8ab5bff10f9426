/* SPDX-License-Identifier: MIT */
/* The seccomp filter every confined command runs under (installed last in
 * the child). Compiled from seccomp_rules.c by libseccomp at build time
 * (seccomp_gen.c) and embedded as raw BPF: no run compiles it, and the child
 * only makes one prctl(2). */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include <linux/filter.h>

#include "child_status.h"
#include "seccomp_rules.h"

/* The embedded programs (seccomp_filters.c, generated). */
extern const struct sock_fprog seccomp_embedded[SECCOMP_RULES_COUNT];
/* Parent: the filter for a runner's rules, or NULL with *err = errno. */
const struct sock_fprog *seccomp_filter_get(enum seccomp_rules_for runner, int *err);
/* Parent: one program with the rules' verdict first, then after's where
 * they allow (cached; NULL where they cannot be joined). */
const struct sock_fprog *seccomp_filter_join(enum seccomp_rules_for rules,
					     const struct sock_fprog *after);
/* Child (no allocation): install it. 0 or -1 with st filled. */
int seccomp_filter_install(const struct sock_fprog *prog, struct child_status *st);

#endif
