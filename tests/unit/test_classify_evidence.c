/* SPDX-License-Identifier: MIT */
/* The evidence ring: any split, long streams, NULs, bad UTF-8, long lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

#define ALL (DIALECT_EROFS | DIALECT_EACCES | DIALECT_EXDEV | DIALECT_SEATBELT)

static const char stream[] =
	"building...\n"
	"touch: cannot touch '/etc/a': Read-only file system\n"
	"warning: Read-only file system detected\n"
	"PermissionError: [Errno 13] Permission denied: '/usr/lib/b'\r\n"
	"git@github.com: Permission denied (publickey).\n"
	"npm ERR! EROFS: read-only file system, open '/c'\n"
	"tee: /d: Read-only file system"; /* no final newline */

static void expect_stream_result(const struct evidence *ev)
{
	cr_assert_eq(ev->count, 4u);
	cr_expect_eq(ev->ring[0].dialect, DIALECT_EROFS);
	cr_expect_str_eq(ev->ring[0].path, "/etc/a");
	cr_expect_str_eq(ev->ring[0].line, "touch: cannot touch '/etc/a': Read-only file system");
	cr_expect_eq(ev->ring[1].dialect, DIALECT_EACCES);
	cr_expect_str_eq(ev->ring[1].path, "/usr/lib/b");
	cr_expect_str_eq(ev->ring[1].line, "PermissionError: [Errno 13] Permission denied: '/usr/lib/b'");
	cr_expect_eq(ev->ring[2].dialect, DIALECT_EROFS);
	cr_expect_str_eq(ev->ring[2].path, "/c");
	cr_expect_eq(ev->ring[3].dialect, DIALECT_EROFS);
	cr_expect_str_eq(ev->ring[3].path, "/d");
	cr_expect_eq(ev->lane[EVIDENCE_STDERR].partial_len, 0u);
}

Test(evidence, whole_stream)
{
	struct evidence ev;

	evidence_init(&ev, ALL, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, stream, strlen(stream));
	cr_expect_eq(ev.count, 3u, "the unterminated last line waits for finish");
	evidence_finish(&ev);
	expect_stream_result(&ev);
}

Test(evidence, one_byte_chunks)
{
	struct evidence ev;

	evidence_init(&ev, ALL, NULL);
	for (size_t i = 0; i < strlen(stream); i++)
		evidence_feed(&ev, EVIDENCE_STDERR, stream + i, 1);
	evidence_finish(&ev);
	expect_stream_result(&ev);
}

Test(evidence, random_split_points)
{
	unsigned seed = 12345;

	for (int round = 0; round < 500; round++) {
		struct evidence ev;
		size_t off = 0, len = strlen(stream);

		evidence_init(&ev, ALL, NULL);
		while (off < len) {
			size_t n = (size_t)rand_r(&seed) % 40; /* 0-byte chunks too */

			if (n > len - off)
				n = len - off;
			evidence_feed(&ev, EVIDENCE_STDERR, stream + off, n);
			off += n;
		}
		evidence_finish(&ev);
		expect_stream_result(&ev);
	}
}

Test(evidence, mask_filters_lines)
{
	struct evidence ev;

	evidence_init(&ev, DIALECT_EACCES, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, stream, strlen(stream));
	evidence_finish(&ev);
	cr_assert_eq(ev.count, 1u);
	cr_expect_str_eq(ev.ring[0].path, "/usr/lib/b");
}

Test(evidence, denial_then_200k_of_other_output)
{
	struct evidence ev;
	const char *deny = "touch: cannot touch '/etc/x': Read-only file system\n";
	char chunk[1000];

	memset(chunk, 'x', sizeof(chunk));
	for (size_t i = 99; i < sizeof(chunk); i += 100)
		chunk[i] = '\n';
	evidence_init(&ev, DIALECT_EROFS, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, deny, strlen(deny));
	for (int i = 0; i < 200; i++)
		evidence_feed(&ev, EVIDENCE_STDERR, chunk, sizeof(chunk));
	evidence_finish(&ev);
	cr_assert_eq(ev.count, 1u);
	cr_expect_str_eq(ev.ring[0].path, "/etc/x");
}

Test(evidence, ring_keeps_the_newest)
{
	struct evidence ev;
	char line[128];

	evidence_init(&ev, DIALECT_EROFS, NULL);
	for (int i = 0; i < EVIDENCE_LINES + 5; i++) {
		int n = snprintf(line, sizeof(line), "tee: /f%d: Read-only file system\n", i);
		evidence_feed(&ev, EVIDENCE_STDERR, line, (size_t)n);
	}
	cr_assert_eq(ev.count, (size_t)EVIDENCE_LINES);
	/* 21 lines went in: slots hold /f5 .. /f20; the next slot has the oldest */
	cr_expect_str_eq(ev.ring[ev.next].path, "/f5");
	cr_expect_str_eq(ev.ring[(ev.next + EVIDENCE_LINES - 1) % EVIDENCE_LINES].path, "/f20");
}

Test(evidence, nul_bytes_and_invalid_utf8)
{
	static const char junk[] = "\0\0\xff\xfe\xc3(\n"
				   "tee: /a\0b: Read-only file system\n"
				   "\xff touch: cannot touch '/x': Read-only file system\n"
				   "\0\0\0";
	struct evidence ev;

	evidence_init(&ev, ALL, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, junk, sizeof(junk) - 1);
	evidence_finish(&ev);
	/* the NUL line names no path anyone could open: not evidence */
	cr_assert_eq(ev.count, 1u);
	cr_expect_str_eq(ev.ring[0].path, "/x");
	cr_expect_eq(ev.lane[EVIDENCE_STDERR].partial_len, 0u);
}

Test(evidence, over_long_lines_are_cut_safely)
{
	struct evidence ev;
	size_t big = 10 * EVIDENCE_LINE_MAX;
	char *line = malloc(big);
	const char *tail = ": Read-only file system\n";
	const char *after = "tee: /ok: Read-only file system\n";

	cr_assert(line);
	/* "tee: /aaaa...: Read-only file system": the end, with the phrase, is
	 * lost, so the line is not evidence; the next line still is. */
	memcpy(line, "tee: /", 6);
	memset(line + 6, 'a', big - 6);
	evidence_init(&ev, DIALECT_EROFS, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, line, 100);
	evidence_feed(&ev, EVIDENCE_STDERR, line + 100, big - 100);
	cr_expect_eq(ev.lane[EVIDENCE_STDERR].partial_len, (size_t)EVIDENCE_LINE_MAX - 1);
	cr_expect(ev.lane[EVIDENCE_STDERR].partial_cut);
	cr_expect_eq(ev.lane[EVIDENCE_STDERR].partial[EVIDENCE_LINE_MAX - 1], '\0');
	evidence_feed(&ev, EVIDENCE_STDERR, tail, strlen(tail));
	cr_expect_eq(ev.count, 0u);
	cr_expect_not(ev.lane[EVIDENCE_STDERR].partial_cut);
	evidence_feed(&ev, EVIDENCE_STDERR, after, strlen(after));
	cr_assert_eq(ev.count, 1u);
	cr_expect_str_eq(ev.ring[0].path, "/ok");

	/* exactly EVIDENCE_LINE_MAX - 1 bytes fit and are judged */
	size_t fit = EVIDENCE_LINE_MAX - 1, plen = strlen(": Read-only file system");
	memcpy(line, "tee: /", 6);
	memset(line + 6, 'b', fit - 6 - plen);
	memcpy(line + fit - plen, ": Read-only file system", plen);
	line[fit] = '\n';
	evidence_init(&ev, DIALECT_EROFS, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, line, fit + 1);
	cr_assert_eq(ev.count, 1u);
	cr_expect_eq(strlen(ev.ring[0].path), fit - plen - 5);
	cr_expect_eq(strlen(ev.ring[0].line), fit);

	/* one byte more is cut */
	memcpy(line, "tee: /", 6);
	memset(line + 6, 'c', fit + 1 - plen - 6);
	memcpy(line + fit + 1 - plen, ": Read-only file system", plen);
	line[fit + 1] = '\n';
	evidence_init(&ev, DIALECT_EROFS, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, line, fit + 2);
	cr_expect_eq(ev.count, 0u);

	/* the kept start ends exactly in a denial's shape, the line goes on:
	 * "tee: /ddd: Read-only file system and then more" is not one */
	memcpy(line, "tee: /", 6);
	memset(line + 6, 'd', fit - plen - 6);
	memcpy(line + fit - plen, ": Read-only file system", plen);
	memcpy(line + fit, " and then more\n", 15);
	evidence_init(&ev, DIALECT_EROFS, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, line, fit + 15);
	cr_expect_eq(ev.count, 0u);
	free(line);
}

Test(evidence, finish_is_idempotent_and_empty_stream_is_empty)
{
	struct evidence ev;

	evidence_init(&ev, ALL, NULL);
	evidence_finish(&ev);
	evidence_finish(&ev);
	cr_expect_eq(ev.count, 0u);
	evidence_feed(&ev, EVIDENCE_STDERR, "tee: /x: Permission denied", 26);
	evidence_finish(&ev);
	evidence_finish(&ev);
	cr_expect_eq(ev.count, 1u);
}
