/* SPDX-License-Identifier: MIT */
/* The classifier's costs (issues 5 and 14, "Performance").
 *
 *   classify_bench [MIB] [ROUNDS]     (default 64 MiB, 5 rounds; the fastest)
 *
 * 1. Per MiB of output: MIB MiB of realistic output (compiler and build-tool
 *    noise, test-runner lines, JSON log lines, some coloured; one line in 40
 *    a dialect line of either runner, in English and German) fed through
 *    evidence_feed in 64 KiB chunks alternating between stdout and stderr,
 *    as the collector does; once with English only and once with the
 *    command's language (de_DE) handed in; next to a memcpy of the chunks.
 * 2. Per run, whatever its output: evidence_init with the language, the
 *    cached language lookup for an environment, evidence_finish and
 *    classify_denied; and the first, uncached derivation of a locale.
 * 3. classify_bench --files OUT ERR: the same feed over one real run's
 *    captured stdout and stderr (with the language), whole-run cost in ns.
 * Prints figures as "name value" lines the script reads; asserts nothing.
 *
 * Built by scripts/bench-classify.sh against libsbx.a (classify/ and the
 * engine's locale_dialect). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classify.h"
#include "locale_dialect.h"

#define CHUNK (64 * 1024)
#define MIB (1024.0 * 1024.0)

static const char *const noise[] = {
	"src/parser.c:412:17: warning: unused variable 'tmp' [-Wunused-variable]\n",
	"  412 |         int tmp = 0;\n",
	"      |             ^~~\n",
	"In file included from src/main.c:3:\n",
	"src/util.h:88:1: note: declared here\n",
	"make[2]: Entering directory '/home/agent/project/build/src'\n",
	"[ 42%] Building C object src/CMakeFiles/app.dir/lexer.c.o\n",
	"npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n",
	"  File \"/usr/lib/python3/dist-packages/pip/_internal/cli/base_command.py\", line 160, in exc_logging_wrapper\n",
	"    status = run_func(*args)\n",
	"ld: warning: creating DT_TEXTREL in a PIE\n",
	"tests/test_io.py::test_roundtrip PASSED                                   [ 87%]\n",
	"{\"level\": \"info\", \"ts\": 1714557600.12, \"msg\": \"request served\", \"path\": \"/api/v1/items\"}\n",
	"\x1b[32m\xe2\x9c\x93\x1b[39m renders the item list \x1b[90m(12 ms)\x1b[39m\n",
	"error: could not compile `app` (bin \"app\") due to 2 previous errors\n",
	"ok  \texample.com/app/store\t0.021s\n",
};

static const char *const dialect_lines[] = {
	"touch: cannot touch '/home/agent/outside/stamp': Read-only file system\n",
	"bash: line 1: /home/agent/outside/f.txt: Permission denied\n",
	"OSError: [Errno 30] Read-only file system: '/home/agent/.cache/pip'\n",
	"PermissionError: [Errno 13] Permission denied: '/etc/app.conf'\n",
	"npm error Error: EACCES: permission denied, mkdir '/usr/lib/node_modules/x'\n",
	"tar: ./a.txt: Cannot open: Read-only file system\n",
	"fatal: Unable to create '/home/agent/outside/.git/index.lock': Read-only file system.\n",
	"Permission denied (publickey).\n",
	"ln: failed to create hard link '/home/agent/outside/h' => 'a': Invalid cross-device link\n",
	"    Read-only file system (os error 30)\n",
	"touch: '/home/agent/outside/a' kann nicht ber\xc3\xbchrt werden: Das Dateisystem ist nur lesbar\n",
	"{\"err\": \"[Errno 30] Read-only file system: '/srv/x'\"}\n",
	"\x1b[1m\x1b[31mE       OSError: [Errno 30] Read-only file system: '/p/a'\x1b[0m\n",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The fastest of n rounds: the work is the same each round, and a shared
 * machine only ever adds to it. */
static double fastest(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static enum caller_access never(const char *abs, void *ctx)
{
	(void)abs;
	(void)ctx;
	return CALLER_CANNOT;
}

static double feed_all(const char *data, size_t size, const struct dialect_texts *local,
		       size_t *kept)
{
	struct evidence *ev = malloc(sizeof(*ev));
	double t0, t1;

	if (!ev)
		exit(1);
	evidence_init(ev, DIALECT_EROFS | DIALECT_EACCES | DIALECT_EXDEV, local);
	t0 = now_s();
	for (size_t off = 0, i = 0; off < size; off += CHUNK, i++)
		evidence_feed(ev, i % 2 ? EVIDENCE_STDERR : EVIDENCE_STDOUT, data + off,
			      size - off < CHUNK ? size - off : CHUNK);
	evidence_finish(ev);
	t1 = now_s();
	*kept = ev->count;
	free(ev);
	return t1 - t0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			char *n = realloc(buf, cap = cap ? cap * 2 : 1 << 16);
			if (!n)
				exit(1);
			buf = n;
		}
		size_t r = fread(buf + *len, 1, cap - *len, f);
		if (r == 0)
			break;
		*len += r;
	}
	fclose(f);
	return buf;
}

/* One run's real output, fed as the collector would (64 KiB reads of each
 * stream, interleaved), and classified: the fastest of rounds, in ns. */
static int bench_files(const char *out_path, const char *err_path, int rounds)
{
	static char *const env_de[] = { "LANG=de_DE.UTF-8", NULL };
	static const char *const writable[] = { "/ws", "/tmp", "/dev/null", NULL };
	size_t olen, elen;
	char *o = slurp(out_path, &olen), *e = slurp(err_path, &elen);
	struct evidence *ev = malloc(sizeof(*ev));
	double t[64];

	if (!ev || rounds < 1 || rounds > 64)
		return 2;
	for (int r = 0; r < rounds; r++) {
		struct dialect_texts local;
		struct classify_input in = { .evidence = ev, .exited = true, .exit_code = 1,
					     .confined = true, .cwd = "/ws", .writable = writable,
					     .could_write = never };
		double t0 = now_s();

		locale_dialect_for_env(env_de, &local);
		evidence_init(ev, DIALECT_EROFS, &local);
		for (size_t a = 0, b = 0; a < olen || b < elen;) {
			if (a < olen) {
				size_t n = olen - a < CHUNK ? olen - a : CHUNK;
				evidence_feed(ev, EVIDENCE_STDOUT, o + a, n);
				a += n;
			}
			if (b < elen) {
				size_t n = elen - b < CHUNK ? elen - b : CHUNK;
				evidence_feed(ev, EVIDENCE_STDERR, e + b, n);
				b += n;
			}
		}
		evidence_finish(ev);
		__asm__ __volatile__("" : : "r"(classify_denied(&in)) : "memory");
		t[r] = now_s() - t0;
	}
	printf("files_ns %.0f\nfiles_bytes %zu\n", fastest(t, rounds) * 1e9, olen + elen);
	free(ev);
	free(o);
	free(e);
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;

	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	size_t size, len = 0, lines = 0, dlines = 0, kept = 0;
	char *data, *sink;
	double t_en[64], t_de[64], t_copy[64], t_run[64];
	static char *const env_de[] = { "PATH=/usr/bin:/bin", "HOME=/home/agent",
					"LANG=de_DE.UTF-8", "TERM=xterm", NULL };
	struct dialect_texts de;

	if (argc >= 4 && strcmp(argv[1], "--files") == 0) {
		/* the first derivation is not this run's: warm the cache */
		static char *const env_de[] = { "LANG=de_DE.UTF-8", NULL };
		struct dialect_texts warm;

		locale_dialect_for_env(env_de, &warm);
		return bench_files(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 5);
	}
	if (mib == 0 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: classify_bench [MIB>0] [ROUNDS 1..64]\n");
		return 2;
	}
	size = mib * 1024 * 1024;
	data = malloc(size);
	sink = malloc(CHUNK);
	if (!data || !sink) {
		fprintf(stderr, "classify_bench: out of memory\n");
		return 1;
	}
	while (len < size) {
		const char *l = (lines % 40 == 39) ? dialect_lines[dlines++ % N(dialect_lines)]
						   : noise[lines % N(noise)];
		size_t n = strlen(l);

		if (n > size - len)
			n = size - len;
		memcpy(data + len, l, n);
		len += n;
		lines++;
	}

	/* 2b first: the uncached derivation happens once per locale */
	double d0 = now_s();
	locale_dialect_for_env(env_de, &de);
	double d1 = now_s();

	for (int r = 0; r < rounds; r++) {
		t_en[r] = feed_all(data, size, NULL, &kept);
		t_de[r] = feed_all(data, size, &de, &kept);
		double t0 = now_s();
		for (size_t off = 0; off < size; off += CHUNK) {
			memcpy(sink, data + off, size - off < CHUNK ? size - off : CHUNK);
			__asm__ __volatile__("" : : "r"(sink) : "memory"); /* keep the copy */
		}
		t_copy[r] = now_s() - t0;

		/* 2a: the fixed part of one run, 1000 times */
		static const char *const writable[] = { "/ws", "/tmp", "/dev/null", NULL };
		struct evidence *ev = malloc(sizeof(*ev));
		if (!ev)
			return 1;
		t0 = now_s();
		for (int k = 0; k < 1000; k++) {
			struct dialect_texts local;
			struct classify_input in = { .evidence = ev, .exited = true, .exit_code = 1,
						     .confined = true, .cwd = "/ws", .writable = writable,
						     .could_write = never };

			locale_dialect_for_env(env_de, &local);
			evidence_init(ev, DIALECT_EROFS, &local);
			evidence_finish(ev);
			__asm__ __volatile__("" : : "r"(classify_denied(&in)) : "memory");
		}
		t_run[r] = (now_s() - t0) / 1000;
		free(ev);
	}

	double mb = (double)size / MIB;
	double en = fastest(t_en, rounds), dl = fastest(t_de, rounds), copy = fastest(t_copy, rounds);
	printf("input_mib %zu\nlines %zu\ndialect_lines %zu\nkept %zu\n", mib, lines, dlines, kept);
	printf("local_text_erofs %s\n", de.text[0][0] ? de.text[0] : "(none: English)");
	printf("feed_english_ns_per_mib %.0f\n", en * 1e9 / mb);
	printf("feed_local_ns_per_mib %.0f\n", dl * 1e9 / mb);
	printf("memcpy_ns_per_mib %.0f\n", copy * 1e9 / mb);
	printf("per_run_fixed_ns %.0f\n", fastest(t_run, rounds) * 1e9);
	printf("first_derivation_ns %.0f\n", (d1 - d0) * 1e9);
	free(data);
	free(sink);
	return 0;
}
