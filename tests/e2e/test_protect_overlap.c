/* SPDX-License-Identifier: MIT */
/* Runs that overlap on one root share one baseline of its protected paths
 * (docs/workspace.md): a run that starts while another one has already
 * written there must not take that writing for the user's, and whatever
 * order the runs end in, nothing planted survives the last of them. An sbx
 * that was killed mid-run leaves its baseline behind: the next run on the
 * root puts the protected paths back to it, and says so. Every case as the
 * caller and as nobody, under each runner it concerns; effects are checked
 * on disk and by the user's own unconfined git afterwards. */
#include "serve_client.h"

#include <limits.h>

#include "classify.h"
#include "protect_int.h"
#include "statedir.h"

/* serve_client.h's helpers this file does not need. */
static void __attribute__((unused)) shared_helpers_unused(void)
{
	(void)users;
	(void)write_config;
	(void)assert_error;
}

struct op {
	char runner[16];
	enum e2e_user who;
};

static struct op both[] = {
	{ "namespace", AS_CALLER },
	{ "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

static struct op landlock_only[] = {
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

#define PARAMS(name, list)                                                                  \
	ParameterizedTestParameters(overlap, name)                                           \
	{                                                                                    \
		return cr_make_param_array(struct op, list, sizeof(list) / sizeof(list[0]));   \
	}

struct fx {
	struct op p;
	char *base, *ws, *home, *cache, *conf, *pwned;
	char tag[48];
};

/* A git repository as the user has it; sbx's state under a fixture-private
 * XDG_CACHE_HOME (the runs inherit this process's environment). */
static void fx_setup(struct fx *f, const struct op *p)
{
	struct e2e_out o;
	char real[PATH_MAX];

	f->p = *p;
	f->base = e2e_tmpdir(p->who);
	cr_assert(realpath(f->base, real));
	f->base = strdup(real);
	f->ws = e2e_fmt("%s/ws", f->base);
	f->home = e2e_fmt("%s/home", f->base);
	f->cache = e2e_fmt("%s/cache", f->base);
	f->conf = e2e_fmt("%s/sbx.conf", f->base);
	f->pwned = e2e_fmt("%s/PWNED", f->base);
	cr_assert(e2e_mkdir(p->who, f->ws) == 0 && e2e_mkdir(p->who, f->home) == 0 &&
		  e2e_mkdir(p->who, f->cache) == 0);
	cr_assert(e2e_write_file(p->who, f->conf, e2e_fmt("runner = %s\n", p->runner)) == 0);
	setenv("HOME", f->home, 1);
	setenv("XDG_CACHE_HOME", f->cache, 1);
	unsetenv("SBX_CONFIG");
	snprintf(f->tag, sizeof(f->tag), "[%s %s]", p->runner, e2e_user_name(p->who));

	char *argv[] = { "sh", "-c",
			 e2e_fmt("cd %s && git init -q && git -c user.name=t -c user.email=t@t "
				 "commit -q --allow-empty -m init",
				 f->ws),
			 NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	cr_assert(e2e_run(p->who, argv, env, &o) == 0, "git init: %s", o.err);
	e2e_out_free(&o);
	cr_assert(e2e_exists(e2e_fmt("%s/.git/hooks", f->ws)), "git init made no hooks directory");
}

/* What a hostile command plants: a hook, and an .envrc direnv would run.
 * Under the namespace runner the hook's write is refused (.git/hooks exists
 * and is bound read-only); .envrc, absent at the start, can be written. */
static char *plant(const struct fx *f)
{
	return e2e_fmt("mkdir -p .git/hooks; printf '#!/bin/sh\\ntouch %s\\n' > .git/hooks/pre-commit; "
		       "chmod +x .git/hooks/pre-commit; printf 'touch %s\\n' > .envrc",
		       f->pwned, f->pwned);
}

static void wait_file(const struct fx *f, const char *name)
{
	char *path = e2e_fmt("%s/%s", f->ws, name);
	long long deadline = now_ms() + ANSWER_TIMEOUT_MS;

	while (!e2e_exists(path)) {
		cr_assert(now_ms() < deadline, "%s %s never appeared", f->tag, name);
		usleep(20 * 1000);
	}
	free(path);
}

static void touch_ws(const struct fx *f, const char *name)
{
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/%s", f->ws, name), "") == 0);
}

/* The root's baseline file in sbx's state directory. */
static char *base_file(const struct fx *f)
{
	char key[128];

	statedir_key(f->ws, key, sizeof(key));
	return e2e_fmt("%s/sbx/protect/%s/base", f->cache, key);
}

/* Nothing planted is left, the user's next unconfined git commit runs no
 * hook, and no baseline outlives the runs. */
static void assert_clean(const struct fx *f)
{
	struct e2e_out o;

	cr_assert(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", f->ws)), "%s the planted hook survived",
		  f->tag);
	cr_assert(!e2e_exists(e2e_fmt("%s/.envrc", f->ws)), "%s the planted .envrc survived", f->tag);
	cr_assert(e2e_exists(e2e_fmt("%s/.git/hooks", f->ws)), "%s .git/hooks is gone", f->tag);

	char *argv[] = { "sh", "-c",
			 e2e_fmt("cd %s && echo u > user.txt && git add user.txt && "
				 "git -c user.name=t -c user.email=t@t commit -qm user",
				 f->ws),
			 NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	cr_assert(e2e_run(f->p.who, argv, env, &o) == 0, "%s the user's commit failed: %s", f->tag,
		  o.err);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(f->pwned), "%s a planted hook ran in the user's git", f->tag);
	cr_assert(!e2e_exists(base_file(f)), "%s the baseline outlived the runs", f->tag);
}

static bool json_has(const char *text, const char *s)
{
	return text && strstr(text, s) != NULL;
}

/* Ordinary git work inside a run, while another run of the root is live. */
#define GIT_WORK                                                                            \
	"git add -A && git -c user.name=t -c user.email=t@t commit -qm work && git branch side && " \
	"echo s > s.txt && git stash -u -q && git stash pop -q && git checkout -q side && "     \
	"echo x > x.txt && git add x.txt && git -c user.name=t -c user.email=t@t commit -qm x && " \
	"git checkout -q - && git -c user.name=t -c user.email=t@t merge -q --no-edit side"

/* ---- (1), (2): a serve background task and a foreground run ---- */

PARAMS(serve_task_and_run, both)
ParameterizedTest(struct op *p, overlap, serve_task_and_run, .timeout = 240)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct srv s;

	fx_setup(&f, p);
	srv_start(&s, p->who, f.conf);
	const char *sess = open_session(&s, 1, f.ws, "workspace-write");

	/* A plants and stays. */
	const char *a = start_bg(&s, 2, sess, e2e_fmt("%s; touch a_planted; exec sleep 1000", plant(&f)));
	wait_file(&f, "a_planted");
	/* B starts while A's planting is there, and outlives A: A's end puts
	 * the paths back (which detaches B's read-only bind of the planted
	 * .envrc under the namespace runner), then B writes .envrc again. */
	rpc_send(&s, 3, "run",
		 run_params(sess, e2e_fmt("touch b_started; while [ ! -e b_go ]; do sleep 0.05; done; "
					  GIT_WORK " && printf 'touch %s\\n' > .envrc",
					  f.pwned)));
	wait_file(&f, "b_started");
	json_t *k = result_of(rpc_call(&s, 4, "task/kill", task_params(sess, a)));
	cr_assert_str_eq(str_at(k, "status"), "killed");
	wait_settled(&s, a);
	touch_ws(&f, "b_go");
	json_t *b = result_of(srv_wait(&s, 3, ANSWER_TIMEOUT_MS));
	char *text = json_dumps(b, JSON_COMPACT);
	long long b_exit = exit_code(b);

	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 60000), 0);
	srv_stop(&s);
	assert_clean(&f);
	cr_assert(b_exit == 0, "%s B's git work failed: %s", f.tag, text);
	/* B's end put .envrc back to the baseline (absent): it says so. */
	cr_assert(json_has(text, "\"reverted\":[") && json_has(text, "\".envrc\""), "%s %s", f.tag,
		  text);
}

/* A git directory a background task stages (no HEAD: no repository yet)
 * while it stays live, moved in as a unit by a foreground run of the same
 * session: the foreground run's end already counts the task's window
 * (issue 29's adversarial pass, finding 1), so the user's git after its
 * answer, the task still live, runs nothing of it. */
PARAMS(serve_task_stages_run_moves, both)
ParameterizedTest(struct op *p, overlap, serve_task_stages_run_moves, .timeout = 240)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct srv s;
	struct e2e_out o;

	fx_setup(&f, p);
	srv_start(&s, p->who, f.conf);
	const char *sess = open_session(&s, 1, f.ws, "workspace-write");
	const char *a = start_bg(
		&s, 2, sess,
		e2e_fmt("mkdir -p stage app && git init -q --bare stage/dotgit && rm stage/dotgit/HEAD && "
			"git config -f stage/dotgit/config core.bare false && "
			"printf '#!/bin/sh\\ntouch %s\\n' > stage/dotgit/hooks/pre-commit && "
			"chmod +x stage/dotgit/hooks/pre-commit && touch a_staged && exec sleep 1000",
			f.pwned));

	wait_file(&f, "a_staged");
	json_t *b = run_ok(&s, 3, sess,
			   "cp .git/HEAD stage/dotgit/HEAD && cp -r .git/objects/. stage/dotgit/objects/ && "
			   "cp -r .git/refs/. stage/dotgit/refs/ && mv stage/dotgit app/.git");

	cr_assert(exit_code(b) == 0, "%s the move failed: %s", f.tag, json_dumps(b, JSON_COMPACT));
	char *argv[] = { "sh", "-c",
			 e2e_fmt("cd %s/app && git -c user.name=t -c user.email=t@t commit -q "
				 "--allow-empty -m user",
				 f.ws),
			 NULL };
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	e2e_run(p->who, argv, env, &o);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(f.pwned), "%s the user's git ran the hook the live task staged",
		  f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/app/.git/hooks/pre-commit", f.ws)),
		  "%s the staged hook is still there", f.tag);
	result_of(rpc_call(&s, 4, "task/kill", task_params(sess, a)));
	wait_settled(&s, a);
	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 60000), 0);
	srv_stop(&s);
}

/* The other order: B ends first, then A is killed. */
PARAMS(serve_run_ends_first, both)
ParameterizedTest(struct op *p, overlap, serve_run_ends_first, .timeout = 240)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct srv s;

	fx_setup(&f, p);
	srv_start(&s, p->who, f.conf);
	const char *sess = open_session(&s, 1, f.ws, "workspace-write");
	const char *a = start_bg(&s, 2, sess, e2e_fmt("%s; touch a_planted; exec sleep 1000", plant(&f)));

	wait_file(&f, "a_planted");
	json_t *b = run_ok(&s, 3, sess, "echo b");
	cr_assert(exit_code(b) == 0);
	/* The baseline stays while A lives. */
	cr_assert(e2e_exists(base_file(&f)), "%s no baseline while a run is live", f.tag);
	result_of(rpc_call(&s, 4, "task/kill", task_params(sess, a)));
	wait_settled(&s, a);
	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 60000), 0);
	srv_stop(&s);
	assert_clean(&f);
}

/* ---- (3): two `sbx run` processes on one root ---- */

/* Start `sbx run --json ... -- cmd` as who, its output to base/out. */
static pid_t spawn_run(const struct fx *f, const char *out, const char *cmd)
{
	char *argv[] = { "sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\" 2>&1", "sh",
			 e2e_fmt("%s/%s", f->base, out), (char *)e2e_sbx(), "run", "--json",
			 "--runner", (char *)f->p.runner, "--mode", "workspace-write", "--root",
			 f->ws, "--", (char *)cmd, NULL };

	return e2e_spawn(f->p.who, "/", argv);
}

static int wait_pid(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		cr_assert(errno == EINTR);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

PARAMS(two_cli_runs, both)
ParameterizedTest(struct op *p, overlap, two_cli_runs, .timeout = 240)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;

	fx_setup(&f, p);
	pid_t a = spawn_run(&f, "a.json",
			    e2e_fmt("%s; touch a_planted; while [ ! -e a_go ]; do sleep 0.05; done",
				    plant(&f)));
	wait_file(&f, "a_planted");
	pid_t b = spawn_run(&f, "b.json",
			    e2e_fmt("touch b_started; while [ ! -e b_go ]; do sleep 0.05; done; "
				    "printf 'touch %s\\n' > .envrc",
				    f.pwned));
	wait_file(&f, "b_started");
	touch_ws(&f, "a_go");
	wait_pid(a);
	touch_ws(&f, "b_go");
	int b_status = wait_pid(b);
	char *bj = e2e_read_file(e2e_fmt("%s/b.json", f.base));

	assert_clean(&f);
	cr_assert(b_status == 0, "%s B: %s", f.tag, bj);
	cr_assert(json_has(bj, "\"reverted\":[") && json_has(bj, "\".envrc\""), "%s B: %s", f.tag, bj);
}

/* ---- (4): the command kills sbx (no signal scoping below Landlock ABI 6) ---- */

/* A run that plants and then kills its sbx (as Landlock ABI 5, which cannot
 * scope signals): nothing puts the paths back, the attack takes effect. */
static void killed_after_planting(struct fx *f, const struct op *p)
{
	struct e2e_out o;

	fx_setup(f, p);
	char *killer[] = { (char *)e2e_sbx(), "run", "--json", "--runner", "landlock",
			   "--landlock-abi", "5", "--mode", "workspace-write", "--root", f->ws, "--",
			   e2e_fmt("%s; kill -9 $PPID; sleep 2", plant(f)), NULL };

	e2e_run(p->who, killer, NULL, &o);
	cr_assert(o.status == 128 + SIGKILL, "%s sbx was not killed: %d %s %s", f->tag, o.status,
		  o.out, o.err);
	e2e_out_free(&o);
	cr_assert(e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", f->ws)), "%s no hook planted",
		  f->tag);
}

PARAMS(killed_sbx_restored_by_next_run, landlock_only)
ParameterizedTest(struct op *p, overlap, killed_sbx_restored_by_next_run, .timeout = 180)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;

	killed_after_planting(&f, p);

	/* The next run on the root puts them back first, and says so. */
	char *next[] = { (char *)e2e_sbx(), "run", "--json", "--runner", "landlock", "--mode",
			 "workspace-write", "--root", f.ws, "--", "echo next", NULL };

	e2e_run(p->who, next, NULL, &o);
	cr_assert(o.status == 0, "%s %s %s", f.tag, o.out, o.err);
	cr_assert(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", f.ws)) &&
		  !e2e_exists(e2e_fmt("%s/.envrc", f.ws)),
		  "%s the next run left the planted files: %s", f.tag, o.out);
	cr_assert(json_has(o.out, "\"recovered\":[") && json_has(o.out, "\".git/hooks\"") &&
		  json_has(o.out, "\".envrc\""),
		  "%s the next run did not say what it put back: %s", f.tag, o.out);
	cr_assert(json_has(o.out, "protected paths put back before this run"), "%s %s", f.tag,
		  o.out);
	/* Not this run's denial: its command did nothing wrong. */
	cr_assert(json_has(o.out, "\"denied\":false"), "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	assert_clean(&f);
}

/* A read-only run after the crash puts them back too: an agent session that
 * goes on read-only must not leave the hook for the user's next git. */
PARAMS(killed_sbx_restored_by_next_readonly_run, landlock_only)
ParameterizedTest(struct op *p, overlap, killed_sbx_restored_by_next_readonly_run, .timeout = 180)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;

	killed_after_planting(&f, p);

	char *next[] = { (char *)e2e_sbx(), "run", "--json", "--runner", "landlock", "--mode",
			 "read-only", "--root", f.ws, "--", "echo next", NULL };

	e2e_run(p->who, next, NULL, &o);
	cr_assert(o.status == 0, "%s %s %s", f.tag, o.out, o.err);
	cr_assert(!e2e_exists(e2e_fmt("%s/.git/hooks/pre-commit", f.ws)) &&
		  !e2e_exists(e2e_fmt("%s/.envrc", f.ws)),
		  "%s the next (read-only) run left the planted files: %s", f.tag, o.out);
	cr_assert(json_has(o.out, "\"recovered\":[") && json_has(o.out, "\".git/hooks\""),
		  "%s the read-only run did not say what it put back: %s", f.tag, o.out);
	cr_assert(json_has(o.out, "\"denied\":false"), "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	assert_clean(&f);

	/* With no baseline left, a read-only run makes nothing in sbx's state. */
	e2e_run(p->who, next, NULL, &o);
	cr_assert(o.status == 0 && !json_has(o.out, "\"recovered\""), "%s %s", f.tag, o.out);
	cr_assert(!e2e_exists(base_file(&f)), "%s a read-only run left a baseline", f.tag);
	e2e_out_free(&o);
}

/* ---- the baseline lasts only while runs are live ---- */

PARAMS(user_edits_between_runs_kept, both)
ParameterizedTest(struct op *p, overlap, user_edits_between_runs_kept, .timeout = 120)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	char *run[] = { (char *)e2e_sbx(), "run", "--json", "--runner", p->runner, "--mode",
			"workspace-write", "--root", NULL, "--", "echo hi", NULL };

	fx_setup(&f, p);
	run[8] = f.ws;
	cr_assert(e2e_run(p->who, run, NULL, &o) == 0, "%s %s", f.tag, o.err);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(base_file(&f)), "%s the baseline outlived the run", f.tag);
	/* The user's own edits, between runs, are theirs. */
	char *argv[] = { "sh", "-c",
			 e2e_fmt("cd %s && git config user.name mine && echo 'export A=1' > .envrc",
				 f.ws),
			 NULL };
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	cr_assert(e2e_run(p->who, argv, env, &o) == 0);
	e2e_out_free(&o);
	cr_assert(e2e_run(p->who, run, NULL, &o) == 0, "%s %s", f.tag, o.err);
	cr_assert(!json_has(o.out, "\"reverted\""), "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	char *config = e2e_read_file(e2e_fmt("%s/.git/config", f.ws));

	cr_assert(json_has(config, "name = mine"), "%s the user's config edit was undone", f.tag);
	cr_assert(e2e_exists(e2e_fmt("%s/.envrc", f.ws)), "%s the user's .envrc was removed", f.tag);
}

/* ---- a baseline file sbx did not write is never acted on ---- */

/* Write bytes to the root's baseline file, as a dead sbx of who would have. */
static void plant_base(const struct fx *f, const struct protect_base *b)
{
	char *buf;
	size_t len;
	char *path = base_file(f);
	FILE *fp;

	cr_assert(protect_base_encode(b, &buf, &len) == 0);
	fp = fopen(path, "w");
	cr_assert(fp && fwrite(buf, 1, len, fp) == len && fclose(fp) == 0, "%s", path);
	cr_assert(chown(path, e2e_uid(f->p.who), e2e_gid(f->p.who)) == 0 && chmod(path, 0600) == 0);
	free(buf);
}

static int run_plain(const struct fx *f, struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--runner", (char *)f->p.runner,
			 "--mode", "workspace-write", "--root", f->ws, "--", "echo hi", NULL };

	return e2e_run(f->p.who, argv, NULL, o);
}

PARAMS(hostile_baseline_ignored, both)
ParameterizedTest(struct op *p, overlap, hostile_baseline_ignored, .timeout = 120)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;
	struct stat st;
	char *outside, *envrc;

	fx_setup(&f, p);
	cr_assert(run_plain(&f, &o) == 0, "%s %s", f.tag, o.err); /* makes protect/KEY */
	e2e_out_free(&o);
	outside = e2e_fmt("%s/outside", f.base);
	envrc = e2e_fmt("%s/.envrc", f.ws);
	cr_assert(e2e_write_file(p->who, outside, "keep") == 0);
	cr_assert(e2e_write_file(p->who, envrc, "mine") == 0);
	cr_assert(stat(f.ws, &st) == 0);

	struct protect_record rec[2] = {
		{ .path = "../outside", .was = PROTECT_ABSENT },
		{ .path = ".envrc", .was = PROTECT_ABSENT },
	};
	struct protect_base b = { .rec = rec, .n = 2, .cap = 2, .root = f.ws,
				  .root_dev = (uint64_t)st.st_dev, .root_ino = (uint64_t)st.st_ino };

	/* Well formed, it would be acted on: .envrc, absent in it, goes. */
	plant_base(&f, &(struct protect_base){ .rec = &rec[1], .n = 1, .cap = 1, .root = f.ws,
					       .root_dev = b.root_dev, .root_ino = b.root_ino });
	cr_assert(run_plain(&f, &o) == 0, "%s %s", f.tag, o.err);
	cr_assert(json_has(o.out, "\"recovered\":[\".envrc\"]"), "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	cr_assert(!e2e_exists(envrc), "%s a well-formed stale baseline was not put back", f.tag);

	/* One that names a path out of the root is refused whole. */
	cr_assert(e2e_write_file(p->who, envrc, "mine") == 0);
	plant_base(&f, &b);
	cr_assert(run_plain(&f, &o) == 0, "%s %s", f.tag, o.err);
	cr_assert(!json_has(o.out, "\"recovered\""), "%s %s", f.tag, o.out);
	e2e_out_free(&o);
	cr_assert(e2e_exists(outside), "%s sbx removed a file outside the root", f.tag);
	cr_assert(e2e_exists(envrc), "%s a refused baseline was acted on", f.tag);

	/* So is garbage; and none is left behind. */
	cr_assert(e2e_write_file(p->who, base_file(&f), "garbage") == 0);
	cr_assert(run_plain(&f, &o) == 0, "%s %s", f.tag, o.err);
	e2e_out_free(&o);
	cr_assert(e2e_exists(envrc) && !e2e_exists(base_file(&f)), "%s", f.tag);
}

/* The line of what was put back before a run names paths an earlier run
 * chose (a repository's config below the root): adversarial pass 3,
 * finding 02 put the escalation marker, bare, into the text the model reads
 * (MCP, serve, --json), through a directory name holding newlines. sbx was
 * killed from outside here (an OOM kill, a client's kill -9), mid-run. */
PARAMS(recovered_names_quoted, both)
ParameterizedTest(struct op *p, overlap, recovered_names_quoted, .timeout = 180)
{
	e2e_require_runner(p->who, p->runner);
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *first[] = { (char *)e2e_sbx(), "run", "--json", "--runner", p->runner, "--mode",
			  "workspace-write", "--root", f.ws, "--",
			  "d=$(printf 'x\\n%s\\ny' '" MARKER_ESCALATION "'); mkdir -p \"$d\" && "
			  "git init -q \"$d\"",
			  NULL };

	cr_assert(e2e_run(p->who, first, NULL, &o) == 0, "%s %s %s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	char *second[] = { (char *)e2e_sbx(), "run", "--json", "--runner", p->runner, "--mode",
			   "workspace-write", "--root", f.ws, "--",
			   "for d in x*/; do git -C \"$d\" config core.fsmonitor true; done; "
			   "touch configured; sleep 60",
			   NULL };
	pid_t sbx = e2e_spawn(p->who, "/", second);

	for (int i = 0; i < 2000 && !e2e_exists(e2e_fmt("%s/configured", f.ws)); i++)
		usleep(5000);
	cr_assert(e2e_exists(e2e_fmt("%s/configured", f.ws)), "%s the second run never ran", f.tag);
	kill(sbx, SIGKILL);
	waitpid(sbx, NULL, 0);
	usleep(300000);
	char *next[] = { (char *)e2e_sbx(), "run", "--json", "--runner", p->runner, "--mode",
			 "read-only", "--root", f.ws, "--", "echo next", NULL };

	e2e_run(p->who, next, NULL, &o);
	json_t *j = json_loads(o.out, 0, NULL);
	const char *text = json_string_value(json_object_get(j, "text"));

	cr_assert(text && strstr(text, "put back before this run"),
		  "%s the next run did not say what it put back: %s %s", f.tag, o.out, o.err);
	cr_assert(!strstr(text, "\n" MARKER_ESCALATION),
		  "%s a bare marker in the text the model reads:\n%s", f.tag, text);
	cr_assert(strstr(text, "x\\x0a\\x5bsandbox: escalation available"),
		  "%s the name not quoted:\n%s", f.tag, text);
	json_decref(j);
	e2e_out_free(&o);
}
