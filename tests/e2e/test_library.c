/* SPDX-License-Identifier: MIT */
/* libsbx as a harness embeds it (docs/embedding.md): what a setter accepts
 * is what the run does. The test process runs the library itself. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "runner_params.h"
#include "sbx.h"

/* A timeout the run cannot honour is refused by the setter, never turned
 * into one that ends the command at once: UINT64_MAX (SBX_LIMIT_OFF's
 * value, a harness's natural "no limit") used to overflow the deadline and
 * kill every command as timed out. The bound is --timeout's, a week. */
Test(library, timeout_out_of_range_is_refused, .timeout = 60)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	char *root = e2e_tmpdir(AS_CALLER);

	cr_assert_not_null(run);
	cr_assert_eq(sbx_run_set_command(run, "sleep 0.2; echo done"), 0);
	cr_assert_eq(sbx_run_set_root(run, root), 0);
	/* "" names no place: refused, not taken as the current directory. */
	cr_assert_eq(sbx_run_set_root(run, ""), -EINVAL);
	cr_assert_eq(sbx_run_set_cwd(run, ""), -EINVAL);
	cr_assert_eq(sbx_run_set_spill_dir(run, ""), -EINVAL);
	cr_assert_eq(sbx_run_set_timeout_ms(run, UINT64_MAX), -EINVAL);
	cr_assert_eq(sbx_run_set_timeout_ms(run, 604800001), -EINVAL);
	cr_assert_eq(sbx_run_set_timeout_ms(run, 604800000), 0);
	cr_assert_eq(sbx_run_execute(run, &res, &err), 0, "%s: %s", err.code, err.message);
	char *js = sbx_result_to_json(res);
	json_t *j = json_loads(js, 0, NULL);

	cr_assert_not_null(j, "%s", js);
	cr_assert(json_is_false(json_object_get(j, "timed_out")), "%s", js);
	cr_assert_eq(json_integer_value(json_object_get(j, "exit_code")), 0, "%s", js);
	cr_assert_str_eq(json_string_value(json_object_get(j, "stdout")), "done\n", "%s", js);
	json_decref(j);
	free(js);
	sbx_result_free(res);
	sbx_run_free(run);
	free(root);
}

/* SBX_COLLECTOR is io_uring or poll (sbx(1) ENVIRONMENT); any other value
 * is refused (USAGE) before the command runs, as sbx's front ends refuse
 * it: it used to be ignored in silence. Empty counts as unset. */
Test(library, bad_collector_is_refused, .timeout = 60)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	char *root = e2e_tmpdir(AS_CALLER);
	char *cmd = e2e_fmt("touch %s/ran", root);
	char *ran = e2e_fmt("%s/ran", root);

	cr_assert_not_null(run);
	cr_assert_eq(sbx_run_set_command(run, cmd), 0);
	cr_assert_eq(sbx_run_set_root(run, root), 0);
	cr_assert_eq(sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE), 0);
	cr_assert_eq(setenv("SBX_COLLECTOR", "bogus", 1), 0);
	cr_assert_lt(sbx_run_execute(run, &res, &err), 0, "SBX_COLLECTOR=bogus was accepted");
	cr_assert_str_eq(err.code, "USAGE");
	cr_assert_str_eq(err.message, "SBX_COLLECTOR: bad value 'bogus' (expected io_uring or poll, "
				      "or unset for the default)");
	cr_assert(!e2e_exists(ran), "the command ran");
	cr_assert_eq(setenv("SBX_COLLECTOR", "", 1), 0);
	cr_assert_eq(sbx_run_execute(run, &res, &err), 0, "%s: %s", err.code, err.message);
	cr_assert(e2e_exists(ran), "the command did not run with SBX_COLLECTOR empty");
	unsetenv("SBX_COLLECTOR");
	sbx_result_free(res);
	sbx_run_free(run);
	free(ran);
	free(cmd);
	free(root);
}

/* The setter takes what --output-limit takes, no more: 1073741825 used to
 * be accepted by the library while the CLI and sbx.conf refused it. */
Test(library, output_limit_bounds_are_the_cli_s)
{
	struct sbx_run *run = sbx_run_new();

	cr_assert_not_null(run);
	cr_assert_eq(sbx_run_set_output_limit(run, 1), -EINVAL);
	cr_assert_eq(sbx_run_set_output_limit(run, 2), 0);
	cr_assert_eq(sbx_run_set_output_limit(run, 1073741824), 0);
	cr_assert_eq(sbx_run_set_output_limit(run, 1073741825), -EINVAL);
	sbx_run_free(run);
}

/* ---- runs started on several threads at once ---- */

#define THREADS 2
/* The race lost about one run in ten with two threads: 150 each in make
 * check, 25 in the inner loop (e2e_quick). */
#define RUNS_EACH (e2e_quick() ? 25 : 150)

/* One case of the matrix: a runner for both confined modes' runs, or none
 * (danger-full-access), as the caller or as nobody, in a program that has
 * opted in to being the runs' subreaper (sbx_process_opt_in, as sbx serve
 * does: then a run's end walks the program's children) or not (each run has
 * its own keeper or init). */
struct threads_param {
	int runner; /* enum runner, -1: danger-full-access */
	int user;   /* enum e2e_user */
	int opt_in; /* sbx_process_opt_in(SBX_PROCESS_SUBREAPER) first */
};

static struct threads_param threads_params[] = {
	{ NAMESPACE, AS_CALLER, 1 }, { NAMESPACE, AS_NOBODY, 1 }, { LANDLOCK, AS_CALLER, 1 },
	{ LANDLOCK, AS_NOBODY, 1 },  { -1, AS_CALLER, 1 },        { -1, AS_NOBODY, 1 },
	{ LANDLOCK, AS_CALLER, 0 },  { LANDLOCK, AS_NOBODY, 0 },  { -1, AS_CALLER, 0 },
	{ -1, AS_NOBODY, 0 },
};

struct threads_case {
	const char *root;
	int runner;
	int opt_in;
};

struct one_thread {
	const struct threads_case *c;
	int id;
	int errors, failed; /* runs refused; runs that did not exit 0 */
};

static void *start_runs(void *arg)
{
	struct one_thread *t = arg;

	for (int i = 0; i < RUNS_EACH; i++) {
		struct sbx_run *run = sbx_run_new();
		struct sbx_result *res = NULL;
		struct sbx_error err = { 0 };
		char cmd[64];

		/* its last act, seen from outside: the file */
		snprintf(cmd, sizeof(cmd), ": > done.%d.%d", t->id, i);
		sbx_run_set_command(run, cmd);
		sbx_run_set_root(run, t->c->root);
		sbx_run_set_timeout_ms(run, 60000);
		if (t->c->runner < 0) {
			sbx_run_set_mode(run, SBX_MODE_DANGER_FULL_ACCESS);
		} else {
			sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE);
			sbx_run_set_runner(run, t->c->runner == LANDLOCK ? SBX_RUNNER_LANDLOCK
									  : SBX_RUNNER_NAMESPACE);
		}
		if (sbx_run_execute(run, &res, &err) < 0) {
			if (!t->errors++)
				fprintf(stderr, "thread %d run %d: %s: %s\n", t->id, i, err.code,
					err.message);
		} else if (sbx_result_exit_status(res) != 0) {
			char *js = sbx_result_to_json(res);

			if (!t->failed++)
				fprintf(stderr, "thread %d run %d: %s\n", t->id, i, js);
			free(js);
		}
		sbx_result_free(res);
		sbx_run_free(run);
	}
	return NULL;
}

/* 0: every run exited 0; 2: a run was refused; 3: a run did not exit 0. */
static int threads_child(const void *arg)
{
	const struct threads_case *c = arg;
	struct one_thread t[THREADS];
	pthread_t th[THREADS];
	int errors = 0, failed = 0;

	if (c->opt_in && sbx_process_opt_in(SBX_PROCESS_SUBREAPER) < 0)
		return 4;

	for (int i = 0; i < THREADS; i++) {
		t[i] = (struct one_thread){ .c = arg, .id = i };
		if (pthread_create(&th[i], NULL, start_runs, &t[i]) != 0)
			return 4;
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		errors += t[i].errors;
		failed += t[i].failed;
	}
	if (errors || failed)
		fprintf(stderr, "%d runs refused, %d did not exit 0, of %d\n", errors, failed,
			THREADS * RUNS_EACH);
	return errors ? 2 : failed ? 3 : 0;
}

/* How many files in dir have names starting with prefix. */
static int count_named(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

ParameterizedTestParameters(library, runs_on_several_threads_do_not_kill_each_other)
{
	return cr_make_param_array(struct threads_param, threads_params,
				   sizeof(threads_params) / sizeof(threads_params[0]));
}

/* A harness may run commands from several threads at once. In a program
 * that opted in, the end of one run kills what the run left behind: every
 * child of the process that no live run names. On the old code that took
 * the children of another thread's run still being started: the landlock runner's and unconfined
 * runs were SIGKILLed (about one in ten with two threads), and a kill that
 * landed after the supervisor's handoff helper was cloned kept that run's
 * start waiting for good (CI: supervisor::copies_for_passed_fds_are_
 * bounded_across_runs). */
ParameterizedTest(struct threads_param *p, library, runs_on_several_threads_do_not_kill_each_other,
		  .timeout = 240)
{
	enum e2e_user who = (enum e2e_user)p->user;
	char *base = e2e_tmpdir(who), *root = e2e_fmt("%s/ws", base);
	struct threads_case c = { .root = root, .runner = p->runner, .opt_in = p->opt_in };
	const char *name = p->runner < 0 ? "none" : runner_name[p->runner];
	int status, done;

	cr_assert(e2e_mkdir(who, root) == 0);
	status = e2e_in_child_as(who, threads_child, &c);
	done = count_named(root, "done.");
	cr_assert(status != 4 && status != 5, "[runner %s, user %s] no threads (status %d)", name,
		  e2e_user_name(who), status);
	cr_assert(status == 0 && done == THREADS * RUNS_EACH,
		  "[runner %s, user %s%s] with runs started on %d threads at once, %d of %d "
		  "commands ran to their end (status %d: 2 a run refused, 3 a run killed or "
		  "failed)", name, e2e_user_name(who), p->opt_in ? ", opted in" : "", THREADS, done,
		  THREADS * RUNS_EACH, status);
	free(root);
	free(base);
}

/* ---- the first runs of a process, on several threads at once ---- */

#define FIRST_THREADS 8
#define FIRST_PROCESSES 24

struct first_run {
	const char *root;
	pthread_barrier_t *go;
	int failed;
};

static void *first_run_thread(void *arg)
{
	struct first_run *t = arg;
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };

	sbx_run_set_command(run, "true");
	sbx_run_set_root(run, t->root);
	sbx_run_set_mode(run, SBX_MODE_DANGER_FULL_ACCESS);
	pthread_barrier_wait(t->go);
	if (sbx_run_execute(run, &res, &err) < 0) {
		fprintf(stderr, "%s: %s\n", err.code, err.message);
		t->failed = 1;
	} else {
		t->failed = sbx_result_exit_status(res) != 0;
		sbx_result_free(res);
	}
	sbx_run_free(run);
	return NULL;
}

/* 0: every run of a fresh process, all started at once, ran. */
static int first_runs_child(const void *arg)
{
	struct first_run t[FIRST_THREADS];
	pthread_t th[FIRST_THREADS];
	pthread_barrier_t go;
	int failed = 0;

	/* A long PATH, bash at its end: the lookup takes a while. */
	static char path[16 * 1024];
	size_t at = 0;

	for (int i = 0; i < 1500; i++)
		at += (size_t)snprintf(path + at, sizeof(path) - at, "/none/%d:", i);
	snprintf(path + at, sizeof(path) - at, "/usr/bin:/bin");
	setenv("PATH", path, 1);
	pthread_barrier_init(&go, NULL, FIRST_THREADS);
	for (int i = 0; i < FIRST_THREADS; i++) {
		t[i] = (struct first_run){ .root = arg, .go = &go };
		if (pthread_create(&th[i], NULL, first_run_thread, &t[i]) != 0)
			return 4;
	}
	for (int i = 0; i < FIRST_THREADS; i++) {
		pthread_join(th[i], NULL);
		failed += t[i].failed;
	}
	return failed ? 3 : 0;
}

/* The first run of a process looks bash up in PATH, and kept what it found
 * in a buffer of the process's: another thread's first run read the buffer
 * while it held a PATH entry being tried (/usr/sbin/bash) and failed with
 * SPAWN_FAILED, ENOENT (the thread race of runs_on_several_threads, one
 * time in about twenty). Fresh processes with a long PATH, each starting
 * its first runs on eight threads at once. */
Test(library, first_runs_on_several_threads_find_bash, .timeout = 240)
{
	char *root = e2e_tmpdir(AS_CALLER);
	int bad = 0;

	for (int i = 0; i < FIRST_PROCESSES; i++)
		bad += e2e_in_child_as(AS_CALLER, first_runs_child, root) != 0;
	cr_assert_eq(bad, 0, "%d of %d processes had a first run that could not start bash", bad,
		     FIRST_PROCESSES);
}

/* ---- SIGCHLD ---- */

struct sigchld_case {
	const char *root;
	int flags; /* SA_NOCLDWAIT, or 0: SIG_IGN */
};

/* 0: refused as it must be; 2: ran (3: and reported its exit status). */
static int sigchld_child(const void *arg)
{
	const struct sigchld_case *c = arg;
	struct sigaction sa = { .sa_handler = SIG_IGN };
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	int rc;

	if (c->flags) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = c->flags;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		return 4;
	sbx_run_set_command(run, ": > ran; exit 42");
	sbx_run_set_root(run, c->root);
	sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE);
	/* the old code's namespace run waited for an exit it never saw */
	sbx_run_set_timeout_ms(run, 20000);
	rc = sbx_run_execute(run, &res, &err);
	if (rc == 0) {
		fprintf(stderr, "ran; exit status %d\n", sbx_result_exit_status(res));
		return sbx_result_exit_status(res) == 42 ? 3 : 2;
	}
	if (strcmp(err.code, SBX_E_USAGE) != 0 || !strstr(err.message, "SIGCHLD")) {
		fprintf(stderr, "refused, but not for SIGCHLD: %s: %s\n", err.code, err.message);
		return 5;
	}
	return 0;
}

/* An ignored SIGCHLD (SIG_IGN, or SA_NOCLDWAIT) makes the kernel reap the
 * command before sbx reads its status. The disposition is the caller's, so
 * the run is refused, and the command never starts. On the old code it ran
 * and `exit 42` came back as 0. */
Test(library, ignored_sigchld_is_refused_before_the_command_runs, .timeout = 180)
{
	static const int flags[] = { 0, SA_NOCLDWAIT };

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		for (int who = AS_CALLER; who <= AS_NOBODY; who++) {
			char *base = e2e_tmpdir(who), *root = e2e_fmt("%s/ws", base);
			char *ran = e2e_fmt("%s/ran", root);
			struct sigchld_case c = { .root = root, .flags = flags[i] };
			int status;

			cr_assert(e2e_mkdir(who, root) == 0);
			status = e2e_in_child_as(who, sigchld_child, &c);
			cr_assert(status == 0 && !e2e_exists(ran),
				  "[user %s, %s] a run with SIGCHLD ignored was not refused (status "
				  "%d: 2 wrong exit status, 3 ran, 5 refused for another reason)",
				  e2e_user_name(who), flags[i] ? "SA_NOCLDWAIT" : "SIG_IGN", status);
			free(ran);
			free(root);
			free(base);
		}
	}
}

/* ---- a fork of the caller taken while another thread starts a run ---- */

#define FORKS 20

struct forked_case {
	const char *root;
	int stop;
	int runs; /* the threads' runs so far */
};

/* Namespace runs only: their ends walk nothing (the PID namespace ends
 * them), so no end of a run here kills the forks below; all these threads
 * do to the gate is hold it shared while they start. */
static void *namespace_runs(void *arg)
{
	struct forked_case *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		struct sbx_run *run = sbx_run_new();
		struct sbx_result *res = NULL;
		struct sbx_error err = { 0 };

		sbx_run_set_command(run, "true");
		sbx_run_set_root(run, c->root);
		sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE);
		sbx_run_set_runner(run, SBX_RUNNER_NAMESPACE);
		if (sbx_run_execute(run, &res, &err) == 0)
			sbx_result_free(res);
		sbx_run_free(run);
		__atomic_add_fetch(&c->runs, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* In the fork: one run whose end walks its children (danger-full-access);
 * its command leaves a file. Bounded by an alarm so that a fork that hangs
 * is not left behind: SIGALRM is the hang. */
static int forked_run(const struct forked_case *c, int i)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	char cmd[64];
	int st;

	alarm(60);
	snprintf(cmd, sizeof(cmd), ": > forked.%d", i);
	sbx_run_set_command(run, cmd);
	sbx_run_set_root(run, c->root);
	sbx_run_set_mode(run, SBX_MODE_DANGER_FULL_ACCESS);
	st = sbx_run_execute(run, &res, &err) == 0 && sbx_result_exit_status(res) == 0 ? 0 : 1;
	sbx_result_free(res);
	sbx_run_free(run);
	return st;
}

/* 0: every fork's run ended; 2: one did not run; 3: one hung (SIGALRM). */
static int forks_child(const void *arg)
{
	struct forked_case *c = (struct forked_case *)arg;
	pthread_t th[2];
	int hung = 0, failed = 0;

	/* The gate is for the walks of an opted-in program's children. */
	if (sbx_process_opt_in(SBX_PROCESS_SUBREAPER) < 0)
		return 4;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, namespace_runs, c) != 0)
			return 4;
	for (int i = 0, seen = 0; i < FORKS; i++) {
		int status;
		pid_t pid;

		/* Each fork once the threads have started another run: forks
		 * spread over their starts, not all before the first. */
		while (__atomic_load_n(&c->runs, __ATOMIC_ACQUIRE) <= seen)
			usleep(1000);
		seen = __atomic_load_n(&c->runs, __ATOMIC_ACQUIRE);
		pid = fork();

		if (pid < 0)
			break;
		if (pid == 0)
			_exit(forked_run(c, i));
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
			hung++;
			break; /* one is enough, and each takes the alarm's time */
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (hung || failed)
		fprintf(stderr, "of %d forks, %d hung, %d failed\n", FORKS, hung, failed);
	return hung ? 3 : failed ? 2 : 0;
}

/* A harness that forks (a worker process, Python's multiprocessing) while
 * its other threads run commands: the fork gets a copy of the gate that
 * starts hold shared (tree.c) as it was at that instant, held by threads
 * the fork does not have. The fork's first run end then waited for them
 * for good (as did, with a walk in progress at the fork, its first start);
 * about one fork in two hung. The fork starts with the gate open. */
Test(library, a_fork_taken_while_runs_start_can_run_commands, .timeout = 600)
{
	char *base, *root;
	struct forked_case c = { 0 };
	int status, done;

	e2e_require_runner(AS_CALLER, "namespace");
	base = e2e_tmpdir(AS_CALLER);
	root = e2e_fmt("%s/ws", base);
	cr_assert(e2e_mkdir(AS_CALLER, root) == 0);
	c.root = root;
	status = e2e_in_child_as(AS_CALLER, forks_child, &c);
	done = count_named(root, "forked.");
	cr_assert(status != 4, "no threads");
	cr_assert(status != 3, "a fork taken while another thread started a run hung in its own "
		  "run (%d of %d forks' commands ran)", done, FORKS);
	cr_assert(status == 0 && done == FORKS, "status %d: %d of %d forks' commands ran", status,
		  done, FORKS);
	free(root);
	free(base);
}

/* ---- the result's accessors ---- */

/* 0: every accessor says what the JSON says; 2 otherwise (said on stderr). */
static int accessors_child(const void *arg)
{
	static const struct {
		const char *cmd;
		uint64_t timeout_ms;
	} cases[] = {
		{ "printf 'out\\0put'; printf 'err' >&2; exit 3", 0 },
		{ "echo sig; kill -TERM $$", 0 },
		{ "echo slow; sleep 30", 300 },
		{ "seq 100000; echo > /no/such/dir/x", 0 },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_run *run = sbx_run_new();
		struct sbx_result *res = NULL;
		struct sbx_error err = { 0 };
		size_t out_len = 99, err_len = 99;

		sbx_run_set_command(run, cases[i].cmd);
		sbx_run_set_root(run, arg);
		sbx_run_set_output_limit(run, 4096);
		if (cases[i].timeout_ms)
			sbx_run_set_timeout_ms(run, cases[i].timeout_ms);
		if (sbx_run_execute(run, &res, &err) < 0) {
			fprintf(stderr, "case %zu: %s: %s\n", i, err.code, err.message);
			return 3;
		}
		char *js = sbx_result_to_json(res);
		json_t *j = json_loads(js, JSON_ALLOW_NUL, NULL);
		const char *out = sbx_result_stdout(res, &out_len);
		const char *errs = sbx_result_stderr(res, &err_len);
		json_t *jout = json_object_get(j, "stdout"), *jerr = json_object_get(j, "stderr");
		json_t *jsig = json_object_get(j, "signal");
		int sig = sbx_result_signal(res);
		char want_sig[32] = "";

		if (sig)
			snprintf(want_sig, sizeof(want_sig), "SIG%s", sigabbrev_np(sig));
		if (out_len != json_string_length(jout) ||
		    memcmp(out, json_string_value(jout), out_len) != 0 || out[out_len] != '\0' ||
		    err_len != json_string_length(jerr) ||
		    memcmp(errs, json_string_value(jerr), err_len) != 0 ||
		    strcmp(sbx_result_text(res), json_string_value(json_object_get(j, "text"))) != 0 ||
		    sbx_result_timed_out(res) != json_is_true(json_object_get(j, "timed_out")) ||
		    (sig ? !json_is_string(jsig) || strcmp(json_string_value(jsig), want_sig) != 0
			 : !json_is_null(jsig))) {
			fprintf(stderr, "case %zu: accessors (stdout %zu bytes, stderr %zu, signal %d, "
				"timed_out %d, text '%s') differ from %s\n", i, out_len, err_len, sig,
				sbx_result_timed_out(res), sbx_result_text(res), js);
			bad++;
		}
		json_decref(j);
		free(js);
		sbx_result_free(res);
		sbx_run_free(run);
	}
	return bad ? 2 : 0;
}

/* What every embedder reads first has an accessor, and it says what the
 * JSON says: the bounded streams (bytes and length, a NUL kept), the text,
 * the signal (0 when none), whether the timeout ended the run. */
Test(library, result_accessors_agree_with_the_json, .timeout = 60)
{
	char *root = e2e_tmpdir(AS_CALLER);

	cr_assert_eq(e2e_in_child_as(AS_CALLER, accessors_child, root), 0);
	free(root);
}

/* More protected paths than the view holds: the run is refused, never run
 * with the last ones left out (they were dropped in silence, writable). The
 * last one named exists; the command writes it. Both runners. */
Test(library, protected_paths_beyond_the_view_refused, .timeout = 120)
{
	static const char *const runners[] = { "namespace", "landlock" };
	static const enum sbx_runner ids[] = { SBX_RUNNER_NAMESPACE, SBX_RUNNER_LANDLOCK };

	for (size_t k = 0; k < 2; k++) {
		struct sbx_run *run = sbx_run_new();
		struct sbx_result *res = NULL;
		struct sbx_error err = { 0 };
		char *root = e2e_tmpdir(AS_CALLER);
		char list[7][1024] = { "", "", "", "", "", "", "" };

		/* each list at most 48 paths (the config's bound), seven of them:
		 * 280, past the view's 256 */
		for (int i = 0; i < 280; i++)
			snprintf(list[i / 40] + strlen(list[i / 40]), sizeof(list[0]) - strlen(list[i / 40]),
				 "%sp%d", i % 40 ? "," : "", i);
		cr_assert(e2e_write_file(AS_CALLER, e2e_fmt("%s/p279", root), "ORIGINAL\n") == 0);
		cr_assert_eq(sbx_run_set_command(run, "echo PWNED > p279"), 0);
		cr_assert_eq(sbx_run_set_root(run, root), 0);
		cr_assert_eq(sbx_run_set_cwd(run, root), 0);
		cr_assert_eq(sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE), 0);
		cr_assert_eq(sbx_run_set_runner(run, ids[k]), 0);
		for (int l = 0; l < 7; l++)
			cr_assert_eq(sbx_run_add_protected_paths(run, list[l]), 0, "%s", list[l]);
		int rc = sbx_run_execute(run, &res, &err);

		cr_expect(rc < 0 && strstr(err.message, "protected paths"), "%s: ran (%d): %s",
			  runners[k], rc, err.message);
		char *got = e2e_read_file(e2e_fmt("%s/p279", root));

		cr_expect(got && strcmp(got, "ORIGINAL\n") == 0, "%s: p279 written: %s", runners[k], got);
		free(got);
		sbx_result_free(res);
		sbx_run_free(run);
	}
}
