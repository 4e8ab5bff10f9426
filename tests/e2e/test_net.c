/* SPDX-License-Identifier: MIT */
/* `--net none`: a new network namespace with only loopback, up. Checked as
 * the caller and as nobody, with the namespace runner and the default runner:
 *  - a connect to a non-loopback address fails at once with "Network is
 *    unreachable" (192.0.2.1, TEST-NET-1: never routed anywhere, so a test
 *    that wrongly had the network would still send nothing real);
 *  - a server on 127.0.0.1 inside works;
 *  - `ip -o link` lists only lo, and it is UP;
 *  - the namespace differs from the test's own; without --net (allow) it is
 *    the test's own;
 *  - landlock without user namespaces cannot give a network namespace: it
 *    refuses (SANDBOX_UNAVAILABLE) rather than run with the network open. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static enum e2e_user users[] = {AS_CALLER, AS_NOBODY};

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(net, name)                                              \
	{                                                                                   \
		return cr_make_param_array(enum e2e_user, users,                            \
					   sizeof users / sizeof users[0]);                 \
	}

struct fx {
	enum e2e_user who;
	char *R, *sentinel;
	char tag[32];
};

static void fx_setup(struct fx *f, enum e2e_user who)
{
	f->who = who;
	snprintf(f->tag, sizeof f->tag, "[user %s]", e2e_user_name(who));
	f->R = e2e_tmpdir(who);
	f->sentinel = e2e_fmt("%s/sentinel", f->R);
}

/* [nofeature FEATURES --] sbx run [--runner RUNNER] [--net NET] --mode MODE --root R -- CMD */
static int run_sbx(struct fx *f, const char *features, const char *runner, const char *net,
		   const char *mode, const char *cmd, struct e2e_out *o)
{
	char *argv[20];
	size_t n = 0;
	if (features) {
		argv[n++] = (char *)e2e_helper("nofeature");
		argv[n++] = (char *)features;
		argv[n++] = "--";
	}
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	if (runner) {
		argv[n++] = "--runner";
		argv[n++] = (char *)runner;
	}
	if (net) {
		argv[n++] = "--net";
		argv[n++] = (char *)net;
	}
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	return e2e_run(f->who, argv, NULL, o);
}

static char *own_netns(void)
{
	char buf[64];
	ssize_t n = readlink("/proc/self/ns/net", buf, sizeof buf - 1);
	cr_assert(n > 0, "readlink /proc/self/ns/net: %s", strerror(errno));
	buf[n] = '\0';
	return strdup(buf);
}

/* the first line of s, without its newline */
static char *first_line(const char *s)
{
	const char *nl = strchr(s, '\n');
	return nl ? strndup(s, (size_t)(nl - s)) : strdup(s);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *runner_name(const char *r)
{
	return r ? r : "default";
}

static void assert_unreachable(struct fx *f, const char *runner)
{
	struct e2e_out o;
	long long t0 = now_ms();
	run_sbx(f, NULL, runner, "none", "workspace-write",
		"timeout 5 bash -c 'echo > /dev/tcp/192.0.2.1/80'", &o);
	long long took = now_ms() - t0;
	cr_assert(o.status != 0 && o.status != 125,
		  "%s --net none (%s runner): a connect to 192.0.2.1 should fail, exit %d\n%s",
		  f->tag, runner_name(runner), o.status, o.err);
	cr_assert(o.status != 124 && took < 4000,
		  "%s --net none (%s runner): the connect hung (%lld ms, exit %d) instead of "
		  "failing at once\n%s",
		  f->tag, runner_name(runner), took, o.status, o.err);
	cr_assert(strcasestr(o.err, "unreachable") != NULL,
		  "%s --net none (%s runner): expected \"Network is unreachable\":\n%s", f->tag,
		  runner_name(runner), o.err);
	e2e_out_free(&o);
}

static void assert_loopback_works(struct fx *f, const char *runner)
{
	struct e2e_out o;
	const char *py =
		"python3 -c 'import socket\n"
		"s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(1)\n"
		"c=socket.create_connection(s.getsockname(), timeout=5); a,_=s.accept()\n"
		"c.sendall(b\"ping\"); assert a.recv(4)==b\"ping\"\n"
		"a.sendall(b\"pong\"); assert c.recv(4)==b\"pong\"\n"
		"print(\"loopback ok\")'";
	run_sbx(f, NULL, runner, "none", "workspace-write", py, &o);
	cr_assert(o.status == 0 && strstr(o.out, "loopback ok") != NULL,
		  "%s --net none (%s runner): a server on 127.0.0.1 should work, exit %d\n"
		  "stdout:\n%s\nstderr:\n%s",
		  f->tag, runner_name(runner), o.status, o.out, o.err);
	e2e_out_free(&o);
}

static void assert_only_lo(struct fx *f, const char *runner)
{
	if (access("/usr/sbin/ip", X_OK) != 0 && access("/sbin/ip", X_OK) != 0 &&
	    access("/usr/bin/ip", X_OK) != 0 && access("/bin/ip", X_OK) != 0) {
		cr_log_warn("iproute2 is not installed: the interface list is not checked");
		return;
	}
	struct e2e_out o;
	run_sbx(f, NULL, runner, "none", "workspace-write", "ip -o link", &o);
	cr_assert(o.status == 0, "%s ip -o link under --net none: exit %d\n%s", f->tag, o.status,
		  o.err);
	size_t lines = 0;
	for (const char *s = o.out; *s; s++)
		if (*s == '\n')
			lines++;
	cr_assert(lines == 1 && strstr(o.out, ": lo: <") != NULL,
		  "%s --net none (%s runner): expected only lo, got:\n%s", f->tag,
		  runner_name(runner), o.out);
	char *flags = strchr(o.out, '<');
	char *end = flags ? strchr(flags, '>') : NULL;
	cr_assert(end != NULL, "%s cannot parse ip output:\n%s", f->tag, o.out);
	char *fl = strndup(flags, (size_t)(end - flags + 1));
	cr_assert(strstr(fl, ",UP") != NULL || strstr(fl, "<UP") != NULL,
		  "%s --net none (%s runner): lo is not UP: %s", f->tag, runner_name(runner), fl);
	free(fl);
	e2e_out_free(&o);
}

static void assert_netns(struct fx *f, const char *runner, const char *net, bool fresh)
{
	struct e2e_out o;
	char *mine = own_netns();
	run_sbx(f, NULL, runner, net, "workspace-write", "readlink /proc/self/ns/net", &o);
	cr_assert(o.status == 0, "%s readlink under --net %s: exit %d\n%s", f->tag,
		  net ? net : "(default)", o.status, o.err);
	char *theirs = first_line(o.out);
	if (fresh)
		cr_assert(strcmp(theirs, mine) != 0,
			  "%s --net none (%s runner): the command shares the host's network "
			  "namespace %s",
			  f->tag, runner_name(runner), mine);
	else
		cr_assert(strcmp(theirs, mine) == 0,
			  "%s --net %s (%s runner): the command got network namespace %s, not the "
			  "host's %s",
			  f->tag, net ? net : "(default)", runner_name(runner), theirs, mine);
	free(theirs);
	free(mine);
	e2e_out_free(&o);
}

/* The Makefile passes the feature switches (-DCONFIG_NETNS) to the tests. A
 * build without network isolation must refuse --net none (SANDBOX_UNAVAILABLE,
 * the command never runs) instead of running with the network open: that is
 * what the --net none tests check there. Returns true if the test is done. */
static bool refused_without_netns(struct fx *f, const char *runner)
{
#ifdef CONFIG_NETNS
	(void)f;
	(void)runner;
	return false;
#else
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f->sentinel);
	run_sbx(f, NULL, runner, "none", "workspace-write", cmd, &o);
	cr_assert(o.status == 125 && strstr(o.err, "SANDBOX_UNAVAILABLE") != NULL,
		  "%s CONFIG_NETNS=n: --net none should be refused, exit %d\n%s", f->tag,
		  o.status, o.err);
	cr_assert(!e2e_exists(f->sentinel), "%s CONFIG_NETNS=n: the command ran", f->tag);
	e2e_out_free(&o);
	free(cmd);
	return true;
#endif
}

PARAMS(none_namespace_runner)
ParameterizedTest(enum e2e_user *who, net, none_namespace_runner)
{
	struct fx f;
	fx_setup(&f, *who);
	if (refused_without_netns(&f, "namespace"))
		return;
	assert_netns(&f, "namespace", "none", true);
	assert_unreachable(&f, "namespace");
	assert_loopback_works(&f, "namespace");
	assert_only_lo(&f, "namespace");
}

PARAMS(none_default_runner)
ParameterizedTest(enum e2e_user *who, net, none_default_runner)
{
	struct fx f;
	fx_setup(&f, *who);
	if (refused_without_netns(&f, NULL))
		return;
	assert_netns(&f, NULL, "none", true);
	assert_unreachable(&f, NULL);
	assert_loopback_works(&f, NULL);
	assert_only_lo(&f, NULL);
}

PARAMS(none_read_only_mode)
ParameterizedTest(enum e2e_user *who, net, none_read_only_mode)
{
	/* the network option is independent of the file mode */
	struct fx f;
	fx_setup(&f, *who);
	if (refused_without_netns(&f, NULL))
		return;
	struct e2e_out o;
	char *mine = own_netns();
	run_sbx(&f, NULL, NULL, "none", "read-only", "readlink /proc/self/ns/net", &o);
	cr_assert(o.status == 0, "%s --net none read-only: exit %d\n%s", f.tag, o.status, o.err);
	char *theirs = first_line(o.out);
	cr_assert(strcmp(theirs, mine) != 0,
		  "%s --net none, read-only: the command shares the host's network namespace",
		  f.tag);
	free(theirs);
	free(mine);
	e2e_out_free(&o);
}

PARAMS(allow_is_the_hosts_network)
ParameterizedTest(enum e2e_user *who, net, allow_is_the_hosts_network)
{
	struct fx f;
	fx_setup(&f, *who);
	assert_netns(&f, "namespace", NULL, false);
	assert_netns(&f, "namespace", "allow", false);
	assert_netns(&f, "landlock", NULL, false);
	assert_netns(&f, NULL, NULL, false);
}

PARAMS(landlock_without_userns_refuses_net_none)
ParameterizedTest(enum e2e_user *who, net, landlock_without_userns_refuses_net_none)
{
	struct fx f;
	fx_setup(&f, *who);
	if (refused_without_netns(&f, NULL))
		return;
	struct e2e_out o;
	char *mine = own_netns();
	char *cmd = e2e_fmt("touch %s; readlink /proc/self/ns/net", f.sentinel);
	run_sbx(&f, "userns", "landlock", "none", "workspace-write", cmd, &o);
	if (f.who == AS_CALLER && getuid() == 0 && o.status == 0) {
		/* root may create a network namespace without a user namespace:
		 * acceptable only if the command really was isolated */
		char *theirs = first_line(o.out);
		cr_assert(strncmp(theirs, "net:[", 5) == 0 && strcmp(theirs, mine) != 0,
			  "%s --runner landlock --net none ran in the host's network namespace "
			  "(%s)",
			  f.tag, theirs);
		free(theirs);
	} else {
		cr_assert(o.status == 125,
			  "%s nofeature userns, --runner landlock --net none: exit %d, expected 125 "
			  "(SANDBOX_UNAVAILABLE)\nstdout:\n%s\nstderr:\n%s",
			  f.tag, o.status, o.out, o.err);
		cr_assert(strstr(o.err, "sbx: ") != NULL &&
				  strstr(o.err, "SANDBOX_UNAVAILABLE") != NULL,
			  "%s expected an `sbx: SANDBOX_UNAVAILABLE` line:\n%s", f.tag, o.err);
		cr_assert(!e2e_exists(f.sentinel),
			  "%s the command ran (%s exists) although sbx refused", f.tag, f.sentinel);
	}
	e2e_out_free(&o);

	/* the same through auto: namespace is gone, landlock cannot isolate */
	run_sbx(&f, "userns", NULL, "none", "workspace-write", cmd, &o);
	if (f.who == AS_CALLER && getuid() == 0 && o.status == 0) {
		char *theirs = first_line(o.out);
		cr_assert(strncmp(theirs, "net:[", 5) == 0 && strcmp(theirs, mine) != 0,
			  "%s auto --net none ran in the host's network namespace (%s)", f.tag,
			  theirs);
		free(theirs);
	} else {
		cr_assert(o.status == 125 && strstr(o.err, "SANDBOX_UNAVAILABLE") != NULL,
			  "%s nofeature userns, auto --net none: exit %d\nstderr:\n%s", f.tag,
			  o.status, o.err);
		cr_assert(!e2e_exists(f.sentinel), "%s the command ran although sbx refused",
			  f.tag);
	}
	e2e_out_free(&o);
	free(mine);
	free(cmd);
}

PARAMS(none_without_netns_refuses)
ParameterizedTest(enum e2e_user *who, net, none_without_netns_refuses)
{
	/* a container that refuses CLONE_NEWNET: never run with the network open */
	struct fx f;
	fx_setup(&f, *who);
	if (refused_without_netns(&f, NULL))
		return;
	struct e2e_out o;
	char *mine = own_netns();
	char *cmd = e2e_fmt("touch %s; readlink /proc/self/ns/net", f.sentinel);
	run_sbx(&f, "netns", NULL, "none", "workspace-write", cmd, &o);
	if (o.status == 0) {
		char *theirs = first_line(o.out);
		cr_assert_fail("%s nofeature netns: --net none ran (exit 0, network namespace %s, "
			       "the host's is %s) although no network namespace can be created",
			       f.tag, theirs, mine);
	}
	cr_assert(o.status == 125 && strstr(o.err, "SANDBOX_UNAVAILABLE") != NULL,
		  "%s nofeature netns, --net none: exit %d, expected 125 SANDBOX_UNAVAILABLE\n%s",
		  f.tag, o.status, o.err);
	cr_assert(!e2e_exists(f.sentinel), "%s the command ran although sbx refused", f.tag);
	e2e_out_free(&o);
	free(mine);
	free(cmd);
}

PARAMS(none_landlock_runner)
ParameterizedTest(enum e2e_user *who, net, none_landlock_runner)
{
	/* with user namespaces available, the landlock runner can give a
	 * network namespace too: it must, or refuse */
	struct fx f;
	fx_setup(&f, *who);
	if (refused_without_netns(&f, "landlock"))
		return;
	assert_netns(&f, "landlock", "none", true);
	assert_unreachable(&f, "landlock");
	assert_loopback_works(&f, "landlock");
	assert_only_lo(&f, "landlock");
}

PARAMS(none_with_danger_full_access)
ParameterizedTest(enum e2e_user *who, net, none_with_danger_full_access)
{
	/* `--net none` is a run option, not a file mode: a caller (or a config
	 * with `net = none`, or an escalation to danger-full-access) that asked
	 * for no network must not silently get the host's. Either the run is
	 * isolated or sbx refuses. */
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *mine = own_netns();
	char *cmd = e2e_fmt("touch %s; readlink /proc/self/ns/net", f.sentinel);
	run_sbx(&f, NULL, NULL, "none", "danger-full-access", cmd, &o);
	if (o.status == 0) {
		char *theirs = first_line(o.out);
		cr_assert(strcmp(theirs, mine) != 0,
			  "%s --net none --mode danger-full-access ran in the host's network "
			  "namespace %s: the network option was silently ignored",
			  f.tag, mine);
		free(theirs);
	} else {
		cr_assert(o.status == 125 && strstr(o.err, "sbx: ") != NULL,
			  "%s --net none --mode danger-full-access: exit %d\n%s", f.tag, o.status,
			  o.err);
		cr_assert(!e2e_exists(f.sentinel), "%s the command ran although sbx refused",
			  f.tag);
	}
	e2e_out_free(&o);
	free(mine);
	free(cmd);
}
