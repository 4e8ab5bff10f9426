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
 * could be swapped for a symlink by the command: it is passed over, no
 * spill is made there, and the spill goes to the last home,
 * /var/tmp/sbx-UID/spill (sbx's own, hidden from confined runs). sbx's
 * state directory there is made, to be hidden (the command could make it
 * itself otherwise): the landlock runner, which cannot hide it, is refused
 * such a root. */
PARAMS(home_inside_root_passed_over)
ParameterizedTest(struct rp *p, spill, home_inside_root_passed_over, .timeout = 60)
{
	struct world w;
	struct e2e_out o;

	world_init(&w, p->who);
	int rc = sbx(&w, &o, (char *[]){ "run", "--mode", "workspace-write", "--runner", p->runner,
					 "--root", w.cache, "--json", "--output-limit", "10", "--",
					 "seq 1 100", NULL });

	char *sbx_dir = e2e_fmt("%s/sbx", w.cache);
	unsigned files = 0;

	cr_assert_eq(bytes_below(sbx_dir, &files), 0);
	cr_assert_eq(files, 0, "sbx left %u files in %s, inside the writable root", files, sbx_dir);
	if (strcmp(p->runner, "landlock") == 0) {
		cr_assert(rc == 125 && strstr(o.err, "sbx's state"), "exit %d: %s", rc, o.err);
		e2e_out_free(&o);
		return;
	}
	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	json_t *j = parse(&o);
	const char *path = spill_path(j, "stdout");
	char *last_home = e2e_fmt("/var/tmp/sbx-%u/spill/", (unsigned)e2e_uid(p->who));

	cr_assert_not_null(path);
	cr_assert(strncmp(path, last_home, strlen(last_home)) == 0,
		  "spill %s not in the last home %s", path, last_home);
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

/* The stdout spill of a workspace-write run on root in env (malloc'd). */
static char *spill_of_a_run(const struct rp *p, const char *root, char **env)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--output-limit", "100", "--runner",
			 (char *)p->runner, "--mode", "workspace-write", "--root", (char *)root,
			 "--", "seq 1 100000", NULL };
	struct e2e_out o;
	int rc = e2e_run(p->who, argv, env, &o);

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	json_t *j = parse(&o);
	char *path = strdup(spill_path(j, "stdout"));

	json_decref(j);
	e2e_out_free(&o);
	return path;
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
	struct e2e_out o;
	char *path = spill_of_a_run(p, root, env);

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

/* No home, but $XDG_RUNTIME_DIR: the spill goes to $XDG_RUNTIME_DIR/sbx/spill,
 * which was not hidden: another run of the user read and rewrote it
 * (adversarial pass 7, finding 14). Checked on the file itself, from a
 * read-only run of the same runner and a workspace-write one. */
PARAMS(runtime_dir_spill_is_out_of_another_runs_reach)
ParameterizedTest(struct rp *p, spill, runtime_dir_spill_is_out_of_another_runs_reach,
		  .timeout = 60)
{
	char *runtime = e2e_tmpdir(p->who);
	char *env[] = { "HOME=/nonexistent", "XDG_CACHE_HOME=", e2e_fmt("XDG_RUNTIME_DIR=%s", runtime),
			"TMPDIR=", NULL };
	char *root = e2e_tmpdir(p->who), *other_root = e2e_tmpdir(p->who);
	struct e2e_out o;

	cr_assert(chmod(runtime, 0700) == 0);
	char *path = spill_of_a_run(p, root, env);
	cr_assert(strncmp(path, runtime, strlen(runtime)) == 0, "[%s, %s] the spill is not in %s: %s",
		  p->runner, e2e_user_name(p->who), runtime, path);

	char *cmd = e2e_fmt("cat '%s' | head -c 20; echo TAMPERED > '%s'", path, path);
	const char *modes[] = { "read-only", "workspace-write" };

	for (size_t i = 0; i < 2; i++) {
		char *other[] = { (char *)e2e_sbx(), "run", "--runner", p->runner, "--mode",
				  (char *)modes[i], "--root", other_root, "--", cmd, NULL };

		e2e_run(p->who, other, env, &o);
		char *now = e2e_read_file(path);

		cr_expect(now && strncmp(now, "1\n2\n3\n", 6) == 0,
			  "[%s, %s, %s] another run rewrote the spill %s: %.40s", p->runner,
			  e2e_user_name(p->who), modes[i], path, now ? now : "(gone)");
		cr_expect_null(strstr(o.out, "1\n2\n3"), "[%s, %s, %s] another run read the spill %s",
			       p->runner, e2e_user_name(p->who), modes[i], path);
		e2e_out_free(&o);
		free(now);
	}
	sbx_spill_remove(path);
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

static char *real_spill(const struct world *w);

/* The spill home is the root itself (a root of .../sbx/spill): as much the
 * command's as a home inside the root. It is passed over; on the old code
 * the spill went there and the command rewrote it. Checked on the file. */
PARAMS(home_that_is_the_root_is_passed_over)
ParameterizedTest(struct rp *p, spill, home_that_is_the_root_is_passed_over, .timeout = 60)
{
	struct world w;
	struct e2e_out o;

	world_init(&w, p->who);
	char *dir = real_spill(&w), *root = spill_home(&w);
	int rc = sbx(&w, &o, (char *[]){ "run", "--mode", "workspace-write", "--runner", p->runner,
					 "--root", root, "--json", "--output-limit", "100", "--",
					 "seq 1 100000; for f in sbx-spill-*/*; do echo TAMPERED > "
					 "\"$f\"; done",
					 NULL });

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	json_t *j = parse(&o);
	const char *path = spill_path(j, "stdout");

	if (path) {
		char *now = e2e_read_file(path);

		cr_assert(now && strncmp(now, "1\n2\n3\n", 6) == 0,
			  "[%s, %s] the command rewrote its own spill %s: %.40s", p->runner,
			  e2e_user_name(p->who), path, now ? now : "(gone)");
		cr_assert(strncmp(path, root, strlen(root)) != 0, "spill %s in the root %s", path,
			  root);
		free(now);
		sbx_spill_remove(path);
	}
	json_decref(j);
	e2e_out_free(&o);
	free(dir);
	free(root);
}

/* The scenes below need a /var/tmp (and /tmp, /dev/shm) of their own: a
 * private mount namespace, so a root caller only. A shell script does the
 * scene as the user ($3: uid) and prints what the test checks. */
static void in_private_tmp(const struct rp *p, const char *scene, struct e2e_out *o)
{
	char *script = e2e_fmt(
		"set -e; runner=$2; u=$3; "
		"as() { if [ \"$u\" = 0 ]; then \"$@\"; else setpriv --reuid \"$u\" --regid \"$u\" "
		"--clear-groups \"$@\"; fi; }; "
		/* sbx's private copy lives in /tmp: copied before /tmp is covered. */
		"mount -t tmpfs -o mode=1777 sbx-e2e /var/tmp; sbx=/var/tmp/e2e-sbx; cp \"$1\" $sbx; "
		"for d in /tmp /dev/shm; do mount -t tmpfs -o mode=1777 sbx-e2e \"$d\"; done; "
		"export HOME=/nonexistent XDG_CACHE_HOME= XDG_RUNTIME_DIR= TMPDIR=; "
		"spill_of() { grep -o '\"spill\":{\"stdout\":\"[^\"]*\"' \"$1\" | cut -d'\"' -f6; }; "
		"%s",
		scene);
	char uid[16];

	/* Not skipped: without root this scene cannot be set, and says so. */
	cr_assert(e2e_uid(AS_CALLER) == 0,
		  "this test sets its scene in a private mount namespace with /var/tmp, /tmp "
		  "and /dev/shm of its own, and runs as other uids there: run it as root");
	snprintf(uid, sizeof(uid), "%u", (unsigned)e2e_uid(p->who));
	int rc = e2e_run(AS_CALLER,
			 (char *[]){ "unshare", "--mount", "--propagation", "private", "bash", "-c",
				     script, "_", (char *)e2e_sbx(), (char *)p->runner, uid, NULL },
			 NULL, o);

	cr_assert_eq(rc, 0, "[%s, %s] scene failed (%d): %s\n%s", p->runner,
		     e2e_user_name(p->who), rc, o->out, o->err);
	free(script);
}

/* What a scene printed after a marker line. */
static const char *after(const struct e2e_out *o, const char *marker)
{
	const char *m = strstr(o->out, marker);

	cr_assert_not_null(m, "no %s in: %s", marker, o->out);
	return m + strlen(marker);
}

/* /var/tmp/sbx-UID, the last home, does not exist yet when a run of the
 * user starts; then B, a run with no home, spills there. First R, a
 * read-only run with a home of its own (its state there, in /tmp), waits;
 * then (the home removed again) A, a workspace-write run whose root is
 * /var/tmp, could make the home itself, as the user, and waits. Neither
 * may read B's spill, nor A rewrite it. On the old code R read it (nothing
 * hides what does not exist when a run starts), and A made
 * /var/tmp/sbx-UID/spill, B's spill went into it, and A read and rewrote
 * it (both runners). Checked on the file. */
PARAMS(missing_last_home_is_never_a_runs_own)
ParameterizedTest(struct rp *p, spill, missing_last_home_is_never_a_runs_own, .timeout = 120)
{
	struct e2e_out o;

	in_private_tmp(
		p,
		"st=/var/tmp/sbx-$u/spill; mkdir /var/tmp/b /var/tmp/c /tmp/h; "
		"chown $u:$u /var/tmp/b /var/tmp/c /tmp/h; "
		/* Until the command of $1 (pid $2) runs, or the run ended. */
		"until_running() { for i in $(seq 1200); do "
		"pgrep -f \"^bash -c : $1\" >/dev/null && return; kill -0 $2 2>/dev/null || return 0; "
		"sleep 0.05; done; }; "
		"b() { as \"$sbx\" run --runner $runner --mode workspace-write --root /var/tmp/b "
		"--json --output-limit 100 -- 'seq 1 100000' > /var/tmp/b.json; "
		"path=$(spill_of /var/tmp/b.json); }; "
		"file() { echo \"PATH:$path\"; if [ -n \"$path\" ]; then echo FILE:; "
		"head -c 6 \"$path\"; fi; }; "
		/* R, then B. */
		"as env HOME=/tmp/h \"$sbx\" run --runner $runner --mode read-only --root "
		"/var/tmp/c --json -- \": e2e-r; while [ ! -e /var/tmp/done-r ]; do sleep 0.1; done; "
		"cat $st/*/*\" > /var/tmp/r.json 2>&1 & r=$!; "
		"until_running e2e-r $r; b; touch /var/tmp/done-r; wait $r || true; file; "
		"echo READER:; cat /var/tmp/r.json; echo; "
		/* A, then B. */
		"rm -rf /var/tmp/sbx-$u; "
		"as \"$sbx\" run --runner $runner --mode workspace-write --root /var/tmp --json -- "
		"\": e2e-a; mkdir -p $st; while [ ! -e /var/tmp/done-a ]; do sleep 0.1; done; "
		"cat $st/*/*; for f in $st/*/*; do echo TAMPERED > \\$f; done\" "
		"> /var/tmp/a.json 2>&1 & a=$!; "
		"until_running e2e-a $a; b; touch /var/tmp/done-a; wait $a || true; file; "
		"echo WRITER:; cat /var/tmp/a.json",
		&o);
	const char *file = strstr(o.out, "FILE:\n");

	/* B spills both times: to the home it made, or, on the old code, to
	 * the one A made. */
	cr_assert(file && (file = strstr(file + 1, "FILE:\n")), "[%s, %s] B did not spill: %.900s",
		  p->runner, e2e_user_name(p->who), o.out);
	cr_assert(strncmp(file + 6, "1\n2\n3\n", 6) == 0,
		  "[%s, %s] another run rewrote the spill: %.900s", p->runner, e2e_user_name(p->who),
		  o.out);
	cr_assert_null(strstr(after(&o, "READER:"), "99999"),
		       "[%s, %s] a run started before the home existed read the spill: %.900s",
		       p->runner, e2e_user_name(p->who), o.out);
	cr_assert_null(strstr(after(&o, "WRITER:"), "99999"),
		       "[%s, %s] a run whose root holds the home read the spill: %.900s", p->runner,
		       e2e_user_name(p->who), o.out);
	e2e_out_free(&o);
}

/* With no usable home at all (/var/tmp/sbx-UID a file of the user's own,
 * no $XDG_*; another user's would refuse workspace-write runs), the
 * spill's last resort may not be where a run of the user may write: not
 * /tmp for a read-only run, not $TMPDIR in /dev/shm for a workspace-write
 * one (the landlock runner's workspace-write writes the host's /tmp and
 * /dev/shm). Then there is no spill, and the result says so. On the old
 * code both spilled there, and a workspace-write run under the landlock
 * runner read and rewrote both files. Checked on the files. */
PARAMS(no_spill_where_a_run_of_the_user_may_write)
ParameterizedTest(struct rp *p, spill, no_spill_where_a_run_of_the_user_may_write, .timeout = 120)
{
	struct e2e_out o;

	in_private_tmp(
		p,
		"touch /var/tmp/sbx-$u; chown $u:$u /var/tmp/sbx-$u; mkdir /var/tmp/a /var/tmp/b /dev/shm/t; "
		"chown $u:$u /var/tmp/a /var/tmp/b /dev/shm/t; "
		"as \"$sbx\" run --runner $runner --mode read-only --root /var/tmp/b --json "
		"--output-limit 100 -- 'seq 1 100000' > /var/tmp/b1.json; "
		"as env TMPDIR=/dev/shm/t \"$sbx\" run --runner $runner --mode workspace-write "
		"--root /var/tmp/b --json --output-limit 100 -- 'seq 1 100000' > /var/tmp/b2.json; "
		"as \"$sbx\" run --runner landlock --mode workspace-write --root /var/tmp/a -- "
		"'for f in /tmp/sbx-spill-*/* /dev/shm/t/sbx-spill-*/*; do [ -f \"$f\" ] || "
		"continue; head -c 6 \"$f\"; echo TAMPERED > \"$f\"; done' > /var/tmp/a.out 2>&1 "
		"|| true; "
		"echo; for b in b1 b2; do path=$(spill_of /var/tmp/$b.json); echo \"$b:$path\"; "
		"if [ -n \"$path\" ]; then echo FILE:; head -c 6 \"$path\"; else "
		"grep -o '\"spill_stopped\":{\"stdout\":{\"reason\":\"error\"' /var/tmp/$b.json; fi; "
		"done; echo OTHER:; cat /var/tmp/a.out",
		&o);
	unsigned outcomes = 0;

	/* Each run either spilled (FILE) or said why not: never neither. */
	for (const char *f = strstr(o.out, "\"spill_stopped\""); f;
	     f = strstr(f + 1, "\"spill_stopped\""))
		outcomes++;
	for (const char *f = strstr(o.out, "FILE:\n"); f; f = strstr(f + 1, "FILE:\n"))
		outcomes++;
	cr_assert_eq(outcomes, 2, "[%s, %s] %.600s", p->runner, e2e_user_name(p->who), o.out);
	for (const char *f = strstr(o.out, "FILE:\n"); f; f = strstr(f + 1, "FILE:\n"))
		cr_assert(strncmp(f + 6, "1\n2\n3\n", 6) == 0,
			  "[%s, %s] another run rewrote a spill: %.400s", p->runner,
			  e2e_user_name(p->who), o.out);
	cr_assert_null(strstr(after(&o, "OTHER:"), "1\n2\n3"),
		       "[%s, %s] another run read a spill: %.400s", p->runner,
		       e2e_user_name(p->who), o.out);
	for (const char *const *b = (const char *const[]){ "\nb1:", "\nb2:", NULL }; *b; b++) {
		const char *l = strstr(o.out, *b);

		cr_assert_not_null(l, "no %s in: %s", *b + 1, o.out);
		l += 4;
		cr_assert(strncmp(l, "/tmp/", 5) != 0 && strncmp(l, "/dev/shm/", 9) != 0,
			  "[%s, %s] spilled where a run may write: %.400s", p->runner,
			  e2e_user_name(p->who), o.out);
	}
	e2e_out_free(&o);
}

/* sbx's state in a workspace-write root ($HOME, holding ~/.cache/sbx): the
 * command cannot move the way to it aside (`mv ~/.cache`) and put a
 * directory of its own where the user's later runs keep their state and
 * spills. On the old code the namespace runner's cover moved along with
 * ~/.cache, and the command's ~/.cache/sbx took its place. The landlock
 * runner is refused such a root. Checked on the directory's inode. */
PARAMS(state_in_the_root_stays_in_place)
ParameterizedTest(struct rp *p, spill, state_in_the_root_stays_in_place, .timeout = 60)
{
	char *base = e2e_tmpdir(p->who), *home = e2e_fmt("%s/home", base);
	char *state = e2e_fmt("%s/.cache/sbx", home), *moved = e2e_fmt("%s/moved", home);
	char *henv = e2e_fmt("HOME=%s", home), *other = e2e_tmpdir(p->who);
	char *env[] = { henv, "XDG_CACHE_HOME=", "XDG_RUNTIME_DIR=", NULL };
	struct stat before, now;
	struct e2e_out o;

	cr_assert_eq(e2e_mkdir(p->who, home), 0);
	e2e_run(p->who,
		(char *[]){ (char *)e2e_sbx(), "run", "--runner", p->runner, "--root", other, "--",
			    "true", NULL },
		env, &o);
	e2e_out_free(&o);
	cr_assert_eq(lstat(state, &before), 0, "no %s: the first run made no state", state);
	e2e_run(p->who,
		(char *[]){ (char *)e2e_sbx(), "run", "--runner", p->runner, "--mode",
			    "workspace-write", "--root", home, "--",
			    "mv ~/.cache ~/moved; mkdir -p ~/.cache/sbx/spill", NULL },
		env, &o);
	cr_assert_eq(lstat(state, &now), 0, "%s is gone", state);
	cr_assert(now.st_ino == before.st_ino && now.st_dev == before.st_dev,
		  "[%s, %s] the command put its own %s in place: %s", p->runner,
		  e2e_user_name(p->who), state, o.err);
	cr_assert_not(e2e_exists(moved), "[%s, %s] the command moved ~/.cache", p->runner,
		      e2e_user_name(p->who));
	e2e_out_free(&o);
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

/* mcp spills too (a bash call past the limit), so it cleans up when it
 * starts as well (it left them to pile up). */
Test(spill, cleanup_at_mcp_start_as_caller, .timeout = 60)
{
	cleanup_by(AS_CALLER, (char *[]){ "mcp", NULL });
}

Test(spill, cleanup_at_mcp_start_as_nobody, .timeout = 60)
{
	cleanup_by(AS_NOBODY, (char *[]){ "mcp", NULL });
}

/* A streaming sbx run spills nothing, and so sweeps nothing: its launch
 * reads no spill home and no $TMPDIR (sbx(1) FILES, sbx.conf(5)
 * spill_max_age say which front ends do). */
Test(spill, streaming_run_leaves_old_spills, .timeout = 60)
{
	struct cleanup_fixture f;
	struct e2e_out o;

	cleanup_fixture(&f, AS_NOBODY);
	int rc = sbx(&f.w, &o, (char *[]){ "run", "--", "true", NULL });

	cr_assert_eq(rc, 0, "exit %d: %s", rc, o.err);
	e2e_out_free(&o);
	cr_assert(e2e_exists(f.old_real), "a streaming run removed an old spill");
	cr_assert(e2e_exists(f.old_in_tmp), "a streaming run removed an old spill in $TMPDIR");
	check_kept(&f);
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
