/* SPDX-License-Identifier: MIT */
/* Spill files (docs/output.md), checked from outside: the cap bounds what a
 * run leaves on disk (`cat /dev/zero` in read-only), sbx stops spilling at
 * the free-space floor, another user's run cannot read a spill, sbx's
 * start-up cleanup removes only its own old spill directories, and
 * sbx_spill_remove() deletes only sbx's own files. Both runners, as the
 * caller and as nobody where a run is involved. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

#define MiB (1024ULL * 1024ULL)

struct rp {
	char runner[16]; /* a copy: Criterion runs each test in a re-exec'd process */
	enum e2e_user who;
};

static struct rp params[] = {
	{ "namespace", AS_CALLER }, { "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },  { "landlock", AS_NOBODY },
};

#define PARAMS(name)                                                                     \
	ParameterizedTestParameters(spill, name)                                          \
	{                                                                                 \
		return cr_make_param_array(struct rp, params, sizeof(params) / sizeof(params[0])); \
	}

static enum e2e_user other(enum e2e_user who)
{
	return who == AS_CALLER ? AS_NOBODY : AS_CALLER;
}

/* A private world for one user's sbx: its spill home ($XDG_CACHE_HOME), its
 * $TMPDIR, no $XDG_RUNTIME_DIR, so no test touches another's spills. */
struct world {
	enum e2e_user who;
	char *cache;      /* XDG_CACHE_HOME; the spill home is cache/sbx/spill */
	char *tmp;        /* TMPDIR */
	char *env[4];
};

static void world_init(struct world *w, enum e2e_user who)
{
	w->who = who;
	w->cache = e2e_tmpdir(who);
	w->tmp = e2e_tmpdir(who);
	w->env[0] = e2e_fmt("XDG_CACHE_HOME=%s", w->cache);
	w->env[1] = e2e_fmt("TMPDIR=%s", w->tmp);
	w->env[2] = "XDG_RUNTIME_DIR=";
	w->env[3] = NULL;
}

static char *spill_home(const struct world *w)
{
	return e2e_fmt("%s/sbx/spill", w->cache);
}

static int sbx(const struct world *w, struct e2e_out *o, char *const args[])
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	for (size_t i = 0; args[i]; i++) {
		cr_assert(n < 31);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	return e2e_run(w->who, argv, w->env, o);
}

static json_t *parse(const struct e2e_out *o)
{
	json_error_t je;
	json_t *j = json_loads(o->out, JSON_ALLOW_NUL, &je);

	cr_assert_not_null(j, "not JSON (%s): %.300s\nstderr: %.300s", je.text, o->out, o->err);
	return j;
}

static const char *spill_path(json_t *j, const char *stream)
{
	return json_string_value(json_object_get(json_object_get(j, "spill"), stream));
}

/* Bytes of every regular file below dir, and how many there are. */
static unsigned long long bytes_below(const char *dir, unsigned *files)
{
	DIR *d = opendir(dir);
	unsigned long long sum = 0;
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *p;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		p = e2e_fmt("%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			sum += bytes_below(p, files);
		else if (lstat(p, &st) == 0) {
			sum += (unsigned long long)st.st_size;
			(*files)++;
		}
		free(p);
	}
	closedir(d);
	return sum;
}

/* ---- the cap ---- */

/* The attack of issue 20: a read-only run fills the disk through sbx's own
 * spill. With spill_max_bytes = 1 MiB, at most 1 MiB is left on disk,
 * however much the command writes, and the result says the spill stopped. */
PARAMS(cap_bounds_disk)
ParameterizedTest(struct rp *p, spill, cap_bounds_disk, .timeout = 60)
{
	struct world w;
	struct e2e_out o;

	world_init(&w, p->who);
	char *root = e2e_tmpdir(p->who), *conf = e2e_fmt("%s/sbx.conf", w.tmp);

	cr_assert_eq(e2e_write_file(p->who, conf, "spill_max_bytes = 1048576\n"), 0);
	int rc = sbx(&w, &o, (char *[]){ "run", "--config", conf, "--runner", p->runner, "--root",
					 root, "--json", "--timeout", "2", "--", "cat /dev/zero",
					 NULL });
	cr_assert_eq(rc, 124, "exit %d, stderr: %s", rc, o.err);
	json_t *j = parse(&o);
	json_int_t total = json_integer_value(json_object_get(j, "stdout_bytes"));

	cr_assert_gt(total, (json_int_t)(4 * MiB), "the command should have written more: %lld",
		     (long long)total);
	const char *path = spill_path(j, "stdout");
	char *home = spill_home(&w);

	cr_assert_not_null(path, "no spill file: %.300s", o.out);
	cr_assert(strncmp(path, home, strlen(home)) == 0, "spill %s not in %s", path, home);
	json_t *stop = json_object_get(json_object_get(j, "spill_stopped"), "stdout");

	cr_assert_str_eq(json_string_value(json_object_get(stop, "reason")), "spill_max_bytes");
	cr_assert_eq(json_integer_value(json_object_get(stop, "bytes")), (json_int_t)MiB);

	/* From outside: the file holds exactly the cap, and nothing else is there. */
	struct stat st;
	unsigned files = 0;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	cr_assert_eq((unsigned long long)st.st_size, MiB);
	cr_assert_leq((unsigned long long)st.st_blocks * 512, MiB + 64 * 1024, "blocks %llu",
		      (unsigned long long)st.st_blocks);
	cr_assert_eq(bytes_below(w.cache, &files), MiB);
	cr_assert_eq(files, 1);
	json_decref(j);
	e2e_out_free(&o);
}

/* A spill home inside what the command may write (here: the root itself)
 * could be swapped for a symlink by the command: it is passed over, nothing
 * is made there, and the spill goes to the last home, /var/tmp/sbx-UID/spill
 * (sbx's own, hidden from confined runs). */
PARAMS(home_inside_root_passed_over)
ParameterizedTest(struct rp *p, spill, home_inside_root_passed_over, .timeout = 60)
{
	struct world w;
	struct e2e_out o;

	world_init(&w, p->who);
	int rc = sbx(&w, &o, (char *[]){ "run", "--mode", "workspace-write", "--runner", p->runner,
					 "--root", w.cache, "--json", "--output-limit", "10", "--",
					 "seq 1 100", NULL });

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	json_t *j = parse(&o);
	const char *path = spill_path(j, "stdout");
	char *sbx_dir = e2e_fmt("%s/sbx", w.cache);

	char *last_home = e2e_fmt("/var/tmp/sbx-%u/spill/", (unsigned)e2e_uid(p->who));

	cr_assert_not_null(path);
	cr_assert(strncmp(path, last_home, strlen(last_home)) == 0,
		  "spill %s not in the last home %s", path, last_home);
	cr_assert_not(e2e_exists(sbx_dir), "sbx made %s inside the writable root", sbx_dir);
	sbx_spill_remove(path);
	free(last_home);
	json_decref(j);
	e2e_out_free(&o);
}

/* ---- the free-space floor ---- */

/* A 72 MiB file system as the spill home (a tmpfs in a private mount
 * namespace): the floor there is 64 MiB, so sbx spills at most 8 MiB of a
 * 32 MiB stream and says why; the file system keeps its floor free. */
static void check_floor(enum e2e_user who, const char *mode)
{
	char *mnt = e2e_tmpdir(who), *out = e2e_tmpdir(who);
	char *script = e2e_fmt(
		"set -e; mount -t tmpfs -o size=72m sbx-floor \"$1\"; "
		"XDG_CACHE_HOME=\"$1\" XDG_RUNTIME_DIR= \"$2\" run --json --mode %s --root \"$3\" "
		"-- 'head -c 33554432 /dev/zero' > \"$3/result.json\" || true; "
		"cat \"$3/result.json\"; echo; "
		"for f in \"$1\"/sbx/spill/sbx-spill-*/stdout-*; do stat -c 'size %%s' \"$f\"; done; "
		"df -B1 --output=avail \"$1\" | tail -n 1 | sed 's/^ */avail /'",
		mode);
	struct e2e_out o;
	int rc = e2e_run(who,
			 (char *[]){ "unshare", "--user", "--map-root-user", "--mount", "bash", "-c",
				     script, "_", mnt, (char *)e2e_sbx(), out, NULL },
			 NULL, &o);

	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, o.out, o.err);
	char *nl = strchr(o.out, '\n');

	cr_assert_not_null(nl);
	*nl = '\0';
	json_error_t je;
	json_t *j = json_loads(o.out, JSON_ALLOW_NUL, &je);

	cr_assert_not_null(j, "%s: %s", je.text, o.out);
	cr_assert_eq(json_integer_value(json_object_get(j, "stdout_bytes")), (json_int_t)(32 * MiB));
	json_t *stop = json_object_get(json_object_get(j, "spill_stopped"), "stdout");

	cr_assert_str_eq(json_string_value(json_object_get(stop, "reason")), "free_space",
			 "%s", json_dumps(json_object_get(j, "spill_stopped"), 0));
	unsigned long long size = 0, avail = 0;
	const char *s = strstr(nl + 1, "size "), *a = strstr(nl + 1, "avail ");

	cr_assert(s && a, "%s", nl + 1);
	size = strtoull(s + 5, NULL, 10);
	avail = strtoull(a + 6, NULL, 10);
	cr_assert_eq(size, (unsigned long long)json_integer_value(json_object_get(stop, "bytes")));
	cr_assert_gt(size, 0);
	cr_assert_leq(size, 8 * MiB, "spilled %llu bytes", size);
	cr_assert_geq(avail, 64 * MiB - 64 * 1024, "free after the run: %llu", avail);
	json_decref(j);
	e2e_out_free(&o);
}

Test(spill, floor_as_caller, .timeout = 60) { check_floor(AS_CALLER, "danger-full-access"); }
Test(spill, floor_as_nobody, .timeout = 60) { check_floor(AS_NOBODY, "danger-full-access"); }
Test(spill, floor_read_only, .timeout = 60) { check_floor(AS_NOBODY, "read-only"); }

/* ---- privacy ---- */

/* A spill of one user's run: files 0600 in 0700 directories of theirs, and
 * the other user's confined run (read-only or workspace-write) can neither
 * read the file nor list the directories. */
struct rn {
	char runner[16];
};
static struct rn runners[] = { { "namespace" }, { "landlock" } };

ParameterizedTestParameters(spill, other_user_cannot_read)
{
	return cr_make_param_array(struct rn, runners, sizeof(runners) / sizeof(runners[0]));
}

/* owner's spill, then reader's confined runs (read-only, workspace-write)
 * try to read the file and list the directories. */
static void check_private(const char *runner, enum e2e_user owner, enum e2e_user reader)
{
	struct world w, r;
	struct e2e_out o;

	world_init(&w, owner);
	world_init(&r, reader);
	int rc = sbx(&w, &o, (char *[]){ "run", "--json", "--output-limit", "100", "--runner",
					 (char *)runner, "--", "seq 1 100000", NULL });

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	json_t *j = parse(&o);
	char *path = strdup(spill_path(j, "stdout"));
	char *dir = strdup(path);

	*strrchr(dir, '/') = '\0';
	json_decref(j);
	e2e_out_free(&o);

	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "file mode %o", st.st_mode & 0777);
	cr_assert_eq(st.st_uid, e2e_uid(owner));
	for (char *d = strdup(dir); strlen(d) > strlen(w.cache); *strrchr(d, '/') = '\0') {
		cr_assert_eq(stat(d, &st), 0);
		cr_assert_eq(st.st_mode & 0777, 0700, "%s mode %o", d, st.st_mode & 0777);
		cr_assert_eq(st.st_uid, e2e_uid(owner), "%s", d);
	}

	static const char *const modes[] = { "read-only", "workspace-write" };
	for (size_t m = 0; m < 2; m++) {
		char *root = e2e_tmpdir(reader);
		char *cmd = e2e_fmt("cat '%s'; ls '%s'; ls '%s/sbx/spill'", path, dir, w.cache);

		rc = sbx(&r, &o, (char *[]){ "run", "--mode", (char *)modes[m], "--runner",
					     (char *)runner, "--root", root, "--", cmd, NULL });
		cr_assert_neq(rc, 0, "%s: the other user's run read the spill", modes[m]);
		cr_assert_null(strstr(o.out, "99999"), "%s: spill content leaked: %.200s", modes[m],
			       o.out);
		cr_assert_null(strstr(o.out, "stdout-"), "%s: spill listed: %.200s", modes[m], o.out);
		e2e_out_free(&o);
		free(cmd);
		free(root);
	}
	free(path);
	free(dir);
}

/* A root caller keeps CAP_DAC_OVERRIDE (it reads every user's files anyway):
 * there the reader is nobody only; an unprivileged caller is checked both
 * ways. Another run of the same user is kept out by deny_read (sbx's state
 * directories are hidden from confined commands: docs/security.md). */
ParameterizedTest(struct rn *p, spill, other_user_cannot_read, .timeout = 60)
{
	check_private(p->runner, AS_CALLER, AS_NOBODY);
	if (e2e_uid(AS_CALLER) != 0)
		check_private(p->runner, AS_NOBODY, AS_CALLER);
}

/* No usable home (nobody's is /nonexistent, no $XDG_CACHE_HOME or
 * $XDG_RUNTIME_DIR): the spill goes to /var/tmp/sbx-UID/spill, sbx's state
 * directory there, which confined runs can neither read nor write. On the
 * old code it went to a private directory under /tmp, which a concurrent
 * workspace-write run of the same user under the landlock runner read and
 * rewrote (newuser7). Checked on the file itself. */
PARAMS(no_home_spill_is_out_of_another_runs_reach)
ParameterizedTest(struct rp *p, spill, no_home_spill_is_out_of_another_runs_reach, .timeout = 60)
{
	char *env[] = { "HOME=/nonexistent", "XDG_CACHE_HOME=", "XDG_RUNTIME_DIR=", "TMPDIR=", NULL };
	char *root = e2e_tmpdir(p->who), *other_root = e2e_tmpdir(p->who);
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--output-limit", "100", "--runner",
			 p->runner, "--mode", "workspace-write", "--root", root, "--",
			 "seq 1 100000", NULL };
	struct e2e_out o;
	int rc = e2e_run(p->who, argv, env, &o);

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	json_t *j = parse(&o);
	char *path = strdup(spill_path(j, "stdout"));

	json_decref(j);
	e2e_out_free(&o);

	char *cmd = e2e_fmt("cat '%s' | head -c 20; echo TAMPERED > '%s'", path, path);
	char *other[] = { (char *)e2e_sbx(), "run", "--runner", "landlock", "--mode",
			  "workspace-write", "--root", other_root, "--", cmd, NULL };

	e2e_run(p->who, other, env, &o);
	char *now = e2e_read_file(path);

	cr_assert(now && strncmp(now, "1\n2\n3\n", 6) == 0,
		  "[%s, %s] another run of the user rewrote the spill %s: %.40s", p->runner,
		  e2e_user_name(p->who), path, now ? now : "(gone)");
	cr_assert_null(strstr(o.out, "1\n2\n3"), "[%s, %s] another run read the spill %s: %.40s",
		       p->runner, e2e_user_name(p->who), path, o.out);
	e2e_out_free(&o);
	cr_assert(strncmp(path, "/tmp/", 5) != 0, "[%s, %s] the spill went to /tmp: %s", p->runner,
		  e2e_user_name(p->who), path);
	sbx_spill_remove(path);
	free(now);
	free(cmd);
	free(path);
}

/* /var/tmp is the system's: where it is missing (a minimal container), the
 * last spill home is passed over and /var/tmp is not made (made 0700 by
 * root, it would have shut every other user out). A private /var in a mount
 * namespace of the test's own stands for such a system. */
Test(spill, missing_var_tmp_is_not_made, .timeout = 60)
{
	char *tmp = e2e_tmpdir(AS_CALLER);
	char *script = e2e_fmt(
		"mount -t tmpfs none /var && "
		"env -i PATH=/usr/bin:/bin HOME=/nonexistent TMPDIR=%s %s run --json "
		"--mode read-only --output-limit 10 -- 'seq 1 100' > /dev/null && "
		"if [ -e /var/tmp ]; then echo made; ls -ld /var/tmp; else echo absent; fi",
		tmp, e2e_sbx());
	char *argv[] = { "unshare", "--mount", "--propagation", "private", "sh", "-c", script, NULL };
	struct e2e_out o;
	int rc = e2e_run(AS_CALLER, argv, NULL, &o);

	cr_assert(rc == 0 && strcmp(o.out, "absent\n") == 0,
		  "with no /var/tmp, a run that spilled: exit %d, /var/tmp %s %s", rc, o.out, o.err);
	e2e_out_free(&o);
	free(script);
	free(tmp);
}

/* ---- start-up cleanup ---- */

static void age(const char *path, time_t seconds_ago)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= seconds_ago;
	t[1] = t[0];
	cr_assert_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0, "%s: %s", path,
		     strerror(errno));
}

/* Age a directory and everything directly in it. */
static void age_dir(const char *dir, time_t seconds_ago)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(d, "%s", dir);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char *p = e2e_fmt("%s/%s", dir, e->d_name);

			age(p, seconds_ago);
			free(p);
		}
	closedir(d);
	age(dir, seconds_ago);
}

/* A directory made by hand: owner, mode, and files in it (NULL-terminated). */
static char *fake_dir(const char *base, const char *name, enum e2e_user owner, mode_t mode,
		      const char *const *files)
{
	char *d = e2e_fmt("%s/%s", base, name);

	cr_assert_eq(mkdir(d, 0700), 0, "%s: %s", d, strerror(errno));
	for (size_t i = 0; files && files[i]; i++) {
		char *f = e2e_fmt("%s/%s", d, files[i]);

		cr_assert_eq(e2e_write_file(owner, f, "x\n"), 0);
		cr_assert_eq(chmod(f, 0600), 0);
		free(f);
	}
	cr_assert_eq(chown(d, e2e_uid(owner), e2e_gid(owner)), 0);
	cr_assert_eq(chmod(d, mode), 0);
	age_dir(d, 2 * 86400);
	return d;
}

/* One real spill directory of w's user, made by a run; returns its path. */
static char *real_spill(const struct world *w)
{
	struct e2e_out o;
	int rc = sbx(w, &o, (char *[]){ "run", "--json", "--output-limit", "10", "--mode",
					"danger-full-access", "--", "seq 1 100", NULL });

	cr_assert_eq(rc, 0, "%s", o.err);
	json_t *j = parse(&o);
	char *dir = strdup(spill_path(j, "stdout"));

	*strrchr(dir, '/') = '\0';
	json_decref(j);
	e2e_out_free(&o);
	return dir;
}

static const char *const spill_files[] = { "stdout-AbCd1234", NULL };

struct cleanup_fixture {
	struct world w;
	char *old_real, *fresh_real, *old_in_tmp; /* sbx's own */
	char *kept[8];                            /* not sbx's, or not the caller's */
	size_t n_kept;
	char *symlink_target;
};

static void cleanup_fixture(struct cleanup_fixture *f, enum e2e_user who)
{
	world_init(&f->w, who);
	f->old_real = real_spill(&f->w);
	f->fresh_real = real_spill(&f->w);
	age_dir(f->old_real, 2 * 86400);

	char *home = spill_home(&f->w);
	const char *const notes[] = { "stdout-AbCd1234", "notes.txt", NULL };
	const char *const two_out[] = { "stdout-AbCd1234", "stdout-AbCd1235", NULL };
	size_t k = 0;

	/* In the spill home: an old directory holding something sbx never
	 * writes, one with a wider mode, one of the other user's, one with two
	 * stdout files, and one whose name sbx never gives. */
	f->kept[k++] = fake_dir(home, "sbx-spill-0123456789ab", who, 0700, notes);
	f->kept[k++] = fake_dir(home, "sbx-spill-bbbbbbbbbbbb", who, 0755, spill_files);
	f->kept[k++] = fake_dir(home, "sbx-spill-cccccccccccc", other(who), 0700, spill_files);
	f->kept[k++] = fake_dir(home, "sbx-spill-eeeeeeeeeeee", who, 0700, two_out);
	f->kept[k++] = fake_dir(home, "sbx-spill-notes", who, 0700, spill_files);
	/* A symlink with a spill name, to an old spill-like directory elsewhere. */
	f->symlink_target = fake_dir(f->w.cache, "elsewhere", who, 0700, spill_files);
	char *link = e2e_fmt("%s/sbx-spill-aaaaaaaaaaaa", home);

	cr_assert_eq(symlink(f->symlink_target, link), 0);
	cr_assert_eq(lchown(link, e2e_uid(who), e2e_gid(who)), 0);
	age(link, 2 * 86400);
	f->kept[k++] = link;
	/* In the shared fallback ($TMPDIR, sticky like /tmp): an old one of
	 * the user's own (removed) and one of the other user's (kept). */
	cr_assert_eq(chmod(f->w.tmp, 01777), 0);
	f->old_in_tmp = fake_dir(f->w.tmp, "sbx-spill-111111111111", who, 0700, spill_files);
	f->kept[k++] = fake_dir(f->w.tmp, "sbx-spill-222222222222", other(who), 0700, spill_files);
	f->n_kept = k;
	free(home);
}

static void check_kept(const struct cleanup_fixture *f)
{
	struct stat st;

	for (size_t i = 0; i < f->n_kept; i++)
		cr_assert_eq(lstat(f->kept[i], &st), 0, "%s was removed", f->kept[i]);
	cr_assert(e2e_exists(f->symlink_target), "the symlink's target was removed");
	char *t = e2e_fmt("%s/stdout-AbCd1234", f->symlink_target);

	cr_assert(e2e_exists(t), "a file behind the symlink was removed");
	free(t);
	t = e2e_fmt("%s/notes.txt", f->kept[0]);
	cr_assert(e2e_exists(t), "a file that is not sbx's was removed");
	free(t);
	cr_assert(e2e_exists(f->fresh_real), "a fresh spill was removed");
}

static void cleanup_by(enum e2e_user who, char *const args[])
{
	struct cleanup_fixture f;
	struct e2e_out o;

	cleanup_fixture(&f, who);
	cr_assert(e2e_exists(f.old_real));
	int rc = sbx(&f.w, &o, args);

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	e2e_out_free(&o);
	cr_assert_not(e2e_exists(f.old_real), "an old spill of sbx's stayed: %s", f.old_real);
	cr_assert_not(e2e_exists(f.old_in_tmp), "an old spill in $TMPDIR stayed");
	check_kept(&f);
}

Test(spill, cleanup_at_run_start_as_caller, .timeout = 60)
{
	cleanup_by(AS_CALLER, (char *[]){ "run", "--json", "--", "true", NULL });
}

Test(spill, cleanup_at_run_start_as_nobody, .timeout = 60)
{
	cleanup_by(AS_NOBODY, (char *[]){ "run", "--json", "--", "true", NULL });
}

/* serve cleans up when it starts, too (stdin is /dev/null: it ends at once). */
Test(spill, cleanup_at_serve_start, .timeout = 60)
{
	cleanup_by(AS_NOBODY, (char *[]){ "serve", NULL });
}

/* spill_max_age: younger than it stays, older goes; `never` keeps all. */
Test(spill, cleanup_honours_spill_max_age, .timeout = 60)
{
	struct world w;
	struct e2e_out o;

	world_init(&w, AS_NOBODY);
	char *young = real_spill(&w), *old = real_spill(&w);
	char *conf = e2e_fmt("%s/sbx.conf", w.tmp);

	age_dir(young, 60);
	age_dir(old, 300);
	cr_assert_eq(e2e_write_file(AS_NOBODY, conf, "spill_max_age = never\n"), 0);
	cr_assert_eq(sbx(&w, &o, (char *[]){ "run", "--config", conf, "--json", "--", "true", NULL }), 0);
	e2e_out_free(&o);
	cr_assert(e2e_exists(young) && e2e_exists(old), "spill_max_age = never removed a spill");

	cr_assert_eq(e2e_write_file(AS_NOBODY, conf, "spill_max_age = 120\n"), 0);
	cr_assert_eq(sbx(&w, &o, (char *[]){ "run", "--config", conf, "--json", "--", "true", NULL }), 0);
	e2e_out_free(&o);
	cr_assert(e2e_exists(young), "a spill younger than spill_max_age was removed");
	cr_assert_not(e2e_exists(old), "a spill older than spill_max_age stayed");
}

/* ---- sbx_spill_remove: what serve calls for a closed task ---- */

Test(spill, remove_deletes_files_then_the_directory, .timeout = 60)
{
	struct world w;
	struct e2e_out o;

	world_init(&w, AS_CALLER);
	cr_assert_eq(sbx(&w, &o, (char *[]){ "run", "--json", "--output-limit", "10", "--mode",
					     "danger-full-access", "--", "seq 1 100; seq 1 100 >&2",
					     NULL }),
		     0);
	json_t *j = parse(&o);
	const char *out = spill_path(j, "stdout"), *err = spill_path(j, "stderr");
	char *dir = strdup(out);

	*strrchr(dir, '/') = '\0';
	cr_assert_eq(sbx_spill_remove(out), 0);
	cr_assert_not(e2e_exists(out));
	cr_assert(e2e_exists(dir), "the directory still holds stderr's spill");
	cr_assert_eq(sbx_spill_remove(out), -ENOENT);
	cr_assert_eq(sbx_spill_remove(err), 0);
	cr_assert_not(e2e_exists(err));
	cr_assert_not(e2e_exists(dir), "the run's spill directory stayed");
	json_decref(j);
	e2e_out_free(&o);

	/* The JSON helper serve uses: every path of a result's "spill". */
	cr_assert_eq(sbx(&w, &o, (char *[]){ "run", "--json", "--output-limit", "10", "--mode",
					     "danger-full-access", "--", "seq 1 100; seq 1 100 >&2",
					     NULL }),
		     0);
	j = parse(&o);
	free(dir);
	dir = strdup(spill_path(j, "stdout"));
	*strrchr(dir, '/') = '\0';
	cr_assert_eq(spill_remove_result(j), 2);
	cr_assert_not(e2e_exists(dir));
	json_decref(j);
	e2e_out_free(&o);
	free(dir);
}

Test(spill, remove_refuses_what_is_not_sbx_s)
{
	char *d = e2e_tmpdir(AS_CALLER);
	char *plain = e2e_fmt("%s/notes.txt", d);
	char *theirs = e2e_fmt("%s/stdout-AbCd1234", d);
	char *target = e2e_fmt("%s/target", d);
	char *link = e2e_fmt("%s/stderr-AbCd1234", d);
	char *loose = e2e_fmt("%s/sbx-stdout-AbCd1234", d);

	cr_assert_eq(e2e_write_file(AS_CALLER, plain, "keep\n"), 0);
	cr_assert_eq(e2e_write_file(AS_NOBODY, theirs, "keep\n"), 0);
	cr_assert_eq(e2e_write_file(AS_CALLER, target, "keep\n"), 0);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(e2e_write_file(AS_CALLER, loose, "x\n"), 0);

	cr_assert_eq(sbx_spill_remove(plain), -EINVAL);
	cr_assert_eq(sbx_spill_remove("relative/stdout-AbCd1234"), -EINVAL);
	cr_assert_eq(sbx_spill_remove(NULL), -EINVAL);
	if (e2e_uid(AS_CALLER) != e2e_uid(AS_NOBODY))
		cr_assert_eq(sbx_spill_remove(theirs), -EPERM);
	cr_assert_eq(sbx_spill_remove(link), -EPERM);
	cr_assert(e2e_exists(plain) && e2e_exists(theirs) && e2e_exists(target));
	struct stat st;

	cr_assert_eq(lstat(link, &st), 0, "the symlink was removed");
	/* A spill directory swapped for a symlink is not followed. */
	char *real_dir = e2e_fmt("%s/real", d), *swapped = e2e_fmt("%s/sbx-spill-0123456789ab", d);
	char *victim = e2e_fmt("%s/stdout-AbCd1234", real_dir);
	char *via_link = e2e_fmt("%s/stdout-AbCd1234", swapped);

	cr_assert_eq(e2e_mkdir(AS_CALLER, real_dir), 0);
	cr_assert_eq(e2e_write_file(AS_CALLER, victim, "keep\n"), 0);
	cr_assert_eq(symlink(real_dir, swapped), 0);
	cr_assert_lt(sbx_spill_remove(via_link), 0);
	cr_assert(e2e_exists(victim), "a file behind a swapped spill directory was removed");
	/* A --spill-dir file (sbx-stdout-*) is sbx's; the directory it is in
	 * is the caller's own and stays. */
	cr_assert_eq(sbx_spill_remove(loose), 0);
	cr_assert_not(e2e_exists(loose));
	cr_assert(e2e_exists(d));
}
