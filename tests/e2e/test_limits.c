/* SPDX-License-Identifier: MIT */
/* Per-run resource limits (docs/limits.md), checked from outside: a fork loop
 * stays within its process limit while it runs (the process table) and
 * leaves nothing behind; a memory hog stops at its limit (how far it got, in
 * a file it kept writing); a big write stops at the file size limit (the
 * file on disk); and the defaults leave everyday work alone. Both runners,
 * as the caller and as an unprivileged user. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The fork tests' unprivileged user: a uid no other process uses, so that
 * the landlock runner's count (every task of the uid on the host) is the
 * run's own even while other tests run as nobody in parallel. */
#define FORK_UID 61234

/* One uid per runner and test: Criterion runs tests in parallel, and each
 * counts every task of its uid. */
static uid_t fork_uid(const char *runner, unsigned test)
{
	return (uid_t)(FORK_UID + 2 * test + (strcmp(runner, "landlock") == 0));
}

struct rp {
	char runner[16];
	enum e2e_user who;
};

static struct rp params[] = {
	{ "namespace", AS_CALLER }, { "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },  { "landlock", AS_NOBODY },
};

#define PARAMS(name)                                                                         \
	ParameterizedTestParameters(limits, name)                                             \
	{                                                                                     \
		return cr_make_param_array(struct rp, params, sizeof(params) / sizeof(params[0])); \
	}

static unsigned seq(void)
{
	static unsigned n;

	return ((unsigned)getpid() * 10u + ++n) % 1000000u;
}

static const char *who_name(const struct rp *p)
{
	return e2e_user_name(p->who);
}

static json_t *parse_json(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	cr_assert_not_null(j, "not JSON (%s): %s", je.text, text);
	return j;
}

/* limits.KEY of a result: its integer, -1 for null. */
static long long limit_of(json_t *res, const char *key)
{
	json_t *v = json_object_get(json_object_get(res, "limits"), key);

	cr_assert_not_null(v, "no limits.%s in the result", key);
	return json_is_null(v) ? -1 : (long long)json_integer_value(v);
}

static const char *hit_of(json_t *res)
{
	json_t *v = json_object_get(json_object_get(res, "limits"), "hit");

	cr_assert_not_null(v, "no limits.hit in the result");
	return json_is_string(v) ? json_string_value(v) : "null";
}

static bool markers_have(json_t *res, const char *needle)
{
	json_t *m = json_object_get(res, "markers"), *v;
	size_t i;

	json_array_foreach(m, i, v)
		if (strstr(json_string_value(v), needle))
			return true;
	return false;
}

/* ---- the process table ---- */

/* Tasks whose comm is name; with uid != (uid_t)-1, every task of that uid
 * outside the thread group `aside` (0: none). */
static int count_tasks_but(const char *name, uid_t uid, pid_t aside)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[300], buf[4096];
		ssize_t len;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (aside > 0 && atoi(de->d_name) == aside)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (name) {
			char want[64];

			snprintf(want, sizeof(want), "Name:\t%s\n", name);
			if (strncmp(buf, want, strlen(want)) == 0)
				n++;
		} else {
			const char *u = strstr(buf, "\nUid:\t"), *t = strstr(buf, "\nThreads:\t");

			if (u && t && (uid_t)strtoul(u + 6, NULL, 10) == uid)
				n += atoi(t + 10);
		}
	}
	closedir(d);
	return n;
}

static int count_tasks(const char *name, uid_t uid)
{
	return count_tasks_but(name, uid, 0);
}

static void kill_named(const char *name)
{
	char *cmd = e2e_fmt("pkill -9 -x '%s' >/dev/null 2>&1", name);
	int rc = system(cmd);

	(void)rc;
	free(cmd);
}

/* sh -c script as uid (0: the caller), in dir, not waited for. */
static pid_t spawn_sh(uid_t uid, const char *dir, const char *script)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		if (uid != 0 && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
				 setresuid(uid, uid, uid)))
			_exit(126);
		if (chdir(dir) < 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* ---- a fork loop stays within its process limit ---- */

/* Runs the fork loop (ATTEMPTS forks) under `limit` ("" for sbx's default)
 * and checks, while it runs and after, from the process table. */
static void fork_loop(const char *runner, uid_t uid, const char *limit, int attempts)
{
	const char *who = uid ? "an unprivileged user" : "the caller";
	char *root = e2e_tmpdir(AS_CALLER);
	char *name = e2e_fmt("fl%u", seq());
	char *done = e2e_fmt("%sd", name);
	char *release = e2e_fmt("%s/release", root);
	char *out = e2e_fmt("%s/out.json", root);
	/* "danger": danger-full-access, no runner at all. */
	bool danger = strcmp(runner, "danger") == 0;
	char *script = e2e_fmt("exec %s run --json %s %s %s %s --timeout 300 -- %s %s %d %s "
			       ">%s 2>%s/err.txt",
			       e2e_sbx(), danger ? "--mode" : "--runner",
			       danger ? "danger-full-access" : runner, limit[0] ? "--max-processes" : "", limit,
			       e2e_helper("forkloop"), name, attempts, release, out, root);
	int before = uid ? count_tasks(NULL, uid) : 0;
	int st, inside = 0;
	pid_t pid;

	cr_assert_eq(chown(root, uid, uid), 0);
	pid = spawn_sh(uid, root, script);
	/* Until the loop is done forking (it takes the name "...d"), or sbx
	 * ended early. A deadline against a hang, not a timed assert. */
	for (int i = 0; i < 6000 && count_tasks(done, (uid_t)-1) == 0; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			cr_assert_fail("[%s %s] sbx ended before the loop was done: %s", runner, who,
				       e2e_read_file(e2e_fmt("%s/err.txt", root)));
		usleep(20 * 1000);
	}
	inside = count_tasks(name, (uid_t)-1);
	/* sbx's own threads aside (the sh execs it): their number is sbx's
	 * business (io_uring adds workers under load), the command's is the
	 * limit's. */
	int uid_tasks = uid ? count_tasks_but(NULL, uid, pid) : 0;

	cr_assert_eq(e2e_write_file(AS_CALLER, release, "go\n"), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "[%s %s] sbx: status %#x", runner, who, st);

	json_t *res = parse_json(e2e_read_file(out));
	long long max = limit_of(res, "processes");

	cr_assert_gt(max, 0, "[%s %s] no process limit enforced: %s", runner, who, e2e_read_file(out));
	if (limit[0])
		cr_assert_eq(max, atoll(limit));
	/* The loop itself and the dead-man helper count too. */
	cr_expect_leq(inside + 1, max, "[%s %s] %d forked processes under a limit of %lld", runner,
		      who, inside, max);
	cr_expect_geq(inside, max / 2, "[%s %s] only %d processes: the loop did not run", runner,
		      who, inside);
	/* The limit's processes, and the landlock runner's dead-man helper. */
	if (uid)
		cr_expect_leq(uid_tasks - before, max + 1,
			      "[%s %s] the uid holds %d tasks more than before (sbx aside)",
			      runner, who, uid_tasks - before);
	cr_expect_str_eq(hit_of(res), "processes", "[%s %s] %s", runner, who, e2e_read_file(out));
	cr_expect(markers_have(res, "reached its process limit"), "[%s %s] no marker", runner, who);

	/* Nothing of the run is left: the host's count is back. */
	for (int i = 0; i < 250 && count_tasks(name, (uid_t)-1) > 0; i++)
		usleep(20 * 1000);
	cr_expect_eq(count_tasks(name, (uid_t)-1), 0, "[%s %s] forked processes outlived the run",
		     runner, who);
	if (uid)
		cr_expect_eq(count_tasks(NULL, uid), before, "[%s %s] tasks of the uid are left",
			     runner, who);
	kill_named(name);
	json_decref(res);
}

struct fp {
	char runner[16];
	bool unprivileged;
};

static struct fp fork_params[] = {
	{ "namespace", false }, { "namespace", true },
	{ "landlock", false },  { "landlock", true },
};

ParameterizedTestParameters(limits, fork_loop_stays_within)
{
	return cr_make_param_array(struct fp, fork_params, 4);
}

ParameterizedTest(struct fp *p, limits, fork_loop_stays_within, .timeout = 180)
{
	fork_loop(p->runner, p->unprivileged ? fork_uid(p->runner, 0) : 0, "20", 300);
}

/* sbx's default (963 here: pid_max 32768 shared by 17 runs) holds a loop
 * that would take 1500. */
ParameterizedTestParameters(limits, fork_loop_default_limit)
{
	static struct fp two[] = { { "namespace", false }, { "landlock", true } };

	return cr_make_param_array(struct fp, two, 2);
}

ParameterizedTest(struct fp *p, limits, fork_loop_default_limit, .timeout = 180)
{
	fork_loop(p->runner, p->unprivileged ? fork_uid(p->runner, 1) : 0, "", 1500);
}

/* Outside a user namespace RLIMIT_NPROC counts every task of the caller's
 * real uid: the run's share is the limit above what the caller already runs
 * (docs/limits.md). 60 other tasks of the caller, as a setuid program of
 * its would be (real uid the caller's, effective uid root: their /proc
 * entries belong to root), leave the run its full share, and the run gets no
 * more than it. (The count walked /proc before and missed them: the loop
 * got nothing.) */
ParameterizedTestParameters(limits, share_beside_the_callers_other_tasks)
{
	static struct fp two[] = { { "landlock", true }, { "danger", true } };

	return cr_make_param_array(struct fp, two, 2);
}

ParameterizedTest(struct fp *p, limits, share_beside_the_callers_other_tasks, .timeout = 180)
{
	uid_t uid = fork_uid(p->runner, strcmp(p->runner, "danger") == 0 ? 3 : 2);
	char *other = e2e_fmt("ot%u", seq());
	pid_t pids[60];

	fflush(NULL);
	for (int i = 0; i < 60; i++) {
		pids[i] = fork();
		cr_assert_geq(pids[i], 0);
		if (pids[i] == 0) {
			prctl(PR_SET_NAME, other, 0, 0, 0);
			/* Gone with the test's process if an assertion ends it
			 * (set after the uid change, which clears it). */
			if (setgroups(0, NULL) || setresgid(uid, 0, 0) || setresuid(uid, 0, 0) ||
			    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() == 1)
				_exit(126);
			for (;;)
				pause();
		}
	}
	for (int i = 0; i < 1500 && count_tasks(other, (uid_t)-1) < 60; i++)
		usleep(20 * 1000);
	cr_assert_eq(count_tasks(other, (uid_t)-1), 60, "the caller's other tasks did not start");
	fork_loop(p->runner, uid, "40", 300);
	for (int i = 0; i < 60; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* ---- a memory hog stops at its limit ---- */

PARAMS(memory_hog_stops)
ParameterizedTest(struct rp *p, limits, memory_hog_stops, .timeout = 120)
{
	char *root = e2e_tmpdir(p->who);
	/* 8 MiB at a time, each touched, and how far it got written down. */
	const char *hog = "/usr/bin/python3 -c 'b = []\n"
			  "while True:\n"
			  "    b.append(bytearray(8 << 20))\n"
			  "    open(\"reached\", \"w\").write(str(8 * len(b)))\n'";
	struct e2e_out o;

	e2e_sbx_run(p->who, &o, "--json", "--runner", p->runner, "--mode", "workspace-write",
		    "--root", root, "--memory", "64M", "--", hog, NULL);
	json_t *res = parse_json(o.out);
	char *reached = e2e_read_file(e2e_fmt("%s/reached", root));

	cr_assert_not_null(reached, "[%s %s] the hog never allocated: %s", p->runner, who_name(p),
			   o.out);
	cr_expect_leq(atoi(reached), 64, "[%s %s] the hog held %s MiB under a 64 MiB limit",
		      p->runner, who_name(p), reached);
	cr_expect_eq(limit_of(res, "memory"), 64LL << 20);
	cr_expect_neq(json_integer_value(json_object_get(res, "exit_code")), 0);
	cr_expect_str_eq(hit_of(res), "memory", "[%s %s] %s", p->runner, who_name(p), o.out);
	cr_expect(markers_have(res, "reached its memory limit (67108864 bytes)"),
		  "[%s %s] no marker: %s", p->runner, who_name(p), o.out);
	json_decref(res);
	e2e_out_free(&o);
}

/* ---- a big write stops at the file size limit ---- */

PARAMS(file_size_stops_a_big_write)
ParameterizedTest(struct rp *p, limits, file_size_stops_a_big_write, .timeout = 120)
{
	char *root = e2e_tmpdir(p->who);
	char *big = e2e_fmt("%s/big", root);
	struct e2e_out o;
	struct stat st;

	e2e_sbx_run(p->who, &o, "--json", "--runner", p->runner, "--mode", "workspace-write",
		    "--root", root, "--file-size", "1M", "--", "head -c 5000000 /dev/zero > big",
		    NULL);
	json_t *res = parse_json(o.out);

	cr_assert_eq(stat(big, &st), 0, "[%s %s] nothing written: %s", p->runner, who_name(p), o.out);
	cr_expect_eq(st.st_size, 1 << 20, "[%s %s] %lld bytes on disk under a 1 MiB limit",
		     p->runner, who_name(p), (long long)st.st_size);
	cr_expect_eq(limit_of(res, "file_size"), 1 << 20);
	cr_expect_str_eq(hit_of(res), "file_size", "[%s %s] %s", p->runner, who_name(p), o.out);
	cr_expect(markers_have(res, "reached its file size limit"), "[%s %s] %s", p->runner,
		  who_name(p), o.out);
	json_decref(res);
	e2e_out_free(&o);
}

/* ---- the defaults leave everyday work alone ---- */

PARAMS(defaults_leave_everyday_work_alone)
ParameterizedTest(struct rp *p, limits, defaults_leave_everyday_work_alone, .timeout = 240)
{
	char *root = e2e_tmpdir(p->who);
	const char *cmd =
		"set -e; "
		"/usr/bin/python3 -c 'import subprocess, concurrent.futures as f; "
		"r = f.ThreadPoolExecutor(16).map(lambda i: subprocess.run([\"true\"]).returncode, "
		"range(200)); print(\"pool\", len([c for c in r if c == 0]))'; "
		"/usr/bin/python3 -c 'import threading; ts = [threading.Thread(target=len, args=(\"x\",)) "
		"for _ in range(64)]; [t.start() for t in ts]; [t.join() for t in ts]; print(\"threads\")'; "
		"printf 'int main(void){return 0;}\\n' > t.c; gcc -O2 -o t t.c; ./t; echo cc; "
		"git init -q repo; cd repo; echo a > a; git add a; "
		"git -c user.email=a@b -c user.name=n commit -qm one; git log --oneline | wc -l; "
		"node -e 'console.log(\"node\", Buffer.alloc(64 << 20).length)'; "
		"f=$(mktemp /tmp/sbx-limits.XXXXXX); head -c 100000000 /dev/zero > $f; "
		"echo tmp $(wc -c < $f); rm -f $f";
	struct e2e_out o;

	int rc = e2e_sbx_run(p->who, &o, "--json", "--runner", p->runner, "--mode",
			     "workspace-write", "--root", root, "--", cmd, NULL);
	json_t *res = parse_json(o.out);
	const char *out = json_string_value(json_object_get(res, "stdout"));

	cr_expect_eq(rc, 0, "[%s %s] exit %d: %s", p->runner, who_name(p), rc, o.out);
	cr_expect(out && strstr(out, "pool 200\n") && strstr(out, "threads\n") &&
		  strstr(out, "cc\n") && strstr(out, "\n1\n") && strstr(out, "node 67108864\n") &&
		  strstr(out, "tmp 100000000\n"),
		  "[%s %s] %s", p->runner, who_name(p), o.out);
	cr_expect_gt(limit_of(res, "processes"), 0, "[%s %s] %s", p->runner, who_name(p), o.out);
	cr_expect_str_eq(hit_of(res), "null");
	json_decref(res);
	e2e_out_free(&o);
}

/* A limit cannot be given wrong: the run is refused before anything starts. */
Test(limits, bad_flags_are_refused)
{
	const char *bad[][2] = { { "--max-processes", "0" }, { "--memory", "1M" },
				 { "--file-size", "lots" }, { "--memory", "-5" } };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct e2e_out o;
		int rc = e2e_sbx_run(AS_CALLER, &o, bad[i][0], bad[i][1], "--", "echo ran", NULL);

		cr_expect_eq(rc, 125, "%s %s: exit %d", bad[i][0], bad[i][1], rc);
		cr_expect(strstr(o.err, "sbx: ") && !strstr(o.out, "ran"), "%s %s: %s", bad[i][0],
			  bad[i][1], o.err);
		e2e_out_free(&o);
	}
}

/* ---- a cgroup v2 of the run's own (where the caller has delegation) ---- */

/* The v2 cgroup sbx would give runs here, as `sbx probe` says; skips with
 * probe's reason where the kernel gives none (this machine: v2 without pids
 * and memory); scripts/vm-check.sh runs these in its qemu VM, which has it. */
static void need_cgroup_v2(void)
{
	char *argv[] = { (char *)e2e_sbx(), "probe", "--json", NULL };
	struct e2e_out o;

	e2e_run(AS_CALLER, argv, NULL, &o);
	json_t *lim = json_object_get(parse_json(o.out), "limits");
	json_t *cg = json_object_get(lim, "cgroup");
	const char *version = json_string_value(json_object_get(cg, "version"));

	if (!version || strcmp(version, "v2") != 0)
		cr_skip_test("no cgroup v2 for runs here: %s",
			     json_string_value(json_object_get(lim, "cgroup_reason")) ?: "?");
}

ParameterizedTestParameters(limits, cgroup_v2_memory_oom)
{
	static struct fp two[] = { { "namespace", false }, { "landlock", false } };

	return cr_make_param_array(struct fp, two, 2);
}

/* The whole run's memory: the OOM killer ends the hog inside the run, and
 * the result says so from memory.events. */
ParameterizedTest(struct fp *p, limits, cgroup_v2_memory_oom, .timeout = 120)
{
	need_cgroup_v2();
	char *root = e2e_tmpdir(AS_CALLER);
	/* perl: the qemu VM, where this runs, has no python. */
	const char *hog = "perl -e '$b = \"a\" x (512 << 20); print length($b), \"\\n\"'";
	struct e2e_out o;

	e2e_sbx_run(AS_CALLER, &o, "--json", "--runner", p->runner, "--root", root, "--memory",
		    "64M", "--", hog, NULL);
	json_t *res = parse_json(o.out);

	cr_expect(json_is_true(json_object_get(json_object_get(res, "limits"), "cgroup")), "%s",
		  o.out);
	cr_expect_str_eq(hit_of(res), "memory", "[%s] %s", p->runner, o.out);
	cr_expect_eq(limit_of(res, "memory"), 64LL << 20);
	json_decref(res);
	e2e_out_free(&o);
}

ParameterizedTestParameters(limits, cgroup_v2_fork_loop)
{
	static struct fp two[] = { { "namespace", false }, { "landlock", false } };

	return cr_make_param_array(struct fp, two, 2);
}

/* Root is exempt from RLIMIT_NPROC: here pids.max alone holds the loop. */
ParameterizedTest(struct fp *p, limits, cgroup_v2_fork_loop, .timeout = 180)
{
	need_cgroup_v2();
	fork_loop(p->runner, 0, "20", 300);
}
