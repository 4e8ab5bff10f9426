/* SPDX-License-Identifier: MIT */
/* No file keeps its file capabilities (security.capability) with new
 * content (issue 29, round 3, finding 11): a file of the workspace with
 * cap_setuid=ep, rewritten through a shared writable mapping, kept its
 * capabilities; the kernel drops them at a write(2) or a truncation, not at
 * a store through a mapping. Both runners, workspace-write, as the caller
 * and as nobody (the file its own). Checked from outside: the xattr on
 * disk and the file's bytes; either the capabilities are gone or the
 * content is the old one, and here the write goes through. */
#define RUN_FIXTURE_SUITE filecaps_content
#include "run_fixture.h"

#include <linux/capability.h>
#include <sys/xattr.h>

#define ORIGINAL "#!/bin/sh\necho original\n"

static const char *const routes_py =
	"import mmap, os, sys\n"
	"def mmapped(p):\n"
	"    fd = os.open(p, os.O_RDWR)\n"
	"    m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)\n"
	"    m[0:3] = b'NEW'; m.flush(); m.close(); os.close(fd)\n"
	"def write(p):\n"
	"    fd = os.open(p, os.O_WRONLY); os.write(fd, b'NEW'); os.close(fd)\n"
	"for arg in sys.argv[1:]:\n"
	"    name, path = arg.split('=', 1)\n"
	"    try:\n"
	"        globals()[name](path); print(name + '=ok')\n"
	"    except OSError as e:\n"
	"        print('%s=%d' % (name, e.errno))\n";

/* A fresh file of who's with cap_setuid in its permitted and effective
 * sets (a v2 security.capability, as setcap writes it). */
static char *capable_file(struct fx *f, const char *name)
{
	char *path = e2e_fmt("%s/%s", f->ws, name);
	struct vfs_cap_data cap = { 0 };

	cap.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
	cap.data[0].permitted = 1u << CAP_SETUID;
	cr_assert(e2e_write_file(f->p.who, path, ORIGINAL) == 0 && chmod(path, 0755) == 0);
	cr_assert(setxattr(path, "security.capability", &cap, XATTR_CAPS_SZ_2, 0) == 0,
		  "setxattr %s: %s", path, strerror(errno));
	return path;
}

static bool has_caps(const char *path)
{
	return getxattr(path, "security.capability", NULL, 0) > 0;
}

PARAMS(no_file_keeps_its_capabilities_with_new_content, params_both);
ParameterizedTest(struct rp *p, filecaps_content, no_file_keeps_its_capabilities_with_new_content,
		  .timeout = 120)
{
	static const char *const routes[] = { "mmapped", "write" };
	struct fx f;
	struct e2e_out o;
	char *paths[2];

	fx_setup(&f, p);
	e2e_require_runner(p->who, p->runner);
	char *script = e2e_fmt("%s/routes.py", f.base);

	cr_assert(e2e_write_file(AS_CALLER, script, routes_py) == 0 && chmod(script, 0644) == 0);
	char *cmd = e2e_fmt("python3 %s", script);

	for (size_t i = 0; i < 2; i++) {
		paths[i] = capable_file(&f, e2e_fmt("tool-%s", routes[i]));
		cmd = e2e_fmt("%s %s=%s", cmd, routes[i], paths[i]);
	}
	run_x(&f, "workspace-write", NULL, cmd, &o);
	cr_assert(exit_code(&o) == 0, "%s: %s%s", f.tag, o.out, o.err);
	for (size_t i = 0; i < 2; i++) {
		char *now = e2e_read_file(paths[i]);
		bool changed = now && strcmp(now, ORIGINAL) != 0;

		cr_expect(!(has_caps(paths[i]) && changed),
			  "%s %s: the file keeps security.capability with new content:\n%s", f.tag,
			  routes[i], o.out);
		/* The route did what it does: the write went through. */
		cr_expect(changed && strncmp(now, "NEW", 3) == 0, "%s %s: unchanged:\n%s%s", f.tag,
			  routes[i], o.out, o.err);
	}
	e2e_out_free(&o);
}
