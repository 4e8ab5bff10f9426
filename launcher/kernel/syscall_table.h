/* SPDX-License-Identifier: MIT */
/* Which system calls each kernel release has (syscall_table.def): for
 * `sbx run --syscalls-as-of` and the tests' old-kernel emulation. */
#ifndef SBX_SYSCALL_TABLE_H
#define SBX_SYSCALL_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* A kernel release as one comparable number. */
#define KERNEL_RELEASE(major, minor) ((unsigned)(major) << 8 | (unsigned)(minor))

enum syscall_arch {
	SYSCALL_ARCH_X86_64 = 0,
	SYSCALL_ARCH_AARCH64 = 1,
	SYSCALL_ARCH_COUNT,
};

struct syscall_entry {
	const char *name;
	int nr[SYSCALL_ARCH_COUNT];          /* -1: not on that architecture */
	unsigned since[SYSCALL_ARCH_COUNT];  /* KERNEL_RELEASE() that added it there */
};

/* Generated at build time (syscall_table_gen): the table, and the number
 * of the last call before it on each architecture. */
extern const struct syscall_entry syscall_table[];
extern const size_t syscall_table_size;
extern const int syscall_table_base_nr[SYSCALL_ARCH_COUNT];

/* The releases the table covers: a version is accepted if it lies in
 * [oldest, newest] (syscalls of releases before `oldest` are all assumed). */
unsigned syscall_table_oldest(void);
unsigned syscall_table_newest(void);
/* Every number at or below this existed in the oldest release. */
int syscall_table_base(enum syscall_arch arch);

/* "4.19", "5.15.3", "6.1.0-28-cloud-amd64" -> KERNEL_RELEASE(major, minor).
 * 0, or -EINVAL if it does not start with MAJOR.MINOR. */
int kernel_release_parse(const char *s, unsigned *out);
/* "5.15" into buf. */
void kernel_release_format(unsigned release, char *buf, size_t size);

/* The architecture this build runs as; -1 where the table has no column. */
int syscall_arch_native(void);
/* Whether syscall nr of arch exists as of release: listed and introduced by
 * then, or at or below the base. A number the table does not know above the
 * base is newer than the table, so never. */
bool syscall_exists_as_of(enum syscall_arch arch, long nr, unsigned release);

#endif
