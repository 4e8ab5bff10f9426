/* SPDX-License-Identifier: MIT */
/* The classifier's cost per MiB of stderr (issue 5, "Performance").
 *
 *   classify_bench [MIB] [ROUNDS]     (default 64 MiB, 5 rounds; median shown)
 *
 * Builds MIB MiB of realistic stderr in memory (compiler and build-tool noise,
 * one line in 40 a dialect line of either runner, with and without a path),
 * then feeds it through evidence_feed in 64 KiB chunks, as the collector
 * does, and for comparison memcpy's the same chunks into a 64 KiB buffer.
 * Prints MiB/s and ns per MiB of each and their ratio. Asserts nothing.
 *
 * Self-contained: scripts/bench-classify.sh compiles it together with
 * classify/*.c (the classifier is pure, it needs nothing else). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classify.h"

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
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	size_t size, len = 0, lines = 0, dlines = 0;
	char *data, *sink;
	double t_feed[64], t_copy[64];
	volatile size_t keep = 0;

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
	/* the realistic stream, cut at exactly `size` bytes */
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

	for (int r = 0; r < rounds; r++) {
		struct evidence ev;
		double t0, t1;

		/* both runners' dialects at once: the most matching work */
		evidence_init(&ev, DIALECT_EROFS | DIALECT_EACCES | DIALECT_EXDEV);
		t0 = now_s();
		for (size_t off = 0; off < size; off += CHUNK)
			evidence_feed(&ev, data + off, size - off < CHUNK ? size - off : CHUNK);
		evidence_finish(&ev);
		t1 = now_s();
		t_feed[r] = t1 - t0;
		keep += ev.count;

		t0 = now_s();
		for (size_t off = 0; off < size; off += CHUNK) {
			size_t n = size - off < CHUNK ? size - off : CHUNK;

			memcpy(sink, data + off, n);
			__asm__ __volatile__("" : : "r"(sink) : "memory"); /* keep the copy */
		}
		t1 = now_s();
		t_copy[r] = t1 - t0;
	}

	double feed = median(t_feed, rounds), copy = median(t_copy, rounds);
	double mb = (double)size / MIB;

	printf("classifier input: %zu MiB of stderr, %zu lines, %zu dialect lines (1 in 40), "
	       "64 KiB chunks, median of %d\n",
	       mib, lines, dlines, rounds);
	printf("  evidence_feed: %9.1f MiB/s  %12.0f ns per MiB\n", mb / feed, feed * 1e9 / mb);
	printf("  memcpy:        %9.1f MiB/s  %12.0f ns per MiB\n", mb / copy, copy * 1e9 / mb);
	printf("  evidence_feed / memcpy: %.1fx  (evidence lines kept: %zu)\n", feed / copy,
	       (size_t)keep / (size_t)rounds);
	free(data);
	free(sink);
	return 0;
}
