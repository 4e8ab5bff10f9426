/* SPDX-License-Identifier: MIT */
/* The machinery of the labelled corpora (test_corpus_families.c: issue 14's
 * families, corpus_families.h; test_corpus_kinds.c: issue 31's kinds of
 * miss, corpus_kinds.h): each command run as root or as nobody, under both
 * runners, in one locale; once confined and once with danger-full-access,
 * each time in a FRESH copy of the same fixture (tests/e2e/corpus/).
 *
 *   truth     = the confined run failed AND the unconfined run succeeded
 *   predicted = sbx's "sandbox.denied" for the confined run
 *
 * Each configuration prints one line with its precision and recall, and
 * asserts precision == 1 and recall >= 0.95. An entry whose author label the
 * runs contradict is reported as a corpus error. Locales are generated with
 * localedef when the machine lacks them (Debian ships the translations:
 * libc-l10n and each tool's own catalogs). Included once, by one test file. */
#ifndef SBX_CORPUS_RUN_H
#define SBX_CORPUS_RUN_H

#include "common.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <linux/fs.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corpus_families.h"

/* ---- locales ---- */

/* Asked in a fresh process: glibc maps the locale archive once per
 * process, and one that looked before another process's localedef added
 * the locale never sees it (a fresh machine: "still missing after
 * localedef"). The runs under test are fresh processes too. */
static bool locale_usable(const char *name)
{
	struct e2e_out o;
	char *argv[] = { "/bin/sh", "-c", "LC_ALL=\"$0\" locale charmap", (char *)name, NULL };
	bool ok = e2e_run(AS_CALLER, argv, NULL, &o) == 0 && o.err[0] == '\0' &&
		  strncmp(o.out, "UTF-8", 5) == 0;

	e2e_out_free(&o);
	return ok;
}

static void ensure_locale(const char *name, const char *input)
{
	struct e2e_out o;

	if (locale_usable(name))
		return;
	cr_assert(geteuid() == 0, "locale %s is missing and only root can generate it "
		  "(localedef -i %s -f UTF-8 %s)", name, input, name);
	/* Test processes run in parallel: localedef rewrites the one locale
	 * archive, and a second one racing the first left the locale missing
	 * (seen on a fresh machine). The lock is held across the check too: a
	 * newlocale() while another process's localedef rewrites the archive
	 * fails as if the locale were missing (seen on a fresh machine). */
	int lock = open("/tmp/sbx-test-localedef.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	cr_assert(lock >= 0 && flock(lock, LOCK_EX) == 0, "locale lock: %s", strerror(errno));
	bool ok = locale_usable(name);

	if (!ok) {
		char *argv[] = { "localedef", "-i", (char *)input, "-f", "UTF-8", (char *)name, NULL };
		e2e_run(AS_CALLER, argv, NULL, &o);
		cr_assert(o.status == 0 || o.status == 1, "localedef %s failed (%d):\n%s", name,
			  o.status, o.err);
		e2e_out_free(&o);
		ok = locale_usable(name);
	}
	close(lock);
	cr_assert(ok, "locale %s still missing after localedef", name);
}

/* ---- the fixture ---- */

static const char *corpus_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 8);

	cr_assert(n > 0);
	dir[n] = '\0';
	strcpy(strrchr(dir, '/'), "/corpus");
	return dir;
}

static void run_ok(enum e2e_user who, char *const argv[], const char *what)
{
	struct e2e_out o;

	e2e_run(who, argv, NULL, &o);
	cr_assert(o.status == 0, "fixture: %s failed (%d):\n%s%s", what, o.status, o.out, o.err);
	e2e_out_free(&o);
}

static void root_owned(const char *path, mode_t mode)
{
	cr_assert(chown(path, 0, 0) == 0 && chmod(path, mode) == 0, "fixture: %s: %s", path,
		  strerror(errno));
}

/* The template, built by corpus/setup.sh as who; returns its base. */
static char *fixture_template(enum e2e_user who)
{
	char *base = e2e_tmpdir(who);
	char *src = e2e_tmpdir(who);
	char *ws = e2e_fmt("%s/ws", base), *out = e2e_fmt("%s/outside", base);
	char *from = e2e_fmt("%s/.", corpus_dir());

	cr_assert(e2e_mkdir(who, ws) == 0 && e2e_mkdir(who, out) == 0);
	/* the sources, readable by who wherever the build tree is */
	char *cp[] = { "cp", "-R", from, src, NULL };
	run_ok(AS_CALLER, cp, "copy tests/e2e/corpus");
	char *own = e2e_fmt("%u:%u", e2e_uid(who), e2e_gid(who));
	char *chown_argv[] = { "chown", "-R", own, src, NULL };
	run_ok(AS_CALLER, chown_argv, "chown the corpus sources");
	char *setup = e2e_fmt("%s/setup.sh", src);
	char *argv[] = { "bash", setup, base, src, NULL };
	run_ok(who, argv, "corpus/setup.sh");
	if (who == AS_NOBODY) {
		char *ro = e2e_fmt("%s/ro.txt", ws), *secret = e2e_fmt("%s/secret.txt", ws);
		char *rodir = e2e_fmt("%s/rodir", ws);

		cr_assert(e2e_write_file(AS_CALLER, ro, "a read-only file owned by root\n") == 0);
		cr_assert(e2e_write_file(AS_CALLER, secret, "root's secret\n") == 0);
		cr_assert(mkdir(rodir, 0555) == 0);
		root_owned(ro, 0444);
		root_owned(secret, 0000);
		root_owned(rodir, 0555);
		/* a database only root may write (corpus_kinds.h) */
		char *app = e2e_fmt("%s/app.db", ws), *rodb = e2e_fmt("%s/ro.db", ws);
		if (access(app, F_OK) == 0) {
			char *cp_db[] = { "cp", app, rodb, NULL };
			run_ok(AS_CALLER, cp_db, "copy app.db");
			root_owned(rodb, 0644);
		}
		free(app);
		free(rodb);
		free(ro);
		free(secret);
		free(rodir);
	}
	free(own);
	free(setup);
	free(from);
	free(ws);
	free(out);
	free(src);
	return base;
}

static char *fixture_copy(enum e2e_user who, const char *tpl)
{
	char *base = e2e_tmpdir(who);
	char *src = e2e_fmt("%s/.", tpl);
	char *argv[] = { "cp", "-a", src, base, NULL };

	run_ok(AS_CALLER, argv, "cp -a the template");
	free(src);
	return base;
}

/* FS_IMMUTABLE_FL on or off; false where the machine does not allow it. */
static bool set_immutable(const char *path, bool on)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), flags = 0;
	bool ok = false;

	if (fd < 0)
		return false;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
		ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	}
	close(fd);
	return ok;
}

/* ---- one run ---- */

static char *expand(const char *s, const char *ws, const char *out)
{
	char *r = strdup("");

	cr_assert_not_null(r);
	while (*s) {
		const char *sub = !strncmp(s, "@W@", 3) ? ws : !strncmp(s, "@O@", 3) ? out : NULL;
		char *n = sub ? e2e_fmt("%s%s", r, sub) : e2e_fmt("%s%c", r, *s);

		free(r);
		r = n;
		s += sub ? 3 : 1;
	}
	return r;
}

struct config {
	const char *runner, *locale;
	enum e2e_user who;
	const char *name; /* the table's, for the report */
	int min_total;    /* commands that must run */
};

/* The command's locale is the configuration's alone: whatever the test
 * runner's own environment holds is overridden (empty values are unset to
 * the C library). */
static void config_env(const struct config *c, char *env[8])
{
	env[0] = e2e_fmt("LANG=%s", c->locale);
	env[1] = "LC_ALL=";
	env[2] = "LC_MESSAGES=";
	env[3] = "LC_CTYPE=";
	env[4] = "LANGUAGE=";
	env[5] = "PATH=/usr/local/bin:/usr/bin:/bin";
	env[6] = "PYTHONDONTWRITEBYTECODE=1";
	env[7] = NULL;
}

static bool tool_present(const struct config *c, const char *tool)
{
	struct e2e_out o;
	char *env[8];

	if (!*tool)
		return true;
	config_env(c, env);
	char *check = strncmp(tool, "python3 -m ", 11) == 0
			      ? e2e_fmt("python3 -m %s --version >/dev/null 2>&1", tool + 11)
			      : e2e_fmt("command -v %s >/dev/null 2>&1", tool);
	char *argv[] = { "bash", "-c", check, NULL };
	e2e_run(c->who, argv, env, &o);
	bool ok = o.status == 0;
	e2e_out_free(&o);
	free(check);
	free(env[0]);
	return ok;
}

struct outcome {
	bool failed, denied;
	int status;
	char *json;
};

static void run_once(const struct config *c, const char *tpl, const char *mode,
		     const struct family_entry *e, struct outcome *oc)
{
	struct e2e_out o;
	char *env[8];
	char *base = fixture_copy(c->who, tpl);
	char *ws = e2e_fmt("%s/ws", base), *out = e2e_fmt("%s/outside", base);
	char *locked = e2e_fmt("%s/locked.txt", out);
	char *cmd = expand(e->cmd, ws, out);
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--runner", (char *)c->runner, "--mode",
			 (char *)mode, "--root", ws, "--", cmd, NULL };

	if (e->needs == NEEDS_IMMUTABLE)
		cr_assert(set_immutable(locked, true), "chattr +i %s", locked);
	config_env(c, env);
	e2e_run_in(c->who, ws, argv, env, &o);
	if (e->needs == NEEDS_IMMUTABLE)
		set_immutable(locked, false);
	json_error_t jerr;
	json_t *res = json_loads(o.out, 0, &jerr);
	cr_assert(res != NULL && json_object_get(res, "error") == NULL,
		  "[%s %s] `%s`: sbx gave no result object (status %d)\nstdout:\n%s\nstderr:\n%s",
		  c->runner, mode, e->label, o.status, o.out, o.err);
	json_t *code = json_object_get(res, "exit_code"), *sig = json_object_get(res, "signal");
	json_t *sb = json_object_get(res, "sandbox");
	json_t *den = sb ? json_object_get(sb, "denied") : NULL;
	cr_assert(json_is_boolean(den), "no sandbox.denied in\n%s", o.out);
	oc->failed = !json_is_integer(code) || json_integer_value(code) != 0 ||
		     (sig && !json_is_null(sig));
	oc->denied = json_is_true(den);
	oc->status = o.status;
	oc->json = o.out;
	free(o.err);
	json_decref(res);
	free(env[0]);
	free(cmd);
	free(locked);
	free(ws);
	free(out);
	e2e_rm_rf(base);
	free(base);
}

static const char *tail(const char *s, size_t keep)
{
	size_t n = strlen(s);
	return n > keep ? s + n - keep : s;
}

static void append(char **report, char *add)
{
	char *n = e2e_fmt("%s%s", *report, add);

	free(*report);
	free(add);
	*report = n;
}

struct tally {
	int tp, fp, fn, tn, label_errors;
	char *report;
};

static void score(struct tally *t, const struct config *c, const char *mode,
		  const struct family_entry *e, const struct outcome *conf, const struct outcome *unconf)
{
	bool truth = conf->failed && !unconf->failed, pred = conf->denied;
	const char *verdict = NULL, *user = c->who == AS_CALLER ? "root" : "nobody";

	if (truth && pred)
		t->tp++;
	else if (!truth && !pred)
		t->tn++;
	else if (pred)
		t->fp++, verdict = "FALSE DENIAL (precision)";
	else
		t->fn++, verdict = "MISSED DENIAL (recall)";
	if (verdict)
		append(&t->report, e2e_fmt("  %s: [%s %s %s, %s] %s (%s)\n    command: %s\n    "
					   "confined: status %d, unconfined: status %d\n    result "
					   "(tail): %s\n",
					   verdict, c->runner, c->locale, user, mode, e->label,
					   e->source == EMU ? "emulated" : "real", e->cmd, conf->status,
					   unconf->status, tail(conf->json, 900)));
	else if ((int)truth != e->expect) {
		t->label_errors++;
		append(&t->report, e2e_fmt("  LABEL CONTRADICTED: [%s %s %s, %s] %s: labelled %s; "
					   "confined:\n%s\n    unconfined:\n%s\n",
					   c->runner, c->locale, user, mode, e->label,
					   e->expect ? "denial" : "not a denial", tail(conf->json, 700),
					   tail(unconf->json, 700)));
	}
}

static void report(const struct config *c, struct tally *t, int skipped, const char *skips)
{
	const char *user = c->who == AS_CALLER ? "root" : "nobody";
	int denials = t->tp + t->fn, total = t->tp + t->fp + t->fn + t->tn;
	double precision = t->tp + t->fp ? (double)t->tp / (t->tp + t->fp) : 1.0;
	double recall = denials ? (double)t->tp / denials : 1.0;

	fprintf(stderr,
		"%s %-9s %-12s %-6s precision %.3f recall %.3f (%d denials of %d; tp %d fp %d "
		"fn %d tn %d; %d skipped%s)\n",
		c->name, c->runner, c->locale, user, precision, recall, denials, total, t->tp, t->fp,
		t->fn, t->tn, skipped, skips);
	if (*t->report)
		fprintf(stderr, "%s %s %s %s: misclassified or mislabelled:\n%s", c->name, c->runner,
			c->locale, user, t->report);
	cr_expect(total >= c->min_total, "[%s] only %d commands ran (need at least %d)", c->runner,
		  total, c->min_total);
	cr_expect(t->fp == 0, "[%s] precision %.3f < 1:\n%s", c->runner, precision, t->report);
	cr_expect(recall >= 0.95, "[%s] recall %.3f < 0.95:\n%s", c->runner, recall, t->report);
	cr_expect(t->label_errors == 0, "[%s] %d entries contradicted their label:\n%s", c->runner,
		  t->label_errors, t->report);
}

/* One table, locale and user: each entry runs unconfined once (the truth
 * does not depend on the runner) and confined under each runner. locales:
 * the ones the configurations running at once need (NULL-terminated),
 * each generated when missing (one process's localedef must not race
 * another's use of the archive: ensure_locale). */
static void run_corpus(const char *name, const struct family_entry *table, size_t n,
		       int min_total, const char *const *locales, const char *locale,
		       enum e2e_user who)
{
	static const char *const runners[] = { "namespace", "landlock" };
	struct config cfg[2] = { { runners[0], locale, who, name, min_total },
				 { runners[1], locale, who, name, min_total } };
	struct tally t[2] = { { .report = strdup("") }, { .report = strdup("") } };
	int skipped = 0;
	char *skips = strdup("");
	unsigned user_bit = who == AS_CALLER && geteuid() == 0 ? U_ROOT : U_NOBODY;

	for (const char *const *l = locales; *l; l++) {
		char input[64];

		snprintf(input, sizeof(input), "%.*s", (int)strcspn(*l, "."), *l);
		ensure_locale(*l, input);
	}
	char *tpl = fixture_template(who);
	char *probe = e2e_fmt("%s/outside/locked.txt", tpl);
	bool immutable = set_immutable(probe, true) && set_immutable(probe, false);

	for (size_t i = 0; i < n; i++) {
		const struct family_entry *e = &table[i];
		const char *mode = e->mode == RO ? "read-only" : "workspace-write";
		struct outcome unconf;

		if (!(e->users & user_bit))
			continue;
		if (!tool_present(&cfg[0], e->tool) || (e->needs == NEEDS_IMMUTABLE && !immutable)) {
			skipped++;
			append(&skips, e2e_fmt(" [%s]", e->label));
			continue;
		}
		run_once(&cfg[0], tpl, "danger-full-access", e, &unconf);
		for (int r = 0; r < 2; r++) {
			struct outcome conf;

			run_once(&cfg[r], tpl, mode, e, &conf);
			score(&t[r], &cfg[r], mode, e, &conf, &unconf);
			free(conf.json);
		}
		free(unconf.json);
	}
	for (int r = 0; r < 2; r++) {
		report(&cfg[r], &t[r], skipped, skips);
		free(t[r].report);
	}
	free(probe);
	free(tpl);
	free(skips);
}
#endif
