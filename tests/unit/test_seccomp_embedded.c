/* SPDX-License-Identifier: MIT */
/* The errno filter sbx embeds (compiled at build time) is exactly what
 * libseccomp makes of seccomp_rules.c on this architecture now: the rules
 * and the embedded copy cannot drift apart. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "syscall_filter.h"

#ifdef CONFIG_SECCOMP
#include <seccomp.h>

#include "seccomp_compile.h"

static void same_as_libseccomp(enum seccomp_rules_for rules)
{
	struct sock_filter *want;
	size_t n;
	int err = 0;
	const struct sock_fprog *have = seccomp_filter_get(rules, &err);

	cr_assert_not_null(have, "no embedded filter (errno %d)", err);
	cr_assert_eq(seccomp_compile(rules, SCMP_ARCH_NATIVE, &want, &n), 0);
	cr_assert_gt(n, 10, "libseccomp made a program of %zu instructions", n);
	cr_assert_eq(have->len, n, "embedded %u instructions, libseccomp %zu", have->len, n);
	for (size_t i = 0; i < n; i++)
		cr_assert(memcmp(&have->filter[i], &want[i], sizeof(want[i])) == 0,
			  "instruction %zu differs: embedded {%#x %u %u %#x}, libseccomp {%#x %u %u %#x}",
			  i, have->filter[i].code, have->filter[i].jt, have->filter[i].jf,
			  have->filter[i].k, want[i].code, want[i].jt, want[i].jf, want[i].k);
	free(want);
}

Test(seccomp_embedded, namespace_rules_match_libseccomp)
{
	same_as_libseccomp(SECCOMP_RULES_NAMESPACE);
}

Test(seccomp_embedded, landlock_rules_match_libseccomp)
{
	same_as_libseccomp(SECCOMP_RULES_LANDLOCK);
}

Test(seccomp_embedded, root_caller_rules_match_libseccomp)
{
	same_as_libseccomp(SECCOMP_RULES_NAMESPACE_ROOT);
}

/* The two rule sets differ (the landlock runner refuses mounts and new user
 * namespaces): the runner gets its own program, not the other's. */
Test(seccomp_embedded, each_runner_its_own_program)
{
	int err = 0;
	const struct sock_fprog *ns = seccomp_filter_get(SECCOMP_RULES_NAMESPACE, &err);
	const struct sock_fprog *ll = seccomp_filter_get(SECCOMP_RULES_LANDLOCK, &err);

	const struct sock_fprog *root = seccomp_filter_get(SECCOMP_RULES_NAMESPACE_ROOT, &err);

	cr_assert(ns && ll && root);
	cr_assert_gt(ll->len, ns->len);
	cr_assert_gt(root->len, ns->len);
	cr_assert_null(seccomp_filter_get(SECCOMP_RULES_COUNT, &err));
	cr_assert_eq(err, EINVAL);
}

#else

/* A build without CONFIG_SECCOMP embeds nothing and gives runners no filter. */
Test(seccomp_embedded, no_filter_without_seccomp)
{
	struct child_spec spec = { 0 };
	char reason[64] = "";

	cr_assert_eq(runner_prepare_filter(&spec, SECCOMP_RULES_LANDLOCK, reason, sizeof(reason)), 0);
	cr_assert_null(spec.seccomp);
}

#endif
