/* SPDX-License-Identifier: MIT */
/* launcher/protect/protect_git.c and protect_walk.c on a scratch tree: the
 * allow-list of a git directory's top, where gitdir and commondir lines
 * lead, and the git pass itself (what it keeps, cuts down and removes,
 * decided by the change time against `since`). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "protect_int.h"

Test(protect_git, allow_list)
{
	cr_assert(protect_git_allowed("objects", true, false));
	cr_assert(protect_git_allowed("HEAD", false, false));
	cr_assert(protect_git_allowed("HEAD.lock", false, false));
	cr_assert(protect_git_allowed("index.lock", false, false));
	cr_assert(protect_git_allowed("COMMIT_EDITMSG", false, false));
	cr_assert(protect_git_allowed("gitdir", false, true));
	cr_assert(!protect_git_allowed("gitdir", false, false));
	cr_assert(!protect_git_allowed("objects", false, false), "a file named objects");
	cr_assert(!protect_git_allowed("HEAD", true, false), "a directory named HEAD");
	static const char *const never[] = { "config", "hooks", "info", "commondir", "rebase-merge",
					     "rebase-apply", "sequencer", "config.lock",
					     "config.worktree", "modules", "branches", "x" };
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		cr_assert(!protect_git_allowed(never[i], false, false), "%s", never[i]);
		cr_assert(!protect_git_allowed(never[i], true, true), "%s", never[i]);
	}
}

Test(protect_git, targets)
{
	static const struct {
		const char *dir, *target, *want; /* want NULL: outside */
	} cases[] = {
		{ "a", "/r/x/.git", "x/.git" },
		{ "a", "/r", "" },
		{ "a/b", "../.git/modules/s", "a/.git/modules/s" },
		{ "", "sub/../.g", ".g" },
		{ "a", "../..", NULL },
		{ "", "..", NULL },
		{ "a", "/rx/y", NULL },
		{ "a", "/tmp/e", NULL },
		{ "a", "/r/../tmp", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[PATH_MAX];
		bool in = protect_git_target("/r", cases[i].dir, cases[i].target, out, sizeof(out));

		cr_assert_eq(in, cases[i].want != NULL, "case %zu", i);
		if (in)
			cr_assert_str_eq(out, cases[i].want, "case %zu", i);
	}
}

static char dir[] = "/tmp/sbx-unit-protect-git-XXXXXX";
static int root_fd = -1;

static void sh(const char *fmt, const char *arg)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg, arg);
	cr_assert(system(cmd) == 0, "%s", cmd);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert(root_fd >= 0);
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", dir, dir);
	(void)!system(cmd);
	close(root_fd);
}

static struct timespec now_coarse(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	t.tv_sec -= 1; /* generous: nothing here is older by less */
	return t;
}

static bool exists(const char *rel)
{
	struct stat st;

	return fstatat(root_fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static char *slurp(const char *rel)
{
	static char buf[8192];
	int fd = openat(root_fd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cr_assert(fd >= 0, "%s", rel);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* A repository made before `since` is left alone; what was made after it
 * in one is made inert; one made after it is cut down. */
Test(protect_git, pass, .init = setup, .fini = teardown)
{
	struct git_pass gp = { .root_fd = root_fd, .root = dir };

	/* before: a user's repository with its own hook and config keys */
	sh("cd %s && git init -q old && git -C old config core.editor vim && "
	   "printf '#!/bin/sh\\n' > old/.git/hooks/pre-commit && chmod +x old/.git/hooks/pre-commit",
	   dir);
	sleep(2);
	gp.when.since = now_coarse();
	gp.when.since.tv_sec += 1;
	sleep(1);
	/* after: what a run does */
	sh("cd %s && git init -q new && git -C new config core.fsmonitor evil && "
	   "git -C new config remote.origin.url https://h/x && "
	   "printf x > new/.git/hooks/post-checkout && mkdir new/.git/rebase-merge && "
	   "printf x > old/.git/hooks/pre-push && mkdir -p old/.git/sequencer && "
	   "git init -q --bare bare.git && git -C bare.git config alias.x '!evil' && "
	   "mkdir wt && echo 'gitdir: /tmp/elsewhere' > wt/.git",
	   dir);
	protect_git_pass(&gp);
	cr_assert(!gp.partial);
	cr_assert(exists("old/.git/hooks/pre-commit"), "the user's own hook went");
	cr_assert(strstr(slurp("old/.git/config"), "editor = vim"), "the user's config changed");
	cr_assert(!exists("old/.git/hooks/pre-push"));
	cr_assert(!exists("old/.git/sequencer"));
	cr_assert(!exists("new/.git/hooks/post-checkout"));
	cr_assert(exists("new/.git/hooks/pre-commit.sample"));
	cr_assert(!exists("new/.git/rebase-merge"));
	cr_assert(!strstr(slurp("new/.git/config"), "fsmonitor"));
	cr_assert(strstr(slurp("new/.git/config"), "https://h/x"));
	cr_assert(!strstr(slurp("bare.git/config"), "alias"));
	cr_assert(!exists("wt/.git"), "a gitfile out of the root stayed");
	cr_assert(gp.n_found >= 3, "found %zu", gp.n_found);
	protect_git_pass_free(&gp);
}
