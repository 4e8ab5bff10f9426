/* SPDX-License-Identifier: MIT */
/* Abstract unix sockets (issue 29, findings 1 and 2): a confined command
 * reaches the abstract sockets of its own run, never a host daemon's nor
 * another run's, whatever name it prints as and whichever network namespace
 * its thread is in. Each host daemon is started by the test outside sbx, as
 * the same user, and records every connection it accepts and every
 * datagram it gets (tests/helpers/abstractd.c): "reached" is read there.
 *
 * Both runners, as the caller and as nobody, at this kernel's Landlock ABI
 * (the kernel's scope decides), at ABI 5 (--landlock-abi 5: no scope, the
 * supervisor decides) and without Landlock at all (nofeature landlock, the
 * namespace runner). */
#include "serve_client.h"
#include "runner_params.h"

#include <sys/socket.h>

#ifdef CONFIG_SUPERVISOR

static void __attribute__((unused)) shared_helpers_unused(void)
{
	(void)assert_error;
	(void)run_ok;
	(void)wait_proc;
	(void)proc_with;
	(void)count_entries;
	(void)marker_seq;
	(void)users;
	(void)denied;
	(void)open_session_esc;
	(void)has_marker;
	(void)exit_code;
	(void)write_config;
}

enum abi { ABI_KERNEL = 0, ABI_5 = 5, ABI_NONE = -1 };

/* kernel/scope_thread.h's SCOPE_THREAD_IDLE_SECONDS */
#define SCOPE_IDLE 5

struct ap {
	int runner; /* enum runner */
	int user;   /* enum e2e_user */
	int abi;    /* enum abi */
};

static struct ap matrix[] = {
	{ NAMESPACE, AS_CALLER, ABI_KERNEL }, { NAMESPACE, AS_NOBODY, ABI_KERNEL },
	{ LANDLOCK, AS_CALLER, ABI_KERNEL },  { LANDLOCK, AS_NOBODY, ABI_KERNEL },
	{ NAMESPACE, AS_CALLER, ABI_5 },      { NAMESPACE, AS_NOBODY, ABI_5 },
	{ LANDLOCK, AS_CALLER, ABI_5 },       { LANDLOCK, AS_NOBODY, ABI_5 },
	{ NAMESPACE, AS_CALLER, ABI_NONE },   { NAMESPACE, AS_NOBODY, ABI_NONE },
};

/* serve takes no --landlock-abi: the kernel's, and none at all. */
static struct ap serve_matrix[] = {
	{ NAMESPACE, AS_CALLER, ABI_KERNEL }, { NAMESPACE, AS_NOBODY, ABI_KERNEL },
	{ LANDLOCK, AS_CALLER, ABI_KERNEL },  { LANDLOCK, AS_NOBODY, ABI_KERNEL },
	{ NAMESPACE, AS_CALLER, ABI_NONE },   { NAMESPACE, AS_NOBODY, ABI_NONE },
};

#define PARAMS(name, arr)                                                                  \
	ParameterizedTestParameters(abstract_sockets, name)                                 \
	{                                                                                   \
		return cr_make_param_array(struct ap, arr, sizeof arr / sizeof arr[0]);      \
	}

struct fx {
	enum runner runner;
	enum e2e_user who;
	int abi;
	char *B, *R, *tool;
	char tag[96];
	char id[64];
	unsigned seq;
};

static pid_t daemons[64];
static size_t n_daemons;

static void cleanup(void)
{
	for (size_t i = 0; i < n_daemons; i++)
		if (daemons[i] > 0 && kill(daemons[i], SIGKILL) == 0)
			waitpid(daemons[i], NULL, 0);
}

static void fx_setup(struct fx *f, const struct ap *p)
{
	struct e2e_out o;

	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	f->abi = p->abi;
	e2e_require_runner(f->who, runner_name[f->runner]);
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s, landlock %s]", runner_name[f->runner],
		 e2e_user_name(f->who), f->abi == ABI_KERNEL ? "the kernel's" : f->abi == ABI_5 ? "ABI 5" : "none");
	snprintf(f->id, sizeof f->id, "sbx-abs-%d-%d%d%d", (int)getpid(), p->runner, p->user,
		 p->abi + 1);
	f->B = e2e_tmpdir(f->who);
	f->R = e2e_fmt("%s/ws", f->B);
	cr_assert(e2e_mkdir(f->who, f->R) == 0);
	/* Not e2e_helper's copy: it lies under /tmp, which the namespace
	 * runner covers with a private tmpfs. */
	f->tool = e2e_fmt("%s/abstractd", e2e_tmpdir(AS_CALLER));
	char *argv[] = { "cp", (char *)e2e_helper("abstractd"), f->tool, NULL };

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0 && chmod(f->tool, 0755) == 0, "cp abstractd: %s", o.err);
	e2e_out_free(&o);
	if (n_daemons == 0)
		atexit(cleanup);
}

/* A fresh abstract name for this fixture. */
static char *fresh_name(struct fx *f)
{
	return e2e_fmt("%s-%u", f->id, f->seq++);
}

/* The host daemon: as who, outside sbx, on NUL name + pad NULs. Its witness
 * lies in a directory of who's (B, outside the root). */
static char *start_daemon(struct fx *f, const char *kind, const char *name, int pad)
{
	char *wit = e2e_fmt("%s/%s.witness", f->B, name), *ready = e2e_fmt("%s.ready", wit);
	char *pads = e2e_fmt("%d", pad);
	char *argv[] = { (char *)e2e_helper("abstractd"), "serve", (char *)kind, (char *)name, pads,
			 wit, NULL };

	cr_assert(n_daemons < sizeof daemons / sizeof daemons[0]);
	daemons[n_daemons++] = e2e_spawn(f->who, "/", argv);
	for (int i = 0; i < 2000 && !e2e_exists(ready); i++)
		usleep(5000);
	cr_assert(e2e_exists(ready), "%s the host daemon never bound @%s", f->tag, name);
	return wit;
}

/* sbx run (wrapped in nofeature for ABI_NONE) --json, read-only, --net NET. */
static json_t *run_json(struct fx *f, const char *mode, const char *net, const char *cmd,
			struct e2e_out *o)
{
	char *argv[32];
	size_t n = 0;
	json_error_t jerr;
	json_t *j;

	if (f->abi == ABI_NONE) {
		argv[n++] = (char *)e2e_helper("nofeature");
		argv[n++] = "landlock";
		argv[n++] = "--";
	}
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--runner";
	argv[n++] = (char *)runner_name[f->runner];
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	argv[n++] = "--net";
	argv[n++] = (char *)net;
	if (f->abi == ABI_5) {
		argv[n++] = "--landlock-abi";
		argv[n++] = "5";
	}
	argv[n++] = "--json";
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	e2e_run(f->who, argv, NULL, o);
	j = json_loads(o->out, 0, &jerr);
	cr_assert(j, "%s no JSON result (%s):\n%s\n%s", f->tag, jerr.text, o->out, o->err);
	return j;
}

/* The helper's "KEY=N" in the run's stdout, or -1000. */
static int val(json_t *j, const char *key)
{
	const char *out = json_string_value(json_object_get(j, "stdout"));
	size_t len = strlen(key);

	for (const char *s = out; s && *s;) {
		if (strncmp(s, key, len) == 0 && s[len] == '=')
			return atoi(s + len + 1);
		const char *nl = strchr(s, '\n');
		s = nl ? nl + 1 : NULL;
	}
	return -1000;
}

/* Nothing reached the daemon: no connection accepted, no datagram. */
static void expect_untouched(struct fx *f, const char *what, const char *wit, json_t *j)
{
	usleep(50000);
	char *got = e2e_read_file(wit);

	cr_assert(!got, "%s %s: the host daemon was reached:\n%s\n(run: %s)", f->tag, what, got,
		  json_string_value(json_object_get(j, "stdout")));
}

static void expect_refused(struct fx *f, const char *what, json_t *j)
{
	int r = val(j, "RESULT");

	/* Refusals are EACCES (CONTRACT section 10), counted, the failed run
	 * marked; the command exits 0 here, so only the count shows. */
	cr_assert(r == EACCES, "%s %s: RESULT=%d, not EACCES:\n%s", f->tag, what, r,
		  json_string_value(json_object_get(j, "stdout")));
	cr_assert(json_integer_value(json_object_get(json_object_get(j, "sandbox"),
						     "refused_calls")) >= 1,
		  "%s %s: the refusal was not counted", f->tag, what);
}

/* ---- finding 1: a decoy that prints as the daemon's name ---- */

static const char *const decoys[] = { "none", "space", "newline", "padding" };

static void decoy_round(struct fx *f, const char *mode, const char *kind, const char *decoy)
{
	char *name = fresh_name(f);
	int pad = strcmp(decoy, "padding") == 0 ? 3 : 0;
	char *wit = start_daemon(f, kind, name, pad);
	char *what = e2e_fmt("%s %s, decoy %s", mode, kind, decoy);
	struct e2e_out o;
	json_t *j = run_json(f, mode, "allow",
			     e2e_fmt("%s attack %s %s %s %d", f->tool, kind, decoy, name, pad), &o);

	cr_assert(val(j, "DECOY") == 0, "%s %s: the decoy could not be made:\n%s%s", f->tag, what,
		  o.out, o.err);
	expect_untouched(f, what, wit, j);
	expect_refused(f, what, j);
	json_decref(j);
	e2e_out_free(&o);
}

PARAMS(decoys_do_not_reach_a_host_daemon, matrix)
ParameterizedTest(struct ap *p, abstract_sockets, decoys_do_not_reach_a_host_daemon,
		  .timeout = 240)
{
	struct fx f;

	fx_setup(&f, p);
	for (size_t i = 0; i < sizeof decoys / sizeof decoys[0]; i++) {
		decoy_round(&f, "read-only", "stream", decoys[i]);
		decoy_round(&f, "read-only", "dgram", decoys[i]);
	}
	decoy_round(&f, "workspace-write", "stream", "space");
	decoy_round(&f, "workspace-write", "dgram", "none");
}

/* ---- finding 2: the socket's own network namespace ---- */

PARAMS(socket_made_before_unshare_stays_in_the_host_namespace, matrix)
ParameterizedTest(struct ap *p, abstract_sockets,
		  socket_made_before_unshare_stays_in_the_host_namespace, .timeout = 120)
{
	struct fx f;
	static const char *const kinds[] = { "stream", "dgram" };

	fx_setup(&f, p);
	for (size_t i = 0; i < 2; i++) {
		char *name = fresh_name(&f);
		char *wit = start_daemon(&f, kinds[i], name, 0);
		char *what = e2e_fmt("%s after unshare", kinds[i]);
		struct e2e_out o;
		json_t *j = run_json(&f, "read-only", "allow",
				     e2e_fmt("%s unshare %s %s 0", f.tool, kinds[i], name), &o);

		cr_assert(val(j, "UNSHARE") != -1000, "%s %s: %s%s", f.tag, what, o.out, o.err);
		expect_untouched(&f, what, wit, j);
		expect_refused(&f, what, j);
		json_decref(j);
		e2e_out_free(&o);
	}
}

/* ---- the run's own abstract sockets ---- */

PARAMS(own_abstract_sockets_are_reachable, matrix)
ParameterizedTest(struct ap *p, abstract_sockets, own_abstract_sockets_are_reachable)
{
	struct fx f;
	static const char *const kinds[] = { "stream", "dgram" };
	static const char *const nets[] = { "allow", "none" };

	fx_setup(&f, p);
	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++) {
			struct e2e_out o;
			json_t *j = run_json(&f, "read-only", nets[k],
					     e2e_fmt("%s own %s %s", f.tool, kinds[i], fresh_name(&f)), &o);

			cr_assert(val(j, "OWN") == 0, "%s own %s server, --net %s: %s%s", f.tag,
				  kinds[i], nets[k], o.out, o.err);
			json_decref(j);
			e2e_out_free(&o);
		}
}

/* ---- late in a run: the scope thread is gone, the decision stays ---- */

static struct ap kernel_matrix[] = {
	{ NAMESPACE, AS_CALLER, ABI_KERNEL }, { NAMESPACE, AS_NOBODY, ABI_KERNEL },
	{ LANDLOCK, AS_CALLER, ABI_KERNEL },  { LANDLOCK, AS_NOBODY, ABI_KERNEL },
};

/* A run that names no abstract socket for its first seconds keeps no thread
 * of its scope domain (kernel/scope_thread.h): a later call is decided by
 * identity instead, as below ABI 6. The host daemon stays out of reach, the
 * run's own sockets in it. */
PARAMS(late_abstract_calls_are_decided_too, kernel_matrix)
ParameterizedTest(struct ap *p, abstract_sockets, late_abstract_calls_are_decided_too,
		  .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	char *name = fresh_name(&f);
	char *wit = start_daemon(&f, "stream", name, 0);
	struct e2e_out o;
	json_t *j = run_json(&f, "read-only", "allow",
			     e2e_fmt("sleep %d; %s attack stream space %s 0; %s own stream %s",
				     SCOPE_IDLE + 2, f.tool, name, f.tool, fresh_name(&f)), &o);

	expect_untouched(&f, "late, decoy space", wit, j);
	expect_refused(&f, "late, decoy space", j);
	cr_assert(val(j, "OWN") == 0, "%s late, own stream server: %s%s", f.tag, o.out, o.err);
	json_decref(j);
	e2e_out_free(&o);
}

/* ---- another run's abstract socket (one serve, two sessions) ---- */

PARAMS(another_runs_abstract_socket_is_refused, serve_matrix)
ParameterizedTest(struct ap *p, abstract_sockets, another_runs_abstract_socket_is_refused,
		  .timeout = 120)
{
	struct fx f;
	struct srv s;
	long long id = 1;
	const char *wrap[] = { e2e_helper("nofeature"), "landlock", "--", NULL };

	fx_setup(&f, p);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);
	char *name = fresh_name(&f);
	char *wit = e2e_fmt("%s/%s.witness", f.R, name);

	cr_assert(e2e_write_file(AS_CALLER, cfg, e2e_fmt("runner = %s\n", runner_name[f.runner])) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	srv_start_wrapped(&s, f.who, cfg, f.abi == ABI_NONE ? wrap : NULL);
	rpc_call(&s, id++, "initialize", json_object());
	const char *one = open_session(&s, id++, f.R, "workspace-write");
	const char *two = open_session(&s, id++, f.R, "workspace-write");
	const char *task = start_bg(&s, id++, one, e2e_fmt("%s listen stream %s %s", f.tool, name, wit));

	for (int i = 0; i < 2000 && !e2e_exists(e2e_fmt("%s.ready", wit)); i++)
		usleep(5000);
	cr_assert(e2e_exists(e2e_fmt("%s.ready", wit)), "%s the task never listened", f.tag);
	json_t *res = result_of(rpc_call(&s, id++, "run", run_params(two,
				e2e_fmt("%s attack stream none %s 0", f.tool, name))));

	expect_untouched(&f, "another session's task", wit, res);
	expect_refused(&f, "another session's task", res);
	/* The same from another run of the task's own session. */
	res = result_of(rpc_call(&s, id++, "run", run_params(one,
			e2e_fmt("%s attack stream none %s 0", f.tool, name))));
	expect_untouched(&f, "another run of the task's session", wit, res);
	expect_refused(&f, "another run of the task's session", res);
	rpc_call(&s, id++, "task/kill", task_params(one, task));
	wait_settled(&s, task);
	srv_stop(&s);
}

#else

Test(abstract_sockets, not_built)
{
	cr_skip_test("built without the supervisor (CONFIG_SUPERVISOR=n)");
}

#endif
