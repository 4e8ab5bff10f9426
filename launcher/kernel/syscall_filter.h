/* SPDX-License-Identifier: MIT */
/* The seccomp filter every confined command runs under (installed last in
 * the child). Built once per process and variant in the parent with
 * libseccomp from seccomp_rules.c, kept as raw BPF so the child only makes
 * one prctl(2). */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include "child_status.h"
#include "seccomp_rules.h"

struct sock_fprog;

/* Parent: the compiled filter for a runner's rules (cached), or NULL with
 * *err = errno. */
const struct sock_fprog *seccomp_filter_get(enum seccomp_rules_for runner, int *err);
/* Child (no allocation): install it. 0 or -1 with st filled. */
int seccomp_filter_install(const struct sock_fprog *prog, struct child_status *st);

#endif
