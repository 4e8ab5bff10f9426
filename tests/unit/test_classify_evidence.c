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

/* ---- issue 31: the file on one line, the message on another ---- */

static void feed_all(struct evidence *ev, const char *text, size_t chunk)
{
	size_t len = strlen(text);

	for (size_t off = 0; off < len; off += chunk)
		evidence_feed(ev, EVIDENCE_STDERR, text + off, len - off < chunk ? len - off : chunk);
	evidence_finish(ev);
}

struct two_lines {
	const char *text;
	unsigned dialect; /* 0: no evidence */
	const char *path;
};

Test(evidence, file_and_message_on_two_lines)
{
	static const struct two_lines cases[] = {
		/* unzip: the file, then the message alone */
		{ "checkdir:  cannot create extraction directory: /p/unz\n"
		  "           Permission denied\n", DIALECT_EACCES, "/p/unz" },
		{ "   creating: x/\ncheckdir error:  cannot create sub\n"
		  "                 Read-only file system\n"
		  "                 unable to process sub/b.txt.\n", DIALECT_EROFS, "sub" },
		/* CMake: the message first, the file alone after a blank line */
		{ "CMake Error at CMakeLists.txt:3 (file):\n"
		  "  file failed to open for writing (Read-only file system):\n\n"
		  "    /p/my dir/out.txt\n\n\n", DIALECT_EROFS, "/p/my dir/out.txt" },
		/* zip: the message, then the file in parentheses */
		{ "zip I/O error: Permission denied\n"
		  "zip error: Could not create output file (/p/x.zip)\n", DIALECT_EACCES, "/p/x.zip" },
		/* not evidence: an English line before a bare message names a
		 * file only when it says it failed */
		{ "Compiling foo\nPermission denied\n", 0, "" },
		{ "building /p/lib\n\nPermission denied\n", 0, "" },
		/* the file too far below the message */
		{ "zip I/O error: Permission denied\na\nb\nc\n/p/x.zip\n", 0, "" },
		/* a line of prose after the message is no file */
		{ "  file failed to open for writing (Read-only file system):\n"
		  "    see /p/log for more\n", 0, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t chunk = 1; chunk <= 4096; chunk = chunk * 7 + 1) {
			struct evidence ev;

			evidence_init(&ev, ALL, NULL);
			feed_all(&ev, cases[i].text, chunk);
			if (!cases[i].dialect) {
				cr_expect_eq(ev.count, 0u, "case %zu (chunks of %zu): %zu lines kept",
					     i, chunk, ev.count);
				continue;
			}
			cr_assert_eq(ev.count, 1u, "case %zu (chunks of %zu)", i, chunk);
			cr_expect_eq(ev.ring[0].dialect, cases[i].dialect, "case %zu", i);
			cr_expect_str_eq(ev.ring[0].path, cases[i].path, "case %zu (chunks of %zu)", i,
					 chunk);
		}
}

/* A translation with a line break in it: the paths on the first line, the
 * message ending the second (coreutils' mv in Spanish). */
Test(evidence, a_translation_broken_over_two_lines)
{
	static const struct dialect_texts es = { .text = {
		"Sistema de ficheros de s\xc3\xb3lo lectura", "Permiso denegado" } };
	static const char text[] =
		"mv: fall\xc3\xb3 el movimiento entre distintos dispositivos: de 'notes.md' a '/p/notes.md';\n"
		"no se puede borrar el objetivo: Sistema de ficheros de s\xc3\xb3lo lectura\n";
	struct evidence ev;

	evidence_init(&ev, ALL, &es);
	feed_all(&ev, text, 5);
	cr_assert_eq(ev.count, 1u);
	cr_expect_str_eq(ev.ring[0].path, "/p/notes.md");
	/* the other stream's line is not this one's */
	evidence_init(&ev, ALL, &es);
	evidence_feed(&ev, EVIDENCE_STDOUT, text, strchr(text, '\n') + 1 - text);
	evidence_feed(&ev, EVIDENCE_STDERR, strchr(text, '\n') + 1, strlen(strchr(text, '\n') + 1));
	evidence_finish(&ev);
	cr_expect_eq(ev.count, 0u);
}
