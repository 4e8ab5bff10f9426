/* SPDX-License-Identifier: MIT */
/* `sbx run --syscalls-as-of VERSION` (issue 13): the command sees ENOSYS for
 * every system call introduced after VERSION and the same answer as without
 * the option for every other; sbx's own confinement still uses what the
 * real kernel has; --landlock-abi keeps capping Landlock; bad versions are
 * usage errors. Every call is checked from inside by the syscallprobe
 * helper against a run without the option under the same mode and runner
 * (a confined command gets other answers than an unconfined one: EPERM for
 * mounts, say). As the caller and as nobody, with no runner and with both. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ap {
	char runner[16]; /* "" for danger-full-access */
	enum e2e_user who;
};

static struct ap params[] = {
	{ "", AS_CALLER },	  { "", AS_NOBODY },	     { "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY }, { "landlock", AS_CALLER }, { "landlock", AS_NOBODY },
};

#define PARAMS(name)                                                                          \
	ParameterizedTestParameters(asof, name)                                                \
	{                                                                                      \
		return cr_make_param_array(struct ap, params, sizeof(params) / sizeof(params[0])); \
	}

/* The confined cases only (params without danger-full-access's, which confines
 * nothing to begin with). */
#define PARAMS_CONFINED(name)                                                                 \
	ParameterizedTestParameters(asof, name)                                                \
	{                                                                                      \
		return cr_make_param_array(struct ap, params + 2,                                \
					   sizeof(params) / sizeof(params[0]) - 2);              \
	}

/* When each call came, as the table says (the probe prints them in order). */
static const struct {
	const char *name;
	unsigned major, minor;
} since[] = {
	{ "renameat2", 3, 15 },	       { "getrandom", 3, 17 },	     { "execveat", 3, 19 },
	{ "copy_file_range", 4, 5 },   { "statx", 4, 11 },	     { "rseq", 4, 18 },
	{ "io_uring_setup", 5, 1 },    { "open_tree", 5, 2 },	     { "pidfd_open", 5, 3 },
	{ "clone3", 5, 3 },	       { "openat2", 5, 6 },	     { "faccessat2", 5, 8 },
	{ "close_range", 5, 9 },       { "process_madvise", 5, 10 }, { "epoll_pwait2", 5, 11 },
	{ "mount_setattr", 5, 12 },    { "landlock_create_ruleset", 5, 13 },
	{ "memfd_secret", 5, 14 },     { "process_mrelease", 5, 15 }, { "futex_waitv", 5, 16 },
	{ "cachestat", 6, 5 },	       { "fchmodat2", 6, 6 },	     { "futex_wait", 6, 7 },
	{ "statmount", 6, 8 },	       { "mseal", 6, 10 },	     { "setxattrat", 6, 13 },
	{ "open_tree_attr", 6, 15 },   { "file_getattr", 6, 17 },
};

static const char *const releases[] = { "3.10", "4.19", "5.4", "5.10", "5.15", "6.1", "6.17" };

/* sbx run [--runner R --mode MODE | --mode danger-full-access] EXTRA... -- CMD (a confined
 * MODE of NULL: workspace-write) */
static void sbx_as(const struct ap *p, const char *mode, const char *root,
		   const char *const extra[], const char *cmd, struct e2e_out *o)
{
	char *argv[24];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	if (p->runner[0]) {
		argv[n++] = "--runner";
		argv[n++] = (char *)p->runner;
		argv[n++] = "--mode";
		argv[n++] = (char *)(mode ? mode : "workspace-write");
	} else {
		argv[n++] = "--mode";
		argv[n++] = "danger-full-access";
	}
	argv[n++] = "--root";
	argv[n++] = (char *)root;
	for (size_t i = 0; extra && extra[i]; i++)
		argv[n++] = (char *)extra[i];
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	e2e_run(p->who, argv, NULL, o);
}

static const char *tag(const struct ap *p)
{
	return e2e_fmt("[%s %s]", p->runner[0] ? p->runner : "danger-full-access",
		       e2e_user_name(p->who));
}

/* "NAME ERRNO" for name in the probe's output ("" if absent). */
static char *answer(const char *out, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');

		if (strncmp(l, name, n) == 0 && l[n] == ' ')
			return strndup(l + n + 1, nl ? (size_t)(nl - l - n - 1) : strlen(l + n + 1));
		l = nl ? nl + 1 : NULL;
	}
	return strdup("");
}

PARAMS(enosys_after_release)
ParameterizedTest(struct ap *p, asof, enosys_after_release, .timeout = 120)
{
	if (p->runner[0])
		e2e_require_runner(p->who, p->runner);
	char *root = e2e_tmpdir(p->who);
	const char *probe = e2e_helper("syscallprobe");
	struct e2e_out base, o;

	/* read-only: the helper's copy lives in /tmp, which the namespace
	 * runner's workspace-write covers with a /tmp of the run's own */
	sbx_as(p, "read-only", root, NULL, probe, &base);
	cr_assert(base.status == 0, "%s syscallprobe: exit %d\n%s", tag(p), base.status, base.err);
	for (size_t r = 0; r < sizeof(releases) / sizeof(releases[0]); r++) {
		const char *extra[] = { "--syscalls-as-of", releases[r], NULL };
		unsigned maj, min;

		cr_assert(sscanf(releases[r], "%u.%u", &maj, &min) == 2);
		sbx_as(p, "read-only", root, extra, probe, &o);
		cr_assert(o.status == 0, "%s --syscalls-as-of %s: exit %d\n%s", tag(p), releases[r],
			  o.status, o.err);
		for (size_t i = 0; i < sizeof(since) / sizeof(since[0]); i++) {
			bool newer = since[i].major > maj ||
				     (since[i].major == maj && since[i].minor > min);
			char *want = newer ? strdup("ENOSYS") : answer(base.out, since[i].name);
			char *got = answer(o.out, since[i].name);

			cr_expect(strcmp(got, want) == 0,
				  "%s --syscalls-as-of %s: %s (%u.%u) answered %s, expected %s",
				  tag(p), releases[r], since[i].name, since[i].major, since[i].minor,
				  got, want);
			free(want);
			free(got);
		}
		e2e_out_free(&o);
	}
	e2e_out_free(&base);
}

/* glibc, bash and coreutils fall back by themselves where a newer call is
 * missing (clone3, statx, faccessat2, rseq, getrandom): ordinary commands
 * work as of the oldest release the table covers. */
PARAMS(commands_still_work)
ParameterizedTest(struct ap *p, asof, commands_still_work, .timeout = 60)
{
	if (p->runner[0])
		e2e_require_runner(p->who, p->runner);
	char *root = e2e_tmpdir(p->who);
	const char *extra[] = { "--syscalls-as-of", "3.10", NULL };
	const char *cmd = "ls -la / >/dev/null && printf 'b\\na\\n' | sort | head -1 && "
			  "(sleep 0.1 &) && wait && test -x /bin/sh && stat / >/dev/null && "
			  "echo x > f && cp f g && cat g && rm f g && echo done";
	struct e2e_out o;

	sbx_as(p, NULL, root, extra, cmd, &o);
	cr_expect(o.status == 0 && strcmp(o.out, "a\nx\ndone\n") == 0,
		  "%s as of 3.10: exit %d, stdout \"%s\"\nstderr:\n%s", tag(p), o.status, o.out,
		  o.err);
	e2e_out_free(&o);
}

/* The option narrows what the command may call, never how it is confined:
 * sbx sets up the sandbox with the real kernel's features (Landlock "as of
 * 4.19" is still Landlock), then stacks the filter. */
PARAMS_CONFINED(confinement_unchanged)
ParameterizedTest(struct ap *p, asof, confinement_unchanged, .timeout = 60)
{
	cr_assert(p->runner[0], "a confined case has a runner");
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base), *outside = e2e_fmt("%s/outside", base);
	const char *extra[] = { "--syscalls-as-of", "4.19", "--json", NULL };
	struct e2e_out o;

	cr_assert(e2e_mkdir(p->who, root) == 0);
	cr_assert(e2e_write_file(p->who, outside, "orig\n") == 0);
	sbx_as(p, NULL, root, extra,
	       e2e_fmt("echo in > %s/in && echo x > %s; grep -c . /proc/self/status >/dev/null",
		       root, outside),
	       &o);
	char *got = e2e_read_file(outside);
	cr_expect(got && strcmp(got, "orig\n") == 0, "%s as of 4.19 the outside changed: %s", tag(p),
		  got ? got : "<gone>");
	cr_expect(e2e_exists(e2e_fmt("%s/in", root)), "%s the root was not writable", tag(p));
	cr_expect(strstr(o.out, e2e_fmt("\"runner\":\"%s\"", p->runner)) != NULL,
		  "%s not confined by %s: %s", tag(p), p->runner, o.out);
	free(got);
	e2e_out_free(&o);
}

/* --landlock-abi still caps the ABI sbx confines with. */
Test(asof, landlock_abi_still_caps, .timeout = 60)
{
	e2e_require_runner(AS_CALLER, "landlock");
	struct ap p = { "landlock", AS_CALLER };
	char *root = e2e_tmpdir(AS_CALLER);
	const char *extra[] = { "--syscalls-as-of", "5.15", "--landlock-abi", "2", "--json", NULL };
	struct e2e_out o;

	sbx_as(&p, NULL, root, extra, "true", &o);
	cr_expect(o.status == 0 && strstr(o.out, "\"enforcement\":\"partial\""),
		  "--landlock-abi 2 with --syscalls-as-of: exit %d, %s\n%s", o.status, o.out, o.err);
	e2e_out_free(&o);
}

/* An unprivileged filter needs no_new_privs: danger-full-access gets it with
 * the option (sbx(1) says so), and only then. */
Test(asof, danger_gets_no_new_privs)
{
	struct ap p = { "", AS_NOBODY };
	char *root = e2e_tmpdir(AS_NOBODY);
	const char *extra[] = { "--syscalls-as-of", "6.1", NULL };
	const char *cmd = "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status";
	struct e2e_out o;

	char *self = e2e_read_file("/proc/self/status");

	/* (unless the test itself already runs under a filter) */
	if (self && strstr(self, "NoNewPrivs:\t0\n") && strstr(self, "Seccomp:\t0\n")) {
		sbx_as(&p, NULL, root, NULL, cmd, &o);
		cr_expect(strstr(o.out, "NoNewPrivs:\t0\n") && strstr(o.out, "Seccomp:\t0\n"),
			  "without the option: %s", o.out);
		e2e_out_free(&o);
	}
	free(self);
	sbx_as(&p, NULL, root, extra, cmd, &o);
	cr_expect(strstr(o.out, "NoNewPrivs:\t1\n") && strstr(o.out, "Seccomp:\t2\n"),
		  "with the option: %s", o.out);
	e2e_out_free(&o);
}

Test(asof, bad_release_refused)
{
	const char *bad[] = { "3.9", "6.18", "4", "x.y", "", "5.4x", "-1.0", "999.1" };
	char *root = e2e_tmpdir(AS_CALLER);
	char *ran = e2e_fmt("%s/ran", root);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct e2e_out o;

		e2e_sbx_run(AS_CALLER, &o, "--mode", "danger-full-access", "--syscalls-as-of", bad[i],
			    "--", e2e_fmt("touch %s", ran), NULL);
		cr_expect(o.status == 125 && strncmp(o.err, "sbx: USAGE", 10) == 0 &&
				  strstr(o.err, bad[i][0] ? "3.10 to 6.17" : "has an empty value"),
			  "--syscalls-as-of '%s': exit %d, stderr %s", bad[i], o.status, o.err);
		cr_expect(!e2e_exists(ran), "--syscalls-as-of '%s': the command ran", bad[i]);
		e2e_out_free(&o);
	}
}
