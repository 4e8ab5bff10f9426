/* SPDX-License-Identifier: MIT */
/* The evidence ring on real output formats: both streams, terminal colour,
 * JSON logs, test-runner reports, npm's error block, error chains. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

#define ALL (DIALECT_EROFS | DIALECT_EACCES | DIALECT_EXDEV | DIALECT_SEATBELT)

/* Feed text to one stream in chunks of `step` bytes (0: whole). */
static void feed(struct evidence *ev, enum evidence_stream s, const char *text, size_t step)
{
	size_t len = strlen(text);

	if (step == 0)
		step = len ? len : 1;
	for (size_t off = 0; off < len; off += step)
		evidence_feed(ev, s, text + off, len - off < step ? len - off : step);
}

/* The paths kept, oldest first, joined by '|'. */
static const char *kept(const struct evidence *ev)
{
	static char out[4096];
	size_t o = 0, first = ev->count < EVIDENCE_LINES ? 0 : ev->next;

	out[0] = '\0';
	for (size_t i = 0; i < ev->count; i++) {
		const struct evidence_line *l = &ev->ring[(first + i) % EVIDENCE_LINES];

		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", i ? "|" : "", l->path);
	}
	return out;
}

static const char *judge_all(unsigned mask, enum evidence_stream s, const char *text)
{
	static char first[4096];
	struct evidence ev;

	/* whole, then byte by byte, then in 7-byte chunks: the same result */
	evidence_init(&ev, mask, NULL);
	feed(&ev, s, text, 0);
	evidence_finish(&ev);
	snprintf(first, sizeof(first), "%s", kept(&ev));
	for (size_t step = 1; step <= 7; step += 6) {
		evidence_init(&ev, mask, NULL);
		feed(&ev, s, text, step);
		evidence_finish(&ev);
		cr_expect_str_eq(kept(&ev), first, "chunks of %zu differ for:\n%s", step, text);
	}
	return first;
}

Test(formats, stdout_is_evidence_too)
{
	struct evidence ev;

	evidence_init(&ev, ALL, NULL);
	feed(&ev, EVIDENCE_STDOUT, "=== FAILURES ===\nE       OSError: [Errno 30] Read-only file ", 0);
	/* stderr interleaves mid-line on stdout: each stream has its own line */
	feed(&ev, EVIDENCE_STDERR, "tee: /q: Permission denied\n", 0);
	feed(&ev, EVIDENCE_STDOUT, "system: '/p/a'\n1 failed\n", 0);
	evidence_finish(&ev);
	cr_assert_eq(ev.count, 2u);
	cr_expect_str_eq(ev.ring[0].path, "/q");
	cr_expect_eq(ev.ring[0].stream, EVIDENCE_STDERR);
	cr_expect_str_eq(ev.ring[1].path, "/p/a");
	cr_expect_eq(ev.ring[1].stream, EVIDENCE_STDOUT);
}

Test(formats, terminal_colour_is_removed_from_the_copy)
{
	/* pytest --color=yes, cargo, gcc -fdiagnostics-color */
	const char *text =
		"\x1b[1m\x1b[31mE       OSError: [Errno 30] Read-only file system: '/p/a'\x1b[0m\n"
		"\x1b[01m\x1b[Kcc1:\x1b[m\x1b[K \x1b[01;31m\x1b[Kfatal error: \x1b[m\x1b[Kopening output file /p/x.s: Read-only file system\n"
		"\x1b]8;;file:///p\x1b\\link\x1b]8;;\x1b\\ tee: /p/t: Read-only \x1b[1mfile\x1b[0m system\n";

	cr_expect_str_eq(judge_all(DIALECT_EROFS, EVIDENCE_STDOUT, text), "/p/a|/p/x.s|/p/t");
}

Test(formats, json_logs_and_quoted_messages)
{
	const char *text =
		/* Python's json.dumps: quotes escaped, non-ASCII as \u escapes */
		"{\"level\": \"error\", \"err\": \"[Errno 30] Read-only file system: '/p/a'\"}\n"
		"{\"err\": \"[Errno 13] Permission denied: \\\"/p/it's\\\"\"}\n"
		"{\"err\": \"[Errno 30] \\u53ea\\u8bfb\\u6587\\u4ef6\\u7cfb\\u7edf: '/p/zh'\"}\n"
		/* a traceback inside one string */
		"{\"exc_info\": \"Traceback (most recent call last):\\n  File \\\"x.py\\\", line 1\\nOSError: [Errno 30] Read-only file system: '/p/tb'\"}\n"
		/* node's test runner (TAP on stdout) */
		"  error: \"EROFS: read-only file system, open '/p/tap'\"\n"
		/* not evidence: the message without its error shape */
		"{\"msg\": \"Read-only file system\"}\n";

	cr_expect_str_eq(judge_all(ALL, EVIDENCE_STDOUT, text), "/p/a|/p/it's|/p/zh|/p/tb|/p/tap");
}

Test(formats, npm_error_block)
{
	/* npm 6..9: the errno by name and number, the file on its own line */
	const char *old_npm = "npm ERR! code EROFS\n"
			      "npm ERR! syscall open\n"
			      "npm ERR! path /p/pkg/package.json\n"
			      "npm ERR! errno -30\n"
			      "npm ERR! A complete log of this run can be found in: /tmp/x.log\n"
			      "done\n";
	/* npm 10: a link names its target as "path", the link as "dest" */
	const char *new_npm = "npm error code EROFS\n"
			      "npm error syscall symlink\n"
			      "npm error path ../../ws/npkg\n"
			      "npm error dest /p/node_modules/npkg\n"
			      "npm error errno -30\n";
	/* the code line missing: the errno number names it */
	const char *by_number = "npm ERR! code UNKNOWN\nnpm ERR! errno -13\nnpm ERR! path /p/x\n";
	/* not evidence: another errno, or no path */
	const char *other = "npm error code ENOENT\nnpm error errno -2\nnpm error path /p/y\n"
			    "npm error code EROFS\nnpm error errno -30\n";

	cr_expect_str_eq(judge_all(DIALECT_EROFS, EVIDENCE_STDERR, old_npm), "/p/pkg/package.json");
	cr_expect_str_eq(judge_all(DIALECT_EROFS, EVIDENCE_STDERR, new_npm), "/p/node_modules/npkg");
	cr_expect_str_eq(judge_all(DIALECT_EACCES, EVIDENCE_STDERR, by_number), "/p/x");
	cr_expect_str_eq(judge_all(ALL, EVIDENCE_STDERR, other), "");
	cr_expect_str_eq(judge_all(DIALECT_EACCES, EVIDENCE_STDERR, old_npm), "",
			 "EROFS is not the landlock runner's");
}

Test(formats, error_chain_takes_the_path_above)
{
	const char *anyhow = "Error: failed to write /p/a\n\nCaused by:\n    Read-only file system (os error 30)\n";
	const char *cargo = "\x1b[1m\x1b[91merror\x1b[0m\x1b[1m:\x1b[0m failed to create directory `/p/target`\n"
			    "\nCaused by:\n  Permission denied (os error 13)\n";
	const char *too_far = "Error: failed to write /p/b\n1\n2\n3\n4\n5\n    Read-only file system (os error 30)\n";
	const char *alone = "    Read-only file system (os error 30)\nKeine Berechtigung\n";

	cr_expect_str_eq(judge_all(ALL, EVIDENCE_STDERR, anyhow), "/p/a");
	cr_expect_str_eq(judge_all(ALL, EVIDENCE_STDERR, cargo), "/p/target");
	cr_expect_str_eq(judge_all(ALL, EVIDENCE_STDERR, too_far), "");
	cr_expect_str_eq(judge_all(ALL, EVIDENCE_STDERR, alone), "");
}

Test(formats, localized_texts_reach_the_matchers)
{
	static const struct dialect_texts de = { .text = { "Das Dateisystem ist nur lesbar",
							    "Keine Berechtigung", "", "" } };
	const char *text = "touch: '/p/a' kann nicht ber\xc3\xbchrt werden: Das Dateisystem ist nur lesbar\n"
			   "\x1b[31mbash: Zeile 1: /p/b: Das Dateisystem ist nur lesbar\x1b[0m\n"
			   "{\"err\": \"open /p/c: Das Dateisystem ist nur lesbar\"}\n";
	struct evidence ev;

	evidence_init(&ev, DIALECT_EROFS, &de);
	feed(&ev, EVIDENCE_STDERR, text, 3);
	evidence_finish(&ev);
	cr_expect_str_eq(kept(&ev), "/p/a|/p/b|/p/c");
	evidence_init(&ev, DIALECT_EROFS, NULL);
	feed(&ev, EVIDENCE_STDERR, text, 0);
	evidence_finish(&ev);
	cr_expect_str_eq(kept(&ev), "", "English only: the German lines are not understood");
}

Test(formats, strip_escapes)
{
	char out[64];

	cr_expect_eq(text_strip_escapes("\x1b[1;31mred\x1b[0m", 14, out, sizeof(out)), 3u);
	cr_expect_str_eq(out, "red");
	text_strip_escapes("a\x1b]0;title\x07" "b\x1b(Bc\x1b", 16, out, sizeof(out));
	cr_expect_str_eq(out, "abc");
	text_strip_escapes("x\x1b[", 3, out, sizeof(out));
	cr_expect_str_eq(out, "x");
	cr_expect_eq(text_strip_escapes("abcdef", 6, out, 4), 3u);
	cr_expect_str_eq(out, "abc");
}

Test(formats, json_unescape)
{
	char out[64];
	const char *s;

	s = "a\\\"b\\\\c\\/d\\n\\t";
	text_json_unescape(s, strlen(s), out, sizeof(out));
	cr_expect_str_eq(out, "a\"b\\c/d\n\t");
	s = "\\u53ea\\ud83d\\ude00";
	text_json_unescape(s, strlen(s), out, sizeof(out));
	cr_expect_str_eq(out, "\xe5\x8f\xaa\xf0\x9f\x98\x80");
	/* broken escapes stay text; \u0000 and lone surrogates too */
	s = "\\u12\\x\\u0000\\udc00";
	text_json_unescape(s, strlen(s), out, sizeof(out));
	cr_expect_str_eq(out, "\\u12\\x\\u0000\\udc00");
}

Test(formats, node_recursive_mkdir_enoent)
{
	const char *text = "node:fs:1386\n"
			   "Error: ENOENT: no such file or directory, mkdir '/p/node_modules'\n"
			   "    at Object.mkdirSync (node:fs:1386:26)\n"
			   "Error: ENOENT: no such file or directory, open '/p/x'\n";

	cr_expect_str_eq(judge_all(DIALECT_EROFS, EVIDENCE_STDERR, text), "/p/node_modules");
	cr_expect_str_eq(judge_all(DIALECT_EACCES | DIALECT_EXDEV, EVIDENCE_STDERR, text), "");
}
