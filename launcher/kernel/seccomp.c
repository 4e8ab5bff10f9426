/* SPDX-License-Identifier: MIT */
/* Compile the confined command's filter (rules: seccomp_rules.c) to raw BPF
 * once per process and runner, and install it in the child. */
#include <errno.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "syscall_filter.h"

static struct sock_fprog cached[SECCOMP_RULES_COUNT];
static bool built[SECCOMP_RULES_COUNT];

static int build(enum seccomp_rules_for runner, struct sock_fprog *out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc, fd = -1;
	off_t size = 0;
	void *mem = NULL;

	if (!ctx)
		return -ENOMEM;
	/* The same rules for 32-bit (x86, x32) callers: a filter that knows only
	 * the native ABI would kill them, and one that allowed them unfiltered
	 * would be a way around it. Where the arch does not exist, skip. */
	seccomp_arch_add(ctx, SCMP_ARCH_X86);
	seccomp_arch_add(ctx, SCMP_ARCH_X32);
	rc = seccomp_rules_add(ctx, runner);
	if (rc == 0) {
		fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
		rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	}
	if (rc == 0) {
		size = lseek(fd, 0, SEEK_END);
		mem = size > 0 ? malloc((size_t)size) : NULL;
		if (!mem || pread(fd, mem, (size_t)size, 0) != size)
			rc = -EIO;
	}
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	if (rc < 0) {
		free(mem);
		return rc;
	}
	out->len = (unsigned short)((size_t)size / sizeof(struct sock_filter));
	out->filter = mem;
	return 0;
}

const struct sock_fprog *seccomp_filter_get(enum seccomp_rules_for runner, int *err)
{
	if ((unsigned)runner >= SECCOMP_RULES_COUNT) {
		*err = EINVAL;
		return NULL;
	}
	if (!built[runner]) {
		int rc = build(runner, &cached[runner]);

		if (rc < 0) {
			*err = -rc;
			return NULL;
		}
		built[runner] = true;
	}
	return &cached[runner];
}

int seccomp_filter_install(const struct sock_fprog *prog, struct child_status *st)
{
	/* no_new_privs is already set by the runner (caps_keep_only), which is
	 * what lets an unprivileged process install a filter at all. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return child_status_set(st, STAGE_SECCOMP, errno, "PR_SET_SECCOMP", NULL);
	return 0;
}
