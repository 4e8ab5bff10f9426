/* SPDX-License-Identifier: MIT */
/* sbx in a minimal root (an appliance image, a chroot holding only sbx and
 * bash): where /dev/null, /proc or /tmp is missing, the refusal names each
 * missing piece and what to do, and nothing runs; with them, a run works.
 * On the old code a root without /dev/null gave "INTERNAL: unable to create
 * pipes: No such file or directory". The chroot is entered as root, or in a
 * user namespace of the caller's (unshare -r) otherwise; /proc and
 * /dev/null are mounted in a mount namespace of the test's own. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* A root holding sbx and bash with bash's libraries, nothing else. */
static char *minimal_root(void)
{
	char *base = e2e_tmpdir(AS_CALLER), *root = e2e_fmt("%s/root", base);
	char *script = e2e_fmt(
		"set -e; R=%s; mkdir -p $R/bin $R/work; cp %s $R/bin/sbx; "
		"b=$(command -v bash); cp $b $R/bin/bash; "
		"for f in $R/bin/sbx $b; do "
		"  for l in $(ldd $f 2>/dev/null | grep -o '/[^ ]*' || true); do "
		"    mkdir -p $R$(dirname $l); cp -n $l $R$l; done; done",
		root, e2e_sbx());
	char *argv[] = { "sh", "-c", script, NULL };
	struct e2e_out o;

	cr_assert_eq(e2e_run(AS_CALLER, argv, NULL, &o), 0, "building the root: %s", o.err);
	e2e_out_free(&o);
	free(script);
	free(base);
	return root;
}

/* `sbx run ARGS` chrooted into root; setup (sh) runs first, in the same
 * private mount namespace (and user namespace unless we are root). */
static int in_root(const char *root, const char *setup, const char *args, struct e2e_out *o)
{
	char *script = e2e_fmt("set -e; R=%s; %s\nexec chroot $R /bin/sbx run %s", root,
			       setup ? setup : "", args);
	char *as_root[] = { "unshare", "-m", "--propagation", "private", "sh", "-c", script, NULL };
	char *as_user[] = { "unshare", "-r", "-m", "--propagation", "private", "sh", "-c", script,
			    NULL };
	int rc = e2e_run(AS_CALLER, geteuid() == 0 ? as_root : as_user, NULL, o);

	free(script);
	return rc;
}

static void says(const struct e2e_out *o, const char *what)
{
	cr_assert(strstr(o->err, what), "sbx does not say '%s':\n%s", what, o->err);
}

Test(minimal_root, what_is_missing_is_named, .timeout = 60)
{
	char *root = minimal_root();
	char *ran = e2e_fmt("%s/work/ran", root);
	struct e2e_out o;

	/* Nothing but sbx and bash. */
	cr_assert_eq(in_root(root, NULL, "--root /work -- 'echo hi'", &o), 125, "%s%s", o.out,
		     o.err);
	says(&o, "sbx: SANDBOX_UNAVAILABLE: ");
	says(&o, "no /dev/null");
	says(&o, "mknod -m 666 /dev/null c 1 3");
	says(&o, "no /proc");
	says(&o, "mount -t proc proc /proc");
	cr_assert(!strstr(o.err, "/tmp"), "read-only needs no /tmp: %s", o.err);
	cr_assert(!strstr(o.err, "INTERNAL"), "%s", o.err);
	e2e_out_free(&o);

	cr_assert_eq(in_root(root, NULL, "--mode workspace-write --root /work -- 'echo hi'", &o),
		     125);
	says(&o, "no /tmp directory");
	says(&o, "mkdir -m 1777 /tmp");
	e2e_out_free(&o);

	/* Unconfined too (the tree is still ended through /proc); the
	 * command never ran. */
	cr_assert_eq(in_root(root, NULL, "--mode danger-full-access --root /work -- ': > ran'", &o),
		     125);
	says(&o, "sbx: SPAWN_FAILED: ");
	says(&o, "no /dev/null");
	cr_assert(!e2e_exists(ran), "the command ran");
	e2e_out_free(&o);

	/* A /dev/null that is a plain file is no null device. */
	cr_assert_eq(in_root(root, "mkdir -p $R/dev; : > $R/dev/null",
			     "--mode danger-full-access --root /work -- ': > ran'", &o),
		     125);
	says(&o, "/dev/null is not the null device");
	cr_assert(!e2e_exists(ran), "the command ran");
	e2e_out_free(&o);
	free(ran);
	free(root);
}

Test(minimal_root, with_them_a_run_works, .timeout = 60)
{
	char *root = minimal_root();
	struct e2e_out o;
	const char *setup = "mkdir -p $R/dev $R/proc $R/tmp; chmod 1777 $R/tmp; "
			    "rm -f $R/dev/null; : > $R/dev/null; mount --bind /dev/null $R/dev/null; "
			    "mount --rbind /proc $R/proc";

	cr_assert_eq(in_root(root, setup, "--mode workspace-write --root /work -- "
				     "'echo hi; echo x > f; echo \"$(< f)\"'", &o),
		     0, "%s%s", o.out, o.err);
	cr_assert_str_eq(o.out, "hi\nx\n", "%s", o.err);
	e2e_out_free(&o);
	free(root);
}
