/* SPDX-License-Identifier: MIT */
/* What a confined command leaves behind must not harm later runs of its
 * root (sbx's state directories survive it) or the user (a protected path
 * it closed so that sbx could not put it back still goes back, with no
 * planted file kept). As the caller and as nobody, under both runners;
 * the effect is checked on disk from outside. */
#include "runner_params.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ParameterizedTestParameters(leftovers, closed_dirs_do_not_keep_planted_files)
{
	return cr_make_param_array(struct cp, all_params, 4);
}

/* A planted file, and a mode that closes its way for its owner. */
static const struct {
	const char *cmd;
	const char *planted; /* relative to the root */
} closers[] = {
	/* git runs a hook by its name: search alone on .git/hooks will do. */
	{ "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; "
	  "chmod 755 .git/hooks/pre-commit; chmod 100 .git/hooks",
	  ".git/hooks/pre-commit" },
	{ "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/post-checkout; "
	  "chmod 755 .git/hooks/post-checkout; chmod 000 .git",
	  ".git/hooks/post-checkout" },
	/* An agent finds a skill by listing .claude/skills, then opens
	 * evil/SKILL.md by its name. */
	{ "mkdir -p .claude/skills/evil && echo evil > .claude/skills/evil/SKILL.md && "
	  "chmod 100 .claude/skills/evil",
	  ".claude/skills/evil/SKILL.md" },
	{ "mkdir .vscode && echo '{}' > .vscode/tasks.json && chmod 000 .",
	  ".vscode/tasks.json" },
};

/* Old code: as nobody the sweep after the run could neither list nor enter
 * a directory the command had closed (remove_at opened it O_RDONLY before
 * giving its owner the rights back; the root and .git were never given
 * them), so the planted file stayed, and the result said nothing or said
 * it was put back. A root caller's sbx passed by DAC override. */
ParameterizedTest(struct cp *p, leftovers, closed_dirs_do_not_keep_planted_files, .timeout = 180)
{
	enum e2e_user who = p->user;

	e2e_require_runner(who, runner_name[p->runner]);
	for (size_t i = 0; i < sizeof(closers) / sizeof(closers[0]); i++) {
		char *ws = e2e_tmpdir(who), *git = e2e_fmt("%s/.git", ws);
		char *hooks = e2e_fmt("%s/hooks", git), *planted = e2e_fmt("%s/%s", ws, closers[i].planted);
		struct e2e_out o;

		cr_assert(e2e_mkdir(who, git) == 0 && e2e_mkdir(who, hooks) == 0);
		char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[p->runner],
				 "--mode", "workspace-write", "--root", ws, "--", (char *)closers[i].cmd,
				 NULL };
		e2e_run(who, argv, NULL, &o);
		cr_assert(o.status != 125, "%s: sbx failed: %s", closers[i].cmd, o.err);
		/* Seen as root, past any mode the command left. */
		cr_assert(!e2e_exists(planted), "%s %s: %s survived the run (%s)",
			  runner_name[p->runner], e2e_user_name(who), closers[i].planted, o.err);
		e2e_out_free(&o);
		chmod(ws, 0755);
		chmod(git, 0755);
		free(ws), free(git), free(hooks), free(planted);
	}
}

ParameterizedTestParameters(leftovers, state_dirs_survive_the_command)
{
	return cr_make_param_array(struct cp, all_params, 4);
}

/* The one directory below base/kind (sbx's key for the root), or NULL. */
static char *only_entry(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	cr_assert_not_null(d, "%s", dir);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			cr_assert_null(found, "more than one entry in %s", dir);
			found = e2e_fmt("%s/%s", dir, e->d_name);
		}
	closedir(d);
	return found;
}

/* Old code: the run's /tmp (namespace runner) and its tool cache are the
 * root's directories in sbx's state, which the command may chmod (and a
 * root caller's command chown); the next run refused a directory with a
 * group or other write bit (or another owner) as not sbx's own, and fell
 * back quietly to a fresh tmpfs and no cache, for every later run of the
 * root: what the earlier calls kept was gone. */
ParameterizedTest(struct cp *p, leftovers, state_dirs_survive_the_command, .timeout = 120)
{
	enum e2e_user who = p->user;
	const char *runner = runner_name[p->runner];
	char *ws = e2e_tmpdir(who), *xdg = e2e_tmpdir(who);
	char *xdg_env = e2e_fmt("XDG_CACHE_HOME=%s", xdg);
	char *env[] = { xdg_env, NULL };
	struct e2e_out o;

	e2e_require_runner(who, runner);
	/* The caller set XDG_CACHE_HOME, so the run's own is the caller's:
	 * the tool cache is where PIP_CACHE_DIR points, one level up. */
	const char *first = "c=${PIP_CACHE_DIR%/pip}; echo kept > /tmp/kept-${PWD##*/}; "
			    "echo cached > $c/cached; "
			    "chmod 000 $c; chown 65534 $c; chmod 0777 /tmp; chown 65534 /tmp; true";
	char *argv1[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner, "--mode",
			  "workspace-write", "--root", ws, "--", (char *)first, NULL };
	e2e_run(who, argv1, env, &o);
	cr_assert(o.status == 0, "first run: %d %s", o.status, o.err);
	e2e_out_free(&o);

	const char *later = "c=${PIP_CACHE_DIR%/pip}; test -n \"$PIP_CACHE_DIR\" && "
			    "cat $c/cached && echo later > $c/later && cat /tmp/kept-${PWD##*/}";
	char *argv2[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner, "--mode",
			  "workspace-write", "--root", ws, "--", (char *)later, NULL };
	e2e_run(who, argv2, env, &o);
	/* The cache, checked on disk: the later run wrote where the first
	 * one left its file, in sbx's state, as the caller's own. */
	char *cache_kind = e2e_fmt("%s/sbx/cache", xdg);
	char *cache = only_entry(cache_kind);
	char *later_file = e2e_fmt("%s/later", cache);
	struct stat st;

	cr_assert_not_null(cache);
	cr_assert(e2e_exists(later_file), "%s %s: the later run had no tool cache: %s (%s)",
		  runner, e2e_user_name(who), o.out, o.err);
	cr_assert(stat(cache, &st) == 0 && st.st_uid == e2e_uid(who) && (st.st_mode & 07777) == 0700,
		  "cache %o uid %u", st.st_mode & 07777, st.st_uid);
	/* The namespace runner's /tmp is the root's own, kept across calls;
	 * the landlock runner's is the host's (the first run's chmod and
	 * chown of it were refused). */
	cr_assert(o.status == 0, "%s %s: later run: %d %s %s", runner, e2e_user_name(who), o.status,
		  o.out, o.err);
	cr_assert_str_eq(o.out, "cached\nkept\n");
	if (p->runner == NAMESPACE) {
		char *tmp = only_entry(e2e_fmt("%s/sbx/tmp", xdg));

		cr_assert(stat(tmp, &st) == 0 && st.st_uid == e2e_uid(who) &&
				  (st.st_mode & 07777) == 01777,
			  "tmp %o uid %u", st.st_mode & 07777, st.st_uid);
		free(tmp);
	}
	e2e_out_free(&o);
	if (p->runner == LANDLOCK) {
		char *host_tmp = e2e_fmt("/tmp/kept-%s", strrchr(ws, '/') + 1);

		unlink(host_tmp);
		free(host_tmp);
	}
	free(cache_kind), free(cache), free(later_file), free(xdg_env), free(ws), free(xdg);
}
