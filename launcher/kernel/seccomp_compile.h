/* SPDX-License-Identifier: MIT */
/* Build time only (never linked into sbx): the errno rules of seccomp_rules.c
 * compiled to raw BPF by libseccomp, for the architectures sbx filters. The
 * generator (seccomp_gen.c) embeds the result in sbx; a unit test compiles
 * again and checks that the embedded program is the same. */
#ifndef SBX_SECCOMP_COMPILE_H
#define SBX_SECCOMP_COMPILE_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "seccomp_rules.h"

/* The program for a runner's rules on target (libseccomp's SCMP_ARCH_*;
 * SCMP_ARCH_NATIVE: this machine's) into *insns (malloc'd, *n
 * instructions). 0 or -errno (-EOPNOTSUPP: not an architecture sbx has
 * filters for: x86_64, aarch64). */
int seccomp_compile(enum seccomp_rules_for runner, uint32_t target, struct sock_filter **insns,
		    size_t *n);

#endif
