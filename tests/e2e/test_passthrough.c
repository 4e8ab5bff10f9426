/* SPDX-License-Identifier: MIT */
/* Human mode's passthrough (the library's sbx_run_set_passthrough): every
 * byte reaches the output in order, whatever it is (a file, a pipe, a pipe
 * whose reader is slow, one whose reader goes away), and the result still
 * keeps the head and the tail of the stream and its size. Without a runner
 * nothing is read past the head (stream_splice.c); a confined run reads
 * everything (its denials are listened for): both are checked here, as the
 * caller (the test process runs the library itself). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "sbx.h"

#define LINES 200000 /* `seq 1 N`: 1288895 bytes, far past the 64 KiB limit */

static char *seq_text(unsigned n, size_t *len)
{
	size_t cap = (size_t)n * 8 + 1, off = 0;
	char *s = malloc(cap);

	cr_assert_not_null(s);
	for (unsigned i = 1; i <= n; i++)
		off += (size_t)snprintf(s + off, cap - off, "%u\n", i);
	*len = off;
	return s;
}

/* Run `seq 1 n` (or cmd) in mode with stdout passed through to out_fd;
 * return the result as JSON. */
static json_t *run_through(const char *cmd, const char *mode, int out_fd)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	enum sbx_mode m;
	char *root = e2e_tmpdir(AS_CALLER);

	cr_assert_eq(sbx_mode_parse(mode, &m), 0);
	cr_assert_eq(sbx_run_set_command(run, cmd), 0);
	cr_assert_eq(sbx_run_set_mode(run, m), 0);
	cr_assert_eq(sbx_run_set_root(run, root), 0);
	cr_assert_eq(sbx_run_set_passthrough(run, out_fd, -1), 0);
	cr_assert_eq(sbx_run_execute(run, &res, &err), 0, "%s: %s", err.code, err.message);
	char *js = sbx_result_to_json(res);
	json_t *j = json_loads(js, 0, NULL);

	cr_assert_not_null(j);
	free(js);
	sbx_result_free(res);
	sbx_run_free(run);
	free(root);
	return j;
}

/* The result keeps the first and the last 32 KiB, with the line between. */
static void check_result(json_t *j, const char *want, size_t len)
{
	const char *out = json_string_value(json_object_get(j, "stdout"));
	json_int_t bytes = json_integer_value(json_object_get(j, "stdout_bytes"));
	size_t half = 65536 / 2;
	char mid[64];

	cr_assert_eq((size_t)bytes, len, "stdout_bytes %lld, want %zu", (long long)bytes, len);
	cr_assert_not_null(out);
	snprintf(mid, sizeof(mid), "\n[... %zu bytes omitted ...]\n", len - 2 * half);
	cr_assert_eq(strlen(out), 2 * half + strlen(mid), "result stdout is %zu bytes", strlen(out));
	cr_expect(memcmp(out, want, half) == 0, "the head differs");
	cr_expect(memcmp(out + half, mid, strlen(mid)) == 0, "the middle line differs: %.60s",
		  out + half);
	cr_expect(memcmp(out + half + strlen(mid), want + len - half, half) == 0,
		  "the tail differs");
}

static void to_file(const char *mode)
{
	size_t len;
	char *want = seq_text(LINES, &len);
	char *dir = e2e_tmpdir(AS_CALLER);
	char *path = e2e_fmt("%s/out", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char *cmd = e2e_fmt("seq 1 %u", LINES);

	cr_assert(fd >= 0);
	json_t *j = run_through(cmd, mode, fd);
	close(fd);
	char *got = e2e_read_file(path);

	cr_assert_not_null(got);
	cr_expect(strlen(got) == len && memcmp(got, want, len) == 0,
		  "[%s] the file holds %zu bytes, not the command's %zu", mode, strlen(got), len);
	check_result(j, want, len);
	json_decref(j);
	free(got);
	free(want);
	free(cmd);
	free(path);
	free(dir);
}

Test(passthrough, file_unconfined)
{
	to_file("danger-full-access");
}

Test(passthrough, file_confined)
{
	to_file("workspace-write");
}

/* A pipe whose reader is slower than the command: nothing is lost. The
 * reader is a thread (a child of ours would do as well: libsbx leaves its
 * caller's children alone, test_embedding). */
struct reader {
	int fd;
	const char *want;
	size_t len, got;
	bool same;
};

static void *read_slowly(void *arg)
{
	struct reader *r = arg;
	char buf[4096];
	ssize_t n;

	r->same = true;
	while ((n = read(r->fd, buf, sizeof(buf))) > 0) {
		r->same &= r->got + (size_t)n <= r->len && memcmp(buf, r->want + r->got, (size_t)n) == 0;
		r->got += (size_t)n;
		if (r->got % (64 * 4096) == 0)
			usleep(2000);
	}
	return NULL;
}

static void to_slow_pipe(const char *mode)
{
	size_t len;
	char *want = seq_text(LINES, &len);
	int p[2];
	char *cmd = e2e_fmt("seq 1 %u", LINES);
	struct reader r = { .want = want, .len = len };
	pthread_t t;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	r.fd = p[0];
	cr_assert_eq(pthread_create(&t, NULL, read_slowly, &r), 0);
	json_t *j = run_through(cmd, mode, p[1]);
	close(p[1]);
	pthread_join(t, NULL);
	close(p[0]);
	cr_expect(r.same && r.got == len, "[%s] the pipe's reader got %zu other bytes (want %zu)",
		  mode, r.got, len);
	check_result(j, want, len);
	json_decref(j);
	free(want);
	free(cmd);
}

Test(passthrough, slow_pipe_unconfined)
{
	to_slow_pipe("danger-full-access");
}

Test(passthrough, slow_pipe_confined)
{
	to_slow_pipe("read-only");
}

/* The reader goes away: the run goes on to its end and still counts every
 * byte (what it wrote past the reader is dropped, as with a write error). */
Test(passthrough, reader_gone_unconfined)
{
	size_t len;
	char *want = seq_text(LINES, &len);
	int p[2];
	char *cmd = e2e_fmt("seq 1 %u", LINES);

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(p), 0);
	close(p[0]);
	json_t *j = run_through(cmd, "danger-full-access", p[1]);

	close(p[1]);
	cr_expect_eq(json_integer_value(json_object_get(j, "exit_code")), 0);
	check_result(j, want, len);
	json_decref(j);
	free(want);
	free(cmd);
}

/* Shorter than the limit: all of it, no omission line. */
Test(passthrough, short_stream_unconfined)
{
	char *dir = e2e_tmpdir(AS_CALLER);
	char *path = e2e_fmt("%s/out", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert(fd >= 0);
	json_t *j = run_through("printf 'a\\nb\\n'", "danger-full-access", fd);

	close(fd);
	cr_expect_str_eq(json_string_value(json_object_get(j, "stdout")), "a\nb\n");
	char *got = e2e_read_file(path);

	cr_expect_str_eq(got, "a\nb\n");
	json_decref(j);
	free(got);
	free(path);
	free(dir);
}
