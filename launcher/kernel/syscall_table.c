/* SPDX-License-Identifier: MIT */
/* The questions asked of the system call table (syscall_table.def, its
 * numbers generated into syscall_numbers.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "syscall_table.h"

/* The table itself is generated (syscall_numbers.c); from the def, only the
 * releases it covers. */
#define SYSCALL(...)
#define SYSCALL_NR(...)
#include "syscall_table.def"
#undef SYSCALL
#undef SYSCALL_NR

unsigned syscall_table_oldest(void)
{
	return KERNEL_RELEASE(SYSCALL_TABLE_OLDEST_MAJOR, SYSCALL_TABLE_OLDEST_MINOR);
}

unsigned syscall_table_newest(void)
{
	return KERNEL_RELEASE(SYSCALL_TABLE_NEWEST_MAJOR, SYSCALL_TABLE_NEWEST_MINOR);
}

int syscall_table_base(enum syscall_arch arch)
{
	return syscall_table_base_nr[arch];
}

static int parse_number(const char **s, unsigned long *out)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	*out = strtoul(*s, &end, 10);
	if (*out > 255)
		return -EINVAL;
	*s = end;
	return 0;
}

int kernel_release_parse(const char *s, unsigned *out)
{
	unsigned long major, minor;

	if (!s || parse_number(&s, &major) < 0 || *s++ != '.' || parse_number(&s, &minor) < 0)
		return -EINVAL;
	/* What may follow: a patch level, a Debian or vendor suffix. */
	if (*s && *s != '.' && *s != '-' && *s != '+' && *s != '_')
		return -EINVAL;
	if (major == 0)
		return -EINVAL;
	*out = KERNEL_RELEASE(major, minor);
	return 0;
}

void kernel_release_format(unsigned release, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u", release >> 8, release & 0xff);
}

int syscall_arch_native(void)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	return SYSCALL_ARCH_X86_64;
#elif defined(__aarch64__) && !defined(__ILP32__)
	return SYSCALL_ARCH_AARCH64;
#else
	return -1;
#endif
}

bool syscall_exists_as_of(enum syscall_arch arch, long nr, unsigned release)
{
	if (nr < 0)
		return false;
	if (nr <= syscall_table_base(arch))
		return true;
	for (size_t i = 0; i < syscall_table_size; i++)
		if (syscall_table[i].nr[arch] == nr)
			return syscall_table[i].since[arch] <= release;
	return false;
}
