/* SPDX-License-Identifier: MIT */
/* A program that embeds libsbx is left as it was found (sbx.h, beside
 * sbx_run_execute; docs/embedding.md): its own children stay its own to wait
 * for, it is no subreaper, its RLIMIT_NOFILE, signal dispositions and mask
 * are untouched, and still nothing a command leaves behind outlives the run,
 * nor the program. The process-wide changes are an opt-in
 * (sbx_process_opt_in), checked here to do what it says. Each case runs the
 * library in a child of the test (as the caller, and as nobody). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "runner_params.h"
#include "sbx.h"

/* One case: a runner and a mode, as the caller or as nobody. */
struct emb_param {
	int runner;       /* enum runner; -1: danger-full-access, no runner */
	int mode;         /* enum sbx_mode */
	int landlock_abi; /* 0: the kernel's; 5: no dead-man helper (ABI 6 scopes) */
	int user;         /* enum e2e_user */
};

static struct emb_param emb_params[] = {
	{ NAMESPACE, SBX_MODE_READ_ONLY, 0, AS_CALLER },
	{ NAMESPACE, SBX_MODE_WORKSPACE_WRITE, 0, AS_CALLER },
	{ NAMESPACE, SBX_MODE_WORKSPACE_WRITE, 0, AS_NOBODY },
	{ LANDLOCK, SBX_MODE_READ_ONLY, 0, AS_CALLER },
	{ LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 0, AS_CALLER },
	{ LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 0, AS_NOBODY },
	{ LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 5, AS_CALLER },
	{ LANDLOCK, SBX_MODE_READ_ONLY, 5, AS_NOBODY },
	{ -1, SBX_MODE_DANGER_FULL_ACCESS, 0, AS_CALLER },
	{ -1, SBX_MODE_DANGER_FULL_ACCESS, 0, AS_NOBODY },
};

static const char *param_name(const struct emb_param *p, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s, %s, %s",
		 p->runner < 0 ? "no runner" : runner_name[p->runner],
		 p->landlock_abi ? " at ABI 5" : "", sbx_mode_name(p->mode),
		 e2e_user_name(p->user));
	return buf;
}

static void require(const struct emb_param *p)
{
	if (p->runner >= 0)
		e2e_require_runner(p->user, runner_name[p->runner]);
}

static struct sbx_run *new_run(const struct emb_param *p, const char *root, const char *cmd)
{
	struct sbx_run *run = sbx_run_new();

	if (!run || sbx_run_set_command(run, cmd) < 0 || sbx_run_set_root(run, root) < 0 ||
	    sbx_run_set_mode(run, p->mode) < 0 || sbx_run_set_timeout_ms(run, 60000) < 0)
		return NULL;
	if (p->runner >= 0 &&
	    sbx_run_set_runner(run, p->runner == LANDLOCK ? SBX_RUNNER_LANDLOCK
							 : SBX_RUNNER_NAMESPACE) < 0)
		return NULL;
	if (p->landlock_abi && sbx_run_set_landlock_abi(run, p->landlock_abi) < 0)
		return NULL;
	return run;
}

/* Still running: not a zombie, not gone (its stat file says). */
static bool alive(pid_t pid)
{
	char path[64], buf[512] = "", *s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	s = strrchr(buf, ')');
	return s && s[1] == ' ' && s[2] != 'Z' && s[2] != 'X';
}

/* Gone within ms (a killed process may take a moment to be reaped). */
static bool gone_within(pid_t pid, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (!alive(pid))
			return true;
		usleep(10000);
	}
	return !alive(pid);
}

/* ---- the process as it was found ---- */

struct state {
	int subreaper;
	struct rlimit nofile;
	void (*handler[65])(int);
	unsigned long flags[65];
	sigset_t mask;
};

struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static void state_read(struct state *s)
{
	memset(s, 0, sizeof(*s));
	prctl(PR_GET_CHILD_SUBREAPER, &s->subreaper, 0, 0, 0);
	getrlimit(RLIMIT_NOFILE, &s->nofile);
	for (int sig = 1; sig <= 64; sig++) {
		struct kernel_sigaction old = { 0 };

		if (syscall(SYS_rt_sigaction, sig, NULL, &old, sizeof(old.mask)) == 0) {
			s->handler[sig] = old.handler;
			s->flags[sig] = old.flags;
		}
	}
	sigprocmask(SIG_SETMASK, NULL, &s->mask);
}

/* What differs, said on stderr; 0 if nothing. */
static int state_compare(const struct state *was, const struct state *now)
{
	int diffs = 0;

	if (was->subreaper != now->subreaper) {
		fprintf(stderr, "PR_GET_CHILD_SUBREAPER was %d, is %d\n", was->subreaper,
			now->subreaper);
		diffs++;
	}
	if (was->nofile.rlim_cur != now->nofile.rlim_cur ||
	    was->nofile.rlim_max != now->nofile.rlim_max) {
		fprintf(stderr, "RLIMIT_NOFILE was %llu/%llu, is %llu/%llu\n",
			(unsigned long long)was->nofile.rlim_cur,
			(unsigned long long)was->nofile.rlim_max,
			(unsigned long long)now->nofile.rlim_cur,
			(unsigned long long)now->nofile.rlim_max);
		diffs++;
	}
	for (int sig = 1; sig <= 64; sig++)
		if (was->handler[sig] != now->handler[sig] || was->flags[sig] != now->flags[sig]) {
			fprintf(stderr, "signal %d's disposition changed\n", sig);
			diffs++;
		}
	for (int sig = 1; sig < 65; sig++)
		if (sigismember(&was->mask, sig) != sigismember(&now->mask, sig)) {
			fprintf(stderr, "signal %d's place in the mask changed\n", sig);
			diffs++;
		}
	return diffs;
}

static void on_chld(int sig)
{
	(void)sig;
}

struct own_case {
	const struct emb_param *p;
	const char *root;
};

#define RUNS 3

/* 0: all as it was; 2: a child of ours was taken (ECHILD); 3: a child's
 * exit status was wrong; 6: process-wide state changed; 7: a run did not
 * run; 8: what the command left behind outlived the run; 9: fixture. */
static int own_children_child(const void *arg)
{
	const struct own_case *c = arg;
	struct sigaction chld = { .sa_handler = on_chld }, ign = { .sa_handler = SIG_IGN };
	struct rlimit rl;
	struct state was, now;
	int rc = 0;

	/* A program's own settings, none of them sbx's defaults: a caught
	 * SIGCHLD (without SA_NOCLDWAIT), an ignored SIGPIPE, a soft fd
	 * limit just below the hard one, SIGUSR1 blocked. */
	sigemptyset(&chld.sa_mask);
	sigemptyset(&ign.sa_mask);
	chld.sa_flags = SA_RESTART;
	if (sigaction(SIGCHLD, &chld, NULL) < 0 || sigaction(SIGPIPE, &ign, NULL) < 0)
		return 9;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max > 64) {
		rl.rlim_cur = rl.rlim_max - 1;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return 9;
	}
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	state_read(&was);

	for (int i = 0; i < RUNS && !rc; i++) {
		int hold[2], st;
		pid_t quick, slow, left = 0;

		if (pipe(hold) < 0)
			return 9;
		/* One child that is over before the run ends (its status must
		 * wait for us), one that lives through the run. */
		quick = fork();
		if (quick == 0)
			_exit(40 + i);
		slow = fork();
		if (slow == 0) {
			char b;

			close(hold[1]);
			_exit(read(hold[0], &b, 1) == 0 ? 50 + i : 1);
		}
		close(hold[0]);
		if (quick < 0 || slow < 0)
			return 9;

		/* It also leaves a process behind, double-forked into a
		 * session of its own, and says its pid (visible from here
		 * but in a PID namespace of its own). */
		struct sbx_run *run = new_run(c->p, c->root,
					      "(setsid sleep 60 </dev/null >/dev/null 2>&1 & "
					      "echo $!); true");
		struct sbx_result *res = NULL;
		struct sbx_error err = { 0 };

		if (!run || sbx_run_execute(run, &res, &err) < 0) {
			fprintf(stderr, "run %d: %s: %s\n", i, err.code, err.message);
			rc = 7;
		} else {
			size_t len;
			const char *out = sbx_result_stdout(res, &len);

			if (sbx_result_exit_status(res) != 0) {
				fprintf(stderr, "run %d: exit status %d: %s\n", i,
					sbx_result_exit_status(res), sbx_result_text(res));
				rc = 7;
			}
			if (c->p->runner != NAMESPACE)
				left = (pid_t)atoi(out);
		}
		sbx_result_free(res);
		sbx_run_free(run);
		close(hold[1]);
		if (waitpid(quick, &st, 0) != quick) {
			fprintf(stderr, "run %d: waitpid of our child that had exited: %s\n", i,
				strerror(errno));
			rc = rc ? rc : 2;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 40 + i) {
			fprintf(stderr, "run %d: our exited child's status is %#x\n", i, st);
			rc = rc ? rc : 3;
		}
		if (waitpid(slow, &st, 0) != slow) {
			fprintf(stderr, "run %d: waitpid of our live child: %s\n", i, strerror(errno));
			rc = rc ? rc : 2;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 50 + i) {
			fprintf(stderr, "run %d: our live child's status is %#x (killed?)\n", i, st);
			rc = rc ? rc : 3;
		}
		if (left > 0 && !gone_within(left, 2000)) {
			fprintf(stderr, "run %d: the command's setsid'd sleep %d outlived the run\n",
				i, (int)left);
			kill(left, SIGKILL);
			rc = rc ? rc : 8;
		}
	}
	state_read(&now);
	if (state_compare(&was, &now) && !rc)
		rc = 6;
	return rc;
}

ParameterizedTestParameters(embedding, own_children_and_settings_are_left_alone)
{
	return cr_make_param_array(struct emb_param, emb_params,
				   sizeof(emb_params) / sizeof(emb_params[0]));
}

/* On the old code a landlock or danger-full-access run's end killed and
 * reaped every child of the program that no run had started (waitpid:
 * ECHILD, even for a child that had exited by itself), the first run made
 * the program a subreaper and moved its soft RLIMIT_NOFILE. */
ParameterizedTest(struct emb_param *p, embedding, own_children_and_settings_are_left_alone,
		  .timeout = 180)
{
	enum e2e_user who = (enum e2e_user)p->user;
	char name[96], *base, *root;
	struct own_case c;
	int status;

	require(p);
	base = e2e_tmpdir(who);
	root = e2e_fmt("%s/ws", base);
	cr_assert(e2e_mkdir(who, root) == 0);
	c = (struct own_case){ .p = p, .root = root };
	status = e2e_in_child_as(who, own_children_child, &c);
	param_name(p, name, sizeof(name));
	cr_assert(status != 2, "[%s] a child of the embedding program was reaped by libsbx "
		  "(waitpid: ECHILD)", name);
	cr_assert(status != 3, "[%s] a child of the embedding program was killed by libsbx",
		  name);
	cr_assert(status != 6, "[%s] libsbx changed process-wide state (subreaper, "
		  "RLIMIT_NOFILE, signal dispositions or mask): see stderr", name);
	cr_assert(status != 8, "[%s] a command's leftover outlived its run", name);
	cr_assert(status == 0, "[%s] status %d (7: a run failed, 9: fixture)", name, status);
	free(root);
	free(base);
}

/* ---- a program that dies takes its runs along ---- */

struct dies_case {
	const struct emb_param *p;
	const char *root;
	const char *pidfile; /* where the command writes its leftover's pid */
};

static void run_forever(const struct dies_case *c)
{
	char *cmd = e2e_fmt("(setsid sleep 120 </dev/null >/dev/null 2>&1 & echo $! > %s.tmp; "
			    "mv %s.tmp %s); sleep 120",
			    c->pidfile, c->pidfile, c->pidfile);
	struct sbx_run *run = new_run(c->p, c->root, cmd);
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };

	if (run)
		sbx_run_execute(run, &res, &err);
	_exit(1);
}

/* 0: the leftover died with the program; 2: it outlived it; 3: no pid
 * came; 9: fixture. */
static int dies_child(const void *arg)
{
	const struct dies_case *c = arg;
	pid_t prog = fork(), left = 0;
	int rc;

	if (prog < 0)
		return 9;
	if (prog == 0)
		run_forever(c);
	for (int i = 0; i < 1000 && left <= 0; i++) {
		FILE *f = fopen(c->pidfile, "r");

		if (f) {
			if (fscanf(f, "%d", &left) != 1)
				left = 0;
			fclose(f);
		}
		if (left <= 0)
			usleep(20000);
	}
	kill(prog, SIGKILL);
	waitpid(prog, NULL, 0);
	if (left <= 0)
		return 3;
	rc = gone_within(left, 3000) ? 0 : 2;
	if (rc)
		kill(left, SIGKILL);
	return rc;
}

/* Runs whose leftovers no PID namespace or Landlock-scoped dead-man helper
 * ends (the landlock runner below ABI 6, danger-full-access): their keeper
 * ends them when the program that started them is SIGKILLed. On the old
 * code they lived on. (A namespace run's pids are its namespace's, and its
 * init's end is tested with the CLI: test_escape.) */
static struct emb_param dies_params[] = {
	{ LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 5, AS_CALLER },
	{ LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 5, AS_NOBODY },
	{ LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 0, AS_NOBODY },
	{ -1, SBX_MODE_DANGER_FULL_ACCESS, 0, AS_CALLER },
	{ -1, SBX_MODE_DANGER_FULL_ACCESS, 0, AS_NOBODY },
};

ParameterizedTestParameters(embedding, a_killed_program_takes_its_runs_along)
{
	return cr_make_param_array(struct emb_param, dies_params,
				   sizeof(dies_params) / sizeof(dies_params[0]));
}

ParameterizedTest(struct emb_param *p, embedding, a_killed_program_takes_its_runs_along,
		  .timeout = 120)
{
	enum e2e_user who = (enum e2e_user)p->user;
	char name[96], *base, *root;
	struct dies_case c;
	int status;

	require(p);
	base = e2e_tmpdir(who);
	root = e2e_fmt("%s/ws", base);
	cr_assert(e2e_mkdir(who, root) == 0);
	c = (struct dies_case){ .p = p, .root = root, .pidfile = e2e_fmt("%s/left.pid", root) };
	status = e2e_in_child_as(who, dies_child, &c);
	param_name(p, name, sizeof(name));
	cr_assert(status != 3, "[%s] the command never said its leftover's pid", name);
	cr_assert(status == 0, "[%s] a setsid'd leftover outlived the program that ran it, "
		  "SIGKILLed (status %d)", name, status);
	free((char *)c.pidfile);
	free(root);
	free(base);
}

/* ---- the opt-in ---- */

/* 0: as documented; 2: a bad flag taken; 3: no subreaper; 4: the fd limit
 * not moved; 5 is the fixture's; 6: a run failed; 7: a leftover lived. */
static int opt_in_child(const void *arg)
{
	const struct own_case *c = arg;
	struct rlimit before, after;
	int subreaper = 0;

	if (sbx_process_opt_in(0x4) != -EINVAL || sbx_process_opt_in(~0u) != -EINVAL)
		return 2;
	getrlimit(RLIMIT_NOFILE, &before);
	if (sbx_process_opt_in(SBX_PROCESS_SUBREAPER | SBX_PROCESS_NOFILE_MARGIN) != 0)
		return 2;
	prctl(PR_GET_CHILD_SUBREAPER, &subreaper, 0, 0, 0);
	if (subreaper != 1)
		return 3;
	getrlimit(RLIMIT_NOFILE, &after);
	if (before.rlim_max != RLIM_INFINITY &&
	    after.rlim_cur != before.rlim_max - (before.rlim_max >= 16384 ? 4096 : before.rlim_max / 4)) {
		fprintf(stderr, "soft RLIMIT_NOFILE %llu -> %llu (hard %llu)\n",
			(unsigned long long)before.rlim_cur, (unsigned long long)after.rlim_cur,
			(unsigned long long)before.rlim_max);
		return 4;
	}
	/* Opted in, a run without a keeper still ends what it leaves. */
	struct sbx_run *run = new_run(c->p, c->root,
				      "(setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $!); true");
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	pid_t left;

	if (!run || sbx_run_execute(run, &res, &err) < 0 || sbx_result_exit_status(res) != 0)
		return 6;
	left = (pid_t)atoi(sbx_result_stdout(res, NULL));
	sbx_result_free(res);
	sbx_run_free(run);
	if (left <= 0 || !gone_within(left, 2000))
		return 7;
	return 0;
}

Test(embedding, opt_in_does_what_it_says, .timeout = 60)
{
	static const struct emb_param p = { LANDLOCK, SBX_MODE_WORKSPACE_WRITE, 5, AS_CALLER };
	char *base, *root;
	struct own_case c;
	int status;

	require(&p);
	base = e2e_tmpdir(AS_CALLER);
	root = e2e_fmt("%s/ws", base);
	cr_assert(e2e_mkdir(AS_CALLER, root) == 0);
	c = (struct own_case){ .p = &p, .root = root };
	status = e2e_in_child_as(AS_CALLER, opt_in_child, &c);
	cr_assert(status == 0, "sbx_process_opt_in: status %d (2 a bad flag taken, 3 no "
		  "subreaper, 4 the soft fd limit not at its margin, 6 a run failed, 7 a leftover "
		  "outlived the run)", status);
	free(root);
	free(base);
}
