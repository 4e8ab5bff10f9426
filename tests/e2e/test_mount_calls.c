/* SPDX-License-Identifier: MIT */
/* Every call of the mount API is one family to the filters: open_tree_attr
 * (Linux 6.15: a detached copy of a mount with new attributes, open_tree
 * and mount_setattr in one call) is answered exactly as open_tree and
 * mount_setattr are, under both runners, as the caller (root here) and as
 * nobody: refused by the rules where they refuse mounts (the landlock
 * runner, a root caller's namespace runner), that refusal counted and the
 * failed run marked where the caller could have made the call without sbx
 * (root); left to the kernel under a non-root caller's namespace runner,
 * where a nested user and mount namespace may use them (nested sandboxes).
 * Checked from outside: the run's exit, the errno the call saw, the
 * refusals sbx counted, the marker, and the host's own mount table. */
#define RUN_FIXTURE_SUITE mount_calls
#include "run_fixture.h"

#include <jansson.h>

struct outcome {
	int exit, err;
	json_int_t refused;
	bool marked;
};

static struct outcome call_once(struct fx *f, const char *call, bool nested)
{
	struct outcome r = { 0 };
	struct e2e_out o;
	json_error_t jerr;
	json_t *j;
	const char *out, *text, *at;
	char *key = e2e_fmt("%s=", call);

	run_x(f, "workspace-write", NULL,
	      e2e_fmt("%s mountcall %s%s", helper(f, "sidedoor"), call, nested ? " nested" : ""), &o);
	j = json_loads(o.out, 0, &jerr);
	cr_assert(j, "%s %s: no JSON result (%s):\n%s\n%s", f->tag, call, jerr.text, o.out, o.err);
	out = json_string_value(json_object_get(j, "stdout"));
	text = json_string_value(json_object_get(j, "text"));
	at = out ? strstr(out, key) : NULL;
	cr_assert(at, "%s %s%s: the call was not made:\n%s", f->tag, call, nested ? " nested" : "",
		  o.out);
	r.err = atoi(at + strlen(key));
	r.exit = (int)json_integer_value(json_object_get(j, "exit_code"));
	r.refused = json_integer_value(
		json_object_get(json_object_get(j, "sandbox"), "refused_calls"));
	r.marked = text && strstr(text, "[sandbox: file access denied under ");
	json_decref(j);
	e2e_out_free(&o);
	return r;
}

static void expect_same(struct fx *f, const char *call, const char *as, bool nested,
			struct outcome got, struct outcome want)
{
	cr_expect(got.exit == want.exit && got.err == want.err && got.refused == want.refused &&
			  got.marked == want.marked,
		  "%s %s%s: exit %d errno %d counted %lld marked %d; %s: exit %d errno %d "
		  "counted %lld marked %d",
		  f->tag, call, nested ? " (nested)" : "", got.exit, got.err, (long long)got.refused,
		  got.marked, as, want.exit, want.err, (long long)want.refused, want.marked);
}

PARAMS(open_tree_attr_is_a_mount_call, params_both);
ParameterizedTest(struct rp *p, mount_calls, open_tree_attr_is_a_mount_call, .timeout = 120)
{
	bool root = e2e_uid(p->who) == 0, landlock = strcmp(p->runner, "landlock") == 0;
	/* Where the rules refuse the mount API: under Landlock, and for a
	 * root caller (who could not map root in a nested namespace). */
	bool refused = landlock || root;
	struct fx f;

	fx_setup(&f, p);
	char *before = e2e_read_file("/proc/self/mountinfo");
	for (int nested = 0; nested < 2; nested++) {
		if (nested && refused)
			continue; /* no nested namespace to make there */
		struct outcome tree = call_once(&f, "open_tree", nested);
		struct outcome setattr = call_once(&f, "mount_setattr", nested);
		struct outcome attr = call_once(&f, "open_tree_attr", nested);

		if (refused)
			cr_expect(tree.err == EPERM && tree.refused == (root ? 1 : 0) &&
					  tree.marked == root,
				  "%s open_tree: errno %d counted %lld marked %d", f.tag, tree.err,
				  (long long)tree.refused, tree.marked);
		else if (nested)
			cr_expect(tree.err == 0 && tree.exit == 0,
				  "%s open_tree in a nested namespace: errno %d", f.tag, tree.err);
		expect_same(&f, "mount_setattr", "open_tree", nested, setattr, tree);
		expect_same(&f, "open_tree_attr", "open_tree", nested, attr, tree);
	}
	/* Nothing of it reached the host's mount table. */
	char *after = e2e_read_file("/proc/self/mountinfo");
	cr_assert(before && after && strcmp(before, after) == 0, "%s the host's mounts changed",
		  f.tag);
}
