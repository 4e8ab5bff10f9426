/* SPDX-License-Identifier: MIT */
/* Output collection end to end, through BOTH collectors: io_uring (serve's
 * default, asked of sbx run with SBX_COLLECTOR=io_uring) and poll() (sbx
 * run's default, measured cheaper for one command; here forced by running
 * sbx under `nofeature io_uring`, which makes io_uring_setup fail with EPERM). Exact byte counts around the limit
 * and up to 1 GiB, the spill file byte for byte (FNV-1a over the file vs over
 * the generator's own output, both streamed), the head/omitted/tail rendering,
 * NULs, invalid and cut UTF-8, and human-mode passthrough. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define LIMIT 65536 /* the default --output-limit */
#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)
#define GiB (1024ULL * MiB)

enum collector { URING = 0, POLL = 1 };
static const char *const collector_name[] = {"io_uring", "poll"};

struct cp {
	int collector;
};
static struct cp collectors[] = {{URING}, {POLL}};

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(output, name)                                           \
	{                                                                                   \
		return cr_make_param_array(struct cp, collectors,                           \
					   sizeof collectors / sizeof collectors[0]);       \
	}

/* ---- helpers ---- */

#define FNV_INIT 0xcbf29ce484222325ULL
static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct sum {
	uint64_t size;
	uint64_t hash;
};

static struct sum sum_fd(int fd)
{
	struct sum s = {0, FNV_INIT};
	static unsigned char buf[1 << 20];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		cr_assert(r >= 0, "read: %s", strerror(errno));
		if (r == 0)
			break;
		s.size += (uint64_t)r;
		s.hash = fnv1a(s.hash, buf, (size_t)r);
	}
	return s;
}

static struct sum sum_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	struct sum s = sum_fd(fd);
	close(fd);
	return s;
}

/* The generator run directly (no sbx), streamed. */
static struct sum sum_cmd(const char *cmd)
{
	FILE *f = popen(cmd, "re");
	cr_assert_not_null(f, "popen %s", cmd);
	struct sum s = sum_fd(fileno(f));
	cr_assert_eq(pclose(f), 0, "generator `%s` failed", cmd);
	return s;
}

/* The first n bytes of the generator, and its bytes [from, from+n). */
static char *cmd_bytes(const char *cmd, uint64_t from, size_t n)
{
	FILE *f = popen(cmd, "re");
	cr_assert_not_null(f);
	char *out = malloc(n + 1);
	cr_assert_not_null(out);
	static char buf[1 << 20];
	uint64_t pos = 0;
	size_t got = 0;
	while (pos < from + n) {
		size_t r = fread(buf, 1, sizeof buf, f);
		if (r == 0)
			break;
		/* overlap of [pos, pos+r) with [from, from+n) */
		uint64_t lo = pos > from ? pos : from;
		uint64_t hi = pos + r < from + n ? pos + r : from + n;
		if (lo < hi) {
			memcpy(out + (lo - from), buf + (lo - pos), (size_t)(hi - lo));
			got += (size_t)(hi - lo);
		}
		pos += r;
	}
	pclose(f);
	cr_assert_eq(got, n, "generator `%s` gave too few bytes", cmd);
	out[n] = '\0';
	return out;
}

/* sbx run ARGS... through the chosen collector, as the caller. */
static int run_sbx(enum collector c, struct e2e_out *o, char *const env[], char *const args[])
{
	char *argv[64], *envs[16];
	size_t n = 0, k = 0;
	for (size_t i = 0; env && env[i] && k < 14; i++)
		envs[k++] = env[i];
	if (c == URING)
		envs[k++] = "SBX_COLLECTOR=io_uring";
	envs[k] = NULL;
	env = envs;
	if (c == POLL) {
		argv[n++] = (char *)e2e_helper("nofeature");
		argv[n++] = "io_uring";
		argv[n++] = "--";
	}
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	for (size_t i = 0; args[i]; i++) {
		cr_assert(n < 63);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	return e2e_run(AS_CALLER, argv, env, o);
}

static json_t *parse_one(const struct e2e_out *o)
{
	json_error_t jerr;
	json_t *j = json_loadb(o->out, o->out_len, JSON_ALLOW_NUL, &jerr);
	cr_assert_not_null(j, "stdout is not exactly one valid JSON value (%s at %d): %.*s\nstderr: %s",
			   jerr.text, jerr.position, (int)(o->out_len > 2000 ? 2000 : o->out_len),
			   o->out, o->err);
	cr_assert(json_is_object(j));
	return j;
}

static json_int_t jint(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	cr_assert(json_is_integer(v), "\"%s\" is not an integer", key);
	return json_integer_value(v);
}

static const char *jstrn(json_t *j, const char *key, size_t *len)
{
	json_t *v = json_object_get(j, key);
	cr_assert(json_is_string(v), "\"%s\" is not a string", key);
	*len = json_string_length(v);
	return json_string_value(v);
}

/* The spill path of `stream`, or NULL when there is none. */
static const char *spill_of(json_t *j, const char *stream)
{
	json_t *sp = json_object_get(j, "spill");
	cr_assert(sp != NULL, "\"spill\" missing");
	if (json_is_null(sp))
		return NULL;
	cr_assert(json_is_object(sp), "\"spill\" must be null or an object");
	json_t *p = json_object_get(sp, stream);
	if (!p || json_is_null(p))
		return NULL;
	cr_assert(json_is_string(p));
	return json_string_value(p);
}

/* Remove a spill file, and its private sbx-spill-* directory if it has one. */
static void spill_remove(const char *path)
{
	char *copy = strdup(path);
	cr_assert(unlink(path) == 0, "unlink spill %s: %s", path, strerror(errno));
	char *dir = dirname(copy);
	if (strstr(basename(dir), "sbx-spill-"))
		rmdir(dir);
	free(copy);
}

/* One stream of N bytes (on fd 1 or 2) through --json, all checks. */
/* Where big spill files go: a machine's disk may be small (CI has been seen
 * with a few hundred MiB free), /dev/shm is RAM-backed and usually roomy. The
 * same spill code runs either way; only the file system under it differs. */
static char *roomy_tmpdir(void)
{
	struct statvfs sv;

	if (statvfs("/dev/shm", &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize >= 3 * GiB) {
		char *d = e2e_fmt("/dev/shm/sbx-e2e-out-XXXXXX");

		if (mkdtemp(d))
			return d;
		free(d);
	}
	return e2e_tmpdir(AS_CALLER);
}

static void check_size(enum collector c, uint64_t n, bool on_stderr, const char *gen_fmt,
		       const char *spill_dir)
{
	char *gen = e2e_fmt(gen_fmt, (unsigned long long)n);
	char *cmd = e2e_fmt("%s%s", gen, on_stderr ? " >&2" : "");
	const char *s_main = on_stderr ? "stderr" : "stdout";
	const char *s_other = on_stderr ? "stdout" : "stderr";
	char *key_main = e2e_fmt("%s_bytes", s_main);
	char *key_other = e2e_fmt("%s_bytes", s_other);
	char *tmp = roomy_tmpdir();
	char *tmpenv = e2e_fmt("TMPDIR=%s", tmp);
	/* The default spill home, $XDG_CACHE_HOME/sbx/spill, in the same place. */
	char *cacheenv = e2e_fmt("XDG_CACHE_HOME=%s", tmp);
	char *env[] = {tmpenv, cacheenv, NULL};

	struct e2e_out o;
	int rc = spill_dir ? run_sbx(c, &o, env,
				     (char *[]){"--mode", "danger-full-access", "--json",
						"--spill-dir", (char *)spill_dir, "--", cmd, NULL})
			   : run_sbx(c, &o, env,
				     (char *[]){"--mode", "danger-full-access", "--json", "--", cmd,
						NULL});
	cr_assert_eq(rc, 0, "[%s] `%s`: exit %d, stderr: %s", collector_name[c], cmd, rc, o.err);
	json_t *j = parse_one(&o);
	cr_expect_eq(jint(j, key_main), (json_int_t)n, "[%s] %s: %s %lld, want %llu",
		     collector_name[c], cmd, key_main, (long long)jint(j, key_main),
		     (unsigned long long)n);
	cr_expect_eq(jint(j, key_other), 0);
	bool trunc = n > LIMIT;
	cr_expect_eq(json_is_true(json_object_get(j, "truncated")), trunc,
		     "[%s] %s: truncated must be %d", collector_name[c], cmd, trunc);
	cr_expect(spill_of(j, s_other) == NULL, "no spill for the empty stream");

	size_t slen;
	const char *s = jstrn(j, s_main, &slen);
	const char *spill = spill_of(j, s_main);
	if (!trunc) {
		cr_expect(spill == NULL, "[%s] %llu bytes: no spill expected (%s)",
			  collector_name[c], (unsigned long long)n, spill);
		char *want = cmd_bytes(gen, 0, (size_t)n);
		cr_expect(slen == n && memcmp(s, want, (size_t)n) == 0,
			  "[%s] %llu bytes: %s differs from the generator's", collector_name[c],
			  (unsigned long long)n, s_main);
		free(want);
	} else {
		/* head + "\n[... N bytes omitted ...]\n" + tail, head + tail = limit */
		const char *mid = NULL;
		for (const char *p = s; (p = memmem(p, slen - (size_t)(p - s), "\n[... ", 6));
		     p++)
			mid = p; /* the generators here never produce "\n[... " themselves */
		cr_assert_not_null(mid, "no omitted line in %s", s_main);
		/* (no sscanf: its whitespace directives would eat the tail's newlines) */
		char *end = NULL;
		unsigned long long omitted = strtoull(mid + 6, &end, 10);
		static const char rest[] = " bytes omitted ...]\n";
		cr_assert(end > mid + 6 && strncmp(end, rest, sizeof rest - 1) == 0,
			  "bad omitted line: %.60s", mid);
		size_t used = (size_t)(end - mid) + sizeof rest - 1;
		size_t head = (size_t)(mid - s);
		size_t tail = slen - head - (size_t)used;
		cr_expect_eq(head + tail, LIMIT, "head %zu + tail %zu != limit", head, tail);
		cr_expect_eq(omitted, n - head - tail, "[%s] omitted %llu, want %llu",
			     collector_name[c], omitted, (unsigned long long)(n - head - tail));
		char *want_head = cmd_bytes(gen, 0, head);
		char *want_tail = cmd_bytes(gen, n - tail, tail);
		cr_expect(memcmp(s, want_head, head) == 0, "[%s] head differs", collector_name[c]);
		cr_expect(memcmp(s + head + used, want_tail, tail) == 0, "[%s] tail differs",
			  collector_name[c]);
		free(want_head);
		free(want_tail);

		cr_assert_not_null(spill, "[%s] %llu bytes: spill path missing: %.300s",
				   collector_name[c], (unsigned long long)n, o.out);
		char *home = e2e_fmt("%s/sbx/spill", tmp);
		const char *where = spill_dir ? spill_dir : home;
		cr_expect(strncmp(spill, where, strlen(where)) == 0 && spill[strlen(where)] == '/',
			  "spill %s not under %s", spill, where);
		struct stat st;
		cr_assert(stat(spill, &st) == 0, "spill %s: %s", spill, strerror(errno));
		cr_expect_eq(st.st_mode & 077, 0, "spill %s is readable by others (%o)", spill,
			     st.st_mode & 0777);
		struct sum got = sum_file(spill);
		struct sum want = sum_cmd(gen);
		cr_expect_eq(want.size, n);
		cr_expect_eq(got.size, n, "[%s] spill holds %" PRIu64 " bytes, want %llu",
			     collector_name[c], got.size, (unsigned long long)n);
		cr_expect_eq(got.hash, want.hash, "[%s] spill checksum differs (%" PRIx64
						  " vs %" PRIx64 ")",
			     collector_name[c], got.hash, want.hash);
		spill_remove(spill);
		free(home);
	}
	json_decref(j);
	e2e_out_free(&o);
	free(env[0]);
	free(env[1]);
	if (strncmp(tmp, "/dev/shm/", 9) == 0)
		e2e_rm_rf(tmp);
	free(tmp);
	free(key_main);
	free(key_other);
	free(cmd);
	free(gen);
}

#define YES "yes abcdefghij 2>/dev/null | head -c %llu" /* SIGPIPE: see test_run */
#define ZERO "head -c %llu /dev/zero"

/* ---- the collector really is the one we think ---- */

PARAMS(collector_in_use)
ParameterizedTest(struct cp *p, output, collector_in_use)
{
	struct e2e_out o;
	/* bash's parent is sbx: look at its fds */
	cr_assert_eq(run_sbx(p->collector, &o, NULL,
			     (char *[]){"--mode", "danger-full-access", "--",
					"for f in /proc/$PPID/fd/*; do readlink $f; done; "
					"cat /proc/$PPID/comm",
					NULL}),
		     0, "stderr: %s", o.err);
	cr_assert(strstr(o.out, "sbx\n") != NULL, "bash's parent is not sbx: %s", o.out);
	bool uring = strstr(o.out, "anon_inode:[io_uring]") != NULL;
#ifdef CONFIG_IO_URING
	bool want_uring = p->collector == URING;
#else
	/* Built without io_uring: the poll collector, whatever the kernel has. */
	bool want_uring = false;
#endif
	cr_expect_eq(uring, want_uring, "[%s] sbx's fds:\n%s", collector_name[p->collector],
		     o.out);
	e2e_out_free(&o);
}

/* ---- sizes ---- */

PARAMS(size_small)
ParameterizedTest(struct cp *p, output, size_small)
{
	check_size(p->collector, 0, false, YES, NULL);
	check_size(p->collector, 1, false, YES, NULL);
	check_size(p->collector, 1, true, YES, NULL);
	check_size(p->collector, 4096, false, YES, NULL);
}

PARAMS(size_limit_edge)
ParameterizedTest(struct cp *p, output, size_limit_edge)
{
	char *d = e2e_tmpdir(AS_CALLER);
	check_size(p->collector, LIMIT - 1, false, YES, NULL);
	check_size(p->collector, LIMIT, false, YES, NULL);
	check_size(p->collector, LIMIT + 1, false, YES, NULL);
	check_size(p->collector, LIMIT + 1, false, YES, d);
	check_size(p->collector, LIMIT + 1, true, YES, NULL);
	check_size(p->collector, LIMIT + LIMIT / 2 - 1, false, YES, NULL);
	check_size(p->collector, LIMIT + LIMIT / 2 + 1, true, YES, d);
	free(d);
}

PARAMS(size_10m)
ParameterizedTest(struct cp *p, output, size_10m)
{
	check_size(p->collector, 10 * MiB, false, YES, NULL);
	check_size(p->collector, 10 * MiB + 7, true, YES, NULL);
}

PARAMS(size_256m)
ParameterizedTest(struct cp *p, output, size_256m)
{
	char *d = e2e_tmpdir(AS_CALLER);
	check_size(p->collector, 256 * MiB, false, YES, d);
}

PARAMS(size_256m_zero_stderr)
ParameterizedTest(struct cp *p, output, size_256m_zero_stderr)
{
	check_size(p->collector, 256 * MiB + 3, true, ZERO, NULL);
}

PARAMS(size_1g)
ParameterizedTest(struct cp *p, output, size_1g)
{
	char *d = roomy_tmpdir();
	check_size(p->collector, 1 * GiB, false, YES, d);
	if (strncmp(d, "/dev/shm/", 9) == 0)
		e2e_rm_rf(d);
	free(d);
}

/* Both streams large at once, interleaved by two writers. */
PARAMS(both_streams_large)
ParameterizedTest(struct cp *p, output, both_streams_large)
{
	char *d = e2e_tmpdir(AS_CALLER);
	const char *cmd = "yes abcdefghij 2>/dev/null | head -c 20000000 & "
			  "yes 0123456789 2>/dev/null | head -c 30000000 >&2; wait";
	struct e2e_out o;
	cr_assert_eq(run_sbx(p->collector, &o, NULL,
			     (char *[]){"--mode", "danger-full-access", "--json", "--spill-dir", d,
					"--", (char *)cmd, NULL}),
		     0, "stderr: %s", o.err);
	json_t *j = parse_one(&o);
	cr_expect_eq(jint(j, "stdout_bytes"), 20000000);
	cr_expect_eq(jint(j, "stderr_bytes"), 30000000);
	const char *so = spill_of(j, "stdout"), *se = spill_of(j, "stderr");
	cr_assert(so && se, "both spills expected: %.300s", o.out);
	struct sum a = sum_file(so), b = sum_file(se);
	struct sum wa = sum_cmd("yes abcdefghij | head -c 20000000");
	struct sum wb = sum_cmd("yes 0123456789 | head -c 30000000");
	cr_expect(a.size == wa.size && a.hash == wa.hash, "[%s] stdout spill differs",
		  collector_name[p->collector]);
	cr_expect(b.size == wb.size && b.hash == wb.hash, "[%s] stderr spill differs",
		  collector_name[p->collector]);
	spill_remove(so);
	spill_remove(se);
	json_decref(j);
	e2e_out_free(&o);
	free(d);
}

/* sbx's own memory stays bounded whatever the output size: its VmHWM, read
 * by the command once 256 MiB went through (then a pause so it is drained). */
PARAMS(memory_bounded)
ParameterizedTest(struct cp *p, output, memory_bounded)
{
	char *d = e2e_tmpdir(AS_CALLER);
	const char *cmd = "head -c 256M /dev/zero; sleep 0.3; "
			  "grep VmHWM /proc/$PPID/status >&2";
	struct e2e_out o;
	cr_assert_eq(run_sbx(p->collector, &o, NULL,
			     (char *[]){"--mode", "danger-full-access", "--json", "--spill-dir", d,
					"--", (char *)cmd, NULL}),
		     0, "stderr: %s", o.err);
	json_t *j = parse_one(&o);
	size_t elen;
	const char *err = jstrn(j, "stderr", &elen);
	unsigned long kb = 0;
	cr_assert(sscanf(err, "VmHWM: %lu kB", &kb) == 1, "stderr: %s", err);
	cr_expect(kb < 32 * 1024, "[%s] sbx peak RSS %lu kB after 256 MiB of output",
		  collector_name[p->collector], kb);
	const char *so = spill_of(j, "stdout");
	if (so)
		spill_remove(so);
	json_decref(j);
	e2e_out_free(&o);
	free(d);
}

/* ---- bytes that are not nice text ---- */

static json_t *run_json(enum collector c, struct e2e_out *o, const char *limit, const char *cmd)
{
	char *tmp = e2e_tmpdir(AS_CALLER);
	char *tmpenv = e2e_fmt("TMPDIR=%s", tmp);
	/* The default spill home, $XDG_CACHE_HOME/sbx/spill, in the same place. */
	char *cacheenv = e2e_fmt("XDG_CACHE_HOME=%s", tmp);
	char *env[] = {tmpenv, cacheenv, NULL};
	int rc = limit ? run_sbx(c, o, env,
				 (char *[]){"--mode", "danger-full-access", "--json",
					    "--output-limit", (char *)limit, "--", (char *)cmd,
					    NULL})
		       : run_sbx(c, o, env,
				 (char *[]){"--mode", "danger-full-access", "--json", "--",
					    (char *)cmd, NULL});
	cr_assert_eq(rc, 0, "[%s] `%s`: exit %d, stderr: %s", collector_name[c], cmd, rc, o->err);
	free(tmpenv);
	free(cacheenv);
	free(tmp);
	return parse_one(o);
}

PARAMS(no_trailing_newline)
ParameterizedTest(struct cp *p, output, no_trailing_newline)
{
	struct e2e_out o;
	json_t *j = run_json(p->collector, &o, NULL, "printf abc; printf 'x\\ny' >&2");
	size_t n;
	const char *s = jstrn(j, "stdout", &n);
	cr_expect(n == 3 && memcmp(s, "abc", 3) == 0, "stdout: %s", s);
	s = jstrn(j, "stderr", &n);
	cr_expect(n == 3 && memcmp(s, "x\ny", 3) == 0, "stderr: %s", s);
	cr_expect_eq(jint(j, "stdout_bytes"), 3);
	cr_expect_eq(jint(j, "stderr_bytes"), 3);
	json_decref(j);
	e2e_out_free(&o);

	/* human mode: the same bytes, nothing added */
	cr_assert_eq(run_sbx(p->collector, &o, NULL,
			     (char *[]){"--mode", "danger-full-access", "--",
					"printf abc; printf 'x\\ny' >&2", NULL}),
		     0);
	cr_expect(o.out_len == 3 && memcmp(o.out, "abc", 3) == 0);
	cr_expect(o.err_len == 3 && memcmp(o.err, "x\ny", 3) == 0, "stderr: [%s]", o.err);
	e2e_out_free(&o);
}

PARAMS(nul_bytes)
ParameterizedTest(struct cp *p, output, nul_bytes)
{
	struct e2e_out o;
	json_t *j = run_json(p->collector, &o, NULL, "printf 'a\\0b'");
	cr_expect(memmem(o.out, o.out_len, "\"a\\u0000b\"", 10) != NULL, "raw JSON: %s", o.out);
	size_t n;
	const char *s = jstrn(j, "stdout", &n);
	cr_expect(n == 3 && memcmp(s, "a\0b", 3) == 0, "stdout length %zu", n);
	cr_expect_eq(jint(j, "stdout_bytes"), 3);
	json_decref(j);
	e2e_out_free(&o);
}

static bool all_fffd(const char *s, size_t n, size_t *count)
{
	*count = 0;
	for (size_t i = 0; i < n; i += 3) {
		if (n - i < 3 || memcmp(s + i, "\xef\xbf\xbd", 3) != 0)
			return false;
		(*count)++;
	}
	return true;
}

PARAMS(invalid_utf8)
ParameterizedTest(struct cp *p, output, invalid_utf8)
{
	struct e2e_out o;
	json_t *j = run_json(p->collector, &o, NULL, "printf '\\xff\\xfe'; printf 'a\\xc3(b' >&2");
	size_t n, k;
	const char *s = jstrn(j, "stdout", &n);
	cr_expect(n > 0 && all_fffd(s, n, &k) && k >= 1 && k <= 2, "stdout must be U+FFFD only");
	cr_expect_eq(jint(j, "stdout_bytes"), 2);
	s = jstrn(j, "stderr", &n);
	cr_expect(n == 6 && memcmp(s, "a\xef\xbf\xbd(b", 6) == 0, "stderr: %s", s);
	cr_expect_eq(jint(j, "stderr_bytes"), 4);
	json_decref(j);
	e2e_out_free(&o);
}

/* A multibyte character cut at the head's end and at the tail's start
 * (--output-limit 10: a 5-byte head and a 5-byte tail): the JSON must stay
 * valid (jansson refuses invalid UTF-8) and the spill keeps the raw bytes. */
PARAMS(utf8_cut_at_edges)
ParameterizedTest(struct cp *p, output, utf8_cut_at_edges)
{
	struct e2e_out o;
	/* abcd + é (c3 a9) | zzzzzzzzzz | € (e2 82 ac) + xyz  = 22 bytes */
	json_t *j = run_json(p->collector, &o, "10",
			     "printf 'abcd\\xc3\\xa9zzzzzzzzzz\\xe2\\x82\\xacxyz'");
	cr_expect_eq(jint(j, "stdout_bytes"), 22);
	cr_expect(json_is_true(json_object_get(j, "truncated")));
	size_t n;
	const char *s = jstrn(j, "stdout", &n);
	cr_expect(n >= 4 && memcmp(s, "abcd", 4) == 0, "stdout: %s", s);
	cr_expect(n >= 3 && memcmp(s + n - 3, "xyz", 3) == 0, "stdout: %s", s);
	cr_expect(strstr(s, "[... 12 bytes omitted ...]") != NULL, "stdout: %s", s);
	const char *spill = spill_of(j, "stdout");
	cr_assert_not_null(spill);
	char *raw = e2e_read_file(spill);
	cr_expect(raw && memcmp(raw, "abcd\xc3\xa9zzzzzzzzzz\xe2\x82\xacxyz", 22) == 0 &&
			  raw[22] == '\0',
		  "spill content differs");
	free(raw);
	spill_remove(spill);
	json_decref(j);
	e2e_out_free(&o);

	/* a 4-byte character slid across both edges */
	for (int k = 0; k < 8; k++) {
		char *cmd = e2e_fmt("printf '%.*s\\xf0\\x9f\\x98\\x80\\xf0\\x9f\\x98\\x80%s"
				"\\xf0\\x9f\\x98\\x80\\xf0\\x9f\\x98\\x80%.*s'",
				k, "aaaaaaaa", "----------", 7 - k, "bbbbbbbb");
		j = run_json(p->collector, &o, "10", cmd);
		cr_expect_eq(jint(j, "stdout_bytes"), k + 8 + 10 + 8 + 7 - k, "%s", cmd);
		spill = spill_of(j, "stdout");
		if (spill)
			spill_remove(spill);
		json_decref(j);
		e2e_out_free(&o);
		free(cmd);
	}
}

/* ---- human mode: byte-exact passthrough ---- */

PARAMS(human_passthrough)
ParameterizedTest(struct cp *p, output, human_passthrough)
{
	char *tmp = e2e_tmpdir(AS_CALLER);
	char *tmpenv = e2e_fmt("TMPDIR=%s", tmp);
	/* The default spill home, $XDG_CACHE_HOME/sbx/spill, in the same place. */
	char *cacheenv = e2e_fmt("XDG_CACHE_HOME=%s", tmp);
	char *env[] = {tmpenv, cacheenv, NULL};
	const char *a = "yes abcdefghij 2>/dev/null | head -c 10485760";
	const char *b = "yes 0123456789 2>/dev/null | head -c 10485761";
	char *cmd = e2e_fmt("%s & %s >&2; wait", a, b);
	struct e2e_out o;
	cr_assert_eq(run_sbx(p->collector, &o, env,
			     (char *[]){"--mode", "danger-full-access", "--", cmd, NULL}),
		     0, "stderr: %.200s", o.err);
	struct sum wa = sum_cmd(a), wb = sum_cmd(b);
	uint64_t ho = fnv1a(FNV_INIT, (unsigned char *)o.out, o.out_len);
	uint64_t he = fnv1a(FNV_INIT, (unsigned char *)o.err, o.err_len);
	cr_expect(o.out_len == wa.size && ho == wa.hash, "[%s] stdout: %zu bytes, want %" PRIu64,
		  collector_name[p->collector], o.out_len, wa.size);
	cr_expect(o.err_len == wb.size && he == wb.hash, "[%s] stderr: %zu bytes, want %" PRIu64,
		  collector_name[p->collector], o.err_len, wb.size);
	e2e_out_free(&o);

	/* NULs and invalid UTF-8 pass raw in human mode */
	cr_assert_eq(run_sbx(p->collector, &o, env,
			     (char *[]){"--mode", "danger-full-access", "--",
					"printf 'a\\0b\\xff'; printf '\\xfe' >&2", NULL}),
		     0);
	cr_expect(o.out_len == 4 && memcmp(o.out, "a\0b\xff", 4) == 0);
	cr_expect(o.err_len == 1 && o.err[0] == '\xfe');
	e2e_out_free(&o);
	free(cmd);
	free(tmpenv);
	free(cacheenv);
	free(tmp);
}
