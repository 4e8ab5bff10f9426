/* SPDX-License-Identifier: MIT */
/* The namespace runner's private tmpfs mounts hold as many files as their
 * size allows, not as many as the kernel's memory does (issue 29, finding
 * 9): each file pins an inode and a dentry that size= does not count, and a
 * read-only run made 700,000 empty files in its /dev/shm of 64 MiB, pinning
 * about 0.5 GiB of the host's unreclaimable kernel memory. nr_inodes comes
 * from tmp_size (one per 16 KiB, at least 1,024: docs/limits.md). The
 * landlock runner has no private tmpfs (its /dev/shm and /tmp are the
 * host's, bounded by the host's own mount options). As the caller and as
 * nobody, read-only and workspace-write. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tp {
	int user; /* enum e2e_user */
	int ww;   /* workspace-write, else read-only */
};

static struct tp params[] = { { AS_CALLER, 0 }, { AS_CALLER, 1 }, { AS_NOBODY, 0 }, { AS_NOBODY, 1 } };

ParameterizedTestParameters(tmpfs_limits, dev_shm_holds_no_more_files_than_its_size_allows)
{
	return cr_make_param_array(struct tp, params, sizeof params / sizeof params[0]);
}

/* Files until the first failure: FILES=n ERRNO=e, then the mount's line. */
static const char *fill =
	"python3 -c \"\n"
	"import os\n"
	"n = 0\n"
	"try:\n"
	"    while n < 200000:\n"
	"        open('/dev/shm/f%d' % n, 'w').close(); n += 1\n"
	"    print('FILES=%d ERRNO=0' % n)\n"
	"except OSError as e:\n"
	"    print('FILES=%d ERRNO=%d' % (n, e.errno))\n"
	"\"; grep ' /dev/shm ' /proc/self/mountinfo | tail -n 1";

ParameterizedTest(struct tp *p, tmpfs_limits, dev_shm_holds_no_more_files_than_its_size_allows,
		  .timeout = 120)
{
	enum e2e_user who = (enum e2e_user)p->user;
	const char *mode = p->ww ? "workspace-write" : "read-only";

	e2e_require_runner(who, "namespace");
	char *B = e2e_tmpdir(who), *R = e2e_fmt("%s/ws", B), *cfg = e2e_fmt("%s/sbx.conf", B);
	struct e2e_out o;
	int files = -1, err = -1;

	cr_assert(e2e_mkdir(who, R) == 0);
	/* 16 MiB: 1,024 inodes; the files are empty, so only the inodes run out. */
	cr_assert(e2e_write_file(who, cfg, "tmp_size = 16m\n") == 0);
	e2e_sbx_run(who, &o, "--runner", "namespace", "--mode", mode, "--root", R, "--config", cfg,
		    "--", fill, NULL);
	cr_assert(o.status == 0, "[%s, %s] exit %d:\n%s%s", e2e_user_name(who), mode, o.status, o.out,
		  o.err);
	const char *line = strstr(o.out, "FILES=");

	cr_assert(line && sscanf(line, "FILES=%d ERRNO=%d", &files, &err) == 2, "[%s, %s] %s",
		  e2e_user_name(who), mode, o.out);
	/* The root directory takes one inode of the 1,024. */
	cr_assert(files > 900 && files <= 1024, "[%s, %s] %d files in a /dev/shm of 16 MiB:\n%s",
		  e2e_user_name(who), mode, files, o.out);
	cr_assert(err == ENOSPC, "[%s, %s] the file past the limit failed with errno %d, not ENOSPC",
		  e2e_user_name(who), mode, err);
	cr_assert(strstr(o.out, "nr_inodes=1024"), "[%s, %s] the mount says: %s", e2e_user_name(who),
		  mode, o.out);
	e2e_out_free(&o);
}

/* Without tmp_size: the default size's share of inodes (one per 16 KiB). */
Test(tmpfs_limits, default_size_brings_its_inodes, .timeout = 60)
{
	e2e_require_runner(AS_CALLER, "namespace");
	char *R = e2e_tmpdir(AS_CALLER);
	struct e2e_out o;
	unsigned long long size_k = 0, inodes = 0;

	e2e_sbx_run(AS_CALLER, &o, "--runner", "namespace", "--mode", "read-only", "--root", R, "--",
		    "grep ' /dev/shm ' /proc/self/mountinfo | tail -n 1", NULL);
	cr_assert(o.status == 0, "exit %d:\n%s%s", o.status, o.out, o.err);
	const char *s = strstr(o.out, "size="), *i = strstr(o.out, "nr_inodes=");

	cr_assert(s && i && sscanf(s, "size=%lluk", &size_k) == 1 &&
		  sscanf(i, "nr_inodes=%llu", &inodes) == 1, "the mount says: %s", o.out);
	cr_assert(inodes == (size_k * 1024 / 16384 < 1024 ? 1024 : size_k * 1024 / 16384),
		  "size %llu KiB with %llu inodes: %s", size_k, inodes, o.out);
	e2e_out_free(&o);
}
