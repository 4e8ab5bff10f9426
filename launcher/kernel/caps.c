/* SPDX-License-Identifier: MIT */
/* The command's capabilities, set right before exec through the raw
 * capget/capset system calls (no libcap): none, or for a root caller the few
 * that root's ordinary file work needs. caps_keep_only runs in the
 * clone(CLONE_VM|CLONE_VFORK) child: no allocation, no stdio, every step
 * checked and reported. */
#include <errno.h>
#include <stdbool.h>
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
#ifndef PR_CAP_AMBIENT_IS_SET
#define PR_CAP_AMBIENT_IS_SET 1
#endif
#ifndef PR_CAP_AMBIENT_RAISE
#define PR_CAP_AMBIENT_RAISE 2
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Capability numbers fit in two 32-bit words (version 3); the bounding-set
 * loop stops at the kernel's last valid one, and never runs past this. */
#define CAPS_MAX 64
#define BIT(cap) (1ULL << (cap))

/* Why these: a root caller's workspace is often owned by another user (a
 * container's volume); root needs DAC_OVERRIDE to create and write there,
 * CHOWN to keep an archive's owners, FOWNER to chmod and touch -d another
 * user's files. The mount view and Landlock still decide where.
 * Never CAP_DAC_READ_SEARCH: open_by_handle_at walks past every path view.
 * Not CAP_FSETID either: with it, a write to a setuid file (a rootfs or an
 * install tree inside the workspace) keeps the setuid bit, and so does a
 * file created with the bit through a call no filter sees (io_uring): a new
 * setuid-root program without any chmod. Without it the kernel clears both
 * bits on every write, truncate and chown, and the seccomp filter refuses
 * setting them; nothing else in root's file work needs it. */
const struct caps_kept caps_root_keeps[] = {
	{ CAP_CHOWN, "CAP_CHOWN" },
	{ CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE" },
	{ CAP_FOWNER, "CAP_FOWNER" },
};
const size_t caps_root_keeps_count = sizeof(caps_root_keeps) / sizeof(caps_root_keeps[0]);

/* ---- parent ---- */

uint64_t caps_for_caller(uid_t uid)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint64_t eff, keep = 0;

	if (uid != 0)
		return 0;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return 0;
	eff = (uint64_t)data[0].effective | (uint64_t)data[1].effective << 32;
	for (size_t i = 0; i < caps_root_keeps_count; i++)
		keep |= BIT(caps_root_keeps[i].cap) & eff;
	return keep;
}

/* ---- child: no allocation, no stdio ---- */

static int caps_get(uint64_t *eff, uint64_t *prm, struct child_status *st)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return child_status_set(st, STAGE_CAPS, errno, "capget", NULL);
	*eff = (uint64_t)data[0].effective | (uint64_t)data[1].effective << 32;
	*prm = (uint64_t)data[0].permitted | (uint64_t)data[1].permitted << 32;
	return 0;
}

/* effective and permitted = set, inheritable = inh */
static int caps_set(uint64_t set, uint64_t inh, struct child_status *st)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	for (int w = 0; w < 2; w++) {
		data[w].effective = data[w].permitted = (uint32_t)(set >> (32 * w));
		data[w].inheritable = (uint32_t)(inh >> (32 * w));
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return child_status_set(st, STAGE_CAPS, errno, "capset", NULL);
	return 0;
}

/* Why: for uid 0 the kernel recomputes a full permitted set at execve ("root
 * is all-powerful"), and a setuid transition to or from 0 fixes capabilities
 * up. NOROOT and NO_SETUID_FIXUP turn both off; the *_LOCKED bits stop the
 * command from turning them back on; KEEP_CAPS stays off and locked. `more`
 * adds the ambient lock once the ambient set is final. Bits already set (and
 * possibly locked) by an outer sandbox are kept: asking to clear a locked bit
 * would fail with EPERM. Needs CAP_SETPCAP. */
static int lock_securebits(unsigned long more, struct child_status *st)
{
	unsigned long want = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			     SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
			     SECBIT_KEEP_CAPS_LOCKED | more;
	int old = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	if (old < 0)
		return child_status_set(st, STAGE_CAPS, errno, "prctl(PR_GET_SECUREBITS)", NULL);
	unsigned long bits = (unsigned long)old | want;
	if (!((unsigned long)old & SECBIT_KEEP_CAPS_LOCKED))
		bits &= ~(unsigned long)SECBIT_KEEP_CAPS;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_CAPS, errno, "prctl(PR_SET_SECUREBITS)", NULL);
	return 0;
}

/* Why: the bounding set limits what any later exec (a file with file
 * capabilities) could grant, and in a user namespace we own it would let the
 * command regain CAP_SYS_ADMIN and remount our binds read-write. The kernel's
 * last valid capability is not known at build time (newer kernels add some):
 * drop until EINVAL says we went past it. Needs CAP_SETPCAP. */
static int bound_to(uint64_t keep, struct child_status *st)
{
	for (int cap = 0; cap < CAPS_MAX; cap++) {
		if (keep & BIT(cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL && cap > 0)
			break;
		return child_status_set(st, STAGE_CAPS, errno, "prctl(PR_CAPBSET_DROP)", NULL);
	}
	return 0;
}

/* Why ambient: under NOROOT (and for any non-root binary) execve keeps only
 * the ambient set; inheritable alone would need file capabilities on bash. */
static void raise_ambient(uint64_t keep)
{
	for (int cap = 0; cap < CAPS_MAX; cap++)
		if ((keep & BIT(cap)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, (unsigned long)cap, 0, 0) != 1)
			/* An outer sandbox may have locked ambient raising: then
			 * the command has less than the caller, never more. */
			(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long)cap, 0, 0);
}

int caps_keep_only(uint64_t keep, struct child_status *st)
{
	uint64_t eff = 0, prm = 0, setpcap_bit = BIT(CAP_SETPCAP);
	bool setpcap;

	if (caps_get(&eff, &prm, st) < 0)
		return -1;
	/* Never more than we hold. */
	keep &= prm;
	setpcap = (eff & setpcap_bit) != 0;
	/* Without CAP_SETPCAP neither the securebits nor the bounding set can
	 * change; nor need they: no_new_privs (below) stops exec from granting
	 * anything beyond the permitted set we leave. */
	if (setpcap && (lock_securebits(0, st) < 0 || bound_to(keep, st) < 0))
		return -1;

	/* Why: ambient capabilities survive execve of an unprivileged binary.
	 * Kernels before 4.3 have no ambient set and answer EINVAL: nothing to
	 * clear there. With something to keep, dropping the rest from the
	 * permitted set (below) drops it from the ambient set too. */
	if (!keep && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return child_status_set(st, STAGE_CAPS, errno, "prctl(PR_CAP_AMBIENT_CLEAR_ALL)",
					NULL);
	if (keep) {
		if (caps_set(keep | (eff & setpcap_bit), keep, st) < 0)
			return -1;
		raise_ambient(keep);
	}
	if (setpcap && lock_securebits(SECBIT_NO_CAP_AMBIENT_RAISE |
				       SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, st) < 0)
		return -1;

	/* Why: exactly `keep` in the effective, permitted and inheritable sets
	 * (CAP_SETPCAP goes last, as the steps above needed it); with the
	 * securebits above (or no_new_privs for a non-root caller) execve gives
	 * nothing back beyond the ambient set. */
	if (caps_set(keep, keep, st) < 0)
		return -1;

	/* Why: no setuid/setgid bit or file capability may raise privileges at
	 * exec, for root and non-root callers alike. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_status_set(st, STAGE_NO_NEW_PRIVS, errno,
					"prctl(PR_SET_NO_NEW_PRIVS)", NULL);
	return 0;
}

int caps_drop_all(struct child_status *st)
{
	return caps_keep_only(0, st);
}
