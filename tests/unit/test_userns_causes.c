/* SPDX-License-Identifier: MIT */
/* Why user namespaces are missing or useless, read from what a host shows
 * (userns_host.c) and explained with what an attempt saw (probe_userns.c):
 * each cause from a fixture directory standing in for /proc and /sys, since
 * the real sysctls cannot be changed here. The e2e suites cover the shapes
 * this machine can be put in (a seccomp filter, a chroot, a zero limit). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"
#include "userns_host.h"

static char fixture[] = "/tmp/sbx-userns-causes-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(fixture));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void teardown(void)
{
	nftw(fixture, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* fixture/path holds text (directories made on the way). */
static void put(const char *path, const char *text)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", fixture, path);
	for (char *p = full + strlen(fixture) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	cr_assert_not_null(f, "fixture %s", full);
	fputs(text, f);
	fclose(f);
}

static void host(struct userns_host *h)
{
	userns_host_read(fixture, h);
}

static struct userns_seen created_then(int err, const char *what)
{
	struct userns_seen s = { .create_err = 0, .inside_err = err };

	snprintf(s.inside_what, sizeof(s.inside_what), "%s", what);
	return s;
}

static struct userns_seen refused(int err)
{
	return (struct userns_seen){ .create_err = err };
}

static void has(const char *what, const char *got, const char *want)
{
	cr_expect(strstr(got, want) != NULL, "%s is \"%s\", should say \"%s\"", what, got, want);
}

TestSuite(userns_causes, .init = setup, .fini = teardown);

Test(userns_causes, reads_what_the_host_shows)
{
	struct userns_host h;

	host(&h);
	cr_expect_eq(h.max_user_namespaces, -1, "absent: -1");
	cr_expect_eq(h.apparmor_restrict, -1);
	cr_expect_str_eq(h.apparmor_label, "");
	cr_expect_eq(h.seccomp_mode, -1);

	put("proc/sys/user/max_user_namespaces", "15000\n");
	put("proc/sys/kernel/unprivileged_userns_clone", "1\n");
	put("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put("proc/self/attr/apparmor/current", "sbx (unconfined)\n");
	put("sys/fs/selinux/enforce", "0");
	put("proc/self/status", "Name:\tsbx\nSeccomp:\t2\nSeccomp_filters:\t3\nSpeculation_Store_Bypass:\tx\n");
	host(&h);
	cr_expect_eq(h.max_user_namespaces, 15000);
	cr_expect_eq(h.unprivileged_userns_clone, 1);
	cr_expect_eq(h.apparmor_restrict, 1);
	cr_expect_str_eq(h.apparmor_label, "sbx (unconfined)");
	cr_expect_eq(h.selinux_enforce, 0);
	cr_expect_eq(h.seccomp_mode, 2);
	cr_expect_eq(h.seccomp_filters, 3);
}

Test(userns_causes, nothing_missing_blames_nothing)
{
	struct userns_host h;
	struct userns_seen s = { 0 };
	struct probe_cause c;

	put("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put("proc/self/attr/apparmor/current", "sbx (unconfined)\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	cr_expect_str_eq(c.reason, "");
	cr_expect_str_eq(c.fix, "");
}

Test(userns_causes, max_user_namespaces_zero)
{
	struct userns_host h;
	struct userns_seen s = refused(ENOSPC);
	struct probe_cause c;

	put("proc/sys/user/max_user_namespaces", "0\n");
	host(&h);
	probe_userns_explain(&h, true, &s, 0, &c);
	cr_expect_str_eq(c.reason, "user namespaces disabled (user.max_user_namespaces=0)");
	has("fix", c.fix, "sysctl -w user.max_user_namespaces=15000");
	/* The same switch settles it without trying (the runner's probe). */
	probe_userns_explain(&h, false, NULL, 0, &c);
	cr_expect_str_eq(c.cause, "user namespaces disabled (user.max_user_namespaces=0)");
}

Test(userns_causes, max_user_namespaces_used_up)
{
	struct userns_host h;
	struct userns_seen s = refused(ENOSPC);
	struct probe_cause c;

	put("proc/sys/user/max_user_namespaces", "5\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	cr_expect_str_eq(c.reason, "user namespaces used up (user.max_user_namespaces=5)");
	has("fix", c.fix, "user.max_user_namespaces");
}

Test(userns_causes, debian_switch)
{
	struct userns_host h;
	struct userns_seen s = refused(EPERM);
	struct probe_cause c;

	put("proc/sys/kernel/unprivileged_userns_clone", "0\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	cr_expect_str_eq(c.reason, "creating a user namespace is refused (Operation not permitted): "
				   "unprivileged user namespaces disabled "
				   "(kernel.unprivileged_userns_clone=0)");
	has("fix", c.fix, "sysctl -w kernel.unprivileged_userns_clone=1");
	/* It spares a caller with CAP_SYS_ADMIN: then something else refused. */
	probe_userns_explain(&h, true, &s, 0, &c);
	cr_expect(strstr(c.reason, "unprivileged_userns_clone") == NULL, "%s", c.reason);
}

/* Ubuntu 23.10+: made, no capabilities, sbx unconfined by AppArmor. */
Test(userns_causes, apparmor_restricted_unconfined)
{
	struct userns_host h;
	struct userns_seen s = created_then(EACCES, "write /proc/self/setgroups");
	struct probe_cause c;
	char reason[256];

	put("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put("proc/self/attr/apparmor/current", "unconfined\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "user namespaces are made but hold no capabilities "
				"(write /proc/self/setgroups: Permission denied): ");
	has("reason", c.reason, "restricted by AppArmor "
				"(kernel.apparmor_restrict_unprivileged_userns=1) and no AppArmor "
				"profile for sbx allows them");
	has("fix", c.fix, "apparmor_parser -r /etc/apparmor.d/sbx");
	has("fix", c.fix, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
	/* The runner's probe refuses on it, without trying. */
	cr_expect_eq(userns_host_switch(&h, false, reason, sizeof(reason)), USERNS_SWITCH_APPARMOR);
	has("switch", reason, "kernel.apparmor_restrict_unprivileged_userns=1");
	/* Root is spared by Ubuntu. */
	cr_expect_eq(userns_host_switch(&h, true, reason, sizeof(reason)), USERNS_SWITCH_NONE);
}

/* With a profile of its own, the attempt decides; a profile that lacks
 * userns is named. */
Test(userns_causes, apparmor_profile_without_userns)
{
	struct userns_host h;
	struct userns_seen s = created_then(EPERM, "make private /");
	struct probe_cause c;
	char reason[256];

	put("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put("proc/self/attr/apparmor/current", "sbx (enforce)\n");
	host(&h);
	cr_expect_eq(userns_host_switch(&h, false, reason, sizeof(reason)), USERNS_SWITCH_NONE);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "made but hold no capabilities (make private /: Operation not "
				"permitted)");
	has("reason", c.reason, "sbx's AppArmor label (sbx (enforce)) does not allow userns");
	has("fix", c.fix, "apparmor_parser -r");

	s = refused(EACCES);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "creating a user namespace is refused (Permission denied): "
				"AppArmor refuses it");
	has("reason", c.reason, "sbx (enforce)");
}

Test(userns_causes, selinux)
{
	struct userns_host h;
	struct userns_seen s = refused(EACCES);
	struct probe_cause c;

	put("sys/fs/selinux/enforce", "1");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "SELinux is enforcing");
	has("fix", c.fix, "user_namespace { create }");
	s = created_then(EPERM, "make private /");
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "made but hold no capabilities");
	has("fix", c.fix, "cap_userns");
	/* Permissive: not the cause. */
	put("sys/fs/selinux/enforce", "0");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	cr_expect(strstr(c.reason, "SELinux is enforcing") == NULL, "%s", c.reason);
}

Test(userns_causes, seccomp_filter)
{
	struct userns_host h;
	struct userns_seen s = refused(EPERM);
	struct probe_cause c;

	put("proc/self/status", "Name:\tsbx\nSeccomp:\t2\nSeccomp_filters:\t1\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "a seccomp filter on sbx refuses it");
	has("fix", c.fix, "clone/unshare with CLONE_NEWUSER");
	s = created_then(EACCES, "write /proc/self/setgroups");
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "a seccomp filter on sbx refuses calls inside them");
	has("fix", c.fix, "mount API");
	/* Mode 0: no filter. */
	put("proc/self/status", "Name:\tsbx\nSeccomp:\t0\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	cr_expect(strstr(c.reason, "a seccomp filter on sbx") == NULL, "%s", c.reason);
}

/* The kernel refuses a chrooted process first: the chroot is named, even
 * with a filter on sbx. */
Test(userns_causes, chroot)
{
	struct userns_host h;
	struct userns_seen s = refused(EPERM);
	struct probe_cause c;

	put("proc/self/status", "Seccomp:\t2\n");
	host(&h);
	probe_userns_explain(&h, false, &s, 1, &c);
	has("reason", c.reason, "sbx runs in a chroot");
	has("fix", c.fix, "rather than a chroot");
}

Test(userns_causes, no_user_namespaces_in_kernel)
{
	struct userns_host h;
	struct userns_seen s = refused(EINVAL);
	struct probe_cause c;

	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "CONFIG_USER_NS");
	has("fix", c.fix, "CONFIG_USER_NS=y");
}

/* Nothing the host shows explains it: said so, with where to look. */
Test(userns_causes, unknown)
{
	struct userns_host h;
	struct userns_seen s = refused(EPERM);
	struct probe_cause c;

	host(&h);
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "creating a user namespace is refused (Operation not permitted): "
				"no cause this host shows");
	has("fix", c.fix, "audit log");
	s = created_then(EACCES, "write /proc/self/setgroups");
	probe_userns_explain(&h, false, &s, 0, &c);
	has("reason", c.reason, "made but hold no capabilities");
	has("reason", c.reason, "no cause this host shows");
	/* Not tried, no switch: nothing to say. */
	probe_userns_explain(&h, false, NULL, 0, &c);
	cr_expect_str_eq(c.reason, "");
}

/* A chroot onto a mount point: a process in the same mount namespace that
 * shows our root's mount below its "/" is the witness. */
Test(userns_causes, chroot_witness)
{
	struct statx st;
	char line[256], proc[512];

	cr_assert(statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &st) == 0);
	cr_assert(st.stx_mask & STATX_MNT_ID);
	snprintf(proc, sizeof(proc), "%s/proc", fixture);
	/* Seen as "/" by another process: no proof. */
	snprintf(line, sizeof(line), "1 1 0:1 / / rw - tmpfs t rw\n%llu 1 0:2 / / rw - ext4 d rw\n",
		 (unsigned long long)st.stx_mnt_id);
	put("proc/4242/mountinfo", line);
	cr_expect(!userns_host_chrooted(proc));
	/* Seen below its "/": we are chrooted onto that mount. */
	snprintf(line, sizeof(line), "1 1 0:1 / / rw - tmpfs t rw\n%llu 1 0:2 / /srv/build rw - "
		 "ext4 d rw\n", (unsigned long long)st.stx_mnt_id);
	put("proc/4243/mountinfo", line);
	cr_expect(userns_host_chrooted(proc));
	/* Not this machine's "/": another mount's id proves nothing. */
	snprintf(line, sizeof(line), "%llu 1 0:2 / /srv/build rw - ext4 d rw\n",
		 (unsigned long long)st.stx_mnt_id + 1000000);
	put("proc/4243/mountinfo", line);
	cr_expect(!userns_host_chrooted(proc));
}
