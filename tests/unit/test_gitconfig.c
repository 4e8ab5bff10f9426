/* SPDX-License-Identifier: MIT */
/* policy/gitconfig.c: a run-made repository's config keeps only the
 * allow-listed keys, however they are spelled, and git reads back exactly
 * what was kept (checked with git itself: `git config -f FILE --list`). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy.h"

#define ROOT "/ws/root"

static bool outside_ok(const char *path, void *ctx)
{
	(void)ctx;
	return strncmp(path, "/home/", 6) == 0;
}

static const struct gitconfig_where where = { ROOT, outside_ok, NULL, NULL };

static char *filter(const char *in)
{
	size_t n = 0;
	bool dropped;
	char *out = gitconfig_filter(in, strlen(in), &where, &n, &dropped);

	cr_assert_not_null(out);
	cr_assert_eq(strlen(out), n);
	return out;
}

/* What git lists for a config text (key=value lines), via a scratch file. */
static char *git_list(const char *text)
{
	char path[] = "/tmp/sbx-unit-gitconfig-XXXXXX";
	int fd = mkstemp(path);
	char cmd[256], *out = calloc(1, 65536);
	FILE *p;
	size_t n = 0;

	cr_assert(fd >= 0 && out);
	cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "git config -f %s --list 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, 65535, p);
	out[n] = '\0';
	pclose(p);
	unlink(path);
	return out;
}

Test(gitconfig, git_init_and_clone_configs_pass_whole)
{
	const char *in = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
			 "\tbare = false\n\tlogallrefupdates = true\n"
			 "[remote \"origin\"]\n\turl = https://example.com/x.git\n"
			 "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			 "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
			 "[user]\n\tname = A B\n\temail = a@b\n";
	char *out = filter(in);

	cr_assert_str_eq(git_list(out), git_list(in), "%s", out);
	free(out);
}

Test(gitconfig, programs_and_includes_go)
{
	static const char *const bad[] = {
		"[core]\n\tfsmonitor = touch /tmp/p\n",
		"[core]\n\thooksPath = /tmp/h\n",
		"[core]\n\tsshCommand = evil\n",
		"[core]\n\tpager = evil\n",
		"[core]\n\teditor = evil\n",
		"[core]\n\tworktree = /home/u\n",
		"[alias]\n\tst = !evil\n",
		"[filter \"x\"]\n\tclean = evil\n",
		"[diff \"x\"]\n\ttextconv = evil\n",
		"[credential]\n\thelper = !evil\n",
		"[include]\n\tpath = /tmp/c\n",
		"[includeIf \"gitdir:/\"]\n\tpath = /tmp/c\n",
		"[remote \"o\"]\n\tuploadpack = evil\n\treceivepack = evil\n\tvcs = evil\n",
		"[url \"/tmp/x\"]\n\tinsteadOf = https://\n",
		"[submodule \"s\"]\n\tupdate = !evil\n",
		"[gpg]\n\tprogram = evil\n",
		"[sequence]\n\teditor = evil\n",
		"[CORE]\n\tFSMonitor = evil\n",
		"[core.x]\n\tfsmonitor = evil\n",
		"[core \"\"]\n\tfsmonitor = evil\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = filter(bad[i]);

		cr_assert_str_eq(out, "", "case %zu kept: %s", i, out);
		free(out);
	}
}

/* Spellings git reads as one thing: what git lists from the output is the
 * allow-listed part of what git lists from the input. */
Test(gitconfig, spellings_agree_with_git)
{
	static const char *const in[] = {
		"[core] bare = true\n[core]fsmonitor=evil\n",
		"[user]\n  name = \"a \\\"quoted\\\" name\" ; comment\n  email = a@b # c\n",
		"[user]\n name = a\\\n b\n",
		"[Remote \"Origin\"]\n URL = https://h/x\n",
		"[remote.Origin]\n url = https://h/y\n",
		"[user]\r\n name = crlf\r\n",
		"\xef\xbb\xbf[user]\n name = bom\n",
		"[user]\n name\n",
		"[user]\n name = \"tab\\there\"\n",
		"[user]\n name = x \"#notacomment\" y # comment\n",
		"[branch \"m\"]\n remote = origin\n merge = refs/heads/m\n[remote \"origin\"]\n url = git@host:x.git\n",
		"[user]\nname=a\n[core]\nfsmonitor = \"x\\\n\"\n[user]\nemail=b\n",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *out = filter(in[i]);
		char *want = git_list(in[i]), *got = git_list(out);
		char *kept = calloc(1, strlen(want) + 1), *line, *save = NULL;

		for (line = strtok_r(want, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (strncmp(line, "core.fsmonitor", 14) != 0)
				strcat(strcat(kept, line), "\n");
		cr_assert_str_eq(got, kept, "case %zu: out:\n%s", i, out);
		free(out);
		free(kept);
	}
}

Test(gitconfig, urls)
{
	static const struct {
		const char *url;
		bool ok;
	} cases[] = {
		{ "https://github.com/a/b.git", true },
		{ "ssh://git@host/x", true },
		{ "git@github.com:a/b.git", true },
		{ "git://h/x", true },
		{ ROOT "/origin.git", true },
		{ ROOT "/a/../origin.git", true },
		{ "file://" ROOT "/origin.git", true },
		{ ROOT, false },
		{ ROOT "/../x", false },
		{ "/ws/rootx/y", false },
		{ "/tmp/evil.git", false },
		{ "/home/u/src.git", true },
		{ "file:///home/u/src.git", true },
		{ "file:///tmp/evil.git", false },
		{ "../x", false },
		{ "x", false },
		{ "ext::sh -c evil", false },
		{ "fd::3", false },
		{ "foo::bar", false },
		{ "ssh://-oProxyCommand=evil/x", false },
		{ "-upload-pack=evil", false },
		{ "", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(gitconfig_url_ok(cases[i].url, &where), cases[i].ok, "%s", cases[i].url);
}

Test(gitconfig, remote_names_and_urls)
{
	char *out = filter("[remote \"/tmp/evil.git\"]\n fetch = x\n"
			   "[branch \"a\"]\n remote = /tmp/evil.git\n"
			   "[branch \"b\"]\n remote = .\n"
			   "[remote \"o\"]\n url = /tmp/evil.git\n"
			   "[branch \"c\"]\n remote = o\n"
			   "[remote \"p\"]\n url = https://h/p\n"
			   "[branch \"d\"]\n remote = p\n");
	char *list = git_list(out);

	cr_assert(!strstr(list, "branch.a.remote"), "%s", list);
	cr_assert(strstr(list, "branch.b.remote=."), "%s", list);
	cr_assert(!strstr(list, "remote.o.url"), "%s", list);
	cr_assert(!strstr(list, "branch.c.remote"), "%s", list);
	cr_assert(strstr(list, "branch.d.remote=p"), "%s", list);
	free(out);
}

Test(gitconfig, nul_and_garbage_keep_nothing_after)
{
	static const char in[] = "[user]\n name = a\0\n[core]\n fsmonitor = x\n";
	size_t n;
	bool dropped;
	char *out = gitconfig_filter(in, sizeof(in) - 1, &where, &n, &dropped);

	cr_assert_str_eq(out, "");
	free(out);
	out = filter("[user]\n name = a\n!!!\n[user]\n email = b\n");
	cr_assert_str_eq(git_list(out), "user.name=a\n", "%s", out);
	free(out);
}
