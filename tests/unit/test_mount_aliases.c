/* SPDX-License-Identifier: MIT */
/* launcher/kernel/mount_aliases.c: the mount table says where to look, the
 * object found there decides. A fixture mountinfo names a file system's
 * other mounts; symlinks stand in for bind mounts (stat follows them to the
 * same inode, as it would through a bind). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mount_aliases.h"

struct got {
	char alias[8][PATH_MAX];
	size_t n;
};

static void collect(void *ctx, const char *alias)
{
	struct got *g = ctx;

	if (g->n < 8)
		snprintf(g->alias[g->n++], PATH_MAX, "%s", alias);
}

static char *dir;

static void setup(void)
{
	char tmpl[] = "/var/tmp/sbx-unit-aliases-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	dir = strdup(tmpl);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect(system(cmd) == 0);
	free(dir);
}

static void sh(const char *fmt, const char *a)
{
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), fmt, a, a, a, a, a, a);
	cr_assert(system(cmd) == 0, "%s", cmd);
}

Test(mount_aliases, other_mounts_checked_by_identity, .init = setup, .fini = teardown)
{
	struct stat st;
	struct got g = { .n = 0 };
	char line[8 * PATH_MAX], mi[PATH_MAX], path[PATH_MAX];
	FILE *f;

	sh("mkdir -p %s/real/.ssh %s/other/.ssh %s/proc/self && ln -s real '%s/al ias' && "
	   "ln -s other %s/decoy && ln -s real/.ssh %s/sshbind",
	   dir);
	cr_assert(stat(dir, &st) == 0);
	unsigned ma = major(st.st_dev), mi_ = minor(st.st_dev);
	/* the file system at /, shown again: whole at "DIR/al ias" (a space,
	 * escaped), its .ssh alone at DIR/sshbind, a mount whose place holds
	 * another object (DIR/decoy), one of another device, one stacked on
	 * the real place that shows the same */
	snprintf(line, sizeof(line),
		 "1 0 %u:%u / / rw - ext4 /dev/x rw\n"
		 "2 1 %u:%u %s/real %s/al\\040ias rw - ext4 /dev/x rw\n"
		 "3 1 %u:%u %s/real/.ssh %s/sshbind rw - ext4 /dev/x rw\n"
		 "4 1 %u:%u %s/real %s/decoy rw - ext4 /dev/x rw\n"
		 "5 1 %u:%u %s/real %s/other rw - ext4 /dev/y rw\n",
		 ma, mi_, ma, mi_, dir, dir, ma, mi_, dir, dir, ma, mi_, dir, dir, ma + 1, mi_, dir,
		 dir);
	snprintf(mi, sizeof(mi), "%s/proc/self/mountinfo", dir);
	f = fopen(mi, "w");
	cr_assert_not_null(f);
	fputs(line, f);
	fclose(f);

	struct mount_table *t = mount_table_read(dir);

	cr_assert_not_null(t);
	snprintf(path, sizeof(path), "%s/real/.ssh", dir);
	size_t n = mount_table_aliases(t, path, collect, &g);

	cr_assert_eq(n, 2, "%zu aliases: %s %s", n, g.alias[0], g.alias[1]);
	char want1[PATH_MAX], want2[PATH_MAX];

	snprintf(want1, sizeof(want1), "%s/al ias/.ssh", dir);
	snprintf(want2, sizeof(want2), "%s/sshbind", dir);
	cr_expect_str_eq(g.alias[0], want1);
	cr_expect_str_eq(g.alias[1], want2);
	/* a path that does not exist has no alias */
	g.n = 0;
	snprintf(path, sizeof(path), "%s/real/.gnupg", dir);
	cr_expect_eq(mount_table_aliases(t, path, collect, &g), 0);
	mount_table_free(t);
}
