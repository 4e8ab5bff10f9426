/* SPDX-License-Identifier: MIT */
/* The parent-side Landlock builders (kernel/landlock_ruleset.c) and the
 * capability keep (kernel/caps.c), applied for real in a forked child and
 * checked by what the child can then open:
 *  - landlock_allow_except grants a tree minus excluded paths below it: the
 *    excluded subtree (and a symlink into it) is refused, everything beside
 *    the way to it is granted, the directories on the way only get `along`;
 *    exceptions outside the tree or absent are ignored;
 *  - caps_keep_only keeps exactly the given capabilities across execve (as
 *    root), in every set, and nothing for an empty mask. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "landlock.h"

static char base[64];

static char *at(const char *rel)
{
	static char buf[8][256];
	static int slot;
	char *b = buf[slot++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", base, rel);
	return b;
}

static void put(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert(fd >= 0 && write(fd, "x", 1) == 1, "create %s", rel);
	close(fd);
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb, (void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void teardown(void)
{
	if (base[0])
		nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* t/{a, b/{x, secret/{f, deeper/g}}, c/y, link -> b/secret, top.txt} */
static void setup(void)
{
	strcpy(base, "/tmp/sbx-llallow-XXXXXX");
	cr_assert(mkdtemp(base));
	const char *dirs[] = { "t", "t/b", "t/b/secret", "t/b/secret/deeper", "t/c" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cr_assert(mkdir(at(dirs[i]), 0755) == 0);
	put("t/a");
	put("t/b/x");
	put("t/b/secret/f");
	put("t/b/secret/deeper/g");
	put("t/c/y");
	put("t/top.txt");
	cr_assert(symlink("b/secret", at("t/link")) == 0);
}

static int can_open(const char *rel, int flags)
{
	int fd = open(at(rel), flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* In a child: restrict to the ruleset, then report what opens. */
static int check_child(int rs)
{
	struct child_status st;

	if (landlock_restrict(rs, &st) < 0)
		return 90;
	struct {
		const char *rel;
		int flags, want;
	} cases[] = {
		{ "t/a", O_RDONLY, 0 },
		{ "t/b/x", O_RDONLY, 0 },
		{ "t/c/y", O_RDONLY, 0 },
		{ "t/top.txt", O_RDONLY, 0 },
		{ "t/b/secret/f", O_RDONLY, EACCES },
		{ "t/b/secret/deeper/g", O_RDONLY, EACCES },
		{ "t/link/f", O_RDONLY, EACCES },
		/* `along`: the way and the excluded directory can be listed */
		{ "t/b", O_RDONLY | O_DIRECTORY, 0 },
		{ "t/b/secret", O_RDONLY | O_DIRECTORY, 0 },
		/* nothing beyond the granted rights */
		{ "t/a", O_WRONLY, EACCES },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = can_open(cases[i].rel, cases[i].flags);

		if (got != cases[i].want) {
			fprintf(stderr, "%s (flags %o): %s, want %s\n", cases[i].rel, cases[i].flags,
				strerror(got), strerror(cases[i].want));
			return (int)i + 1;
		}
	}
	return 0;
}

static int in_child(int (*fn)(int), int arg)
{
	fflush(NULL);
	pid_t pid = fork();
	int ws;

	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	cr_assert(waitpid(pid, &ws, 0) == pid);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 200 + WTERMSIG(ws);
}

static int abi(void)
{
	char reason[128];
	int v = landlock_abi_probe(reason, sizeof(reason));

	cr_assert(v >= 1, "Landlock: %s", reason);
	return v < SBX_LANDLOCK_ABI_KNOWN ? v : SBX_LANDLOCK_ABI_KNOWN;
}

Test(landlock_allow, grants_all_but_the_excluded_subtree, .init = setup, .fini = teardown)
{
	int rs = landlock_ruleset_create(abi(), landlock_scopes(abi()));
	char failed[256];
	/* Given through the symlink: resolved first. An absent one and one
	 * outside the tree are ignored. */
	const char *except[] = { at("t/link"), at("t/nope"), "/etc" };

	cr_assert(rs >= 0, "landlock_ruleset_create: %s", strerror(-rs));
	cr_assert_eq(landlock_allow_except(rs, at("t"), LL_READ_EXEC, LANDLOCK_ACCESS_FS_READ_DIR,
					   except, 3, failed, sizeof(failed)), 0, "failed at %s", failed);
	cr_assert_eq(in_child(check_child, rs), 0);
	close(rs);
}

static int secret_readable_child(int rs)
{
	struct child_status st;

	if (landlock_restrict(rs, &st) < 0)
		return 90;
	return can_open("t/b/secret/f", O_RDONLY) == 0 && can_open("t/a", O_RDONLY) == 0 ? 0 : 1;
}

Test(landlock_allow, no_exception_grants_the_tree, .init = setup, .fini = teardown)
{
	int rs = landlock_ruleset_create(abi(), 0);
	char failed[256];

	cr_assert(rs >= 0);
	cr_assert_eq(landlock_allow_except(rs, at("t"), LL_READ_EXEC, 0, NULL, 0, failed,
					   sizeof(failed)), 0);
	cr_assert_eq(in_child(secret_readable_child, rs), 0);
	close(rs);
}

/* ---- caps_keep_only ---- */

static unsigned long long field(const char *status, const char *name)
{
	char key[32];
	const char *s;

	snprintf(key, sizeof(key), "\n%s:\t", name);
	s = strstr(status, key);
	return s ? strtoull(s + strlen(key), NULL, 16) : ~0ULL;
}

/* Keep `keep`, exec cat /proc/self/status into the file at rel. */
static int keep_child(int keep)
{
	struct child_status st;
	int fd = open(at("status"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || dup2(fd, 1) < 0)
		return 91;
	if (caps_keep_only((uint64_t)keep, &st) < 0) {
		fprintf(stderr, "caps_keep_only: %s: %s\n", st.what, strerror(st.err));
		return 92;
	}
	execl("/bin/cat", "cat", "/proc/self/status", (char *)NULL);
	return 93;
}

static void check_kept(unsigned long long keep)
{
	char *status;
	FILE *f;
	size_t n;

	cr_assert_eq(in_child(keep_child, (int)keep), 0);
	status = calloc(1, 8192);
	f = fopen(at("status"), "r");
	cr_assert(f && status);
	n = fread(status + 1, 1, 8190, f);
	status[0] = '\n';
	status[n + 1] = '\0';
	fclose(f);
	const char *sets[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(field(status, sets[i]), keep, "%s %llx after exec, want %llx", sets[i],
			     field(status, sets[i]), keep);
	cr_expect_eq(field(status, "NoNewPrivs"), 1);
	free(status);
}

Test(caps, root_keeps_exactly_its_file_capabilities, .init = setup, .fini = teardown)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: keeping capabilities needs holding them");
	unsigned long long keep = caps_for_caller(0);

	/* The contract's set, as far as this process holds it. */
	cr_assert_eq(keep, 0xbULL, "caps_for_caller(0) = %llx", keep);
	cr_assert_eq(caps_for_caller(1000), 0);
	for (size_t i = 0; i < caps_root_keeps_count; i++)
		cr_assert(caps_root_keeps[i].cap != 2 /* CAP_DAC_READ_SEARCH */ &&
			  caps_root_keeps[i].cap != 4 /* CAP_FSETID */);
	check_kept(keep);
	check_kept(0);
}
