/* SPDX-License-Identifier: MIT */
/* Drop every capability before exec, through the raw capget/capset system
 * calls (no libcap). Runs in the clone(CLONE_VM|CLONE_VFORK) child: no
 * allocation, no stdio, every step checked and reported. */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include "caps.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Capability numbers fit in two 32-bit words (version 3); the bounding-set
 * loop stops at the kernel's last valid one, and never runs past this. */
#define CAPS_MAX 64

static int has_effective_setpcap(struct child_status *st, int *out)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return child_status_set(st, STAGE_CAPS, errno, "capget", NULL);
	*out = (data[CAP_TO_INDEX(CAP_SETPCAP)].effective &
		CAP_TO_MASK(CAP_SETPCAP)) != 0;
	return 0;
}

/* With CAP_SETPCAP: lock the securebits and empty the bounding set. */
static int drop_privileged(struct child_status *st)
{
	/* Why: for uid 0 the kernel recomputes a full permitted set at execve
	 * ("root is all-powerful"), and a setuid transition to or from 0 fixes
	 * capabilities up. NOROOT and NO_SETUID_FIXUP turn both off; the
	 * *_LOCKED bits stop the command from turning them back on; KEEP_CAPS
	 * stays off and locked; ambient raising is forbidden and locked. Bits
	 * already set (and possibly locked) by an outer sandbox are kept: asking
	 * to clear a locked bit would fail with EPERM. */
	unsigned long want = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			     SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
			     SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
			     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	int old = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (old < 0)
		return child_status_set(st, STAGE_CAPS, errno,
					"prctl(PR_GET_SECUREBITS)", NULL);
	unsigned long bits = (unsigned long)old | want;
	if (!((unsigned long)old & SECBIT_KEEP_CAPS_LOCKED))
		bits &= ~(unsigned long)SECBIT_KEEP_CAPS;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_CAPS, errno,
					"prctl(PR_SET_SECUREBITS)", NULL);

	/* Why: the bounding set limits what any later exec (a file with file
	 * capabilities) could grant, and in a user namespace we own it would
	 * let the command regain CAP_SYS_ADMIN and remount our binds
	 * read-write. The kernel's last valid capability is not known at
	 * build time (newer kernels add some): drop until EINVAL says we went
	 * past it. */
	for (int cap = 0; cap < CAPS_MAX; cap++) {
		if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL && cap > 0)
			break;
		return child_status_set(st, STAGE_CAPS, errno,
					"prctl(PR_CAPBSET_DROP)", NULL);
	}
	return 0;
}

int caps_drop_all(struct child_status *st)
{
	int setpcap = 0;
	if (has_effective_setpcap(st, &setpcap) < 0)
		return -1;
	/* Without CAP_SETPCAP neither step is possible; nor needed: such a
	 * caller holds nothing to lose and no_new_privs (below) stops exec from
	 * granting anything. */
	if (setpcap && drop_privileged(st) < 0)
		return -1;

	/* Why: ambient capabilities survive execve of an unprivileged binary.
	 * Kernels before 4.3 have no ambient set and answer EINVAL: nothing to
	 * clear there. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return child_status_set(st, STAGE_CAPS, errno,
					"prctl(PR_CAP_AMBIENT_CLEAR_ALL)", NULL);

	/* Why: empty effective, permitted and inheritable sets; with the
	 * securebits above (or no_new_privs for a non-root caller) execve gives
	 * none back. This comes after the steps needing CAP_SETPCAP. */
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0)
		return child_status_set(st, STAGE_CAPS, errno, "capset", NULL);

	/* Why: no setuid/setgid bit or file capability may raise privileges at
	 * exec, for root and non-root callers alike. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_NO_NEW_PRIVS, errno,
					"prctl(PR_SET_NO_NEW_PRIVS)", NULL);
	return 0;
}
