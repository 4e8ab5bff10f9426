/* SPDX-License-Identifier: MIT */
/* sbx never holds privilege by accident (CVE-2020-5291 class: a setuid
 * sandbox helper is an attack surface). It refuses to run from a binary that
 * is setuid/setgid or carries file capabilities, or when the kernel says this
 * exec changed credentials (AT_SECURE). */
#include <errno.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "launcher.h"

int privilege_check_self(struct sbx_error *err)
{
	struct stat st;
	ssize_t n;

	if (getauxval(AT_SECURE))
		return sbx_error_set(err, EPERM, SBX_E_USAGE, NULL,
				     "refusing to run with elevated privileges (the sbx binary is setuid or "
				     "setgid, or carries file capabilities; remove them: chmod u-s,g-s, "
				     "setcap -r)");
	if (stat("/proc/self/exe", &st) < 0)
		return 0; /* no /proc: AT_SECURE above already covers the exec */
	if (st.st_mode & (S_ISUID | S_ISGID))
		return sbx_error_set(err, EPERM, SBX_E_USAGE, NULL,
				     "refusing to run: the sbx binary is setuid or setgid; remove the bit (chmod u-s,g-s)");
	n = getxattr("/proc/self/exe", "security.capability", NULL, 0);
	if (n > 0)
		return sbx_error_set(err, EPERM, SBX_E_USAGE, NULL,
				     "refusing to run: the sbx binary carries file capabilities; remove them (setcap -r)");
	return 0;
}

int sbx_check_no_privilege(struct sbx_error *err)
{
	return privilege_check_self(err);
}
