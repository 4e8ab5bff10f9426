/* SPDX-License-Identifier: MIT */
/* The system call ABI sbx is built for, as seccomp shows a call (arch, nr):
 * what the supervisor asks before it decodes a call's arguments. A build
 * supervises its native ABI only (and i386's opens, supervisor_open.c). The
 * others a kernel may run beside it (x86-64's i386 and x32; arm64's 32-bit
 * ARM) are never decoded: the supervisor refuses i386's, the filters refuse
 * x32 whole (ENOSYS) before any of its calls reaches us, and kill a 32-bit
 * ARM caller (arm64). The numbers of
 * the calls come from the target's own <sys/syscall.h>; the argument order
 * of every call the supervisor decodes is the same on both architectures. */
#ifndef SBX_SYSCALL_ABI_H
#define SBX_SYSCALL_ABI_H

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define SYSCALL_ABI_AUDIT_ARCH AUDIT_ARCH_X86_64
/* x32 shares x86-64's audit arch and table, its numbers with this bit. */
#define SYSCALL_ABI_X32_BIT 0x40000000U
#elif defined(__aarch64__)
#define SYSCALL_ABI_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define SYSCALL_ABI_X32_BIT 0U
#else
#define SYSCALL_ABI_AUDIT_ARCH 0U /* none: no supervisor (seccomp_notify.c) */
#define SYSCALL_ABI_X32_BIT 0U
#endif

/* SYSCALL_ABI_LEGACY_PATHS: the table has the path calls older than their
 * *at forms (chmod, chown, lchown, utime, utimes, futimesat, mkdir, mknod,
 * open, creat). x86-64's does; the generic table arm64 uses has only the
 * *at forms, and libc calls those. */
#ifdef SYS_chmod
#define SYSCALL_ABI_LEGACY_PATHS 1
#endif

/* A call by the native table's numbers (x32's too, on x86-64). */
static inline bool syscall_abi_native_table(const struct seccomp_data *d)
{
	return d->arch == SYSCALL_ABI_AUDIT_ARCH;
}

/* Its number in that table (x32's bit off). */
static inline int syscall_abi_nr(const struct seccomp_data *d)
{
	return (int)((unsigned)d->nr & ~SYSCALL_ABI_X32_BIT);
}

/* The native ABI itself: the only one whose calls are decoded. */
static inline bool syscall_abi_native(const struct seccomp_data *d)
{
	return d->arch == SYSCALL_ABI_AUDIT_ARCH && !((unsigned)d->nr & SYSCALL_ABI_X32_BIT);
}

#endif
