/* SPDX-License-Identifier: MIT */
/* The supervisor's socket policy and its listen record, each attack from
 * inside confined commands, its effect checked from outside:
 *  - a host daemon in the writable set (the landlock runner's /tmp is the
 *    host's; any runner's workspace) never receives a byte of a command's
 *    connection, also while a second thread writes into the socket that the
 *    supervisor is connecting for the first one (the witness file); the
 *    connection sbx asks on instead, blocked, ends with its run and leaves
 *    no thread or fd (this process's, through the library);
 *  - the daemon of a danger-full-access task of serve is the host's to a
 *    confined run, though below sbx (a confined task's stays reachable);
 *  - a refused user namespace is counted once the host's answer is known,
 *    even after the one probe for that answer failed for want of a process
 *    (the result's refused_calls and denied). */
#include "serve_client.h"
#include "runner_params.h"

#include "sbx.h"

#ifdef CONFIG_SUPERVISOR

/* serve_client.h's helpers this file does not need. */
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
	(void)open_session;
	(void)wait_settled;
	(void)has_marker;
	(void)exit_code;
	(void)start_bg;
}

/* --net none needs network namespaces in the build. */
#ifdef CONFIG_NETNS
#define N_NETS 2
#else
#define N_NETS 1
#endif
static const char *const nets[] = { "allow", "none" };

static struct cp ll_params[] = { { LANDLOCK, AS_CALLER }, { LANDLOCK, AS_NOBODY } };

#define PARAMS(name, arr)                                                                  \
	ParameterizedTestParameters(socket_policy, name)                                         \
	{                                                                                   \
		return cr_make_param_array(struct cp, arr, CP_COUNT(arr));                   \
	}

/* B = e2e_tmpdir(who), R = B/ws (the root), W = B/witness (outside it). */
struct fx {
	enum runner runner;
	enum e2e_user who;
	char *B, *R;
	char tag[64];
	char *tmpdir; /* a directory of who's in the host's /tmp */
};

static pid_t daemons[16];
static size_t n_daemons;
static char *tmpdirs[4];
static size_t n_tmpdirs;

static void cleanup(void)
{
	for (size_t i = 0; i < n_daemons; i++)
		if (daemons[i] > 0 && kill(daemons[i], SIGKILL) == 0)
			waitpid(daemons[i], NULL, 0);
	for (size_t i = 0; i < n_tmpdirs; i++)
		e2e_rm_rf(tmpdirs[i]);
}

static void fx_setup(struct fx *f, const struct cp *p)
{
	char tmpl[] = "/tmp/sbx-e2e-rt4-XXXXXX";

	memset(f, 0, sizeof *f);
	f->runner = (enum runner)p->runner;
	f->who = (enum e2e_user)p->user;
	e2e_require_runner(f->who, runner_name[f->runner]);
	snprintf(f->tag, sizeof f->tag, "[runner %s, user %s]", runner_name[f->runner],
		 e2e_user_name(f->who));
	f->B = e2e_tmpdir(f->who);
	f->R = e2e_fmt("%s/ws", f->B);
	cr_assert(e2e_mkdir(f->who, f->R) == 0, "fixture: mkdir");
	if (n_daemons == 0 && n_tmpdirs == 0)
		atexit(cleanup);
	cr_assert(mkdtemp(tmpl) && chown(tmpl, e2e_uid(f->who), e2e_gid(f->who)) == 0 &&
		  chmod(tmpl, 0755) == 0);
	f->tmpdir = strdup(tmpl);
	cr_assert(n_tmpdirs < 4);
	tmpdirs[n_tmpdirs++] = f->tmpdir;
}

/* A file every runner's command can read (B is outside the host's /tmp,
 * which the namespace runner covers with its own). */
static char *script_file(struct fx *f, const char *name, const char *text)
{
	char *path = e2e_fmt("%s/%s", f->B, name);

	cr_assert(e2e_write_file(AS_CALLER, path, text) == 0);
	cr_assert(chmod(path, 0644) == 0);
	return path;
}

/* A test helper where every runner's command sees it (the e2e copies live
 * in /tmp, which the namespace runner covers with its own). */
static char *helper_copy(struct fx *f, const char *name)
{
	char *dst = e2e_fmt("%s/%s", f->B, name);
	char *argv[] = { "cp", (char *)e2e_helper(name), dst, NULL };
	struct e2e_out o;

	if (!e2e_exists(dst)) {
		e2e_run(AS_CALLER, argv, NULL, &o);
		cr_assert(o.status == 0, "cp %s: %s", name, o.err);
		e2e_out_free(&o);
		cr_assert(chmod(dst, 0755) == 0);
	}
	return dst;
}

/* sbx run --runner R --mode workspace-write --root R [--net NET] --json -- CMD */
static json_t *sbx_json_net(struct fx *f, const char *net, const char *cmd, struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[f->runner],
			 "--mode", "workspace-write", "--root", f->R, "--net", (char *)net, "--json",
			 "--", (char *)cmd, NULL };
	json_error_t jerr;
	json_t *j;

	e2e_run(f->who, argv, NULL, o);
	j = json_loads(o->out, 0, &jerr);
	cr_assert(j, "%s no JSON result (%s):\n%s\n%s", f->tag, jerr.text, o->out, o->err);
	return j;
}

static json_t *sbx_json(struct fx *f, const char *cmd, struct e2e_out *o)
{
	return sbx_json_net(f, "allow", cmd, o);
}

static __attribute__((unused)) json_t *sandbox_of(json_t *j)
{
	return json_object_get(j, "sandbox");
}

/* ---- a connection is made only to a listener known to be the run's ---- */

/* The user's own daemon (tmux, ssh-agent, an X server): started by the
 * test as who, outside sbx, writing every byte it receives to witness. */
static void start_host_daemon(struct fx *f, const char *sock, const char *witness)
{
	char *argv[] = { (char *)e2e_helper("sockserver"), "stream", (char *)sock,
			 (char *)witness, NULL };

	cr_assert(n_daemons < 15);
	daemons[n_daemons++] = e2e_spawn(f->who, "/", argv);
	for (int i = 0; i < 2000 && !e2e_exists(sock); i++)
		usleep(5000);
	cr_assert(e2e_exists(sock), "%s the host daemon never made %s", f->tag, sock);
}

/* connect() on a socket while a second thread writes into it without end:
 * the supervisor performs the connect on the command's own socket (the same
 * open file), so once it is connected the writer's bytes go to whoever
 * listens, whatever the supervisor decides after. tmux's client protocol
 * needs nothing back before its command: those bytes run one outside the
 * sandbox. Prints "errno N" or "connected" for each round. */
static const char *race_script =
	"import os, socket, sys, threading\n"
	"target, rounds = sys.argv[1], int(sys.argv[2])\n"
	"for _ in range(rounds):\n"
	"    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
	"    fd, stop = s.fileno(), []\n"
	"    def spam():\n"
	"        while not stop:\n"
	"            try: os.write(fd, b'injected\\n')\n"
	"            except OSError: pass\n"
	"    t = threading.Thread(target=spam); t.start()\n"
	"    try:\n"
	"        s.connect(target); print('connected')\n"
	"    except OSError as e:\n"
	"        print('errno', e.errno)\n"
	"    stop.append(1); t.join(); s.close()\n";

static void expect_no_byte(struct fx *f, const char *sock, const char *witness)
{
	struct e2e_out o;
	char *cmd = e2e_fmt("python3 %s %s 20", script_file(f, "race.py", race_script), sock);
	json_t *j = sbx_json(f, cmd, &o);
	const char *out = json_string_value(json_object_get(j, "stdout"));
	size_t refused = 0;

	for (const char *p = out; p && (p = strstr(p, "errno 13")); p++)
		refused++;
	cr_assert(refused == 20, "%s the command's connects to the host daemon on %s were not all "
		  "refused:\n%s\n%s", f->tag, sock, o.out, o.err);
	usleep(100000); /* the daemon reads what it was sent at once */
	char *got = e2e_read_file(witness);

	cr_assert(!got, "%s the host daemon on %s received %zu bytes from a refused connection "
		  "(starting \"%.40s\")", f->tag, sock, got ? strlen(got) : 0, got ? got : "");
	json_decref(j);
	e2e_out_free(&o);
}

PARAMS(connect_race_sends_no_byte_to_a_host_daemon, all_params)
ParameterizedTest(struct cp *p, socket_policy, connect_race_sends_no_byte_to_a_host_daemon,
		  .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	/* in the workspace: a host process's socket there is not the run's */
	char *ws = e2e_fmt("%s/host.sock", f.R), *ww = e2e_fmt("%s/witness-ws", f.B);

	start_host_daemon(&f, ws, ww);
	expect_no_byte(&f, ws, ww);
	if (f.runner == LANDLOCK) {
		/* the host's /tmp, where tmux, ssh-agent and X listen */
		char *ts = e2e_fmt("%s/default", f.tmpdir), *tw = e2e_fmt("%s/witness-tmp", f.B);

		start_host_daemon(&f, ts, tw);
		expect_no_byte(&f, ts, tw);
	}
}

/* A server the command starts itself is reached with one connection, the
 * command's own: no probe connection before it (a forkserver, a one-shot
 * server: each takes an empty connection as its client). */
static const char *one_shot_script =
	"import os, socket, sys, time\n"
	"path = sys.argv[1]\n"
	"srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(4)\n"
	"if os.fork() == 0:\n"
	"    c, _ = srv.accept(); d = c.recv(64)\n"
	"    os._exit(0 if d == b'first\\n' else 7)\n"
	"srv.close()\n"
	"c = socket.socket(socket.AF_UNIX); c.connect(path); c.sendall(b'first\\n'); c.close()\n"
	"_, st = os.wait(); sys.exit(os.waitstatus_to_exitcode(st))\n";

PARAMS(own_server_gets_one_connection, all_params)
ParameterizedTest(struct cp *p, socket_policy, own_server_gets_one_connection)
{
	struct fx f;

	fx_setup(&f, p);
	for (int n = 0; n < N_NETS; n++)
		for (int where = 0; where < 2; where++) {
			struct e2e_out o;
			const char *sock = where ? "/tmp/sbx-rt4-own-$$.sock" : "./own.sock";
			char *cmd = e2e_fmt("cd %s && python3 %s %s; r=$?; rm -f %s; exit $r", f.R,
					    script_file(&f, "one_shot.py", one_shot_script), sock, sock);
			json_t *j;

			/* A root caller's landlock run has no user namespace of its
			 * own under --net none: sbx cannot ask the socket what file it
			 * is bound to there, and asks on a connection of its own
			 * (docs/supervisor.md). */
			if (n == 1 && f.runner == LANDLOCK && e2e_uid(f.who) == 0)
				continue;
			j = sbx_json_net(&f, nets[n], cmd, &o);
			cr_assert(json_integer_value(json_object_get(j, "exit_code")) == 0,
				  "%s --net %s: the command's own one-shot server on %s did not get "
				  "its client's line first:\n%s\n%s", f.tag, nets[n], sock, o.out, o.err);
			json_decref(j);
			e2e_out_free(&o);
		}
}

/* The connection sbx asks on can block too (a listener whose queue is
 * full): on a worker, which ends with its caller or its run, and closes
 * that connection. Through the library, counted in this process. */
static int entries_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static bool threads_settle(int want)
{
	for (int i = 0; i < 2000; i++) {
		if (entries_in("/proc/self/task") == want)
			return true;
		usleep(5000);
	}
	return false;
}

/* In a child of the test (as who): 0, or what was left behind. */
static int stuck_probe_child(const char *root, const char *sock, bool kill_inside)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err;
	int threads = entries_in("/proc/self/task"), fds = entries_in("/proc/self/fd");
	/* the first connect fills the host listener's queue (backlog 0, no
	 * accept), the second blocks in sbx's own connection */
	char *cmd = e2e_fmt("python3 -c 'import socket,sys\n"
			    "for i in range(3):\n"
			    "    try: socket.socket(socket.AF_UNIX).connect(sys.argv[1])\n"
			    "    except OSError: pass' %s & %s",
			    sock, kill_inside ? "sleep 1; kill -9 %1; sleep 7" : "wait");

	sbx_run_set_command(run, cmd);
	sbx_run_set_mode(run, SBX_MODE_WORKSPACE_WRITE);
	sbx_run_set_root(run, root);
	sbx_run_set_runner(run, SBX_RUNNER_LANDLOCK);
	sbx_run_set_timeout_ms(run, kill_inside ? 20000 : 1500);
	if (sbx_run_execute(run, &res, &err) < 0)
		return 2;
	sbx_result_free(res);
	sbx_run_free(run);
	if (!threads_settle(threads))
		return 1;
	return entries_in("/proc/self/fd") == fds ? 0 : 3;
}

PARAMS(probe_of_a_stuck_listener_leaves_nothing, ll_params)
ParameterizedTest(struct cp *p, socket_policy, probe_of_a_stuck_listener_leaves_nothing,
		  .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	char *sock = e2e_fmt("%s/stuck", f.tmpdir);
	char *argv[] = { (char *)e2e_helper("sockserver"), "stuck", sock, NULL };

	cr_assert(n_daemons < 15);
	daemons[n_daemons++] = e2e_spawn(f.who, "/", argv);
	for (int i = 0; i < 2000 && !e2e_exists(sock); i++)
		usleep(5000);
	for (int kill_inside = 0; kill_inside < 2; kill_inside++) {
		int status;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		cr_assert(pid >= 0);
		if (pid == 0) {
			if (f.who == AS_NOBODY &&
			    (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
			     setresuid(65534, 65534, 65534) < 0))
				_exit(5);
			_exit(stuck_probe_child(f.R, sock, kill_inside));
		}
		cr_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
		cr_assert(WEXITSTATUS(status) == 0, "%s %s: %s", f.tag,
			  kill_inside ? "its caller killed" : "the run timed out",
			  WEXITSTATUS(status) == 1   ? "a supervisor thread outlived the call"
			  : WEXITSTATUS(status) == 3 ? "the supervisor left fds open"
						     : "the run failed");
	}
}

/* A daemon started by a user-approved danger-full-access task of serve (a
 * tmux server, a dev environment) runs outside any sandbox: a later
 * confined run of the same serve must not reach it, although it is a
 * descendant of sbx. One a confined task started still is reachable (a
 * background task's database, documented). */
static const char *client_script =
	"import socket, sys\n"
	"try:\n"
	"    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'line\\n')\n"
	"    print('sent')\n"
	"except OSError as e:\n"
	"    print('errno', e.errno); sys.exit(3)\n";

static const char *bg_daemon(struct fx *f, struct srv *s, long long id, const char *session,
			     const char *sock, const char *witness, bool escalated)
{
	json_t *p = run_params(session, e2e_fmt("%s stream %s %s & sleep 60", helper_copy(f, "sockserver"),
						sock, witness));
	json_t *res;

	json_object_set_new(p, "background", json_true());
	if (escalated) {
		json_object_set_new(p, "sandbox_permissions", json_string("danger-full-access"));
		json_object_set_new(p, "justification", json_string("a dev environment"));
	}
	res = result_of(rpc_call(s, id, "run", p));
	cr_assert(str_at(res, "task"), "no task in the answer");
	for (int i = 0; i < 2000 && !e2e_exists(sock); i++)
		usleep(5000);
	cr_assert(e2e_exists(sock), "the task's daemon never made %s", sock);
	return str_at(res, "task");
}

PARAMS(escalated_task_daemon_unreachable_from_confined_runs, all_params)
ParameterizedTest(struct cp *p, socket_policy, escalated_task_daemon_unreachable_from_confined_runs,
		  .timeout = 120)
{
	struct fx f;
	struct srv s;
	long long id = 1;

	fx_setup(&f, p);
	char *cfg = write_config(e2e_fmt("runner = %s\nescalation = true\n", runner_name[f.runner]));
	char *client = e2e_fmt("python3 %s", script_file(&f, "client.py", client_script));
	/* in the workspace: writable for both runners, owned by who */
	char *esc = e2e_fmt("%s/esc.sock", f.R), *esc_w = e2e_fmt("%s/witness-esc", f.B);
	char *own = e2e_fmt("%s/own.sock", f.R), *own_w = e2e_fmt("%s/witness-own", f.R);

	cr_assert(e2e_write_file(f.who, esc_w, "") == 0 && unlink(esc_w) == 0);
	srv_start(&s, f.who, cfg);
	rpc_call(&s, id++, "initialize", json_object());
	const char *session = open_session_esc(&s, id++, f.R, "workspace-write", 1);
	const char *t_esc = bg_daemon(&f, &s, id++, session, esc, esc_w, true);
	const char *t_own = bg_daemon(&f, &s, id++, session, own, own_w, false);

	json_t *res = result_of(rpc_call(&s, id++, "run", run_params(session, e2e_fmt("%s %s", client, esc))));
	const char *out = str_at(res, "stdout");

	usleep(100000);
	cr_assert(!e2e_exists(esc_w), "%s a confined run reached the daemon of a danger-full-access "
		  "task: %s", f.tag, out);
	cr_assert(out && strstr(out, "errno 13"), "%s %s", f.tag, out);
	res = result_of(rpc_call(&s, id++, "run", run_params(session, e2e_fmt("%s %s", client, own))));
	out = str_at(res, "stdout");
	cr_assert(out && strstr(out, "sent"), "%s a confined task's daemon is not reachable from "
		  "another confined run: %s", f.tag, out);
	rpc_call(&s, id++, "task/kill", task_params(session, t_esc));
	rpc_call(&s, id++, "task/kill", task_params(session, t_own));
	srv_stop(&s);
}

#ifdef CONFIG_SECCOMP
/* ---- refusals the rules make are counted ---- */

/* Tasks whose real uid is uid (threads count, as for RLIMIT_NPROC). */
static long tasks_of(uid_t uid)
{
	char cmd[96];
	long n = 0;
	FILE *p;

	snprintf(cmd, sizeof cmd, "ps -L -u %u --no-headers | wc -l", (unsigned)uid);
	p = popen(cmd, "r");
	cr_assert(p);
	cr_assert(fscanf(p, "%ld", &n) == 1);
	pclose(p);
	return n;
}

/* Under the landlock runner a non-root caller's refused user namespace is
 * counted where the host would have allowed one, which the supervisor asks
 * the kernel once, with a child of its own. The command first takes every
 * process its user may have (RLIMIT_NPROC), so that child cannot be made;
 * then it frees them and asks again. The second refusal is the sandbox's:
 * counted, and the failed run denied. (A root caller needs no child.) */
static const char *userns_twice_script =
	"import ctypes, os, signal, sys\n"
	"libc = ctypes.CDLL(None, use_errno=True)\n"
	"def unshare():\n"
	"    r = libc.unshare(0x10000000)\n"
	"    return 0 if r == 0 else ctypes.get_errno()\n"
	"kids = []\n"
	"if os.getuid() != 0:\n"
	"    try:\n"
	"        while True:\n"
	"            pid = os.fork()\n"
	"            if pid == 0:\n"
	"                signal.pause(); os._exit(0)\n"
	"            kids.append(pid)\n"
	"    except OSError:\n"
	"        pass\n"
	"first = unshare()\n"
	"for k in kids: os.kill(k, signal.SIGKILL)\n"
	"for k in kids: os.waitpid(k, 0)\n"
	"print('filled', len(kids), 'first', first, 'second', unshare())\n"
	"sys.exit(1)\n";

PARAMS(userns_refusal_counted_after_a_failed_probe, ll_params)
ParameterizedTest(struct cp *p, socket_policy, userns_refusal_counted_after_a_failed_probe,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;
	json_error_t jerr;

	fx_setup(&f, p);
	char *cmd = e2e_fmt("python3 %s", script_file(&f, "userns.py", userns_twice_script));
	/* Room for sbx, the run and other tests' processes of who started
	 * meanwhile (criterion runs two at once); the command takes the rest. */
	char *nproc = e2e_fmt("--nproc=%ld", tasks_of(e2e_uid(f.who)) + 200);
	char *argv[] = { "prlimit", nproc, "--", (char *)e2e_sbx(), "run", "--runner", "landlock",
			 "--mode", "workspace-write", "--root", f.R, "--json", "--", cmd, NULL };

	e2e_run(f.who, argv, NULL, &o);
	json_t *j = json_loads(o.out, 0, &jerr);

	cr_assert(j, "%s no JSON result (%s):\n%s\n%s", f.tag, jerr.text, o.out, o.err);
	const char *out = json_string_value(json_object_get(j, "stdout"));

	cr_assert(out && strstr(out, "second 1\n"), "%s the second unshare was not refused:\n%s",
		  f.tag, o.out);
	cr_assert(json_integer_value(json_object_get(sandbox_of(j), "refused_calls")) >= 1 &&
			  json_is_true(json_object_get(sandbox_of(j), "denied")),
		  "%s a refused user namespace, which this host allows the caller, is not counted "
		  "once a probe for it failed:\n%s", f.tag, o.out);
	json_decref(j);
	e2e_out_free(&o);
}

#endif /* CONFIG_SECCOMP: the errno rules */

#else

Test(socket_policy, not_built)
{
	cr_skip("built without the supervisor (CONFIG_SUPERVISOR)");
}

#endif

/* Connects to each socket named and sends a line; prints "sent PATH" or
 * "errno N PATH" for each (the daemons' witnesses say what arrived). */
static const char *send_script = "import socket,sys\n"
				 "for a in sys.argv[1:]:\n"
				 "    s = socket.socket(socket.AF_UNIX)\n"
				 "    try:\n"
				 "        s.connect(a); s.sendall(b'REACHED\\n'); print('sent', a)\n"
				 "    except OSError as e: print('errno', e.errno, a)\n";

/* An allow-list entry naming sockets in a directory the run may write (the
 * form sbx.conf gives for X11, in the host's /tmp, which the landlock runner
 * grants): the command hard-linked the user's own daemon's socket (tmux,
 * ssh-agent) to an allowed name, and the daemon received its bytes
 * (adversarial pass). A socket linked or renamed to an allowed name during
 * the run is not the deployment's; one there before it still is (checked at
 * both daemons' witnesses). */
PARAMS(allowed_name_given_by_a_hard_link_is_refused, all_params)
ParameterizedTest(struct cp *p, socket_policy, allowed_name_given_by_a_hard_link_is_refused,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *x11 = e2e_fmt("%s/x11", f.tmpdir), *daemon = e2e_fmt("%s/daemon.sock", f.tmpdir);
	char *wit = e2e_fmt("%s/daemon.wit", f.B), *wit0 = e2e_fmt("%s/x0.wit", f.B);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_mkdir(f.who, x11) == 0);
	start_host_daemon(&f, daemon, wit);
	start_host_daemon(&f, e2e_fmt("%s/X0", x11), wit0);
	cr_assert(e2e_write_file(AS_CALLER, cfg, e2e_fmt("unix_sockets = %s/X*\n", x11)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	char *py = script_file(&f, "send.py", send_script);
	char *cmd = e2e_fmt("ln %s %s/X77; python3 %s %s/X77; python3 %s %s/X0", daemon, x11, py,
			    x11, py, x11);
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			 (char *)runner_name[f.runner], "--mode", "workspace-write", "--root", f.R,
			 "--", cmd, NULL };

	e2e_run(f.who, argv, NULL, &o);
	usleep(200000);
	char *got = e2e_read_file(wit);

	cr_assert(!got, "%s the daemon behind a hard link at an allowed name was reached:\n%s%s",
		  f.tag, o.out, o.err);
	got = e2e_read_file(wit0);
	cr_assert(f.runner == NAMESPACE || (got && strstr(got, "REACHED")),
		  "%s the allowed socket made before the run was not reached:\n%s%s", f.tag, o.out,
		  o.err);
	unlink(e2e_fmt("%s/X77", x11));
	e2e_out_free(&o);
}

/* The same through a directory (adversarial pass, round 3): the entry's `*`
 * matches '/', so the command renamed the user's daemon's DIRECTORY into
 * the allowed one, connected through it and renamed it back: the socket's
 * own inode (and ctime) is untouched. Every directory between the entry's
 * fixed part and the socket must have been there before the run too. */
PARAMS(allowed_name_given_by_a_renamed_directory_is_refused, all_params)
ParameterizedTest(struct cp *p, socket_policy, allowed_name_given_by_a_renamed_directory_is_refused,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *x11 = e2e_fmt("%s/x11", f.tmpdir), *dir = e2e_fmt("%s/dmn", f.tmpdir);
	char *wit = e2e_fmt("%s/daemon.wit", f.B), *wit0 = e2e_fmt("%s/x0.wit", f.B);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_mkdir(f.who, x11) == 0 && e2e_mkdir(f.who, dir) == 0);
	start_host_daemon(&f, e2e_fmt("%s/daemon.sock", dir), wit);
	start_host_daemon(&f, e2e_fmt("%s/X0", x11), wit0);
	cr_assert(e2e_write_file(AS_CALLER, cfg, e2e_fmt("unix_sockets = %s/X*\n", x11)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	char *py = script_file(&f, "send.py", send_script);
	char *cmd = e2e_fmt("mv %s %s/X9 && python3 %s %s/X9/daemon.sock; mv %s/X9 %s; python3 %s %s/X0",
			    dir, x11, py, x11, x11, dir, py, x11);
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			 (char *)runner_name[f.runner], "--mode", "workspace-write", "--root", f.R,
			 "--", cmd, NULL };

	e2e_run(f.who, argv, NULL, &o);
	usleep(200000);
	char *got = e2e_read_file(wit);

	cr_assert(!got, "%s the daemon behind a directory renamed into an allowed place was "
		  "reached:\n%s%s", f.tag, o.out, o.err);
	got = e2e_read_file(wit0);
	cr_assert(f.runner == NAMESPACE || (got && strstr(got, "REACHED")),
		  "%s the allowed socket made before the run was not reached:\n%s%s", f.tag, o.out,
		  o.err);
	e2e_out_free(&o);
}

/* The same staged by an EARLIER run (adversarial pass, round 3, finding
 * 06): a workspace-write run hard-linked a daemon's socket to an allowed
 * name and renamed another daemon's directory into the allowed one, and
 * left them there; the next run, read-only, connected through them. Both
 * names are older than the second run: a change made while any recorded
 * confined run that could write there was live is a run's (the runs
 * record). Here in the root, which both runners may write; the first run
 * without git's rules (protected_paths = none), which is recorded too. A
 * socket made before both runs stays reachable. */
PARAMS(allowed_name_staged_by_an_earlier_run_is_refused, all_params)
ParameterizedTest(struct cp *p, socket_policy, allowed_name_staged_by_an_earlier_run_is_refused,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *x11 = e2e_fmt("%s/x11", f.R), *d = e2e_fmt("%s/d", f.R), *d2 = e2e_fmt("%s/d2", f.R);
	char *wit = e2e_fmt("%s/daemon.wit", f.B), *wit2 = e2e_fmt("%s/daemon2.wit", f.B);
	char *wit0 = e2e_fmt("%s/x0.wit", f.B), *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_mkdir(f.who, x11) == 0 && e2e_mkdir(f.who, d) == 0 &&
		  e2e_mkdir(f.who, d2) == 0);
	start_host_daemon(&f, e2e_fmt("%s/daemon.sock", d), wit);
	start_host_daemon(&f, e2e_fmt("%s/daemon2.sock", d2), wit2);
	start_host_daemon(&f, e2e_fmt("%s/X0", x11), wit0);
	usleep(50000); /* the sockets' change times a tick before the runs */
	cr_assert(e2e_write_file(AS_CALLER, cfg,
				 e2e_fmt("unix_sockets = %s/X*\nprotected_paths = none\n", x11)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	char *py = script_file(&f, "send.py", send_script);
	char *stage = e2e_fmt("ln %s/daemon.sock %s/X77 && mv %s %s/X9", d, x11, d2, x11);
	char *use = e2e_fmt("python3 %s %s/X77 %s/X9/daemon2.sock %s/X0", py, x11, x11, x11);
	char *first[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			  (char *)runner_name[f.runner], "--mode", "workspace-write", "--root", f.R,
			  "--", stage, NULL };
	char *second[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			   (char *)runner_name[f.runner], "--mode", "read-only", "--root", f.R,
			   "--", use, NULL };

	cr_assert(e2e_run(f.who, first, NULL, &o) == 0, "%s the staging run failed:\n%s%s", f.tag,
		  o.out, o.err);
	e2e_out_free(&o);
	cr_assert(e2e_exists(e2e_fmt("%s/X77", x11)) && e2e_exists(e2e_fmt("%s/X9/daemon2.sock", x11)),
		  "%s the staged names are not on disk", f.tag);
	/* The user makes something in the allowed directory between the runs:
	 * its ctime is then the user's, and only the staged names' own say
	 * that a run made them. */
	usleep(50000);
	cr_assert(e2e_write_file(f.who, e2e_fmt("%s/notes", x11), "mine\n") == 0);
	usleep(50000);
	e2e_run(f.who, second, NULL, &o);
	usleep(200000);
	char *got = e2e_read_file(wit);

	cr_assert(!got, "%s a daemon behind a hard link an earlier run made at an allowed name "
		  "was reached:\n%s%s", f.tag, o.out, o.err);
	got = e2e_read_file(wit2);
	cr_assert(!got, "%s a daemon behind a directory an earlier run renamed into the allowed "
		  "one was reached:\n%s%s", f.tag, o.out, o.err);
	got = e2e_read_file(wit0);
	cr_assert(got && strstr(got, "REACHED"),
		  "%s the allowed socket made before both runs was not reached:\n%s%s", f.tag,
		  o.out, o.err);
	e2e_out_free(&o);
}

/* The same with the staging run's record archived: past the runs record's
 * recent list (256 runs on other roots since), its window is kept by root
 * (protect_runs_archive.c), and the supervisor still asks it for what
 * lies below the allowed directory. A private $HOME: the record is this
 * test's. */
PARAMS(allowed_name_staged_before_many_runs_is_refused, all_params)
ParameterizedTest(struct cp *p, socket_policy, allowed_name_staged_before_many_runs_is_refused,
		  .timeout = 300)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *home = e2e_fmt("%s/home", f.B), *x11 = e2e_fmt("%s/x11", f.R), *d = e2e_fmt("%s/d", f.R);
	char *wit = e2e_fmt("%s/daemon.wit", f.B), *wit0 = e2e_fmt("%s/x0.wit", f.B);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);
	char *env[] = { e2e_fmt("HOME=%s", home), NULL };

	cr_assert(e2e_mkdir(f.who, home) == 0 && e2e_mkdir(f.who, x11) == 0 &&
		  e2e_mkdir(f.who, d) == 0);
	start_host_daemon(&f, e2e_fmt("%s/daemon.sock", d), wit);
	start_host_daemon(&f, e2e_fmt("%s/X0", x11), wit0);
	usleep(50000);
	cr_assert(e2e_write_file(AS_CALLER, cfg,
				 e2e_fmt("unix_sockets = %s/X*\nprotected_paths = none\n", x11)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	char *py = script_file(&f, "send.py", send_script);
	char *stage = e2e_fmt("ln %s/daemon.sock %s/X77", d, x11);
	char *first[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			  (char *)runner_name[f.runner], "--mode", "workspace-write", "--root", f.R,
			  "--", stage, NULL };

	cr_assert(e2e_run(f.who, first, env, &o) == 0, "%s the staging run failed:\n%s%s", f.tag,
		  o.out, o.err);
	e2e_out_free(&o);
	for (int i = 0; i < 256; i++) {
		char *root = e2e_fmt("%s/more-%03d", f.B, i);
		char *more[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
				 (char *)runner_name[f.runner], "--mode", "workspace-write", "--root",
				 root, "--", "true", NULL };

		cr_assert(e2e_mkdir(f.who, root) == 0);
		cr_assert(e2e_run(f.who, more, env, &o) == 0, "%s run %d failed:\n%s%s", f.tag, i,
			  o.out, o.err);
		e2e_out_free(&o);
	}
	char *use = e2e_fmt("python3 %s %s/X77 %s/X0", py, x11, x11);
	char *second[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			   (char *)runner_name[f.runner], "--mode", "read-only", "--root", f.R,
			   "--", use, NULL };

	e2e_run(f.who, second, env, &o);
	usleep(200000);
	char *got = e2e_read_file(wit);

	cr_assert(!got, "%s a daemon behind a hard link a run made at an allowed name, 256 runs "
		  "before, was reached:\n%s%s", f.tag, o.out, o.err);
	got = e2e_read_file(wit0);
	cr_assert(got && strstr(got, "REACHED"),
		  "%s the allowed socket made before the runs was not reached:\n%s%s", f.tag, o.out,
		  o.err);
	e2e_out_free(&o);
}

/* What the runs record must not take: a daemon that bound an allowed name
 * itself while a workspace-write run on the root was live (an X server
 * started during a long build). Its listener was bound with exactly that
 * path (sock_diag), so the change times are not asked; a daemon bound by a
 * relative name then is not told from a link the run made (refused, the
 * price of failing closed), and one bound by a relative name before any
 * run is reached. */
PARAMS(allowed_socket_a_daemon_bound_during_an_earlier_run_is_reached, all_params)
ParameterizedTest(struct cp *p, socket_policy,
		  allowed_socket_a_daemon_bound_during_an_earlier_run_is_reached, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;
	int status;

	fx_setup(&f, p);
	char *x11 = e2e_fmt("%s/x11", f.R), *cfg = e2e_fmt("%s/sbx.conf", f.B);
	char *wit_rel0 = e2e_fmt("%s/rel0.wit", f.B), *wit2 = e2e_fmt("%s/x2.wit", f.B);
	char *wit_rel2 = e2e_fmt("%s/rel2.wit", f.B);

	cr_assert(e2e_mkdir(f.who, x11) == 0 && e2e_mkdir(f.who, e2e_fmt("%s/late", x11)) == 0);
	/* relative to the daemons' working directory, "/" */
	char *rel[] = { (char *)e2e_helper("sockserver"), "stream", e2e_fmt("%s/R0", x11 + 1),
			wit_rel0, NULL };

	cr_assert(n_daemons < 7);
	daemons[n_daemons++] = e2e_spawn(f.who, "/", rel);
	for (int i = 0; i < 2000 && !e2e_exists(e2e_fmt("%s/R0", x11)); i++)
		usleep(5000);
	usleep(50000);
	cr_assert(e2e_write_file(AS_CALLER, cfg, e2e_fmt("unix_sockets = %s/*\n", x11)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	char *sleeper[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			    (char *)runner_name[f.runner], "--mode", "workspace-write", "--root", f.R,
			    "--", "sleep 1.5", NULL };
	pid_t long_run = e2e_spawn(f.who, "/", sleeper);

	usleep(700000);
	/* In a directory made before: what is made in x11 itself would change
	 * x11's own ctime within the run's window, and every name below it
	 * not bound there by its daemon would then be refused (R0 too). */
	start_host_daemon(&f, e2e_fmt("%s/late/X2", x11), wit2);
	rel[2] = e2e_fmt("%s/late/R2", x11 + 1);
	rel[3] = wit_rel2;
	daemons[n_daemons++] = e2e_spawn(f.who, "/", rel);
	for (int i = 0; i < 2000 && !e2e_exists(e2e_fmt("%s/late/R2", x11)); i++)
		usleep(5000);
	cr_assert(waitpid(long_run, &status, 0) == long_run && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 0, "%s the long run failed", f.tag);
	char *use = e2e_fmt("python3 %s %s/late/X2 %s/R0 %s/late/R2", script_file(&f, "send.py", send_script), x11,
			    x11, x11);
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			 (char *)runner_name[f.runner], "--mode", "read-only", "--root", f.R,
			 "--", use, NULL };

	e2e_run(f.who, argv, NULL, &o);
	usleep(200000);
	char *got = e2e_read_file(wit2);

	cr_assert(got && strstr(got, "REACHED"),
		  "%s a daemon that bound an allowed name itself during an earlier run was not "
		  "reached:\n%s%s", f.tag, o.out, o.err);
	got = e2e_read_file(wit_rel0);
	cr_assert(got && strstr(got, "REACHED"),
		  "%s a daemon bound by a relative name before any run was not reached:\n%s%s",
		  f.tag, o.out, o.err);
	got = e2e_read_file(wit_rel2);
	cr_assert(!got, "%s a socket named during an earlier run, not by that path, was "
		  "reached:\n%s%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
}

/* The allowed directory itself, or one above it, renamed in during the run
 * (adversarial pass 3, finding 03): the entries name ROOT/allowed/STAR
 * (absent when the run starts) and ROOT/up/fixed/STAR; the command renamed a daemon's
 * directory to ROOT/allowed, and a directory holding fixed/ with another
 * daemon's socket to ROOT/up, then connected through the allowed names
 * (with tmux: a command run outside the sandbox). Neither daemon bound
 * those paths, and a directory on the way was renamed by this run. */
PARAMS(allowed_directory_renamed_in_is_refused, all_params)
ParameterizedTest(struct cp *p, socket_policy, allowed_directory_renamed_in_is_refused,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *d = e2e_fmt("%s/d", f.R), *z = e2e_fmt("%s/z", f.R), *zf = e2e_fmt("%s/z/fixed", f.R);
	char *wit = e2e_fmt("%s/d.wit", f.B), *wit2 = e2e_fmt("%s/z.wit", f.B);
	char *cfg = e2e_fmt("%s/sbx.conf", f.B);

	cr_assert(e2e_mkdir(f.who, d) == 0 && e2e_mkdir(f.who, z) == 0 &&
		  e2e_mkdir(f.who, zf) == 0);
	start_host_daemon(&f, e2e_fmt("%s/daemon.sock", d), wit);
	start_host_daemon(&f, e2e_fmt("%s/daemon.sock", zf), wit2);
	usleep(50000);
	cr_assert(e2e_write_file(AS_CALLER, cfg,
				 e2e_fmt("unix_sockets = %s/allowed/*, %s/up/fixed/*\n", f.R,
					 f.R)) == 0);
	cr_assert(chmod(cfg, 0644) == 0);
	char *cmd = e2e_fmt("mv %s %s/allowed && mv %s %s/up && python3 %s %s/allowed/daemon.sock "
			    "%s/up/fixed/daemon.sock; mv %s/allowed %s; mv %s/up %s",
			    d, f.R, z, f.R, script_file(&f, "send.py", send_script), f.R, f.R, f.R, d, f.R,
			    z);
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", cfg, "--runner",
			 (char *)runner_name[f.runner], "--mode", "workspace-write", "--root", f.R,
			 "--", cmd, NULL };

	e2e_run(f.who, argv, NULL, &o);
	usleep(200000);
	cr_assert(!e2e_read_file(wit), "%s a daemon whose directory was renamed to the allowed one "
		  "was reached:\n%s%s", f.tag, o.out, o.err);
	cr_assert(!e2e_read_file(wit2), "%s a daemon whose directory was renamed above the allowed "
		  "one was reached:\n%s%s", f.tag, o.out, o.err);
	cr_assert(strstr(o.out, "errno 13"), "%s the connects were not refused by sbx:\n%s%s",
		  f.tag, o.out, o.err);
	e2e_out_free(&o);
}
