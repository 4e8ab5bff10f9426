/* SPDX-License-Identifier: MIT */
/* launcher/output/stream.c against a reference model: feed random data in random
 * chunkings and compare the render (head, omitted count, tail), the
 * truncation flag, the total, the spill file and the live passthrough copy.
 *
 * Reference, for a stream D of n bytes and limit L:
 *   n <= L: render == D, not truncated, no spill
 *   n >  L: render == D[0, L - L/2) + "\n[... (n-L) bytes omitted ...]\n" + D[n - L/2, n),
 *           truncated, spill file == D */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic per seed, so a failure can be replayed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static char spill_dir[] = "/tmp/sbx-unit-stream-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(spill_dir), "mkdtemp: %s", strerror(errno));
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void teardown(void)
{
	nftw(spill_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

TestSuite(stream, .init = setup, .fini = teardown);

static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	struct stat st;
	cr_assert(fstat(fd, &st) == 0);
	char *buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		cr_assert(r > 0);
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return buf;
}

static char *expected_render(const char *d, size_t n, size_t limit, size_t *len)
{
	char *out;
	if (n <= limit) {
		out = malloc(n + 1);
		memcpy(out, d, n);
		*len = n;
		return out;
	}
	size_t tail = limit / 2, head = limit - tail;
	char mid[64];
	int m = snprintf(mid, sizeof mid, "\n[... %zu bytes omitted ...]\n", n - limit);
	*len = head + (size_t)m + tail;
	out = malloc(*len + 1);
	memcpy(out, d, head);
	memcpy(out + head, mid, (size_t)m);
	memcpy(out + head + m, d + n - tail, tail);
	return out;
}

/* A spill place in spill_dir: files directly there (as with --spill-dir), or
 * in a fresh private directory (as in the spill home), at most cap bytes. */
static struct spill_place place;

static struct spill_place *spill_here(bool private_dir, uint64_t cap)
{
	struct sbx_error err;

	spill_place_init(&place, cap);
	cr_assert_eq(spill_place_choose(&place, spill_dir, NULL, 0, &err), 0, "%s", err.message);
	place.private_dir = private_dir;
	return &place;
}

enum chunking { CH_ONE, CH_BYTES, CH_RANDOM, CH_AROUND_LIMIT };

/* Feed d[0..n) in the given chunking and check everything. pass: also check
 * the live copy written to a pass fd. */
static void check(const char *d, size_t n, size_t limit, enum chunking ch, bool pass,
		  const char *ctx)
{
	struct stream s;
	char passpath[256] = "";
	int pass_fd = -1;
	if (pass) {
		snprintf(passpath, sizeof passpath, "%s/pass-XXXXXX", spill_dir);
		pass_fd = mkostemp(passpath, O_CLOEXEC);
		cr_assert(pass_fd >= 0);
	}
	cr_assert_eq(stream_init(&s, "stdout", limit, pass_fd,
				 pass ? NULL : spill_here(false, UINT64_MAX)), 0);

	size_t off = 0;
	while (off < n) {
		size_t k;
		switch (ch) {
		case CH_ONE:
			k = n;
			break;
		case CH_BYTES:
			k = 1;
			break;
		case CH_AROUND_LIMIT:
			/* cut exactly at limit, limit/2, limit-limit/2 and their neighbours */
			if (off < limit - limit / 2 && limit - limit / 2 - off > 0)
				k = limit - limit / 2 - off;
			else if (off < limit)
				k = limit - off;
			else
				k = 1 + rnd() % (limit + 3);
			break;
		default:
			switch (rnd() % 4) {
			case 0:
				k = 1 + rnd() % 3;
				break;
			case 1:
				k = 1 + rnd() % (limit + 2);
				break;
			case 2:
				k = 1 + rnd() % (3 * limit + 5);
				break;
			default:
				k = 0; /* empty feeds are allowed */
				break;
			}
		}
		if (k > n - off)
			k = n - off;
		stream_feed(&s, d + off, k);
		off += k;
	}

	cr_assert_eq(s.total, n, "%s: total", ctx);
	cr_assert_eq(stream_truncated(&s), n > limit, "%s: truncated", ctx);
	cr_assert_eq(s.error, 0, "%s: stream error %d", ctx, s.error);
	size_t glen = 0, wlen = 0;
	char *got = stream_render(&s, &glen);
	char *want = expected_render(d, n, limit, &wlen);
	cr_assert_not_null(got);
	cr_assert_eq(glen, wlen, "%s: render length %zu, want %zu", ctx, glen, wlen);
	cr_assert(memcmp(got, want, wlen) == 0, "%s: render differs", ctx);
	cr_assert_eq(got[glen], '\0', "%s: render not NUL-terminated", ctx);
	free(got);
	free(want);

	char *spill = s.spill_path ? strdup(s.spill_path) : NULL;
	cr_assert_eq(s.spill_stop, SPILL_WHOLE, "%s: spill stopped (%d)", ctx, s.spill_stop);
	stream_close(&s);
	spill_place_close(&place);
	if (pass) {
		cr_assert_null(spill, "%s: no spill with passthrough", ctx);
		size_t plen;
		char *p = read_all(passpath, &plen);
		cr_assert(plen == n && memcmp(p, d, n) == 0, "%s: passthrough copy differs", ctx);
		free(p);
		close(pass_fd);
		unlink(passpath);
	} else if (n > limit) {
		cr_assert_not_null(spill, "%s: spill expected", ctx);
		cr_assert(strncmp(spill, spill_dir, strlen(spill_dir)) == 0, "%s: spill %s", ctx,
			  spill);
		size_t slen;
		char *sp = read_all(spill, &slen);
		cr_assert(slen == n && memcmp(sp, d, n) == 0, "%s: spill differs (%zu bytes, want %zu)",
			  ctx, slen, n);
		free(sp);
		unlink(spill);
	} else {
		cr_assert_null(spill, "%s: no spill expected below the limit", ctx);
	}
	free(spill);
	free(s.spill_path);
}

static char *random_data(size_t n)
{
	char *d = malloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		d[i] = (char)(rnd() & 0xff);
	return d;
}

static void sweep(size_t limit, size_t max_n, unsigned rounds)
{
	for (size_t n = 0; n <= max_n; n++) {
		char *d = random_data(n);
		for (int ch = CH_ONE; ch <= CH_AROUND_LIMIT; ch++) {
			for (unsigned r = 0; r < (ch == CH_RANDOM ? rounds : 1); r++) {
				char ctx[128];
				snprintf(ctx, sizeof ctx, "limit %zu n %zu chunking %d round %u seed %" PRIx64,
					 limit, n, ch, r, rng_state);
				check(d, n, limit, (enum chunking)ch, false, ctx);
			}
		}
		free(d);
	}
}

Test(stream, limit_2)
{
	rng_state = 0x1234;
	sweep(2, 20, 8);
}

Test(stream, limit_3)
{
	rng_state = 0x2345;
	sweep(3, 20, 8);
}

Test(stream, limit_1)
{
	/* tail of 0 bytes: the render is the 1-byte head and the omitted line */
	rng_state = 0x3456;
	sweep(1, 10, 4);
}

Test(stream, limit_0)
{
	rng_state = 0x4567;
	sweep(0, 5, 2);
}

/* Overflow smaller than the tail: the tail must reach back into the head
 * buffer (limit 10: a 5-byte tail and 1..4 bytes over). */
Test(stream, overflow_smaller_than_tail)
{
	rng_state = 0x5678;
	for (size_t over = 1; over <= 6; over++)
		for (unsigned r = 0; r < 20; r++) {
			char *d = random_data(10 + over);
			check(d, 10 + over, 10, CH_RANDOM, false, "limit 10 small overflow");
			check(d, 10 + over, 10, CH_BYTES, false, "limit 10 small overflow, bytes");
			check(d, 10 + over, 10, CH_ONE, false, "limit 10 small overflow, one");
			free(d);
		}
}

Test(stream, odd_and_even_limits_random)
{
	rng_state = 0x6789;
	static const size_t limits[] = {4, 5, 7, 8, 16, 17, 100, 101};
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
		sweep(limits[i], 3 * limits[i] + 3, 3);
}

Test(stream, large_random)
{
	rng_state = 0x789a;
	size_t n = 5 * 1024 * 1024 + 17;
	char *d = random_data(n);
	check(d, n, 65536, CH_RANDOM, false, "65536 / 5 MiB random");
	check(d, n, 65536, CH_AROUND_LIMIT, false, "65536 / 5 MiB around limit");
	check(d, n, 65537, CH_RANDOM, false, "65537 / 5 MiB random");
	check(d, 65536, 65536, CH_RANDOM, false, "65536 exactly");
	check(d, 65537, 65536, CH_RANDOM, false, "65537");
	free(d);
}

Test(stream, passthrough_copy)
{
	rng_state = 0x89ab;
	size_t n = 300000;
	char *d = random_data(n);
	check(d, n, 1000, CH_RANDOM, true, "passthrough over the limit");
	check(d, 500, 1000, CH_RANDOM, true, "passthrough under the limit");
	free(d);
}

/* With spill disabled (and no pass fd) nothing is written anywhere, yet the
 * render and counts are right. */
Test(stream, no_spill)
{
	rng_state = 0x9abc;
	struct stream s;
	char *d = random_data(1000);
	cr_assert_eq(stream_init(&s, "stderr", 100, -1, NULL), 0);
	for (size_t off = 0; off < 1000; off += 7)
		stream_feed(&s, d + off, off + 7 <= 1000 ? 7 : 1000 - off);
	cr_assert_eq(s.total, 1000);
	cr_assert_null(s.spill_path);
	size_t glen, wlen;
	char *got = stream_render(&s, &glen), *want = expected_render(d, 1000, 100, &wlen);
	cr_assert(glen == wlen && memcmp(got, want, wlen) == 0);
	free(got);
	free(want);
	stream_close(&s);
	free(d);
}

/* The default spill place: a private 0700 directory made under the base
 * (the run picks the base: a spill home, else $TMPDIR or /tmp), a 0600 file. */
Test(stream, default_spill_dir_private)
{
	rng_state = 0xabcd;
	struct stream s;
	char *d = random_data(50);
	cr_assert_eq(stream_init(&s, "stdout", 10, -1, spill_here(true, UINT64_MAX)), 0);
	stream_feed(&s, d, 50);
	cr_assert_not_null(s.spill_path);
	cr_assert(strncmp(s.spill_path, spill_dir, strlen(spill_dir)) == 0, "%s", s.spill_path);
	struct stat st;
	cr_assert(stat(s.spill_path, &st) == 0);
	cr_assert_eq(st.st_mode & 077, 0, "spill file mode %o", st.st_mode & 0777);
	char *dir = strdup(s.spill_path);
	*strrchr(dir, '/') = '\0';
	cr_assert(stat(dir, &st) == 0);
	cr_assert_eq(st.st_mode & 077, 0, "spill dir mode %o", st.st_mode & 0777);
	stream_close(&s);
	spill_place_close(&place);
	size_t slen;
	char *sp = read_all(s.spill_path, &slen);
	cr_assert(slen == 50 && memcmp(sp, d, 50) == 0);
	free(sp);
	free(dir);
	free(s.spill_path);
	free(d);
}

/* The omitted count is 64-bit clean: no wrap for totals past 4 GiB (fed
 * without copying 4 GiB: the same 1 MiB block many times). */
Test(stream, total_past_4g, .timeout = 120)
{
	struct stream s;
	size_t blk = 1 << 20;
	char *d = malloc(blk);
	memset(d, 'x', blk);
	cr_assert_eq(stream_init(&s, "stdout", 64, -1, NULL), 0);
	for (int i = 0; i < 4097; i++)
		stream_feed(&s, d, blk);
	uint64_t total = 4097ULL << 20;
	cr_assert_eq(s.total, total);
	size_t len;
	char *r = stream_render(&s, &len);
	char want[64];
	snprintf(want, sizeof want, "[... %" PRIu64 " bytes omitted ...]", total - 64);
	cr_assert(strstr(r, want) != NULL, "%s", r);
	free(r);
	stream_close(&s);
	free(d);
}

/* spill_max_bytes: the file holds exactly the first cap bytes of the stream,
 * the stream itself (render, total) is whole, and the stop says why. */
static void check_cap(size_t n, uint64_t cap, enum chunking ch)
{
	struct stream s;
	char *d = random_data(n);

	cr_assert_eq(stream_init(&s, "stdout", 100, -1, spill_here(true, cap)), 0);
	for (size_t off = 0; off < n;) {
		size_t k = ch == CH_BYTES ? 1 : ch == CH_ONE ? n : 1 + rnd() % 700;

		if (k > n - off)
			k = n - off;
		stream_feed(&s, d + off, k);
		off += k;
	}
	cr_assert_eq(s.total, n);
	uint64_t want = n < cap ? n : cap;
	cr_assert_eq(s.spill_stop, n > cap ? SPILL_STOP_CAP : SPILL_WHOLE, "n %zu cap %llu: stop %d",
		     n, (unsigned long long)cap, s.spill_stop);
	cr_assert_eq(s.spilled, want);
	stream_close(&s);
	spill_place_close(&place);
	if (cap == 0) {
		cr_assert_null(s.spill_path, "cap 0: no file");
	} else {
		size_t slen;
		char *sp = read_all(s.spill_path, &slen);

		cr_assert(slen == want && memcmp(sp, d, want) == 0, "n %zu cap %llu: file has %zu",
			  n, (unsigned long long)cap, slen);
		free(sp);
	}
	free(s.spill_path);
	free(d);
}

Test(stream, spill_cap)
{
	rng_state = 0x5151;
	check_cap(5000, 1234, CH_RANDOM);
	check_cap(5000, 1234, CH_BYTES);
	check_cap(5000, 1234, CH_ONE);
	check_cap(5000, 50, CH_RANDOM);  /* below the limit: the head alone is cut */
	check_cap(5000, 5000, CH_RANDOM); /* exactly the stream: whole */
	check_cap(5000, 4999, CH_RANDOM);
	check_cap(5000, 0, CH_RANDOM);   /* never spill */
}

/* A spill that cannot be made stops with the reason; the stream goes on. */
Test(stream, spill_error_reported)
{
	struct stream s;
	char d[300];

	memset(d, 'e', sizeof(d));
	spill_here(true, UINT64_MAX);
	close(place.base_fd);
	place.base_fd = -EACCES;
	cr_assert_eq(stream_init(&s, "stderr", 100, -1, &place), 0);
	stream_feed(&s, d, sizeof(d));
	cr_assert_eq(s.total, sizeof(d));
	cr_assert_eq(s.spill_stop, SPILL_STOP_ERROR);
	cr_assert_eq(s.spill_errno, EACCES);
	cr_assert_null(s.spill_path);
	stream_close(&s);
}
