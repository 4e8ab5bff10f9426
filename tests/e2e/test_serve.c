/* SPDX-License-Identifier: MIT */
/* End-to-end tests of `sbx serve` (CONTRACT section 7): a real serve child
 * driven over pipes, as the caller and as nobody. Effects are checked from
 * outside: files on disk, processes in /proc, the answers on stdout. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define NOBODY_ID 65534
#define ANSWER_TIMEOUT_MS (60 * 1000)

#define RUNNER_FAILED_RO                                                                   \
	"[sandbox: the sandbox runner itself failed under read-only mode \xe2\x80\x94 the "  \
	"command did not run; this is a sandbox problem, not a command failure]"

/* ---- a small client for one serve child ---- */

struct srv {
	pid_t pid;
	int in_fd;  /* serve's stdin (our write end), -1 once closed */
	int out_fd; /* serve's stdout (our read end), -1 at EOF */
	char *rbuf; /* bytes read but not yet a whole line */
	size_t rlen, rcap;
	json_t *answers; /* every answer line, parsed, in arrival order */
	bool *taken;     /* answers already handed to a test */
	size_t taken_cap;
	size_t raw_after_eof; /* bytes read after stdin was closed */
	int status;      /* exit status once reaped, -1 before */
};

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char **serve_env(enum e2e_user who)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof(*env));
	cr_assert_not_null(env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "SBX_CONFIG=", 11) == 0)
			continue;
		if (who == AS_NOBODY && strncmp(environ[i], "HOME=", 5) == 0)
			continue;
		env[k++] = environ[i];
	}
	if (who == AS_NOBODY)
		env[k++] = "HOME=/";
	env[k] = NULL;
	return env;
}

/* Start `[wrap...] sbx serve [--config cfg]` as who. wrap is NULL-terminated or NULL. */
static void srv_start_wrapped(struct srv *s, enum e2e_user who, const char *cfg,
			      const char *const *wrap)
{
	memset(s, 0, sizeof(*s));
	s->status = -1;
	s->answers = json_array();
	const char *argv[16];
	size_t n = 0;
	for (size_t i = 0; wrap && wrap[i]; i++)
		argv[n++] = wrap[i];
	argv[n++] = e2e_sbx();
	argv[n++] = "serve";
	if (cfg) {
		argv[n++] = "--config";
		argv[n++] = cfg;
	}
	argv[n] = NULL;

	int pin[2], pout[2];
	cr_assert(pipe2(pin, O_CLOEXEC) == 0 && pipe2(pout, O_CLOEXEC) == 0);
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	cr_assert(devnull >= 0);
	char **env = serve_env(who);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		/* stderr to /dev/null unless asked: serve should say everything on stdout */
		int errfd = getenv("SBX_SERVE_TEST_STDERR") ? 2 : devnull;
		if (dup2(pin[0], 0) < 0 || dup2(pout[1], 1) < 0 || dup2(errfd, 2) < 0)
			_exit(127);
		close_range(3, ~0U, 0);
		signal(SIGPIPE, SIG_DFL);
		if (who == AS_NOBODY) {
			if (setgroups(0, NULL) || setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) ||
			    setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID))
				_exit(126);
		}
		if (chdir("/") != 0)
			_exit(126);
		execve(argv[0], (char *const *)argv, env);
		_exit(127);
	}
	free(env);
	close(devnull);
	close(pin[0]);
	close(pout[1]);
	s->pid = pid;
	s->in_fd = pin[1];
	s->out_fd = pout[0];
	fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
}

static void srv_start(struct srv *s, enum e2e_user who, const char *cfg)
{
	srv_start_wrapped(s, who, cfg, NULL);
}

/* Turn every whole line in rbuf into a parsed answer. */
static void srv_split(struct srv *s)
{
	size_t start = 0;
	for (size_t i = 0; i < s->rlen; i++) {
		if (s->rbuf[i] != '\n')
			continue;
		json_error_t jerr;
		json_t *a = json_loadb(s->rbuf + start, i - start, 0, &jerr);
		cr_assert_not_null(a, "serve printed a line that is not JSON (%s): %.*s", jerr.text,
				   (int)(i - start), s->rbuf + start);
		cr_assert(json_is_object(a), "serve printed a non-object: %.*s", (int)(i - start),
			  s->rbuf + start);
		json_array_append_new(s->answers, a);
		size_t na = json_array_size(s->answers);
		if (na > s->taken_cap) {
			s->taken_cap = na * 2 + 64;
			s->taken = realloc(s->taken, s->taken_cap * sizeof(bool));
			cr_assert_not_null(s->taken);
			memset(s->taken + na - 1, 0, (s->taken_cap - na + 1) * sizeof(bool));
		}
		start = i + 1;
	}
	memmove(s->rbuf, s->rbuf + start, s->rlen - start);
	s->rlen -= start;
}

/* Read what serve has printed (waiting at most wait_ms). Returns false at EOF. */
static bool srv_pump(struct srv *s, int wait_ms, bool want_write)
{
	struct pollfd p[2] = {
		{ .fd = s->out_fd, .events = POLLIN },
		{ .fd = want_write ? s->in_fd : -1, .events = POLLOUT },
	};
	if (s->out_fd < 0 && !want_write)
		return false;
	int r = poll(p, 2, wait_ms);
	if (r < 0 && errno == EINTR)
		return true;
	cr_assert(r >= 0, "poll: %s", strerror(errno));
	if (s->out_fd >= 0 && p[0].revents) {
		for (;;) {
			if (s->rcap - s->rlen < 65536) {
				s->rcap = s->rcap * 2 + 65536;
				s->rbuf = realloc(s->rbuf, s->rcap);
				cr_assert_not_null(s->rbuf);
			}
			ssize_t n = read(s->out_fd, s->rbuf + s->rlen, s->rcap - s->rlen);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n <= 0) {
				close(s->out_fd);
				s->out_fd = -1;
				break;
			}
			if (s->in_fd < 0)
				s->raw_after_eof += (size_t)n;
			s->rlen += (size_t)n;
		}
		srv_split(s);
	}
	return s->out_fd >= 0;
}

static void srv_send_raw(struct srv *s, const char *buf, size_t len)
{
	long long deadline = now_ms() + ANSWER_TIMEOUT_MS;
	size_t off = 0;
	cr_assert(s->in_fd >= 0);
	while (off < len) {
		ssize_t n = write(s->in_fd, buf + off, len - off);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		cr_assert(n < 0 && (errno == EAGAIN || errno == EINTR),
			  "write to serve: %s (did it exit?)", strerror(errno));
		cr_assert(now_ms() < deadline, "serve stopped reading its input");
		srv_pump(s, 100, true); /* drain answers meanwhile: no deadlock */
	}
}

static void srv_sendf(struct srv *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = NULL;
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	cr_assert(n > 0);
	srv_send_raw(s, line, (size_t)n);
	srv_send_raw(s, "\n", 1);
	free(line);
}

/* Send a JSON object (stolen) as one line. */
static void srv_send_json(struct srv *s, json_t *req)
{
	char *text = json_dumps(req, JSON_COMPACT);
	cr_assert_not_null(text);
	srv_send_raw(s, text, strlen(text));
	srv_send_raw(s, "\n", 1);
	free(text);
	json_decref(req);
}

static bool id_matches(json_t *a, long long id)
{
	json_t *v = json_object_get(a, "id");
	if (id < 0)
		return v && json_is_null(v);
	return v && json_is_integer(v) && json_integer_value(v) == id;
}

/* The first not yet taken answer with this id (id < 0: "id":null), waiting
 * for it up to timeout_ms. Borrowed reference (lives as long as the srv). */
static json_t *srv_wait(struct srv *s, long long id, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		size_t i;
		json_t *a;
		json_array_foreach(s->answers, i, a) {
			if (!s->taken[i] && id_matches(a, id)) {
				s->taken[i] = true;
				return a;
			}
		}
		long long left = deadline - now_ms();
		cr_assert(left > 0, "no answer with id %lld within %d ms", id, timeout_ms);
		cr_assert(srv_pump(s, (int)(left > 500 ? 500 : left), false),
			  "serve closed stdout before answering id %lld", id);
	}
}

static void srv_close_input(struct srv *s)
{
	if (s->in_fd >= 0)
		close(s->in_fd);
	s->in_fd = -1;
}

/* Wait (up to timeout_ms) for serve to exit; returns its exit status or -1 if
 * it is still running. Reads stdout meanwhile. */
static int srv_wait_exit(struct srv *s, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		if (s->status < 0) {
			int st;
			pid_t r = waitpid(s->pid, &st, WNOHANG);
			if (r == s->pid)
				s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		if (s->status >= 0 && s->out_fd < 0)
			return s->status;
		if (now_ms() >= deadline)
			return s->status >= 0 ? s->status : -1;
		if (s->out_fd >= 0)
			srv_pump(s, 50, false);
		else
			usleep(20 * 1000);
	}
}

static void srv_stop(struct srv *s)
{
	srv_close_input(s);
	if (srv_wait_exit(s, 10000) < 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	if (s->out_fd >= 0)
		close(s->out_fd);
	json_decref(s->answers);
	free(s->taken);
	free(s->rbuf);
}

/* ---- small helpers ---- */

static json_t *session(const char *root, const char *mode)
{
	return json_pack("{s:s, s:s}", "root", root, "mode", mode);
}

static json_t *run_req(long long id, const char *command, json_t *sess)
{
	json_t *r = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "op", "run", "command",
			      command);
	if (sess)
		json_object_set_new(r, "session", sess);
	return r;
}

static const char *str_at(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static json_t *result_of(json_t *a)
{
	json_t *r = json_object_get(a, "result");
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert(r && json_is_object(r), "expected a result, got: %s", text);
	free(text);
	return r;
}

static void assert_error(json_t *a, const char *code)
{
	json_t *e = json_object_get(a, "error");
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert(e && json_is_object(e), "expected error %s, got: %s", code, text);
	cr_assert_str_eq(str_at(e, "code") ? str_at(e, "code") : "(none)", code, "answer: %s",
			 text);
	cr_assert(str_at(e, "message") && *str_at(e, "message"), "no message: %s", text);
	free(text);
}

static bool has_marker(json_t *res, const char *marker)
{
	json_t *m = json_object_get(res, "markers");
	size_t i;
	json_t *v;
	json_array_foreach(m, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), marker) == 0)
			return true;
	return false;
}

/* Is any process's command line containing needle alive? */
static bool proc_with(const char *needle)
{
	DIR *d = opendir("/proc");
	cr_assert_not_null(d);
	struct dirent *e;
	bool found = false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300], buf[4096];
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		found = strstr(buf, needle) != NULL;
	}
	closedir(d);
	return found;
}

static void wait_proc(const char *needle)
{
	long long deadline = now_ms() + 20000;
	while (!proc_with(needle)) {
		cr_assert(now_ms() < deadline, "no process '%s' appeared", needle);
		usleep(20 * 1000);
	}
}

static char *write_config(const char *text)
{
	char *dir = e2e_tmpdir(AS_CALLER);
	char *path = NULL;
	cr_assert(asprintf(&path, "%s/sbx.conf", dir) > 0);
	cr_assert(e2e_write_file(AS_CALLER, path, text) == 0);
	chmod(path, 0644);
	free(dir);
	return path;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "opendir %s", dir);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* A process-unique decimal fraction for sleep markers. */
static unsigned marker_seq(void)
{
	static unsigned seq;
	return (unsigned)getpid() * 10 + seq++;
}

static enum e2e_user users[] = { AS_CALLER, AS_NOBODY };

/* ---- 1. many overlapping runs, two sessions, one serve ---- */

#define N_RUNS 120

ParameterizedTestParameters(serve, two_sessions_overlap)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, two_sessions_overlap, .timeout = 240)
{
	char *r1 = e2e_tmpdir(*who); /* workspace-write */
	char *r2 = e2e_tmpdir(*who); /* read-only */
	struct srv s;
	srv_start(&s, *who, NULL);

	/* Every request is written before any answer is read. */
	for (int id = 1; id <= N_RUNS; id++) {
		bool in_r1 = id % 2;
		const char *own = in_r1 ? r1 : r2, *other = in_r1 ? r2 : r1;
		char cmd[1024];
		if (id % 3 == 0) /* slightly slow ones, so completions reorder */
			snprintf(cmd, sizeof(cmd), "sleep 0.0%d; echo %d > %s/f%d; echo %d > %s/x%d",
				 id % 10, id, own, id, id, other, id);
		else
			snprintf(cmd, sizeof(cmd), "echo %d > %s/f%d; echo %d > %s/x%d", id, own, id,
				 id, other, id);
		srv_send_json(&s, run_req(id, cmd, session(own, in_r1 ? "workspace-write"
								      : "read-only")));
	}

	int order_changes = 0;
	long long prev = 0;
	for (int n = 0; n < N_RUNS; n++) {
		/* take answers in arrival order to see the completion order */
		long long deadline = now_ms() + 120000;
		while (json_array_size(s.answers) <= (size_t)n) {
			cr_assert(now_ms() < deadline, "only %d of %d answers", n, N_RUNS);
			cr_assert(srv_pump(&s, 500, false), "serve closed stdout after %d answers", n);
		}
		json_t *a = json_array_get(s.answers, (size_t)n);
		json_t *idv = json_object_get(a, "id");
		char *text = json_dumps(a, JSON_COMPACT);
		cr_assert(json_is_integer(idv), "answer without an integer id: %s", text);
		long long id = json_integer_value(idv);
		cr_assert(id >= 1 && id <= N_RUNS, "unknown id: %s", text);
		if (id < prev)
			order_changes++;
		prev = id;
		bool in_r1 = id % 2;
		json_t *res = result_of(a);
		json_t *sb = json_object_get(res, "sandbox");
		const char *mode = in_r1 ? "workspace-write" : "read-only";
		cr_assert_str_eq(str_at(sb, "mode"), mode, "id %lld: %s", id, text);
		cr_assert(json_is_true(json_object_get(sb, "denied")), "id %lld not denied: %s", id,
			  text);
		char marker[128];
		snprintf(marker, sizeof(marker), "[sandbox: file access denied under %s mode]", mode);
		cr_assert(has_marker(res, marker), "id %lld lacks marker '%s': %s", id, marker, text);
		cr_assert(strstr(str_at(res, "text"), marker), "id %lld: marker not in text: %s", id,
			  text);
		cr_assert_eq(json_integer_value(json_object_get(res, "exit_code")), 1, "id %lld: %s",
			     id, text);
		/* the write into the other root is what failed last */
		char other_path[512];
		snprintf(other_path, sizeof(other_path), "%s/x%lld", in_r1 ? r2 : r1, id);
		cr_assert(strstr(str_at(res, "stderr"), other_path), "id %lld: %s", id, text);
		free(text);
	}
	cr_log_info("as %s: %d of %d answers arrived before a smaller id", e2e_user_name(*who),
		    order_changes, N_RUNS);

	/* every id exactly once, and no more answers */
	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 10000), 0, "serve did not exit 0 at EOF");
	cr_assert_eq(json_array_size(s.answers), (size_t)N_RUNS, "%zu answers for %d requests",
		     json_array_size(s.answers), N_RUNS);
	bool seen[N_RUNS + 1] = { false };
	size_t i;
	json_t *a;
	json_array_foreach(s.answers, i, a) {
		long long id = json_integer_value(json_object_get(a, "id"));
		cr_assert(!seen[id], "id %lld answered twice", id);
		seen[id] = true;
	}

	/* on disk: R1 holds exactly its own files, R2 nothing */
	for (int id = 1; id <= N_RUNS; id++) {
		char p[512];
		snprintf(p, sizeof(p), "%s/f%d", r1, id);
		cr_assert_eq(e2e_exists(p), (bool)(id % 2), "%s: exists=%d", p, e2e_exists(p));
		if (id % 2) {
			char *c = e2e_read_file(p), want[32];
			snprintf(want, sizeof(want), "%d\n", id);
			cr_assert_str_eq(c, want);
			free(c);
		}
	}
	cr_assert_eq(count_entries(r1), (size_t)(N_RUNS / 2), "R1 has extra entries");
	cr_assert_eq(count_entries(r2), 0, "R2 (read-only, and R1's neighbour) was written");
	srv_stop(&s);
	free(r1);
	free(r2);
}

/* ---- 2. escalation ---- */

ParameterizedTestParameters(serve, escalation)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, escalation, .timeout = 120)
{
	char *root = e2e_tmpdir(*who);
	char *outside = e2e_tmpdir(AS_NOBODY);
	struct srv s;
	srv_start(&s, *who, NULL);
	char cmd[1024], p[512];

	/* without escalation: denied */
	snprintf(cmd, sizeof(cmd), "echo a > %s/plain", root);
	srv_send_json(&s, run_req(1, cmd, session(root, "read-only")));
	json_t *res = result_of(srv_wait(&s, 1, ANSWER_TIMEOUT_MS));
	cr_assert(json_is_true(json_object_get(json_object_get(res, "sandbox"), "denied")));
	snprintf(p, sizeof(p), "%s/plain", root);
	cr_assert(!e2e_exists(p));

	/* workspace-write escalation: writes in the root, cwd is the root */
	snprintf(cmd, sizeof(cmd), "echo w > %s/esc_ww && pwd", root);
	json_t *req = run_req(2, cmd, session(root, "read-only"));
	json_object_set_new(req, "sandbox_permissions", json_string("workspace-write"));
	json_object_set_new(req, "justification", json_string("write the build output"));
	srv_send_json(&s, req);
	json_t *a = srv_wait(&s, 2, ANSWER_TIMEOUT_MS);
	res = result_of(a);
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert_eq(json_integer_value(json_object_get(res, "exit_code")), 0, "%s", text);
	cr_assert_str_eq(str_at(json_object_get(res, "sandbox"), "mode"), "workspace-write", "%s",
			 text);
	char want[600];
	snprintf(want, sizeof(want), "%s\n", root);
	cr_assert_str_eq(str_at(res, "stdout"), want, "%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/esc_ww", root);
	cr_assert(e2e_exists(p));

	/* workspace-write escalation still cannot write outside the root */
	snprintf(cmd, sizeof(cmd), "echo w > %s/ww_out", outside);
	req = run_req(3, cmd, session(root, "read-only"));
	json_object_set_new(req, "sandbox_permissions", json_string("workspace-write"));
	srv_send_json(&s, req);
	res = result_of(srv_wait(&s, 3, ANSWER_TIMEOUT_MS));
	cr_assert(json_is_true(json_object_get(json_object_get(res, "sandbox"), "denied")));
	snprintf(p, sizeof(p), "%s/ww_out", outside);
	cr_assert(!e2e_exists(p));

	/* danger-full-access: writes outside the root, cwd is still the root */
	snprintf(cmd, sizeof(cmd), "echo d > %s/esc_dfa && pwd", outside);
	req = run_req(4, cmd, session(root, "read-only"));
	json_object_set_new(req, "sandbox_permissions", json_string("danger-full-access"));
	srv_send_json(&s, req);
	a = srv_wait(&s, 4, ANSWER_TIMEOUT_MS);
	res = result_of(a);
	text = json_dumps(a, JSON_COMPACT);
	cr_assert_eq(json_integer_value(json_object_get(res, "exit_code")), 0, "%s", text);
	json_t *want_sb = json_pack("{s:s, s:b}", "mode", "danger-full-access", "denied", 0);
	cr_assert(json_equal(json_object_get(res, "sandbox"), want_sb), "sandbox not exact: %s",
		  text);
	json_decref(want_sb);
	cr_assert_str_eq(str_at(res, "stdout"), want, "%s", text);
	cr_assert_eq(json_array_size(json_object_get(res, "markers")), 0, "%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/esc_dfa", outside);
	char *c = e2e_read_file(p);
	cr_assert_not_null(c, "danger-full-access did not write %s", p);
	cr_assert_str_eq(c, "d\n");
	free(c);

	/* the escalation did not stick: the session is read-only again */
	snprintf(cmd, sizeof(cmd), "pwd; echo a > %s/after", root);
	srv_send_json(&s, run_req(5, cmd, session(root, "read-only")));
	res = result_of(srv_wait(&s, 5, ANSWER_TIMEOUT_MS));
	cr_assert(json_is_true(json_object_get(json_object_get(res, "sandbox"), "denied")));
	cr_assert_str_eq(str_at(res, "stdout"), want);
	snprintf(p, sizeof(p), "%s/after", root);
	cr_assert(!e2e_exists(p));

	/* a bad value is a BAD_REQUEST, with the id echoed, and nothing runs */
	snprintf(cmd, sizeof(cmd), "echo r > %s/bad", outside);
	req = run_req(6, cmd, session(root, "read-only"));
	json_object_set_new(req, "sandbox_permissions", json_string("root"));
	srv_send_json(&s, req);
	assert_error(srv_wait(&s, 6, ANSWER_TIMEOUT_MS), "BAD_REQUEST");
	snprintf(p, sizeof(p), "%s/bad", outside);
	cr_assert(!e2e_exists(p));

	srv_stop(&s);
	free(root);
	free(outside);
}

/* ---- 3. bad input ---- */

ParameterizedTestParameters(serve, bad_input)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, bad_input, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	struct srv s;
	srv_start(&s, *who, NULL);
	char sess[600];
	snprintf(sess, sizeof(sess), "\"session\":{\"root\":\"%s\",\"mode\":\"read-only\"}", root);

	struct {
		const char *what;
		const char *line; /* NULL: built below */
		size_t len;
		long long id;     /* the id expected in the answer, -1: null */
		bool id_or_null;  /* the id may be null too (not readable) */
	} cases[] = {
		{ "malformed JSON", "{\"id\":1,\"op\":\"run\",", 0, -1, false },
		{ "a JSON array", "[1,2,3]", 0, -1, false },
		{ "background as a string", NULL, 0, 3, false },
		{ "timeout_ms as a string", NULL, 0, 4, false },
		{ "missing command", NULL, 0, 5, false },
		{ "missing id", NULL, 0, -1, false },
		{ "unknown op", "{\"id\":7,\"op\":\"frobnicate\"}", 0, 7, false },
		{ "unknown field", NULL, 0, 8, false },
		{ "raw NUL byte", NULL, 0, 9, true },
		{ "\\u0000 in a string", NULL, 0, 10, true },
		{ "line over 1 MiB", NULL, 0, -1, true },
		{ "empty object", "{}", 0, -1, false },
		{ "id of a wrong type", "{\"id\":[1],\"op\":\"schema\"}", 0, -1, false },
	};
	char l3[1024], l4[1024], l5[1024], l6[1024], l8[1024], l9[1024], l10[1024];
	snprintf(l3, sizeof(l3), "{\"id\":3,\"op\":\"run\",\"command\":\"true\",%s,\"background\":\"yes\"}", sess);
	snprintf(l4, sizeof(l4), "{\"id\":4,\"op\":\"run\",\"command\":\"true\",%s,\"timeout_ms\":\"5\"}", sess);
	snprintf(l5, sizeof(l5), "{\"id\":5,\"op\":\"run\",%s}", sess);
	snprintf(l6, sizeof(l6), "{\"op\":\"run\",\"command\":\"true\",%s}", sess);
	snprintf(l8, sizeof(l8), "{\"id\":8,\"op\":\"run\",\"command\":\"true\",%s,\"colour\":\"red\"}", sess);
	int n9 = snprintf(l9, sizeof(l9), "{\"id\":9,\"op\":\"run\",\"command\":\"tr#ue\",%s}", sess);
	*strchr(l9, '#') = '\0'; /* a raw NUL inside the line */
	snprintf(l10, sizeof(l10), "{\"id\":10,\"op\":\"run\",\"command\":\"a\\u0000b\",%s}", sess);
	size_t big_len = 1024 * 1024 + 4096;
	char *big = malloc(big_len + 1);
	cr_assert_not_null(big);
	int head = snprintf(big, big_len, "{\"id\":11,\"op\":\"run\",%s,\"command\":\"echo ", sess);
	memset(big + head, 'A', big_len - (size_t)head);
	memcpy(big + big_len - 2, "\"}", 2);
	big[big_len] = '\0';

	cases[2].line = l3;
	cases[3].line = l4;
	cases[4].line = l5;
	cases[5].line = l6;
	cases[7].line = l8;
	cases[8].line = l9;
	cases[8].len = (size_t)n9;
	cases[9].line = l10;
	cases[10].line = big;
	cases[10].len = big_len;

	size_t n_cases = sizeof(cases) / sizeof(cases[0]);
	for (size_t k = 0; k < n_cases; k++) {
		size_t len = cases[k].len ? cases[k].len : strlen(cases[k].line);
		srv_send_raw(&s, cases[k].line, len);
		srv_send_raw(&s, "\n", 1);
		/* then a valid request, which must still answer */
		long long ok_id = 1000 + (long long)k;
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "echo ok%lld", ok_id);
		srv_send_json(&s, run_req(ok_id, cmd, session(root, "read-only")));

		json_t *bad;
		if (cases[k].id_or_null) {
			/* whichever of id and null it carries, it is the next error answer */
			long long deadline = now_ms() + ANSWER_TIMEOUT_MS;
			bad = NULL;
			while (!bad) {
				size_t i;
				json_t *a;
				json_array_foreach(s.answers, i, a) {
					if (!s.taken[i] && json_object_get(a, "error") &&
					    (id_matches(a, -1) || id_matches(a, cases[k].id))) {
						s.taken[i] = true;
						bad = a;
						break;
					}
				}
				if (!bad) {
					cr_assert(now_ms() < deadline, "%s: no answer", cases[k].what);
					cr_assert(srv_pump(&s, 200, false), "%s: serve exited",
						  cases[k].what);
				}
			}
			cr_log_info("%s answered with id %s", cases[k].what,
				    id_matches(bad, -1) ? "null" : "echoed");
		} else {
			bad = srv_wait(&s, cases[k].id, ANSWER_TIMEOUT_MS);
		}
		char *text = json_dumps(bad, JSON_COMPACT);
		cr_assert(json_object_get(bad, "error"), "%s: not an error: %.300s", cases[k].what,
			  text);
		cr_assert_str_eq(str_at(json_object_get(bad, "error"), "code"), "BAD_REQUEST",
				 "%s: %.300s", cases[k].what, text);
		cr_assert(strlen(text) < 4096, "%s: the error answer echoes too much (%zu bytes)",
			  cases[k].what, strlen(text));
		free(text);

		json_t *ok = srv_wait(&s, ok_id, ANSWER_TIMEOUT_MS);
		json_t *res = result_of(ok);
		char want[64];
		snprintf(want, sizeof(want), "ok%lld\n", ok_id);
		cr_assert_str_eq(str_at(res, "stdout"), want, "after %s", cases[k].what);
	}
	/* nothing ran for the bad lines and nothing more was said */
	srv_close_input(&s);
	cr_assert_eq(srv_wait_exit(&s, 10000), 0);
	cr_assert_eq(json_array_size(s.answers), 2 * n_cases, "%zu answers for %zu pairs",
		     json_array_size(s.answers), n_cases);
	cr_assert_eq(count_entries(root), 0);
	free(big);
	srv_stop(&s);
	free(root);
}

/* ---- 4. background lifecycle ---- */

static json_t *bg_req(long long id, const char *command, const char *root, const char *mode)
{
	json_t *r = run_req(id, command, session(root, mode));
	json_object_set_new(r, "background", json_true());
	return r;
}

static const char *start_bg(struct srv *s, long long id, const char *command, const char *root,
			    const char *mode)
{
	srv_send_json(s, bg_req(id, command, root, mode));
	json_t *a = srv_wait(s, id, ANSWER_TIMEOUT_MS);
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert(str_at(a, "task"), "no task handle: %s", text);
	/* a handle carries no sandbox facts: exactly id and task */
	cr_assert_eq(json_object_size(a), 2, "handle has more than id and task: %s", text);
	free(text);
	return str_at(a, "task");
}

static json_t *task_req(long long id, const char *op, const char *task)
{
	return json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "op", op, "task", task);
}

static json_t *task_output(struct srv *s, long long id, const char *task)
{
	srv_send_json(s, task_req(id, "task_output", task));
	json_t *a = srv_wait(s, id, ANSWER_TIMEOUT_MS);
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert_str_eq(str_at(a, "task") ? str_at(a, "task") : "(none)", task, "%s", text);
	cr_assert(str_at(a, "status"), "%s", text);
	free(text);
	return a;
}

/* task_output until it settles; returns the settled answer. */
static json_t *task_settled(struct srv *s, long long *id, const char *task)
{
	long long deadline = now_ms() + ANSWER_TIMEOUT_MS;
	for (;;) {
		json_t *a = task_output(s, (*id)++, task);
		if (strcmp(str_at(a, "status"), "running") != 0)
			return a;
		cr_assert(now_ms() < deadline, "task %s never settled", task);
		usleep(50 * 1000);
	}
}

static json_t *kill_task(struct srv *s, long long id, const char *task)
{
	srv_send_json(s, task_req(id, "kill", task));
	json_t *a = srv_wait(s, id, ANSWER_TIMEOUT_MS);
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert_str_eq(str_at(a, "status") ? str_at(a, "status") : "(none)", "killed", "%s",
			 text);
	cr_assert_str_eq(str_at(a, "task"), task, "%s", text);
	free(text);
	return a;
}

ParameterizedTestParameters(serve, background_lifecycle)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, background_lifecycle, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	struct srv s;
	srv_start(&s, *who, NULL);
	long long id = 1;
	char marker[64], cmd[256];

	/* a long task: running, then killed, and its process is gone */
	snprintf(marker, sizeof(marker), "sleep 30.%u", marker_seq());
	const char *t1 = start_bg(&s, id++, marker, root, "workspace-write");
	wait_proc(marker);
	json_t *a = task_output(&s, id++, t1);
	cr_assert_str_eq(str_at(a, "status"), "running");
	cr_assert(json_is_object(json_object_get(a, "result")), "running task: no result so far");
	kill_task(&s, id++, t1);
	cr_assert(!proc_with(marker), "'%s' still runs after kill answered", marker);
	a = task_output(&s, id++, t1);
	cr_assert_str_eq(str_at(a, "status"), "killed");

	/* an ordinary task settles as exited with its code and output */
	const char *t2 = start_bg(&s, id++, "echo hi; exit 3", root, "workspace-write");
	cr_assert_str_neq(t1, t2);
	a = task_settled(&s, &id, t2);
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert_str_eq(str_at(a, "status"), "exited", "%s", text);
	json_t *res = result_of(a);
	cr_assert_eq(json_integer_value(json_object_get(res, "exit_code")), 3, "%s", text);
	cr_assert_str_eq(str_at(res, "stdout"), "hi\n", "%s", text);
	free(text);

	/* a running task's output so far */
	snprintf(cmd, sizeof(cmd), "echo early; sleep 30.%u", marker_seq());
	const char *t3 = start_bg(&s, id++, cmd, root, "read-only");
	long long deadline = now_ms() + 20000;
	for (;;) {
		a = task_output(&s, id++, t3);
		cr_assert_str_eq(str_at(a, "status"), "running");
		const char *so = str_at(json_object_get(a, "result"), "stdout");
		if (so && strcmp(so, "early\n") == 0)
			break;
		cr_assert(now_ms() < deadline, "running task's output never showed 'early'");
		usleep(50 * 1000);
	}
	kill_task(&s, id++, t3);
	cr_assert(!proc_with(cmd + 12), "task 3 still runs after kill");

	/* kill ends the whole tree, a setsid'd double fork included */
	char m_in[64], m_out[64];
	unsigned q = marker_seq();
	snprintf(m_in, sizeof(m_in), "sleep 33.%u", q);
	snprintf(m_out, sizeof(m_out), "sleep 34.%u", q);
	snprintf(cmd, sizeof(cmd), "(setsid %s &); %s", m_out, m_in);
	const char *t4 = start_bg(&s, id++, cmd, root, "workspace-write");
	wait_proc(m_in);
	wait_proc(m_out);
	kill_task(&s, id++, t4);
	cr_assert(!proc_with(m_in), "'%s' still runs after kill answered", m_in);
	cr_assert(!proc_with(m_out), "escaped '%s' still runs after kill answered", m_out);

	/* a task whose bash exits leaves nothing behind either */
	snprintf(m_out, sizeof(m_out), "sleep 35.%u", q);
	snprintf(cmd, sizeof(cmd), "(setsid %s &); sleep 0.2; echo done", m_out);
	const char *t5 = start_bg(&s, id++, cmd, root, "workspace-write");
	a = task_settled(&s, &id, t5);
	cr_assert_str_eq(str_at(a, "status"), "exited");
	cr_assert_str_eq(str_at(result_of(a), "stdout"), "done\n");
	cr_assert(!proc_with(m_out), "'%s' outlived its settled task", m_out);

	/* unknown tasks */
	srv_send_json(&s, task_req(id, "task_output", "t999"));
	assert_error(srv_wait(&s, id++, ANSWER_TIMEOUT_MS), "NOT_FOUND");
	srv_send_json(&s, task_req(id, "kill", "nosuch"));
	assert_error(srv_wait(&s, id++, ANSWER_TIMEOUT_MS), "NOT_FOUND");

	/* killing a settled task answers its settled status */
	srv_send_json(&s, task_req(id, "kill", t2));
	a = srv_wait(&s, id++, ANSWER_TIMEOUT_MS);
	cr_assert_str_eq(str_at(a, "status"), "exited");

	srv_stop(&s);
	free(root);
}

ParameterizedTestParameters(serve, background_limit)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, background_limit, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	char *cfg = write_config("max_background = 2\n");
	struct srv s;
	srv_start(&s, *who, cfg);
	long long id = 1;
	char m1[64], m2[64], m3[64], m4[64];
	snprintf(m1, sizeof(m1), "sleep 30.%u", marker_seq());
	snprintf(m2, sizeof(m2), "sleep 30.%u", marker_seq());
	snprintf(m3, sizeof(m3), "sleep 30.%u", marker_seq());
	snprintf(m4, sizeof(m4), "sleep 30.%u", marker_seq());

	const char *t1 = start_bg(&s, id++, m1, root, "workspace-write");
	const char *t2 = start_bg(&s, id++, m2, root, "read-only");
	cr_assert_str_neq(t1, t2);
	srv_send_json(&s, bg_req(id, m3, root, "workspace-write"));
	assert_error(srv_wait(&s, id++, ANSWER_TIMEOUT_MS), "TOO_MANY_PROCESSES");
	usleep(300 * 1000);
	cr_assert(!proc_with(m3), "the refused task runs anyway");
	/* foreground runs are not background tasks */
	srv_send_json(&s, run_req(id, "echo fg", session(root, "read-only")));
	cr_assert_str_eq(str_at(result_of(srv_wait(&s, id++, ANSWER_TIMEOUT_MS)), "stdout"),
			 "fg\n");

	wait_proc(m1);
	kill_task(&s, id++, t1);
	cr_assert(!proc_with(m1));
	const char *t4 = start_bg(&s, id++, m4, root, "workspace-write");
	wait_proc(m4);
	(void)t4;
	/* full again */
	srv_send_json(&s, bg_req(id, m3, root, "workspace-write"));
	assert_error(srv_wait(&s, id++, ANSWER_TIMEOUT_MS), "TOO_MANY_PROCESSES");

	/* a task that exits on its own frees its place too */
	kill_task(&s, id++, t2);
	const char *t5 = start_bg(&s, id++, "exit 0", root, "read-only");
	json_t *a = task_settled(&s, &id, t5);
	cr_assert_str_eq(str_at(a, "status"), "exited");
	const char *t6 = start_bg(&s, id++, "exit 0", root, "read-only");
	(void)t6;

	srv_stop(&s);
	cr_assert(!proc_with(m2) && !proc_with(m4), "tasks outlived serve");
	free(cfg);
	free(root);
}

ParameterizedTestParameters(serve, background_runner_failed)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, background_runner_failed, .timeout = 180)
{
	char *root = e2e_tmpdir(*who);
	char *cfg = write_config("max_background = 1\n");
	const char *wrap[] = { e2e_helper("nofeature"), "userns,landlock", "--", NULL };
	struct srv s;
	srv_start_wrapped(&s, *who, cfg, wrap);
	long long id = 1;
	char proof[600], cmd[700];
	snprintf(proof, sizeof(proof), "%s/ran", root);

	for (int k = 0; k < 2; k++) { /* the second shows the first freed its place */
		snprintf(cmd, sizeof(cmd), "touch %s; echo ran", proof);
		const char *t = start_bg(&s, id++, cmd, root, "read-only");
		json_t *a = task_settled(&s, &id, t);
		char *text = json_dumps(a, JSON_COMPACT);
		cr_assert_str_eq(str_at(a, "status"), "runner_failed", "%s", text);
		json_t *res = result_of(a);
		cr_assert(has_marker(res, RUNNER_FAILED_RO), "third marker missing: %s", text);
		cr_assert(str_at(res, "text") && strstr(str_at(res, "text"), RUNNER_FAILED_RO),
			  "%s", text);
		cr_assert(!json_is_true(json_object_get(json_object_get(res, "sandbox"), "denied")),
			  "%s", text);
		free(text);
		cr_assert(!e2e_exists(proof), "the command ran although the runner failed");
	}
	/* foreground: fail closed, SANDBOX_UNAVAILABLE */
	snprintf(cmd, sizeof(cmd), "touch %s", proof);
	srv_send_json(&s, run_req(id, cmd, session(root, "read-only")));
	assert_error(srv_wait(&s, id++, ANSWER_TIMEOUT_MS), "SANDBOX_UNAVAILABLE");
	cr_assert(!e2e_exists(proof));
	/* unconfined still works (and may use the place) */
	const char *t = start_bg(&s, id++, "echo free", root, "danger-full-access");
	json_t *a = task_settled(&s, &id, t);
	cr_assert_str_eq(str_at(a, "status"), "exited");
	srv_stop(&s);
	free(cfg);
	free(root);
}

/* ---- 5. end of input ---- */

ParameterizedTestParameters(serve, eof_kills_everything)
{
	return cr_make_param_array(enum e2e_user, users, 2);
}

ParameterizedTest(enum e2e_user *who, serve, eof_kills_everything, .timeout = 120)
{
	char *root = e2e_tmpdir(*who);
	struct srv s;
	srv_start(&s, *who, NULL);
	char bg[64], fg[64];
	unsigned n = marker_seq();
	snprintf(bg, sizeof(bg), "sleep 30.%u", n);
	snprintf(fg, sizeof(fg), "sleep 31.%u", n);

	char fg_cmd[256], fg_esc[64];
	snprintf(fg_esc, sizeof(fg_esc), "sleep 32.%u", n);
	snprintf(fg_cmd, sizeof(fg_cmd), "(setsid %s &); %s", fg_esc, fg);
	start_bg(&s, 1, bg, root, "workspace-write");
	srv_send_json(&s, run_req(2, fg_cmd, session(root, "read-only")));
	wait_proc(bg);
	wait_proc(fg);
	wait_proc(fg_esc);
	size_t before = json_array_size(s.answers);

	long long t0 = now_ms();
	srv_close_input(&s);
	int st = srv_wait_exit(&s, 5000);
	long long took = now_ms() - t0;
	cr_assert_neq(st, -1, "serve still runs 5 s after end of input");
	cr_assert_eq(st, 0, "serve exited %d at end of input", st);
	cr_log_info("as %s: serve exited %lld ms after EOF", e2e_user_name(*who), took);
	cr_assert_eq(s.raw_after_eof, 0, "serve printed after end of input");
	cr_assert_eq(json_array_size(s.answers), before);
	cr_assert(!proc_with(bg), "background '%s' outlived serve", bg);
	cr_assert(!proc_with(fg), "foreground '%s' outlived serve", fg);
	cr_assert(!proc_with(fg_esc), "setsid'd '%s' outlived serve", fg_esc);
	srv_stop(&s);
	free(root);
}

/* ---- 6. capabilities and schema ---- */

Test(serve, capabilities_and_schema, .timeout = 60)
{
	struct srv s;
	srv_start(&s, AS_CALLER, NULL);
	srv_sendf(&s, "{\"id\":1,\"op\":\"capabilities\"}");
	json_t *a = srv_wait(&s, 1, ANSWER_TIMEOUT_MS);
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert_str_eq(str_at(a, "sandbox_mode"), "read-only", "%s", text);
	json_t *runners = json_object_get(a, "runners");
	cr_assert(json_is_array(runners) && json_array_size(runners) >= 1, "%s", text);
	size_t i;
	json_t *v;
	json_array_foreach(runners, i, v)
		cr_assert(json_is_string(v) && (strcmp(json_string_value(v), "namespace") == 0 ||
						strcmp(json_string_value(v), "landlock") == 0),
			  "%s", text);
	cr_assert(json_is_false(json_object_get(a, "escalation")), "%s", text);
	cr_assert(json_is_object(json_object_get(a, "probe")), "%s", text);
	cr_assert(!json_object_get(a, "error"), "%s", text);
	free(text);

	srv_sendf(&s, "{\"id\":\"s-2\",\"op\":\"schema\"}");
	long long deadline = now_ms() + ANSWER_TIMEOUT_MS;
	while (json_array_size(s.answers) < 2) {
		cr_assert(now_ms() < deadline);
		srv_pump(&s, 200, false);
	}
	a = json_array_get(s.answers, 1);
	text = json_dumps(a, JSON_COMPACT);
	cr_assert_str_eq(str_at(a, "id"), "s-2", "string id not echoed: %s", text);
	json_t *schema = json_object_get(a, "schema");
	cr_assert_str_eq(str_at(schema, "type"), "object", "%s", text);
	json_t *props = json_object_get(schema, "properties");
	json_t *sp = json_object_get(props, "sandbox_permissions");
	json_t *want_enum = json_pack("[s,s]", "workspace-write", "danger-full-access");
	cr_assert(json_equal(json_object_get(sp, "enum"), want_enum), "%s", text);
	json_decref(want_enum);
	cr_assert_str_eq(str_at(sp, "type"), "string", "%s", text);
	cr_assert_str_eq(str_at(json_object_get(props, "justification"), "type"), "string", "%s",
			 text);
	free(text);
	srv_stop(&s);

	/* capabilities follow the deployment config */
	char *cfg = write_config("mode = workspace-write\nescalation = true\nmax_background = 3\n");
	srv_start(&s, AS_CALLER, cfg);
	srv_sendf(&s, "{\"id\":7,\"op\":\"capabilities\"}");
	a = srv_wait(&s, 7, ANSWER_TIMEOUT_MS);
	text = json_dumps(a, JSON_COMPACT);
	cr_assert_str_eq(str_at(a, "sandbox_mode"), "workspace-write", "%s", text);
	cr_assert(json_is_true(json_object_get(a, "escalation")), "%s", text);
	free(text);
	srv_stop(&s);
	free(cfg);
}

/* ---- 7. a client that does not read does not stall the server ---- */

/* While the client reads slowly (one answer every 0.4 s), runs end with
 * their output still in the pipe: it is drained whole, nothing is lost even
 * though the answers wait in serve's queue. */
Test(serve, slow_reader_loses_nothing, .timeout = 180)
{
	enum { RUNS = 16, BYTES = 900000 }; /* fits a 1 MiB pipe: bash exits at once */
	char *root = e2e_tmpdir(AS_CALLER);
	struct srv s;
	srv_start(&s, AS_CALLER, NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "head -c %d /dev/zero | tr '\\0' a", BYTES);
	for (long long id = 1; id <= RUNS; id++)
		srv_send_json(&s, run_req(id, cmd, session(root, "read-only")));
	for (long long id = 1; id <= RUNS; id++) {
		usleep(400 * 1000);
		json_t *res = result_of(srv_wait(&s, id, ANSWER_TIMEOUT_MS));
		cr_expect_eq(json_integer_value(json_object_get(res, "stdout_bytes")), BYTES,
			     "id %lld: stdout_bytes %lld, want %d", id,
			     (long long)json_integer_value(json_object_get(res, "stdout_bytes")),
			     BYTES);
		const char *spill = json_string_value(
			json_object_get(json_object_get(res, "spill"), "stdout"));
		struct stat st;
		cr_assert(spill && stat(spill, &st) == 0, "id %lld: no spill file", id);
		cr_expect_eq(st.st_size, BYTES, "id %lld: spill holds %lld bytes", id,
			     (long long)st.st_size);
		unlink(spill);
	}
	srv_stop(&s);
	free(root);
}

/* Timers keep running while answers wait for the client: a timeout fires on
 * time and the whole tree is gone, seen from outside, before anything is read. */
Test(serve, timeout_while_client_does_not_read, .timeout = 120)
{
	char *root = e2e_tmpdir(AS_CALLER);
	struct srv s;
	srv_start(&s, AS_CALLER, NULL);
	char marker[64], cmd[160];
	snprintf(marker, sizeof(marker), "sleep 33.%u", marker_seq());
	snprintf(cmd, sizeof(cmd), "(%s &); %s", marker, marker);
	json_t *req = run_req(1, cmd, session(root, "read-only"));
	json_object_set_new(req, "timeout_ms", json_integer(1000));
	srv_send_json(&s, req);
	/* Fill serve's stdout pipe with answers nobody reads yet. */
	for (long long id = 2; id <= 5; id++)
		srv_send_json(&s, run_req(id, "head -c 60000 /dev/zero | tr '\\0' a",
					  session(root, "read-only")));
	wait_proc(marker);
	long long t0 = now_ms();
	while (proc_with(marker) && now_ms() - t0 < 4000)
		usleep(50 * 1000);
	cr_expect(!proc_with(marker), "'%s' still runs 4 s after a 1 s timeout while the "
		  "client was not reading", marker);
	json_t *res = result_of(srv_wait(&s, 1, ANSWER_TIMEOUT_MS));
	cr_expect(json_is_true(json_object_get(res, "timed_out")), "not timed out");
	cr_expect(json_integer_value(json_object_get(res, "duration_ms")) < 3000,
		  "duration_ms %lld", (long long)json_integer_value(json_object_get(res, "duration_ms")));
	for (long long id = 2; id <= 5; id++)
		srv_wait(&s, id, ANSWER_TIMEOUT_MS);
	srv_stop(&s);
	free(root);
}
