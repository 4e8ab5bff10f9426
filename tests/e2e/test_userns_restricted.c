/* SPDX-License-Identifier: MIT */
/* A host that restricts user namespaces the way Ubuntu 23.10+ does (they
 * are made, but hold no capabilities: mounts in them fail with EPERM,
 * setgroups with EACCES), simulated by tests/helpers/nofeature
 * userns_nocaps. sbx must confine under the landlock runner (checked from
 * outside: a file outside the root keeps its bytes, one inside the root
 * gets them), refuse a pinned namespace runner without running anything and
 * without saying that no runner can enforce the mode, and `sbx probe` must
 * name the cause, a fix and the runner used instead. As the caller and as
 * nobody. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum e2e_user users[] = { AS_CALLER, AS_NOBODY };

#define PARAMS(name)                                                                        \
	ParameterizedTestParameters(userns_restricted, name)                                 \
	{                                                                                    \
		return cr_make_param_array(enum e2e_user, users, sizeof(users) / sizeof(users[0])); \
	}

struct fx {
	enum e2e_user who;
	char *root, *outside, *sentinel;
	const char *tag;
};

static void fx_setup(struct fx *f, enum e2e_user who)
{
	char *base = e2e_tmpdir(who);

	f->who = who;
	f->tag = e2e_user_name(who);
	f->root = e2e_fmt("%s/ws", base);
	f->outside = e2e_fmt("%s/outside", base);
	f->sentinel = e2e_fmt("%s/sentinel", f->root);
	cr_assert(e2e_mkdir(who, f->root) == 0);
	cr_assert(e2e_write_file(who, f->outside, "orig\n") == 0);
}

/* nofeature userns_nocaps -- sbx ARGS... */
static void sbx_restricted(struct fx *f, char *const args[], struct e2e_out *o)
{
	char *argv[24];
	size_t n = 0;

	argv[n++] = (char *)e2e_helper("nofeature");
	argv[n++] = "userns_nocaps";
	argv[n++] = "--";
	argv[n++] = (char *)e2e_sbx();
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	e2e_run(f->who, argv, NULL, o);
}

static json_t *result_of(struct fx *f, const struct e2e_out *o)
{
	json_error_t jerr;
	json_t *j = json_loads(o->out, 0, &jerr);

	cr_assert_not_null(j, "[%s] not a JSON result (exit %d): %s\n%s", f->tag, o->status, o->out,
			   o->err);
	return j;
}

static const char *sandbox_str(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(j, "sandbox"), key));

	return s ? s : "";
}

static void expect_outside_kept(struct fx *f, const char *what)
{
	char *c = e2e_read_file(f->outside);

	cr_expect(c && strcmp(c, "orig\n") == 0, "[%s] %s: the file outside the root changed: %s",
		  f->tag, what, c ? c : "(gone)");
	free(c);
}

/* read-only and workspace-write run under the landlock runner, and confine. */
PARAMS(auto_falls_back_to_landlock)
ParameterizedTest(enum e2e_user *who, userns_restricted, auto_falls_back_to_landlock)
{
	struct fx f;
	struct e2e_out o;
	json_t *j;
	char *cmd;

	fx_setup(&f, *who);
	cmd = e2e_fmt("echo changed > %s", f.outside);
	sbx_restricted(&f, (char *[]){ "run", "--json", "--root", f.root, "--", cmd, NULL }, &o);
	j = result_of(&f, &o);
	cr_expect_str_eq(sandbox_str(j, "mode"), "read-only");
	cr_expect_str_eq(sandbox_str(j, "runner"), "landlock", "[%s] read-only runner", f.tag);
	cr_expect_str_eq(sandbox_str(j, "enforcement"), "full");
	cr_expect(json_integer_value(json_object_get(j, "exit_code")) != 0,
		  "[%s] the write outside succeeded: %s", f.tag, o.out);
	expect_outside_kept(&f, "read-only");
	json_decref(j);
	e2e_out_free(&o);

	free(cmd);
	cmd = e2e_fmt("echo inside > %s; echo changed > %s", f.sentinel, f.outside);
	sbx_restricted(&f, (char *[]){ "run", "--json", "--mode", "workspace-write", "--root",
				       f.root, "--", cmd, NULL }, &o);
	j = result_of(&f, &o);
	cr_expect_str_eq(sandbox_str(j, "runner"), "landlock", "[%s] workspace-write runner", f.tag);
	cr_expect_str_eq(sandbox_str(j, "enforcement"), "full");
	expect_outside_kept(&f, "workspace-write");
	char *inside = e2e_read_file(f.sentinel);
	cr_expect(inside && strcmp(inside, "inside\n") == 0,
		  "[%s] workspace-write could not write its root: %s\n%s", f.tag,
		  inside ? inside : "(missing)", o.out);
	free(inside);
	json_decref(j);
	e2e_out_free(&o);
	free(cmd);
}

/* A pinned namespace runner is refused: nothing runs, the one sbx line
 * names the shape, the cause and a fix, and claims nothing of the landlock
 * runner, which does enforce the mode. */
PARAMS(pinned_namespace_refused)
ParameterizedTest(enum e2e_user *who, userns_restricted, pinned_namespace_refused)
{
	struct fx f;
	struct e2e_out o;
	char *cmd;

	fx_setup(&f, *who);
	cmd = e2e_fmt("touch %s", f.sentinel);
	sbx_restricted(&f, (char *[]){ "run", "--runner", "namespace", "--mode", "workspace-write",
				       "--root", f.root, "--", cmd, NULL }, &o);
	cr_expect(o.status == 125, "[%s] exit %d, expected 125\n%s", f.tag, o.status, o.err);
	cr_expect(!e2e_exists(f.sentinel), "[%s] the command ran although sbx refused", f.tag);
	cr_expect(strncmp(o.err, "sbx: SANDBOX_UNAVAILABLE: ", 26) == 0, "[%s] %s", f.tag, o.err);
	cr_expect(strstr(o.err, "no runner can enforce") == NULL,
		  "[%s] says no runner can enforce, yet landlock does: %s", f.tag, o.err);
	cr_expect(strstr(o.err, "user namespaces are made here but hold no capabilities: a "
			 "seccomp filter on sbx") != NULL, "[%s] no shape or cause: %s", f.tag, o.err);
	cr_expect(strstr(o.err, "(fix: ") != NULL, "[%s] no fix: %s", f.tag, o.err);
	e2e_out_free(&o);
	free(cmd);
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Probe's own lines, as a person reads them. */
PARAMS(probe_lines)
ParameterizedTest(enum e2e_user *who, userns_restricted, probe_lines)
{
	struct fx f;
	struct e2e_out o;
	const char *ns;

	fx_setup(&f, *who);
	sbx_restricted(&f, (char *[]){ "probe", NULL }, &o);
	cr_assert(o.status == 0, "[%s] sbx probe: exit %d\n%s", f.tag, o.status, o.err);
	cr_expect(strstr(o.out, "\nuser namespaces: no: user namespaces are made but hold no "
			 "capabilities (write /proc/self/setgroups: Permission denied): ") != NULL,
		  "[%s]\n%s", f.tag, o.out);
	ns = strstr(o.out, "\nnamespace runner: no: user namespaces are made but hold no "
			   "capabilities");
	cr_assert(ns, "[%s] no namespace runner line naming the shape:\n%s", f.tag, o.out);
	/* The fix and the runner instead come right under it. */
	ns = strchr(ns + 1, '\n');
	cr_expect(ns && starts(ns, "\n  fix: a container seccomp profile that allows mount"),
		  "[%s] the namespace runner's fix:\n%s", f.tag, o.out);
	ns = ns ? strchr(ns + 1, '\n') : NULL;
	cr_expect(ns && starts(ns, "\n  instead: the landlock runner confines read-only and "
				 "workspace-write here (enforcement full)\n"),
		  "[%s] the runner used instead:\n%s", f.tag, o.out);
	cr_expect(strstr(o.out, "\nread-only: runner landlock, enforcement full") != NULL,
		  "[%s]\n%s", f.tag, o.out);
	cr_expect(strstr(o.out, "\nworkspace-write: runner landlock, enforcement full") != NULL,
		  "[%s]\n%s", f.tag, o.out);
	cr_expect(strstr(o.out, "no runner can enforce") == NULL && strstr(o.out, "see the reason") == NULL,
		  "[%s] a line says no runner can enforce, or gives no fix:\n%s", f.tag, o.out);
	e2e_out_free(&o);
}
