/* SPDX-License-Identifier: MIT */
/* sbx probe names, for each missing piece, the cause it found and the fix
 * for this machine (issue 13). Here the pieces are taken away the way a
 * container or a sysctl does (a seccomp filter; a user namespace whose
 * user.max_user_namespaces is 0); scripts/vm-check.sh checks the same text
 * on a real 6.1 kernel booted without Landlock and without user namespaces.
 * As the caller and as nobody. */
#include "common.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <string.h>

static enum e2e_user users[] = { AS_CALLER, AS_NOBODY };

#define PARAMS(name)                                                                        \
	ParameterizedTestParameters(probe_fix, name)                                         \
	{                                                                                    \
		return cr_make_param_array(enum e2e_user, users, sizeof(users) / sizeof(users[0])); \
	}

static json_t *probe_json(enum e2e_user who, char *const pre[])
{
	char *argv[16];
	size_t n = 0;
	struct e2e_out o;
	json_error_t jerr;
	json_t *j;

	for (size_t i = 0; pre && pre[i]; i++)
		argv[n++] = pre[i];
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "probe";
	argv[n++] = "--json";
	argv[n] = NULL;
	e2e_run(who, argv, NULL, &o);
	cr_assert(o.status == 0, "[%s] sbx probe: exit %d\n%s", e2e_user_name(who), o.status, o.err);
	j = json_loads(o.out, 0, &jerr);
	cr_assert_not_null(j, "[%s] sbx probe --json is not JSON: %s", e2e_user_name(who), o.out);
	e2e_out_free(&o);
	return j;
}

static const char *at(json_t *j, const char *a, const char *b, const char *c)
{
	json_t *v = json_object_get(j, a);

	if (b)
		v = json_object_get(v, b);
	if (c)
		v = json_object_get(v, c);
	return json_is_string(v) ? json_string_value(v) : "";
}

static void expect_has(enum e2e_user who, const char *what, const char *got, const char *want)
{
	cr_expect(strstr(got, want) != NULL, "[%s] %s is \"%s\", should say \"%s\"",
		  e2e_user_name(who), what, got, want);
}

/* Where nothing is missing, nothing is blamed and no fix is offered. */
PARAMS(healthy)
ParameterizedTest(enum e2e_user *who, probe_fix, healthy)
{
	json_t *j = probe_json(*who, NULL);

	cr_expect(json_is_true(json_object_get(json_object_get(j, "user_namespaces"), "available")));
	cr_expect_str_eq(at(j, "user_namespaces", "fix", NULL), "");
	cr_expect_str_eq(at(j, "landlock", "fix", NULL), "");
	cr_expect_str_eq(at(j, "modes", "read-only", "runner"), "namespace");
	cr_expect_str_eq(at(j, "modes", "read-only", "processes"), "private");
	cr_expect_str_eq(at(j, "modes", "read-only", "fix"), "");
	cr_expect_str_eq(at(j, "runners", "landlock", "runner"), "landlock");
	json_decref(j);
}

/* A container's seccomp profile: the filter is named, and the fix is the
 * profile, for each runner and for the refused modes. */
PARAMS(seccomp_profile)
ParameterizedTest(enum e2e_user *who, probe_fix, seccomp_profile)
{
	char *pre[] = { (char *)e2e_helper("nofeature"), "userns,landlock", "--", NULL };
	json_t *j = probe_json(*who, pre);

	cr_expect(json_is_false(json_object_get(json_object_get(j, "user_namespaces"), "available")));
	expect_has(*who, "user_namespaces.reason", at(j, "user_namespaces", "reason", NULL),
		   "seccomp filter");
	expect_has(*who, "user_namespaces.fix", at(j, "user_namespaces", "fix", NULL),
		   "seccomp profile that allows clone/unshare with CLONE_NEWUSER");
	expect_has(*who, "landlock.reason", at(j, "landlock", "reason", NULL), "seccomp filter");
	expect_has(*who, "landlock.fix", at(j, "landlock", "fix", NULL), "landlock_create_ruleset");
	cr_expect(json_is_null(json_object_get(json_object_get(json_object_get(j, "modes"),
							       "workspace-write"),
					       "runner")));
	expect_has(*who, "modes.workspace-write.fix", at(j, "modes", "workspace-write", "fix"),
		   "make one runner work: namespace: a container seccomp profile");
	expect_has(*who, "runners.landlock.fix", at(j, "runners", "landlock", "fix"),
		   "landlock_restrict_self");
	json_decref(j);
}

/* user.max_user_namespaces=0 (in a user namespace of its own, where it can
 * be set): the sysctl is named with the value to set; landlock takes over. */
PARAMS(max_user_namespaces)
ParameterizedTest(enum e2e_user *who, probe_fix, max_user_namespaces)
{
	char *pre[] = { "unshare", "--user", "--map-root-user", "sh", "-c",
			"echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"", "sh", NULL };
	json_t *j = probe_json(*who, pre);

	expect_has(*who, "user_namespaces.reason", at(j, "user_namespaces", "reason", NULL),
		   "user.max_user_namespaces=0");
	expect_has(*who, "user_namespaces.fix", at(j, "user_namespaces", "fix", NULL),
		   "sysctl -w user.max_user_namespaces=15000");
	expect_has(*who, "runners.namespace.fix", at(j, "runners", "namespace", "fix"),
		   "sysctl -w user.max_user_namespaces=15000");
	cr_expect_str_eq(at(j, "modes", "workspace-write", "runner"), "landlock");
	cr_expect_str_eq(at(j, "modes", "workspace-write", "processes"), "host");
	json_decref(j);
}

/* sbx copied into a directory and run there by chroot (in a user namespace
 * of its own, where chroot is allowed): the kernel refuses a chrooted process
 * a new user namespace, so the cause is the chroot, not a security module,
 * and the fix is a root of its own; landlock takes over. */
PARAMS(chroot)
ParameterizedTest(enum e2e_user *who, probe_fix, chroot)
{
	static const char script[] =
		"r=$1; s=$2; shift 2\n"
		"for d in usr lib lib64 bin proc sys dev; do\n"
		"  if [ -L /$d ]; then ln -s \"$(readlink /$d)\" \"$r/$d\" || exit 99\n"
		"  elif [ -d /$d ]; then mkdir \"$r/$d\" && mount --rbind /$d \"$r/$d\" || exit 99\n"
		"  fi\n"
		"done\n"
		": > \"$r/sbx\" && mount --bind \"$s\" \"$r/sbx\" || exit 99\n"
		"exec chroot \"$r\" /sbx \"$@\"\n";
	char *root = e2e_tmpdir(*who);
	char *pre[] = { "unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
			(char *)script, "sh", root, NULL };
	/* probe_json appends sbx's path ($2 here), "probe" and "--json". */
	json_t *j = probe_json(*who, pre);
	expect_has(*who, "user_namespaces.reason", at(j, "user_namespaces", "reason", NULL),
		   "sbx runs in a chroot");
	expect_has(*who, "user_namespaces.fix", at(j, "user_namespaces", "fix", NULL),
		   "rather than a chroot");
	cr_expect_str_eq(at(j, "modes", "read-only", "runner"), "landlock");
	json_decref(j);
}

/* The same, chrooted onto a mount point (the root bound onto itself, as
 * build chroots are): the root is a mount's root, so only a process of the
 * same mount namespace that shows that mount below its own "/" tells the
 * chroot apart from a security module's refusal. Here that is the shell
 * that set it up and waits for sbx; on a host, init. */
PARAMS(chroot_mount_point)
ParameterizedTest(enum e2e_user *who, probe_fix, chroot_mount_point)
{
	static const char script[] =
		"r=$1; s=$2; shift 2\n"
		"mount --bind \"$r\" \"$r\" || exit 99\n"
		"for d in usr lib lib64 bin proc sys dev; do\n"
		"  if [ -L /$d ]; then ln -s \"$(readlink /$d)\" \"$r/$d\" || exit 99\n"
		"  elif [ -d /$d ]; then mkdir \"$r/$d\" && mount --rbind /$d \"$r/$d\" || exit 99\n"
		"  fi\n"
		"done\n"
		": > \"$r/sbx\" && mount --bind \"$s\" \"$r/sbx\" || exit 99\n"
		"chroot \"$r\" /sbx \"$@\"\n";
	char *root = e2e_tmpdir(*who);
	char *pre[] = { "unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
			(char *)script, "sh", root, NULL };
	json_t *j = probe_json(*who, pre);

	expect_has(*who, "user_namespaces.reason", at(j, "user_namespaces", "reason", NULL),
		   "sbx runs in a chroot");
	cr_expect(strstr(at(j, "user_namespaces", "reason", NULL), "security module") == NULL,
		  "[%s] a chroot blamed on a security module: %s", e2e_user_name(*who),
		  at(j, "user_namespaces", "reason", NULL));
	expect_has(*who, "user_namespaces.fix", at(j, "user_namespaces", "fix", NULL),
		   "rather than a chroot");
	expect_has(*who, "runners.namespace.fix", at(j, "runners", "namespace", "fix"),
		   "rather than a chroot");
	cr_expect_str_eq(at(j, "modes", "read-only", "runner"), "landlock");
	json_decref(j);
}

/* Ubuntu 23.10+'s shape (nofeature userns_nocaps: user namespaces are made,
 * mounts in them fail with EPERM, setgroups with EACCES): probe says that
 * they are made but hold no capabilities, names a cause and a fix, and
 * which runner confines instead. The cause here is the simulation's own
 * seccomp filter, which is what this host shows; the AppArmor words, read
 * from sysctls this machine lacks, are the unit test's (test_userns_causes). */
PARAMS(restricted_userns)
ParameterizedTest(enum e2e_user *who, probe_fix, restricted_userns)
{
	char *pre[] = { (char *)e2e_helper("nofeature"), "userns_nocaps", "--", NULL };
	json_t *j = probe_json(*who, pre);
	json_t *u = json_object_get(j, "user_namespaces");

	cr_expect(json_is_false(json_object_get(u, "available")), "[%s] usable?", e2e_user_name(*who));
	cr_expect(json_is_true(json_object_get(u, "created")), "[%s] not made?", e2e_user_name(*who));
	expect_has(*who, "user_namespaces.reason", at(j, "user_namespaces", "reason", NULL),
		   "user namespaces are made but hold no capabilities (write /proc/self/setgroups: "
		   "Permission denied): a seccomp filter on sbx");
	expect_has(*who, "user_namespaces.fix", at(j, "user_namespaces", "fix", NULL),
		   "seccomp profile that allows mount");
	expect_has(*who, "runners.namespace.reason", at(j, "runners", "namespace", "reason"),
		   "made but hold no capabilities");
	expect_has(*who, "runners.namespace.fix", at(j, "runners", "namespace", "fix"),
		   "seccomp profile that allows mount");
	expect_has(*who, "runners.namespace.instead", at(j, "runners", "namespace", "instead"),
		   "the landlock runner confines read-only and workspace-write here "
		   "(enforcement full)");
	cr_expect_str_eq(at(j, "modes", "read-only", "runner"), "landlock");
	cr_expect_str_eq(at(j, "modes", "workspace-write", "runner"), "landlock");
	cr_expect_str_eq(at(j, "modes", "workspace-write", "enforcement"), "full");
	json_decref(j);
}

/* Entries of dir whose names start with prefix (0 if dir is missing). */
static int count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* Each probe's trial runs on a scratch root left that root's /tmp, cache
 * and protect directories in sbx's state, one set per probe, never removed
 * (new-user pass 6, finding 4). Checked on disk after two probes. */
PARAMS(probe_leaves_no_state)
ParameterizedTest(enum e2e_user *who, probe_fix, probe_leaves_no_state, .timeout = 120)
{
	char *home = e2e_tmpdir(*who);
	char *argv[] = { (char *)e2e_sbx(), "probe", "--json", NULL };
	char *env[] = { e2e_fmt("HOME=%s", home), NULL };
	static const char *const kinds[] = { "tmp", "cache", "protect" };
	struct e2e_out o;

	for (int i = 0; i < 2; i++) {
		e2e_run(*who, argv, env, &o);
		cr_assert_eq(o.status, 0, "[%s] sbx probe: exit %d\n%s", e2e_user_name(*who),
			     o.status, o.err);
		e2e_out_free(&o);
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		char *dir = e2e_fmt("%s/.cache/sbx/%s", home, kinds[k]);

		cr_expect_eq(count_prefixed(dir, "sbx-probe-"), 0, "[%s] %s holds probes' state",
			     e2e_user_name(*who), dir);
	}
}
