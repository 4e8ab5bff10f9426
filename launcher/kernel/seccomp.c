/* SPDX-License-Identifier: MIT */
/* A deliberately small filter: it refuses the two ioctls that let a process
 * push input into a terminal it shares with its parent. Everything else is the
 * runners' job (file writes) or not restricted by the modes at all. */
#include <errno.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "syscall_filter.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

static struct sock_fprog cached;
static bool built;

/* ioctl's request is an int in the kernel: match only its low 32 bits, or a
 * request with high bits set slips past (CVE-2019-10063, the flatpak bypass
 * of CVE-2017-5226's fix). */
static int add_ioctl_rule(scmp_filter_ctx ctx, unsigned long request)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, request));
}

static int build(struct sock_fprog *out)
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
	/* TIOCSTI: inject a byte into the terminal's input queue (CVE-2017-5226). */
	rc = add_ioctl_rule(ctx, TIOCSTI);
	/* TIOCLINUX: the Linux console's paste-selection, the same injection. */
	if (rc == 0)
		rc = add_ioctl_rule(ctx, TIOCLINUX);
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

const struct sock_fprog *seccomp_filter_get(int *err)
{
	if (!built) {
		int rc = build(&cached);

		if (rc < 0) {
			*err = -rc;
			return NULL;
		}
		built = true;
	}
	return &cached;
}

int seccomp_filter_install(const struct sock_fprog *prog, struct child_status *st)
{
	/* no_new_privs is already set by the runner (caps_drop_all), which is
	 * what lets an unprivileged process install a filter at all. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return child_status_set(st, STAGE_SECCOMP, errno, "PR_SET_SECCOMP", NULL);
	return 0;
}
