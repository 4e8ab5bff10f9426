/* SPDX-License-Identifier: MIT */
/* Fail closed: with a kernel feature taken away (a seccomp filter from the
 * nofeature helper, or a user namespace whose user.max_user_namespaces is 0),
 * a confined mode either runs under a runner that still works or does not run
 * at all. Both users. The sentinel file proves from outside whether the
 * command ran. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static enum e2e_user users[] = {AS_CALLER, AS_NOBODY};

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(failclosed, name)                                       \
	{                                                                                   \
		return cr_make_param_array(enum e2e_user, users,                            \
					   sizeof users / sizeof users[0]);                 \
	}

struct fx {
	enum e2e_user who;
	char *B, *R, *sentinel, *O, *Of;
	char tag[32];
};

static void fx_setup(struct fx *f, enum e2e_user who)
{
	f->who = who;
	snprintf(f->tag, sizeof f->tag, "[user %s]", e2e_user_name(who));
	f->B = e2e_tmpdir(who);
	f->R = e2e_fmt("%s/ws", f->B);
	f->sentinel = e2e_fmt("%s/sentinel", f->R);
	f->O = e2e_fmt("%s/outside", f->B);
	f->Of = e2e_fmt("%s/f", f->O);
	cr_assert(e2e_mkdir(who, f->R) == 0);
	cr_assert(e2e_mkdir(who, f->O) == 0);
	cr_assert(e2e_write_file(who, f->Of, "orig\n") == 0);
}

/* nofeature FEATURES -- sbx run --runner RUNNER --mode MODE --root R [--json] -- CMD */
static int run_without(struct fx *f, const char *features, const char *runner, const char *mode,
		       bool json, const char *cmd, struct e2e_out *o)
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
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	if (json)
		argv[n++] = "--json";
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	return e2e_run(f->who, argv, NULL, o);
}

/* exit 125, exactly one "sbx: " line on stderr, naming SANDBOX_UNAVAILABLE and
 * each of the words in names (NULL-terminated); the command did not run. */
static void assert_unavailable(struct fx *f, const char *what, const struct e2e_out *o,
			       const char *const names[])
{
	cr_assert(o->status == 125, "%s %s: expected exit 125 (SANDBOX_UNAVAILABLE), got %d\nstderr:\n%s",
		  f->tag, what, o->status, o->err);
	size_t lines = 0;
	const char *line = NULL;
	for (const char *s = o->err; s && *s;) {
		if (strncmp(s, "sbx: ", 5) == 0) {
			lines++;
			line = s;
		}
		const char *nl = strchr(s, '\n');
		s = nl ? nl + 1 : NULL;
	}
	cr_assert(lines == 1, "%s %s: expected one line starting \"sbx: \", found %zu\nstderr:\n%s",
		  f->tag, what, lines, o->err);
	const char *end = strchr(line, '\n');
	char *l = end ? strndup(line, (size_t)(end - line)) : strdup(line);
	cr_assert(strstr(l, "SANDBOX_UNAVAILABLE") != NULL,
		  "%s %s: the sbx line does not name SANDBOX_UNAVAILABLE: %s", f->tag, what, l);
	for (size_t i = 0; names && names[i]; i++)
		cr_assert(strstr(l, names[i]) != NULL, "%s %s: the sbx line does not mention %s: %s",
			  f->tag, what, names[i], l);
	free(l);
	cr_assert(!e2e_exists(f->sentinel), "%s %s: the command ran (%s exists) although sbx refused",
		  f->tag, what, f->sentinel);
}

PARAMS(namespace_without_userns)
ParameterizedTest(enum e2e_user *who, failclosed, namespace_without_userns)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f.sentinel);
	run_without(&f, "userns", "namespace", "workspace-write", false, cmd, &o);
	const char *names[] = {"namespace", NULL};
	assert_unavailable(&f, "nofeature userns, --runner namespace", &o, names);
	e2e_out_free(&o);
	/* read-only is confined too */
	run_without(&f, "userns", "namespace", "read-only", false, cmd, &o);
	assert_unavailable(&f, "nofeature userns, --runner namespace, read-only", &o, names);
	e2e_out_free(&o);
}

PARAMS(auto_falls_back_to_landlock)
ParameterizedTest(enum e2e_user *who, failclosed, auto_falls_back_to_landlock)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f.sentinel);
	if (!e2e_runner_expected("landlock")) {
		/* a kernel without Landlock: nothing is left to fall back to */
		const char *names[] = {"namespace", "landlock", NULL};

		run_without(&f, "userns", "auto", "workspace-write", false, cmd, &o);
		assert_unavailable(&f, "nofeature userns, --runner auto, no Landlock", &o, names);
		e2e_out_free(&o);
		return;
	}
	run_without(&f, "userns", "auto", "workspace-write", true, cmd, &o);
	cr_assert(o.status == 0, "%s nofeature userns, --runner auto: exit %d\nstdout:\n%s\nstderr:\n%s",
		  f.tag, o.status, o.out, o.err);
	json_error_t jerr;
	json_t *j = json_loads(o.out, 0, &jerr);
	cr_assert(j != NULL, "%s --json output is not JSON (%s):\n%s", f.tag, jerr.text, o.out);
	json_t *runner = json_object_get(json_object_get(j, "sandbox"), "runner");
	cr_assert(json_is_string(runner) && strcmp(json_string_value(runner), "landlock") == 0,
		  "%s without user namespaces auto should pick landlock:\n%s", f.tag, o.out);
	json_decref(j);
	cr_assert(e2e_exists(f.sentinel), "%s the command did not run: %s missing", f.tag,
		  f.sentinel);
	e2e_out_free(&o);

	/* and the fallback still confines */
	char *out = e2e_fmt("echo x >> %s", f.Of);
	run_without(&f, "userns", "auto", "workspace-write", false, out, &o);
	cr_assert(o.status != 0 && o.status != 125,
		  "%s `%s` under the landlock fallback should be refused, exit %d\nstderr:\n%s",
		  f.tag, out, o.status, o.err);
	cr_assert(strstr(o.err, "Permission denied") != NULL, "%s landlock dialect missing:\n%s",
		  f.tag, o.err);
	char *c = e2e_read_file(f.Of);
	cr_assert(c && strcmp(c, "orig\n") == 0, "%s %s changed to \"%s\" under the fallback",
		  f.tag, f.Of, c ? c : "<gone>");
	free(c);
	e2e_out_free(&o);
}

PARAMS(auto_without_any_runner)
ParameterizedTest(enum e2e_user *who, failclosed, auto_without_any_runner)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f.sentinel);
	const char *names[] = {"namespace", "landlock", NULL};
	run_without(&f, "userns,landlock", "auto", "workspace-write", false, cmd, &o);
	assert_unavailable(&f, "nofeature userns,landlock, --runner auto", &o, names);
	e2e_out_free(&o);
	/* no --runner at all means auto */
	run_without(&f, "userns,landlock", NULL, "read-only", false, cmd, &o);
	assert_unavailable(&f, "nofeature userns,landlock, default runner, read-only", &o, names);
	e2e_out_free(&o);
	/* --json: the error object, nothing else */
	run_without(&f, "userns,landlock", "auto", "workspace-write", true, cmd, &o);
	cr_assert(o.status == 125, "%s --json: exit %d\n%s", f.tag, o.status, o.err);
	json_error_t jerr;
	json_t *j = json_loads(o.out, 0, &jerr);
	cr_assert(j != NULL, "%s --json output is not JSON (%s):\n%s", f.tag, jerr.text, o.out);
	json_t *code = json_object_get(json_object_get(j, "error"), "code");
	cr_assert(json_is_string(code) && strcmp(json_string_value(code), "SANDBOX_UNAVAILABLE") == 0,
		  "%s --json error code:\n%s", f.tag, o.out);
	json_decref(j);
	cr_assert(!e2e_exists(f.sentinel), "%s the command ran under --json", f.tag);
	e2e_out_free(&o);
}

/* A root holding a hidden path: the landlock runner cannot hide it (it
 * grants the root whole). Where the namespace runner is unusable too, the
 * refusal must not send the user to it: it names only the ways out that
 * exist here. */
PARAMS(hidden_inside_root_names_only_the_ways_out_here)
ParameterizedTest(enum e2e_user *who, failclosed, hidden_inside_root_names_only_the_ways_out_here)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, *who);
	char *secret = e2e_fmt("%s/secret", f.R), *conf = e2e_fmt("%s/c.conf", f.B);

	cr_assert(e2e_mkdir(f.who, secret) == 0);
	cr_assert(e2e_write_file(f.who, conf, e2e_fmt("deny_read = %s\n", secret)) == 0);
	for (int ns_usable = 0; ns_usable < 2; ns_usable++) {
		char *argv[] = { (char *)e2e_helper("nofeature"), ns_usable ? "io_uring" : "userns",
				 "--", (char *)e2e_sbx(), "run", "--config", conf,
				 "--runner", ns_usable ? "landlock" : "auto", "--mode",
				 "workspace-write", "--root", f.R, "--",
				 e2e_fmt("touch %s", f.sentinel), NULL };
		const char *names[] = { "landlock", "cannot hide", secret, "another root", NULL };
		/* a kernel without Landlock says that instead */
		bool landlock = e2e_runner_expected("landlock");

		if (!landlock)
			names[1] = NULL;
		e2e_run(f.who, argv, NULL, &o);
		assert_unavailable(&f, ns_usable ? "--runner landlock" : "nofeature userns, auto", &o,
				   names);
		cr_assert(!landlock || (strstr(o.err, "use the namespace runner") != NULL) == ns_usable,
			  "%s %s: the namespace runner %s suggested:\n%s", f.tag,
			  ns_usable ? "usable" : "unusable", ns_usable ? "is not" : "is", o.err);
		e2e_out_free(&o);
	}
}

/* A hidden path under /tmp in workspace-write, which grants /tmp: in a root
 * under /tmp (bound into the namespace runner's private /tmp whole), and
 * outside the root (the landlock runner grants the host's /tmp whole). The
 * namespace runner keeps both hidden (checked on disk: the file keeps its
 * bytes, its content never printed), the landlock runner is refused for
 * them. On the code before, every hidden path under /tmp was dropped in
 * workspace-write: both were read and the one in the root written, under
 * either runner. */
PARAMS(hidden_under_tmp_stays_hidden)
ParameterizedTest(enum e2e_user *who, failclosed, hidden_under_tmp_stays_hidden)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, *who);
	char *T = e2e_fmt("/tmp/sbx-e2e-hid-%d-%d", (int)getpid(), (int)*who);
	char *root = e2e_fmt("%s/ws", T), *in = e2e_fmt("%s/secret", root),
	     *out = e2e_fmt("%s/other", T), *conf = e2e_fmt("%s/c.conf", f.B);

	e2e_rm_rf(T);
	cr_assert(e2e_mkdir(f.who, T) == 0 && e2e_mkdir(f.who, root) == 0);
	cr_assert(e2e_mkdir(f.who, in) == 0 && e2e_mkdir(f.who, out) == 0);
	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/k", in), "in-secret\n") == 0);
	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/k", out), "out-secret\n") == 0);
	cr_assert(e2e_write_file(f.who, conf, e2e_fmt("deny_read = %s, %s\n", in, out)) == 0);
	const char *cmd = e2e_fmt("cat %s/k %s/k; echo added >> %s/k; touch %s/ran", in, out, in, root);

	for (int pinned = 0; pinned < 2; pinned++) {
		char *argv[] = { (char *)e2e_sbx(), "run", "--config", conf, "--runner",
				 pinned ? "landlock" : "auto", "--mode", "workspace-write", "--root",
				 root, "--", (char *)cmd, NULL };
		const char *runner = pinned ? "--runner landlock" : "auto";

		unlink(e2e_fmt("%s/ran", root));
		e2e_run(f.who, argv, NULL, &o);
		cr_assert(!strstr(o.out, "secret") && !strstr(o.err, "secret\n"),
			  "%s %s: a hidden file under /tmp was read:\n%s%s", f.tag, runner, o.out, o.err);
		cr_assert_str_eq(e2e_read_file(e2e_fmt("%s/k", in)), "in-secret\n",
				 "%s %s: the hidden file in the root was written", f.tag, runner);
		if (pinned && e2e_runner_expected("landlock")) {
			const char *names[] = { "landlock", "cannot hide", NULL };

			assert_unavailable(&f, runner, &o, names);
			cr_assert(!e2e_exists(e2e_fmt("%s/ran", root)), "%s %s: the command ran",
				  f.tag, runner);
		}
		e2e_out_free(&o);
	}
	/* The one outside the root alone, from a root elsewhere. */
	char *conf2 = e2e_fmt("%s/c2.conf", f.B);

	cr_assert(e2e_write_file(f.who, conf2, e2e_fmt("deny_read = %s\n", out)) == 0);
	for (int pinned = 0; pinned < 2; pinned++) {
		char *argv[] = { (char *)e2e_sbx(), "run", "--config", conf2, "--runner",
				 pinned ? "landlock" : "auto", "--mode", "workspace-write", "--root",
				 f.R, "--", e2e_fmt("cat %s/k; touch %s/ran", out, f.R), NULL };
		const char *runner = pinned ? "--runner landlock" : "auto";

		unlink(e2e_fmt("%s/ran", f.R));
		e2e_run(f.who, argv, NULL, &o);
		cr_assert(!strstr(o.out, "secret"), "%s %s, root outside /tmp: a hidden file under /tmp "
			  "was read:\n%s%s", f.tag, runner, o.out, o.err);
		if (pinned && e2e_runner_expected("landlock")) {
			const char *names[] = { "landlock", "cannot hide", "/tmp", NULL };

			assert_unavailable(&f, runner, &o, names);
			cr_assert(!e2e_exists(e2e_fmt("%s/ran", f.R)), "%s %s: the command ran", f.tag,
				  runner);
		}
		e2e_out_free(&o);
	}
	e2e_rm_rf(T);
}

/* A working directory the caller cannot enter (nobody in a directory of
 * root's, mode 700) is a usage error naming the directory, in every mode,
 * and nothing runs; it was reported as SANDBOX_UNAVAILABLE (troubleshooting
 * sends that to a bug report), in danger-full-access as a --net none setup
 * failure. Root enters any directory: the caller's half runs as nobody. */
Test(failclosed, cwd_the_caller_cannot_enter_is_a_usage_error)
{
	static const char *const modes[] = { "read-only", "workspace-write", "danger-full-access" };
	char *T = e2e_fmt("/tmp/sbx-e2e-noenter-%d", (int)getpid()), *mark = e2e_fmt("%s.ran", T);
	struct e2e_out o;

	e2e_rm_rf(T);
	cr_assert(mkdir(T, 0700) == 0, "mkdir %s: %s", T, strerror(errno));
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		char *argv[] = { (char *)e2e_sbx(), "run", "--mode", (char *)modes[i], "--root", T,
				 "--", e2e_fmt("touch %s", mark), NULL };

		e2e_run(AS_NOBODY, argv, NULL, &o);
		cr_assert(o.status == 125 && strstr(o.err, "USAGE") && strstr(o.err, T) &&
			  !strstr(o.err, "SANDBOX_UNAVAILABLE"),
			  "%s: exit %d, not a usage error naming %s:\n%s", modes[i], o.status, T, o.err);
		cr_assert(!e2e_exists(mark), "%s: the command ran", modes[i]);
		e2e_out_free(&o);
	}
	rmdir(T);
}

PARAMS(danger_needs_no_runner)
ParameterizedTest(enum e2e_user *who, failclosed, danger_needs_no_runner)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f.sentinel);
	run_without(&f, "userns,landlock", NULL, "danger-full-access", false, cmd, &o);
	cr_assert(o.status == 0, "%s danger-full-access under nofeature userns,landlock: exit %d\nstderr:\n%s",
		  f.tag, o.status, o.err);
	cr_assert(e2e_exists(f.sentinel), "%s %s was not created", f.tag, f.sentinel);
	e2e_out_free(&o);
}

PARAMS(landlock_never_falls_back)
ParameterizedTest(enum e2e_user *who, failclosed, landlock_never_falls_back)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f.sentinel);
	const char *names[] = {"landlock", NULL};
	run_without(&f, "landlock", "landlock", "workspace-write", false, cmd, &o);
	assert_unavailable(&f, "nofeature landlock, --runner landlock", &o, names);
	e2e_out_free(&o);
}

/* sbx inside a user namespace whose own user.max_user_namespaces is 0: new
 * user namespaces fail with ENOSPC there, as on a host with the sysctl at 0.
 * On a kernel whose user namespaces are already off (the VM's userns-off),
 * that is the host itself: sbx runs there directly. */
static int run_in_capped_userns(struct fx *f, const char *runner, bool json, const char *cmd,
				struct e2e_out *o)
{
	char *argv[24];
	size_t n = 0;
	if (e2e_runner_expected("namespace")) {
		argv[n++] = "unshare";
		argv[n++] = "--user";
		argv[n++] = "--map-root-user";
		argv[n++] = "sh";
		argv[n++] = "-c";
		argv[n++] = "echo 0 > /proc/sys/user/max_user_namespaces && "
			    "test \"$(cat /proc/sys/user/max_user_namespaces)\" = 0 && exec \"$@\"";
		argv[n++] = "sh";
	}
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--runner";
	argv[n++] = (char *)runner;
	argv[n++] = "--mode";
	argv[n++] = "workspace-write";
	argv[n++] = "--root";
	argv[n++] = f->R;
	if (json)
		argv[n++] = "--json";
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	return e2e_run(f->who, argv, NULL, o);
}

PARAMS(namespace_with_max_user_namespaces_0)
ParameterizedTest(enum e2e_user *who, failclosed, namespace_with_max_user_namespaces_0)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;

	/* the simulation itself works: unshare -U fails inside (or, where
	 * the host's user namespaces are off, right here) */
	char *probe[] = {"unshare", "--user", "--map-root-user", "sh", "-c",
			 "echo 0 > /proc/sys/user/max_user_namespaces && unshare -U true", NULL};
	char *probe_host[] = {"unshare", "-U", "true", NULL};
	e2e_run(f.who, e2e_runner_expected("namespace") ? probe : probe_host, NULL, &o);
	cr_assert(o.status != 0 && strstr(o.err, "No space left on device") != NULL,
		  "%s fixture: user.max_user_namespaces=0 in a child namespace did not stop "
		  "unshare -U (exit %d)\nstderr:\n%s",
		  f.tag, o.status, o.err);
	e2e_out_free(&o);

	char *cmd = e2e_fmt("touch %s", f.sentinel);
	run_in_capped_userns(&f, "namespace", false, cmd, &o);
	const char *names[] = {"namespace", NULL};
	assert_unavailable(&f, "max_user_namespaces=0, --runner namespace", &o, names);
	e2e_out_free(&o);

	/* auto still finds landlock there, where the kernel has it */
	if (!e2e_runner_expected("landlock")) {
		const char *both[] = {"namespace", "landlock", NULL};

		run_in_capped_userns(&f, "auto", false, cmd, &o);
		assert_unavailable(&f, "max_user_namespaces=0, --runner auto, no Landlock", &o, both);
		e2e_out_free(&o);
		return;
	}
	run_in_capped_userns(&f, "auto", true, cmd, &o);
	cr_assert(o.status == 0, "%s max_user_namespaces=0, --runner auto: exit %d\nstderr:\n%s",
		  f.tag, o.status, o.err);
	cr_assert(strstr(o.out, "\"landlock\"") != NULL, "%s auto should pick landlock:\n%s",
		  f.tag, o.out);
	cr_assert(e2e_exists(f.sentinel), "%s the command did not run under the landlock fallback",
		  f.tag);
	e2e_out_free(&o);
}
