/* SPDX-License-Identifier: MIT */
/* A small client for one `sbx serve` child (protocol 2, JSON-RPC 2.0 lines),
 * shared by the serve test files: start it as the caller or as nobody, send
 * requests, wait for answers by id, read notifications, check from outside. */
#ifndef SBX_E2E_SERVE_CLIENT_H
#define SBX_E2E_SERVE_CLIENT_H

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

static inline long long now_ms(void)
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

/* Start `[wrap...] sbx serve [--config cfg] [extra...]` as who. wrap and extra
 * are NULL-terminated or NULL. */
static inline void srv_start_full(struct srv *s, enum e2e_user who, const char *cfg,
			   const char *const *wrap, const char *const *extra)
{
	memset(s, 0, sizeof(*s));
	s->status = -1;
	s->answers = json_array();
	const char *argv[32];
	size_t n = 0;
	for (size_t i = 0; wrap && wrap[i]; i++)
		argv[n++] = wrap[i];
	argv[n++] = e2e_sbx();
	argv[n++] = "serve";
	if (cfg) {
		argv[n++] = "--config";
		argv[n++] = cfg;
	}
	for (size_t i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
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

static inline void srv_start_wrapped(struct srv *s, enum e2e_user who, const char *cfg,
			      const char *const *wrap)
{
	srv_start_full(s, who, cfg, wrap, NULL);
}

static inline void srv_start(struct srv *s, enum e2e_user who, const char *cfg)
{
	srv_start_full(s, who, cfg, NULL, NULL);
}

/* Turn every whole line in rbuf into a parsed answer. */
static inline void srv_split(struct srv *s)
{
	size_t start = 0;
	for (size_t i = 0; i < s->rlen; i++) {
		if (s->rbuf[i] != '\n')
			continue;
		json_error_t jerr;
		json_t *a = json_loadb(s->rbuf + start, i - start, JSON_ALLOW_NUL, &jerr);
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
static inline bool srv_pump(struct srv *s, int wait_ms, bool want_write)
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

static inline void srv_send_raw(struct srv *s, const char *buf, size_t len)
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

static inline void srv_sendf(struct srv *s, const char *fmt, ...)
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
static inline void srv_send_json(struct srv *s, json_t *req)
{
	char *text = json_dumps(req, JSON_COMPACT);
	cr_assert_not_null(text);
	srv_send_raw(s, text, strlen(text));
	srv_send_raw(s, "\n", 1);
	free(text);
	json_decref(req);
}

static inline bool id_matches(json_t *a, long long id)
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

static inline void srv_close_input(struct srv *s)
{
	if (s->in_fd >= 0)
		close(s->in_fd);
	s->in_fd = -1;
}

/* Wait (up to timeout_ms) for serve to exit; returns its exit status or -1 if
 * it is still running. Reads stdout meanwhile. */
static inline int srv_wait_exit(struct srv *s, int timeout_ms)
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

static inline void srv_stop(struct srv *s)
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


/* ---- protocol 2 helpers ---- */

#define DENIED_FMT "[sandbox: file access denied under %s mode]"

/* Send {"jsonrpc":"2.0","id":id,"method":method,"params":params (stolen)}. */
static inline void rpc_send(struct srv *s, long long id, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method",
			      method);
	if (params)
		json_object_set_new(m, "params", params);
	srv_send_json(s, m);
}

static inline void rpc_notify(struct srv *s, const char *method, json_t *params)
{
	srv_send_json(s, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params",
				   params));
}

/* Send and wait for the answer. Borrowed. */
static json_t *rpc_call(struct srv *s, long long id, const char *method, json_t *params)
{
	rpc_send(s, id, method, params);
	return srv_wait(s, id, ANSWER_TIMEOUT_MS);
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
	cr_assert(r && json_is_object(r), "expected a result, got: %.2000s", text);
	cr_assert_str_eq(str_at(a, "jsonrpc"), "2.0", "%.2000s", text);
	free(text);
	return r;
}

/* A JSON-RPC error whose data.code is code. Returns the error object. */
static json_t *assert_error(json_t *a, const char *code)
{
	json_t *e = json_object_get(a, "error");
	char *text = json_dumps(a, JSON_COMPACT);
	cr_assert(e && json_is_object(e), "expected error %s, got: %.2000s", code, text);
	cr_assert(json_is_integer(json_object_get(e, "code")), "no integer code: %s", text);
	const char *got = str_at(json_object_get(e, "data"), "code");
	cr_assert_str_eq(got ? got : "(none)", code, "answer: %.2000s", text);
	cr_assert(str_at(e, "message") && *str_at(e, "message"), "no message: %s", text);
	free(text);
	return e;
}

static inline bool has_marker(json_t *res, const char *marker)
{
	json_t *m = json_object_get(res, "markers");
	size_t i;
	json_t *v;
	json_array_foreach(m, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), marker) == 0)
			return true;
	return false;
}

static inline bool denied(json_t *res)
{
	return json_is_true(json_object_get(json_object_get(res, "sandbox"), "denied"));
}

static inline long long exit_code(json_t *res)
{
	json_t *v = json_object_get(res, "exit_code");
	return json_is_integer(v) ? json_integer_value(v) : -1000;
}

/* session/open; returns the session's name (lives as long as the srv). */
static const char *open_session_esc(struct srv *s, long long id, const char *root,
				    const char *mode, int escalation /* -1: not given */)
{
	json_t *p = json_pack("{s:s, s:s}", "root", root, "mode", mode);
	if (escalation >= 0)
		json_object_set_new(p, "escalation", json_boolean(escalation));
	json_t *res = result_of(rpc_call(s, id, "session/open", p));
	cr_assert(str_at(res, "session"), "no session name");
	return str_at(res, "session");
}

static const char *open_session(struct srv *s, long long id, const char *root, const char *mode)
{
	return open_session_esc(s, id, root, mode, -1);
}

static json_t *run_params(const char *session, const char *command)
{
	return json_pack("{s:s, s:s}", "session", session, "command", command);
}

/* A foreground run, waited for; its result object. */
static json_t *run_ok(struct srv *s, long long id, const char *session, const char *command)
{
	return result_of(rpc_call(s, id, "run", run_params(session, command)));
}

/* Start a background run; returns its task name. */
static const char *start_bg(struct srv *s, long long id, const char *session, const char *command)
{
	json_t *p = run_params(session, command);
	json_object_set_new(p, "background", json_true());
	json_t *res = result_of(rpc_call(s, id, "run", p));
	cr_assert(str_at(res, "task"), "no task in the answer");
	cr_assert_null(json_object_get(res, "exit_code"), "a background answer has no result");
	return str_at(res, "task");
}

static json_t *task_params(const char *session, const char *task)
{
	return json_pack("{s:s, s:s}", "session", session, "task", task);
}

/* The first not yet taken task/settled notification for this task. */
static json_t *wait_settled(struct srv *s, const char *task)
{
	long long deadline = now_ms() + ANSWER_TIMEOUT_MS;
	for (;;) {
		size_t i;
		json_t *a;
		json_array_foreach(s->answers, i, a) {
			json_t *p = json_object_get(a, "params");
			if (!s->taken[i] && !json_object_get(a, "id") &&
			    str_at(a, "method") && strcmp(str_at(a, "method"), "task/settled") == 0 &&
			    str_at(p, "task") && strcmp(str_at(p, "task"), task) == 0) {
				s->taken[i] = true;
				return p;
			}
		}
		cr_assert(now_ms() < deadline, "no task/settled for %s", task);
		cr_assert(srv_pump(s, 200, false), "serve closed stdout before %s settled", task);
	}
}

static inline ssize_t read_cmdline(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size);
	close(fd);
	return n;
}

/* Is any process's command line containing needle alive? */
static inline bool proc_with(const char *needle)
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
		ssize_t n = read_cmdline(path, buf, sizeof(buf) - 1);
		/* A process in the middle of execve reads as an empty cmdline
		 * (the new mm has no arguments yet); it still has an exe, which
		 * kernel threads and zombies have not. Read it again until the
		 * new arguments are there. */
		for (int tries = 0; n == 0 && tries < 200; tries++) {
			char exe[300], target[8];
			snprintf(exe, sizeof(exe), "/proc/%s/exe", e->d_name);
			if (readlink(exe, target, sizeof(target)) < 0)
				break;
			usleep(500);
			n = read_cmdline(path, buf, sizeof(buf) - 1);
		}
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

static inline void wait_proc(const char *needle)
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
	char *path = e2e_fmt("%s/sbx.conf", dir);
	cr_assert(e2e_write_file(AS_CALLER, path, text) == 0);
	chmod(path, 0644);
	free(dir);
	return path;
}

static inline size_t count_entries(const char *dir)
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
static inline unsigned marker_seq(void)
{
	static unsigned seq;
	return (unsigned)getpid() * 10 + seq++;
}

static enum e2e_user users[] = { AS_CALLER, AS_NOBODY };

#endif
