/* SPDX-License-Identifier: MIT */
/* The confined command's filter: the BPF that libseccomp made of
 * seccomp_rules.c at build time (seccomp_filters.c), installed in the child.
 * Compiling it per run cost ~0.45 ms here (three ABIs, ~200 instructions). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "syscall_filter.h"

const struct sock_fprog *seccomp_filter_get(enum seccomp_rules_for runner, int *err)
{
	if ((unsigned)runner >= SECCOMP_RULES_COUNT || !seccomp_embedded[runner].len) {
		*err = EINVAL;
		return NULL;
	}
	return &seccomp_embedded[runner];
}

int seccomp_filter_install(const struct sock_fprog *prog, struct child_status *st)
{
	/* no_new_privs is already set by the runner (caps_keep_only), which is
	 * what lets an unprivileged process install a filter at all. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return child_status_set(st, STAGE_SECCOMP, errno, "PR_SET_SECCOMP", NULL);
	return 0;
}
