/* SPDX-License-Identifier: MIT */
/* The ioctls that change an inode (issue 29, finding 7): a read-only
 * command under the landlock runner opened a host file for reading and set
 * its flags and generation (chattr +dAS -v 4242). Each ioctl, from inside a
 * confined command (tests/helpers/inodeioctl), on a host file or directory
 * outside the writable set, owned by the user; each effect checked from
 * outside with the file's real flags, generation, fsxattr, encryption
 * policy, key status, btrfs subvolumes. Both runners, as the caller and as
 * nobody. The namespace runner's read-only mounts refuse most of them
 * (EROFS); the landlock runner's supervisor decides the attribute changes by
 * the writable set (EACCES) and refuses the rest (EPERM); the file system
 * keyring's ioctls are refused under both (EPERM). Inside the writable set
 * chattr, lsattr and reflinks still work.
 *
 * fs-verity: this kernel has none (CONFIG_FS_VERITY is not set), so the
 * test can only see sbx's refusal (EPERM) come before the kernel's
 * EOPNOTSUPP. The 32-bit numbers by int $0x80 and x32's ioctl: this kernel
 * has neither ABI (ENOSYS); where i386's is, the supervisor refuses it, and
 * x32 is refused whole by the filters (ENOSYS).
 * FS_IOC_SETFSLABEL and REMOVE_ENCRYPTION_KEY_ALL_USERS need CAP_SYS_ADMIN,
 * which no command holds: refused either way. */
#include "common.h"
#include "runner_params.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(inode_ioctls, name)                                     \
	{                                                                                   \
		return cr_make_param_array(struct cp, all_params,                           \
					   CP_COUNT(all_params));       \
	}

struct fx {
	enum runner runner;
	enum e2e_user who;
	char *B, *R, *O, *tool;
	char tag[64];
};

static void fx_setup(struct fx *f, const struct cp *p)
{
	struct e2e_out o;

	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	e2e_require_runner(f->who, runner_name[f->runner]);
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s]", runner_name[f->runner],
		 e2e_user_name(f->who));
	f->B = e2e_tmpdir(f->who);
	f->R = e2e_fmt("%s/ws", f->B);
	f->O = e2e_fmt("%s/outside", f->B);
	cr_assert(e2e_mkdir(f->who, f->R) == 0 && e2e_mkdir(f->who, f->O) == 0);
	/* Not e2e_helper's copy: it lies under /tmp, which the namespace
	 * runner covers with a private tmpfs. */
	f->tool = e2e_fmt("%s/inodeioctl", e2e_tmpdir(AS_CALLER));
	char *argv[] = { "cp", (char *)e2e_helper("inodeioctl"), f->tool, NULL };

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0 && chmod(f->tool, 0755) == 0, "cp inodeioctl: %s", o.err);
	e2e_out_free(&o);
}

/* sbx run --runner R --mode MODE --root ROOT --json -- CMD, as who. */
static json_t *run_json(struct fx *f, const char *mode, const char *root, const char *cmd)
{
	struct e2e_out o;
	json_error_t jerr;
	json_t *j;

	e2e_sbx_run(f->who, &o, "--runner", runner_name[f->runner], "--mode", mode, "--root", root,
		    "--json", "--", cmd, NULL);
	j = json_loads(o.out, 0, &jerr);
	cr_assert(j, "%s no JSON result (%s):\n%s\n%s", f->tag, jerr.text, o.out, o.err);
	e2e_out_free(&o);
	return j;
}

static const char *stdout_of(json_t *j)
{
	const char *s = json_string_value(json_object_get(j, "stdout"));

	return s ? s : "";
}

/* The "KEY=N" the helper printed (base 10, or 16 with hex), or -1000. */
static long val(const char *out, const char *key, int base)
{
	size_t len = strlen(key);

	for (const char *s = out; s && *s;) {
		if (strncmp(s, key, len) == 0 && s[len] == '=')
			return strtol(s + len + 1, NULL, base);
		const char *nl = strchr(s, '\n');
		s = nl ? nl + 1 : NULL;
	}
	return -1000;
}

/* The helper, outside sbx, as who: its output. */
static char *outside(struct fx *f, const char *a0, const char *a1, const char *a2)
{
	char *argv[] = { f->tool, (char *)a0, (char *)a1, (char *)a2, NULL };
	struct e2e_out o;
	char *out;

	e2e_run(f->who, argv, NULL, &o);
	out = strdup(o.out ? o.out : "");
	e2e_out_free(&o);
	return out;
}

/* The command's ioctl on path: its RESULT, the run's refused calls. */
static int attempt(struct fx *f, const char *mode, const char *cmd, json_int_t *refused)
{
	json_t *j = run_json(f, mode, f->R, cmd);
	int r = (int)val(stdout_of(j), "RESULT", 10);

	cr_assert(r != -1000, "%s %s: %s", f->tag, cmd, stdout_of(j));
	if (refused)
		*refused = json_integer_value(json_object_get(json_object_get(j, "sandbox"),
							      "refused_calls"));
	json_decref(j);
	return r;
}

/* ---- flags, generation, fsxattr of a host file ---- */

PARAMS(attributes_of_a_host_file)
ParameterizedTest(struct cp *p, inode_ioctls, attributes_of_a_host_file, .timeout = 240)
{
	static const struct {
		const char *op, *arg;
		bool native; /* x86-64's own number: decided (else: refused or absent) */
	} ops[] = {
		{ "setflags", "c8", true },        /* chattr +dAS */
		{ "setversion", "4242", true },    /* chattr -v 4242 */
		{ "ext4setversion", "4243", true },
		{ "fsxattr", "80", true },         /* FS_XFLAG_NODUMP */
		{ "setflags32", "c8", false },
		{ "setversion32", "4244", false },
		{ "setflags-i386", "c8", false },
		{ "setflags-x32", "c8", false },
	};
	struct fx f;

	fx_setup(&f, p);
	char *file = e2e_fmt("%s/f", f.O);

	cr_assert(e2e_write_file(f.who, file, "host file\n") == 0);
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		char *before = outside(&f, "show", file, NULL);
		json_int_t refused = 0;
		int r = attempt(&f, "read-only", e2e_fmt("%s %s %s %s", f.tool, ops[i].op, file, ops[i].arg),
				&refused);
		char *after = outside(&f, "show", file, NULL);

		cr_assert(strstr(before, "FLAGS="), "%s show: %s", f.tag, before);
		cr_assert_str_eq(after, before, "%s %s changed the host file: %s -> %s", f.tag,
				 ops[i].op, before, after);
		cr_assert(r != 0, "%s %s succeeded on a host file", f.tag, ops[i].op);
		if (ops[i].native && f.runner == LANDLOCK)
			cr_assert(r == EACCES && refused >= 1, "%s %s: %d (refused %lld)", f.tag,
				  ops[i].op, r, (long long)refused);
		if (ops[i].native && f.runner == NAMESPACE)
			cr_assert(r == EROFS, "%s %s: %d", f.tag, ops[i].op, r);
	}
	/* fs-verity would make the file unwritable for good: refused by sbx
	 * before the kernel answers (this one has no fs-verity). */
	int r = attempt(&f, "read-only", e2e_fmt("%s verity %s", f.tool, file), NULL);

	cr_assert(r != 0, "%s verity", f.tag);
	if (f.runner == LANDLOCK)
		cr_assert(r == EPERM, "%s verity: %d", f.tag, r);
	r = attempt(&f, "read-only", e2e_fmt("%s fslabel %s sbx-e2e", f.tool, file), NULL);
	cr_assert(r == EPERM, "%s fslabel: %d", f.tag, r);
}

/* ---- file systems of their own: ext4 with encryption, btrfs ---- */

static char *images;

static void unmount_images(void)
{
	if (!images)
		return;
	umount2(e2e_fmt("%s/crypt", images), MNT_DETACH);
	umount2(e2e_fmt("%s/btrfs", images), MNT_DETACH);
}

static void sh(const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct e2e_out o;

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0, "%s: %s%s", cmd, o.out, o.err);
	e2e_out_free(&o);
}

/* Loop-mounted once per test process: an ext4 with the encrypt feature,
 * a btrfs where users may remove their own subvolumes. Needs root (the
 * e2e suites run as root and drop to nobody). */
static const char *image_dir(void)
{
	if (images)
		return images;
	cr_assert(geteuid() == 0, "mounting the test's file systems needs root");
	images = e2e_tmpdir(AS_CALLER);
	atexit(unmount_images);
	sh(e2e_fmt("cd %s && truncate -s 64M crypt.img && mkfs.ext4 -q -O encrypt crypt.img && "
		   "mkdir crypt && mount -o loop crypt.img crypt && chmod 755 crypt && "
		   "truncate -s 160M btrfs.img && mkfs.btrfs -q btrfs.img && mkdir btrfs && "
		   "mount -o loop,user_subvol_rm_allowed btrfs.img btrfs && chmod 755 btrfs",
		   images));
	return images;
}

/* A directory of who's on one of the images. */
static char *image_subdir(struct fx *f, const char *fs, const char *name)
{
	char *d = e2e_fmt("%s/%s/%s-%s-%d", image_dir(), fs, name, e2e_user_name(f->who), f->runner);

	cr_assert(e2e_mkdir(f->who, d) == 0, "mkdir %s", d);
	return d;
}

PARAMS(encryption_keys_and_policies)
ParameterizedTest(struct cp *p, inode_ioctls, encryption_keys_and_policies, .timeout = 240)
{
	struct fx f;

	fx_setup(&f, p);
	char *dir = image_subdir(&f, "crypt", "policy");
	/* The user's own key, added outside: its identifier. */
	char *out = outside(&f, "keyid", dir, NULL), *id = strstr(out, "KEYID=");

	cr_assert(id && strlen(id) >= 6 + 32, "%s keyid: %s", f.tag, out);
	id = strndup(id + 6, 32);
	/* Removing it would lock the user's encrypted directories. */
	int r = attempt(&f, "read-only", e2e_fmt("%s removekey %s %s", f.tool, dir, id), NULL);

	cr_assert(r == EPERM, "%s removekey: %d", f.tag, r);
	cr_assert(val(outside(&f, "keystatus", dir, id), "STATUS", 10) == 2 /* present */,
		  "%s the user's key was removed", f.tag);
	r = attempt(&f, "read-only", e2e_fmt("%s removekeyall %s %s", f.tool, dir, id), NULL);
	cr_assert(r != 0, "%s removekeyall", f.tag);
	cr_assert(val(outside(&f, "keystatus", dir, id), "STATUS", 10) == 2, "%s removekeyall", f.tag);
	/* A policy on a directory outside the writable set. */
	r = attempt(&f, "read-only", e2e_fmt("%s policy %s %s", f.tool, dir, id), NULL);
	cr_assert(r != 0, "%s policy set", f.tag);
	cr_assert(val(outside(&f, "getpolicy", dir, NULL), "POLICY", 10) == ENODATA,
		  "%s the host directory got an encryption policy", f.tag);
	/* A key added for the whole file system stays after the run. */
	cr_assert(strstr(outside(&f, "removekey", dir, id), "RESULT=0"), "%s remove outside", f.tag);
	cr_assert(val(outside(&f, "keystatus", dir, id), "STATUS", 10) == 1 /* absent */);
	r = attempt(&f, "read-only", e2e_fmt("%s addkey %s", f.tool, dir), NULL);
	cr_assert(r == EPERM, "%s addkey: %d", f.tag, r);
	cr_assert(val(outside(&f, "keystatus", dir, id), "STATUS", 10) == 1,
		  "%s the run added a key to the file system", f.tag);
}

PARAMS(btrfs_subvolumes_outside_the_writable_set)
ParameterizedTest(struct cp *p, inode_ioctls, btrfs_subvolumes_outside_the_writable_set,
		  .timeout = 240)
{
	struct fx f;

	fx_setup(&f, p);
	char *dir = image_subdir(&f, "btrfs", "out");
	char *sv = e2e_fmt("%s/sv", dir);

	/* A subvolume of the user's own, made outside. */
	cr_assert(strstr(outside(&f, "subvol", dir, "sv"), "RESULT=0"), "%s subvol outside", f.tag);
	struct {
		const char *cmd, *what;
	} tries[] = {
		{ e2e_fmt("%s subvol %s made", f.tool, dir), "a subvolume" },
		{ e2e_fmt("%s snapshot %s snap", f.tool, sv), "a snapshot" },
		{ e2e_fmt("%s subvolro %s", f.tool, sv), "a read-only flag" },
		{ e2e_fmt("%s snapdestroy %s sv", f.tool, dir), "a removal" },
	};
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		int r = attempt(&f, "read-only", tries[i].cmd, NULL);

		cr_assert(r != 0, "%s %s succeeded outside the writable set", f.tag, tries[i].what);
		cr_assert(r == (f.runner == LANDLOCK ? EPERM : EROFS), "%s %s: %d", f.tag,
			  tries[i].what, r);
	}
	cr_assert(!e2e_exists(e2e_fmt("%s/made", dir)), "%s a subvolume was made outside", f.tag);
	cr_assert(!e2e_exists(e2e_fmt("%s/snap", sv)), "%s a snapshot was made outside", f.tag);
	cr_assert(e2e_exists(sv), "%s the user's subvolume was removed", f.tag);
	cr_assert(val(outside(&f, "subvolflags", sv, NULL), "SUBVOLFLAGS", 10) == 0,
		  "%s the user's subvolume was made read-only", f.tag);
}

/* ---- inside the writable set: chattr, lsattr, reflinks ---- */

PARAMS(changes_inside_the_writable_set_work)
ParameterizedTest(struct cp *p, inode_ioctls, changes_inside_the_writable_set_work, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	char *file = e2e_fmt("%s/f", f.R);

	cr_assert(e2e_write_file(f.who, file, "workspace file\n") == 0);
	long before = val(outside(&f, "show", file, NULL), "FLAGS", 16);
	json_t *j = run_json(&f, "workspace-write", f.R,
			     e2e_fmt("%s setflags %s 40 && %s show %s", f.tool, file, f.tool, file));

	cr_assert(val(stdout_of(j), "RESULT", 10) == 0, "%s chattr +d in the workspace: %s", f.tag,
		  stdout_of(j));
	cr_assert(val(stdout_of(j), "FLAGS", 16) == (before | 0x40), "%s lsattr: %s", f.tag,
		  stdout_of(j));
	cr_assert(val(outside(&f, "show", file, NULL), "FLAGS", 16) == (before | 0x40),
		  "%s the flag is not on the file", f.tag);
	json_decref(j);
	/* cp --reflink on btrfs: FICLONE into a file the command may write. */
	char *ws = image_subdir(&f, "btrfs", "ws");

	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/a", ws), "reflinked\n") == 0);
	j = run_json(&f, "workspace-write", ws, "cp --reflink=always a b && cat b");
	cr_assert(json_integer_value(json_object_get(j, "exit_code")) == 0 &&
		  strcmp(stdout_of(j), "reflinked\n") == 0, "%s cp --reflink: %s %s", f.tag,
		  stdout_of(j), json_string_value(json_object_get(j, "stderr")));
	json_decref(j);
}
