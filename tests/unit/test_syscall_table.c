/* SPDX-License-Identifier: MIT */
/* The system call table (launcher/kernel/syscall_table.def, its numbers
 * generated from libseccomp's tables): its shape, the release parser, the
 * "exists as of" rule, and its numbers against libseccomp's own tables for
 * both architectures. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef CONFIG_SECCOMP
#include <seccomp.h>
#endif

#include "syscall_table.h"

static const struct syscall_entry *find(const char *name)
{
	for (size_t i = 0; i < syscall_table_size; i++)
		if (strcmp(syscall_table[i].name, name) == 0)
			return &syscall_table[i];
	return NULL;
}

Test(syscall_table, release_parse)
{
	unsigned r;

	cr_assert_eq(kernel_release_parse("4.19", &r), 0);
	cr_assert_eq(r, KERNEL_RELEASE(4, 19));
	cr_assert_eq(kernel_release_parse("5.15.3", &r), 0);
	cr_assert_eq(r, KERNEL_RELEASE(5, 15));
	cr_assert_eq(kernel_release_parse("6.1.0-28-cloud-amd64", &r), 0);
	cr_assert_eq(r, KERNEL_RELEASE(6, 1));
	cr_assert_eq(kernel_release_parse("6.18.44-fc-v857", &r), 0);
	cr_assert_eq(r, KERNEL_RELEASE(6, 18));
	const char *bad[] = { "", "4", "4.", ".4", "x.1", "4.x", "4.19x", "0.9", "-1.2", "256.1",
			      "4.256", " 4.19" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(kernel_release_parse(bad[i], &r), -EINVAL, "'%s' parsed", bad[i]);
	cr_assert_eq(kernel_release_parse(NULL, &r), -EINVAL);

	char buf[16];
	kernel_release_format(KERNEL_RELEASE(5, 10), buf, sizeof(buf));
	cr_assert_str_eq(buf, "5.10");
}

/* Sorted by release, every release inside what the table claims to cover,
 * every number above the base, no number twice on one architecture. */
Test(syscall_table, shape)
{
	for (size_t i = 0; i < syscall_table_size; i++) {
		const struct syscall_entry *e = &syscall_table[i];

		cr_expect(e->since[0] > syscall_table_oldest() && e->since[0] <= syscall_table_newest(),
			  "%s: release out of range", e->name);
		if (i > 0)
			cr_expect(syscall_table[i - 1].since[0] <= e->since[0], "%s: not sorted", e->name);
		for (int a = 0; a < SYSCALL_ARCH_COUNT; a++) {
			if (e->nr[a] < 0)
				continue;
			cr_expect(e->nr[a] > syscall_table_base(a), "%s: number %d at or below the base",
				  e->name, e->nr[a]);
			cr_expect(e->since[a] >= e->since[0] || a == 0, "%s: arm64 before x86_64?",
				  e->name);
			for (size_t j = i + 1; j < syscall_table_size; j++)
				cr_expect(syscall_table[j].nr[a] != e->nr[a], "%s and %s share %d",
					  e->name, syscall_table[j].name, e->nr[a]);
		}
	}
}

Test(syscall_table, exists_as_of)
{
	const struct syscall_entry *p = find("pidfd_open");
	int x = SYSCALL_ARCH_X86_64, a = SYSCALL_ARCH_AARCH64;

	cr_assert_not_null(p);
	cr_assert_eq(p->nr[x], 434);
	cr_assert(syscall_exists_as_of(x, 434, KERNEL_RELEASE(5, 3)));
	cr_assert(!syscall_exists_as_of(x, 434, KERNEL_RELEASE(5, 2)));
	cr_assert(syscall_exists_as_of(a, 434, KERNEL_RELEASE(6, 1)));
	/* the base: read (0) and finit_module (313 / 273) always */
	cr_assert(syscall_exists_as_of(x, 0, KERNEL_RELEASE(3, 10)));
	cr_assert(syscall_exists_as_of(x, 313, KERNEL_RELEASE(3, 10)));
	cr_assert(syscall_exists_as_of(a, 273, KERNEL_RELEASE(3, 10)));
	/* a number the table does not know is newer than the table */
	cr_assert(!syscall_exists_as_of(x, 470, KERNEL_RELEASE(6, 17)));
	cr_assert(!syscall_exists_as_of(x, 400, KERNEL_RELEASE(6, 17)));
	cr_assert(!syscall_exists_as_of(x, -1, KERNEL_RELEASE(6, 17)));
	/* per-architecture releases */
	const struct syscall_entry *k = find("kexec_file_load");
	cr_assert_not_null(k);
	cr_assert(syscall_exists_as_of(x, k->nr[x], KERNEL_RELEASE(4, 19)));
	cr_assert(!syscall_exists_as_of(a, k->nr[a], KERNEL_RELEASE(4, 19)));
	cr_assert(syscall_exists_as_of(a, k->nr[a], KERNEL_RELEASE(5, 0)));
	const struct syscall_entry *u = find("uretprobe");
	cr_assert_not_null(u);
	cr_assert_eq(u->nr[a], -1);
	/* the calls sbx itself uses, with the releases docs/kernels.md names */
	struct {
		const char *name;
		unsigned since;
	} uses[] = {
		{ "io_uring_setup", KERNEL_RELEASE(5, 1) }, { "open_tree", KERNEL_RELEASE(5, 2) },
		{ "move_mount", KERNEL_RELEASE(5, 2) },	    { "pidfd_open", KERNEL_RELEASE(5, 3) },
		{ "clone3", KERNEL_RELEASE(5, 3) },	    { "openat2", KERNEL_RELEASE(5, 6) },
		{ "pidfd_getfd", KERNEL_RELEASE(5, 6) },    { "faccessat2", KERNEL_RELEASE(5, 8) },
		{ "close_range", KERNEL_RELEASE(5, 9) },    { "mount_setattr", KERNEL_RELEASE(5, 12) },
		{ "landlock_create_ruleset", KERNEL_RELEASE(5, 13) },
		{ "landlock_add_rule", KERNEL_RELEASE(5, 13) },
		{ "landlock_restrict_self", KERNEL_RELEASE(5, 13) },
	};
	for (size_t i = 0; i < sizeof(uses) / sizeof(uses[0]); i++) {
		const struct syscall_entry *e = find(uses[i].name);

		cr_assert_not_null(e, "%s missing", uses[i].name);
		cr_expect_eq(e->since[x], uses[i].since, "%s", uses[i].name);
		cr_expect_eq(e->since[a], uses[i].since, "%s (aarch64)", uses[i].name);
	}
}

#ifdef CONFIG_SECCOMP
static const uint32_t arches[SYSCALL_ARCH_COUNT] = { SCMP_ARCH_X86_64, SCMP_ARCH_AARCH64 };

/* The table is generated from libseccomp's (syscall_table_gen): every entry's
 * number names that very call in libseccomp's table of its architecture, on
 * both; where libseccomp is older than the call (it knows neither the name
 * nor the number), the def gave the number, one of the unified ones (424 and
 * up, the same on every architecture) but for x86_64's uretprobe; an
 * absent call (-1) is one libseccomp gives no number there. */
Test(syscall_table, names_match_libseccomp)
{
	size_t checked = 0, newer = 0;

	for (size_t i = 0; i < syscall_table_size; i++) {
		const struct syscall_entry *e = &syscall_table[i];

		for (int a = 0; a < SYSCALL_ARCH_COUNT; a++) {
			int by_name = seccomp_syscall_resolve_name_arch(arches[a], e->name);
			char *name;

			if (e->nr[a] < 0) {
				cr_expect(by_name < 0, "%s on arch %d: absent in the table, libseccomp %d",
					  e->name, a, by_name);
				continue;
			}
			name = seccomp_syscall_resolve_num_arch(arches[a], e->nr[a]);
			if (name) {
				cr_expect_str_eq(name, e->name, "%d on arch %d: table %s, libseccomp %s",
						 e->nr[a], a, e->name, name);
				checked++;
			} else {
				cr_expect_eq(by_name, __NR_SCMP_ERROR,
					     "%s on arch %d: libseccomp knows it (%d), not its number %d",
					     e->name, a, by_name, e->nr[a]);
				cr_expect(e->nr[a] >= 424 || strcmp(e->name, "uretprobe") == 0,
					  "%s on arch %d: %d, not a unified number", e->name, a, e->nr[a]);
				if (a == SYSCALL_ARCH_AARCH64)
					cr_expect(e->nr[0] == e->nr[a] || e->nr[a] < 0,
						  "%s: unified, yet %d and %d", e->name, e->nr[0], e->nr[a]);
				newer++;
			}
			free(name);
		}
	}
	/* Debian 12's libseccomp knows every call up to 6.7 */
	cr_assert(checked > 100, "only %zu numbers checked (%zu newer than libseccomp)", checked, newer);
}

/* And the other way: every number libseccomp names above the base, on each
 * architecture, is in the table under that name (a call missing from the
 * def would be refused by --syscalls-as-of as "newer than the table"). */
Test(syscall_table, every_libseccomp_call_listed)
{
	for (int a = 0; a < SYSCALL_ARCH_COUNT; a++) {
		for (int nr = syscall_table_base(a) + 1; nr < 1024; nr++) {
			char *name = seccomp_syscall_resolve_num_arch(arches[a], nr);
			const struct syscall_entry *e = name ? find(name) : NULL;

			if (name) {
				cr_expect_not_null(e, "%s (%d on arch %d) is not in the table", name, nr, a);
				if (e)
					cr_expect_eq(e->nr[a], nr, "%s on arch %d: table %d, libseccomp %d",
						     name, a, e->nr[a], nr);
			}
			free(name);
		}
		/* the base is finit_module's number there */
		cr_expect_eq(syscall_table_base(a),
			     seccomp_syscall_resolve_name_arch(arches[a], "finit_module"));
	}
}
#endif
