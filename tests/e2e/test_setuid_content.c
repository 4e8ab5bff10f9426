/* SPDX-License-Identifier: MIT */
/* No setuid or setgid file keeps its bit with new content (issue 29,
 * finding 3): a root caller's command rewrote a setuid-root file of the
 * workspace (owned by another user) through a shared writable mapping, and
 * it kept mode 4755 with the new content; run later by anyone, it runs as
 * root. Each route from inside a confined command, each on a fresh copy,
 * each checked from outside (the file's mode and content on disk): write,
 * pwritev, a shared writable mapping, truncate, ftruncate, an open with
 * O_TRUNC (for writing, and for reading), copy_file_range, splice,
 * fallocate (a punched hole), and a reflink (cp --reflink, FICLONE) where
 * the file system has them (a btrfs the test loop-mounts). Both runners; as
 * root over a workspace of nobody's (a setuid-root file), and as nobody with
 * its own setuid and setgid files; also a setgid file without group execute,
 * whose bit the kernel keeps on every write. Either the bit is gone or the
 * content is the old one; here (workspace-write) the write goes through and
 * the bit goes. */
#include "common.h"
#include "runner_params.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(setuid_content, name)                                   \
	{                                                                                   \
		return cr_make_param_array(struct cp, all_params,                           \
					   CP_COUNT(all_params));       \
	}

#define ORIGINAL "#!/bin/sh\necho original\n"

/* Each route on argv[2:] in turn: "ROUTE=ok" or "ROUTE=errno". */
static const char *routes_py =
	"import mmap, os, sys\n"
	"src = sys.argv[1]\n"
	"def run(name, path, f):\n"
	"    try:\n"
	"        f(path); print(name + '=ok')\n"
	"    except OSError as e:\n"
	"        print('%s=%d' % (name, e.errno))\n"
	"def write(p):\n"
	"    fd = os.open(p, os.O_WRONLY); os.write(fd, b'NEW'); os.close(fd)\n"
	"def pwritev(p):\n"
	"    fd = os.open(p, os.O_WRONLY); os.pwritev(fd, [b'NE', b'W'], 0); os.close(fd)\n"
	"def mmapped(p):\n"
	"    fd = os.open(p, os.O_RDWR)\n"
	"    m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)\n"
	"    m[0:3] = b'NEW'; m.flush(); m.close(); os.close(fd)\n"
	"def truncate(p):\n"
	"    os.truncate(p, 3)\n"
	"def ftruncate(p):\n"
	"    fd = os.open(p, os.O_WRONLY); os.ftruncate(fd, 3); os.close(fd)\n"
	"def otrunc(p):\n"
	"    os.close(os.open(p, os.O_WRONLY | os.O_TRUNC))\n"
	"def otrunc_rdonly(p):\n"
	"    os.close(os.open(p, os.O_RDONLY | os.O_TRUNC))\n"
	"def cfr(p):\n"
	"    s = os.open(src, os.O_RDONLY); d = os.open(p, os.O_WRONLY)\n"
	"    os.copy_file_range(s, d, 3); os.close(s); os.close(d)\n"
	"def splice(p):\n"
	"    r, w = os.pipe(); os.write(w, b'NEW'); d = os.open(p, os.O_WRONLY)\n"
	"    os.splice(r, d, 3); os.close(d)\n"
	"def fallocate(p):\n"
	"    import ctypes\n"
	"    libc = ctypes.CDLL(None, use_errno=True)\n"
	"    d = os.open(p, os.O_WRONLY)\n"
	"    # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: the first 4 KiB read as zeros\n"
	"    if libc.fallocate(d, 3, ctypes.c_long(0), ctypes.c_long(4096)) != 0:\n"
	"        raise OSError(ctypes.get_errno(), 'fallocate')\n"
	"    os.close(d)\n"
	"def reflink(p):\n"
	"    import fcntl\n"
	"    s = os.open(src, os.O_RDONLY); d = os.open(p, os.O_WRONLY)\n"
	"    fcntl.ioctl(d, 0x40049409, s)  # FICLONE\n"
	"    os.close(s); os.close(d)\n"
	"for arg in sys.argv[2:]:\n"
	"    name, path = arg.split('=', 1)\n"
	"    run(name, path, globals()[name])\n";

static const char *const routes[] = { "write",  "pwritev",       "mmapped",   "truncate",
				      "ftruncate", "otrunc",     "otrunc_rdonly", "cfr",
				      "splice", "fallocate" };

struct fx {
	enum runner runner;
	enum e2e_user who;
	uid_t owner_uid;  /* the workspace's owner */
	char *B, *R, *script, *src;
	char tag[64];
};

static void fx_setup(struct fx *f, const struct cp *p, const char *root)
{
	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	e2e_require_runner(f->who, runner_name[f->runner]);
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s]", runner_name[f->runner],
		 e2e_user_name(f->who));
	/* A root caller works over a workspace of another user's. */
	f->B = e2e_tmpdir(AS_NOBODY);
	f->R = root ? (char *)root : e2e_fmt("%s/ws", f->B);
	if (!root)
		cr_assert(e2e_mkdir(AS_NOBODY, f->R) == 0);
	f->script = e2e_fmt("%s/routes.py", f->B);
	cr_assert(e2e_write_file(AS_CALLER, f->script, routes_py) == 0 && chmod(f->script, 0644) == 0);
	f->src = e2e_fmt("%s/new-content", f->R);
	cr_assert(e2e_write_file(AS_NOBODY, f->src, "NEW content of the attacker\n") == 0);
	cr_assert(chmod(f->src, 0644) == 0);
}

/* A fresh setuid/setgid file in the workspace: the caller's own setuid-root
 * file for a root caller, nobody's own for nobody. 8 KiB, so a punched
 * hole changes what it holds. */
static char *special_file(struct fx *f, const char *name, mode_t mode)
{
	char *path = e2e_fmt("%s/%s", f->R, name);
	char content[8192];
	FILE *out;

	memset(content, '#', sizeof content);
	memcpy(content, ORIGINAL, strlen(ORIGINAL));
	out = fopen(path, "w");
	cr_assert(out && fwrite(content, 1, sizeof content, out) == sizeof content && fclose(out) == 0);
	cr_assert(chown(path, e2e_uid(f->who), e2e_gid(f->who)) == 0);
	cr_assert(chmod(path, mode) == 0);
	struct stat st;

	cr_assert(stat(path, &st) == 0 && (st.st_mode & 07777) == mode, "%s %s: mode %o", f->tag,
		  path, st.st_mode & 07777);
	return path;
}

static bool same_as_original(const char *path)
{
	char buf[8192];
	FILE *in = fopen(path, "r");
	size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;

	if (in)
		fclose(in);
	if (n != sizeof buf || memcmp(buf, ORIGINAL, strlen(ORIGINAL)) != 0)
		return false;
	for (size_t i = strlen(ORIGINAL); i < n; i++)
		if (buf[i] != '#')
			return false;
	return true;
}

/* Runs every route on a copy of a file of `mode`, and checks each copy. */
static void every_route(struct fx *f, const char *kind, mode_t mode, const char *const *names,
			size_t n)
{
	char *cmd = e2e_fmt("python3 %s %s", f->script, f->src), *paths[16];
	struct e2e_out o;

	for (size_t i = 0; i < n; i++) {
		paths[i] = special_file(f, e2e_fmt("%s-%s", kind, names[i]), mode);
		cmd = e2e_fmt("%s %s=%s", cmd, names[i], paths[i]);
	}
	e2e_sbx_run(f->who, &o, "--runner", runner_name[f->runner], "--mode", "workspace-write",
		    "--root", f->R, "--", cmd, NULL);
	cr_assert(o.status == 0, "%s %s: exit %d\n%s%s", f->tag, kind, o.status, o.out, o.err);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *said = strstr(o.out, e2e_fmt("%s=", names[i]));

		cr_assert(said, "%s %s %s: no word from the route:\n%s%s", f->tag, kind, names[i],
			  o.out, o.err);
		cr_assert(stat(paths[i], &st) == 0);
		bool changed = !same_as_original(paths[i]);

		/* The promise: never the bit with new content. */
		cr_assert(!((st.st_mode & (S_ISUID | S_ISGID)) && changed),
			  "%s %s by %s: mode %o with new content (%s)", f->tag, kind, names[i],
			  st.st_mode & 07777, o.out);
		/* And the route did what it does (so the check above is no
		 * empty one): the write went through, the bit went. */
		cr_assert(changed && !(st.st_mode & (S_ISUID | S_ISGID)),
			  "%s %s by %s: mode %o, %s (%s%s)", f->tag, kind, names[i],
			  st.st_mode & 07777, changed ? "changed" : "unchanged", o.out, o.err);
	}
	e2e_out_free(&o);
}

PARAMS(no_setuid_or_setgid_file_keeps_its_bit_with_new_content)
ParameterizedTest(struct cp *p, setuid_content, no_setuid_or_setgid_file_keeps_its_bit_with_new_content,
		  .timeout = 240)
{
	struct fx f;
	size_t n = sizeof routes / sizeof routes[0];

	fx_setup(&f, p, NULL);
	every_route(&f, "setuid", 04755, routes, n);
	every_route(&f, "setgid", 02755, routes, n);
	/* The kernel keeps a setgid bit without group execute on every write
	 * (it marked mandatory locking once); a chmod g+x later makes it a
	 * setgid program with the command's content. */
	every_route(&f, "setgid-noexec", 02644, routes, n);
}

/* ---- a reflink: FICLONE onto the setuid file, on a btrfs ---- */

static char *btrfs_dir;

static void unmount_btrfs(void)
{
	if (btrfs_dir)
		umount2(e2e_fmt("%s/mnt", btrfs_dir), MNT_DETACH);
}

static const char *btrfs(void)
{
	char *argv[] = { "sh", "-c", NULL, NULL };
	struct e2e_out o;

	if (btrfs_dir)
		return e2e_fmt("%s/mnt", btrfs_dir);
	cr_assert(geteuid() == 0, "mounting the test's btrfs needs root");
	btrfs_dir = e2e_tmpdir(AS_CALLER);
	atexit(unmount_btrfs);
	argv[2] = e2e_fmt("cd %s && truncate -s 160M img && mkfs.btrfs -q img && mkdir mnt && "
			  "mount -o loop img mnt && chmod 755 mnt", btrfs_dir);
	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0, "btrfs: %s%s", o.out, o.err);
	e2e_out_free(&o);
	return e2e_fmt("%s/mnt", btrfs_dir);
}

PARAMS(a_reflink_clears_the_bit_too)
ParameterizedTest(struct cp *p, setuid_content, a_reflink_clears_the_bit_too, .timeout = 120)
{
	struct fx f;
	static const char *const reflink[] = { "reflink" };
	char *root = e2e_fmt("%s/ws-%d-%d", btrfs(), p->runner, p->user);

	cr_assert(e2e_mkdir(AS_NOBODY, root) == 0);
	fx_setup(&f, p, root);
	/* A reflink needs whole blocks: the source is as long as the file. */
	char big[8192 + 1];

	memset(big, 'N', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	cr_assert(e2e_write_file(AS_NOBODY, f.src, big) == 0);
	every_route(&f, "setuid", 04755, reflink, 1);
	every_route(&f, "setgid-noexec", 02644, reflink, 1);
}
