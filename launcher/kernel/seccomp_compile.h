/* SPDX-License-Identifier: MIT */
/* Build time only (never linked into sbx): the errno rules of seccomp_rules.c
 * compiled to raw BPF by libseccomp, for the architectures sbx filters. The
 * generator (seccomp_gen.c) embeds the result in sbx; a unit test compiles
 * again and checks that the embedded program is the same. */
#ifndef SBX_SECCOMP_COMPILE_H
#define SBX_SECCOMP_COMPILE_H

#include <linux/filter.h>
#include <stddef.h>

#include "seccomp_rules.h"

/* The program for a runner's rules into *insns (malloc'd, *n instructions).
 * 0 or -errno. */
int seccomp_compile(enum seccomp_rules_for runner, struct sock_filter **insns, size_t *n);

#endif
