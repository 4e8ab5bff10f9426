/* SPDX-License-Identifier: MIT */
/* Real error lines, as the tools print them, through dialect_match_line. */
#include <criterion/criterion.h>
#include <string.h>

#include "classify.h"

#define ALL (DIALECT_EROFS | DIALECT_EACCES | DIALECT_EXDEV | DIALECT_SEATBELT)
#define RO DIALECT_EROFS
#define AC DIALECT_EACCES
#define XD DIALECT_EXDEV
#define SB DIALECT_SEATBELT

struct row {
	const char *line;
	unsigned want; /* 0: not evidence */
	const char *path;
};

static const struct row rows[] = {
	/* bash redirections */
	{ "bash: line 1: /etc/x: Read-only file system", RO, "/etc/x" },
	{ "bash: /etc/x: Permission denied", AC, "/etc/x" },
	{ "bash: line 3: /etc/my file: Read-only file system", RO, "/etc/my file" },
	{ "bash: line 1: out.txt: Permission denied", AC, "out.txt" },
	{ "/bin/sh: 1: cannot create /x/out: Read-only file system", RO, "/x/out" },
	/* coreutils */
	{ "touch: cannot touch '/etc/x': Read-only file system", RO, "/etc/x" },
	{ "touch: cannot touch '/etc/x': Permission denied", AC, "/etc/x" },
	{ "mkdir: cannot create directory '/x': Read-only file system", RO, "/x" },
	{ "mkdir: cannot create directory \xe2\x80\x98/x y\xe2\x80\x99: Permission denied", AC, "/x y" },
	{ "rm: cannot remove '/x': Permission denied", AC, "/x" },
	{ "cp: cannot create regular file '/x': Read-only file system", RO, "/x" },
	{ "mv: cannot move 'a' to '/x/a': Read-only file system", RO, "/x/a" },
	{ "mv: cannot move 'a' to 'b/a': Invalid cross-device link", XD, "b/a" },
	{ "mv: inter-device move failed: 'a' to 'b/a'; unable to remove 'a': Permission denied", AC, "a" },
	{ "ln: failed to create symbolic link '/x': Read-only file system", RO, "/x" },
	{ "ln: failed to create hard link 'b/a' => 'a': Invalid cross-device link", XD, "b/a" },
	{ "mkfifo: cannot create fifo '/x': Permission denied", AC, "/x" },
	{ "tee: /x: Read-only file system", RO, "/x" },
	{ "sed: couldn't open temporary file /x/sedAbc: Read-only file system", RO, "/x/sedAbc" },
	{ "truncate: cannot open '/x' for writing: Permission denied", AC, "/x" },
	{ "chmod: changing permissions of '/x': Read-only file system", RO, "/x" },
	{ "cp: cannot create regular file \"/x/it's\": Permission denied", AC, "/x/it's" },
	/* BSD / macOS Seatbelt */
	{ "touch: /x: Operation not permitted", SB, "/x" },
	/* git */
	{ "error: could not lock config file /x/.git/config: Read-only file system", RO, "/x/.git/config" },
	{ "fatal: Unable to create '/x/.git/index.lock': Read-only file system.", RO, "/x/.git/index.lock" },
	{ "fatal: cannot mkdir /x: Permission denied", AC, "/x" },
	/* gcc, ld, as */
	{ "/usr/bin/ld: cannot open output file /x/a.out: Read-only file system", RO, "/x/a.out" },
	{ "cc1: fatal error: opening output file /x.s: Permission denied", AC, "/x.s" },
	{ "Fatal error: can't create x.o: Read-only file system", RO, "x.o" },
	/* make */
	{ "make: /x: Read-only file system", RO, "/x" },
	{ "make: *** [Makefile:2: all] Error 1", 0, "" },
	{ "collect2: error: ld returned 1 exit status", 0, "" },
	{ "Assembler messages:", 0, "" },
	/* tar */
	{ "tar: x: Cannot open: Read-only file system", RO, "x" },
	{ "tar: dir/sub: Cannot mkdir: Permission denied", AC, "dir/sub" },
	{ "tar: l: Cannot create symlink to 'target': Permission denied", AC, "l" },
	/* Python, pip */
	{ "PermissionError: [Errno 13] Permission denied: '/x'", AC, "/x" },
	{ "OSError: [Errno 30] Read-only file system: '/usr/lib/x'", RO, "/usr/lib/x" },
	{ "ERROR: Could not install packages due to an OSError: [Errno 30] Read-only file system: '/usr/lib/x'", RO, "/usr/lib/x" },
	{ "OSError: [Errno 18] Invalid cross-device link: 'a' -> 'b'", XD, "b" },
	{ "OSError: [Errno 30] Read-only file system", RO, "" },
	{ "PermissionError: [Errno 13] Permission denied: \"/x/it's\"", AC, "/x/it's" },
	/* node, npm */
	{ "npm ERR! EROFS: read-only file system, open '/x'", RO, "/x" },
	{ "npm ERR! EACCES: permission denied, mkdir '/x'", AC, "/x" },
	{ "npm error EACCES: permission denied, mkdir '/usr/lib/node_modules'", AC, "/usr/lib/node_modules" },
	{ "Error: EXDEV: cross-device link not permitted, rename '/a' -> '/b'", XD, "/b" },
	{ "[Error: EROFS: read-only file system, open '/x'] {", RO, "/x" },
	{ "npm ERR! path /x", 0, "" },
	{ "npm ERR! EBUSY: read-only file system, open '/x'", 0, "" },
	{ "retrying after [Errno 13] Permission denied: '/x'", 0, "" },
	{ "npm ERR! code EROFS", 0, "" },
	/* Rust, Go */
	{ "Error: failed to create /x: Read-only file system (os error 30)", RO, "/x" },
	{ "    Read-only file system (os error 30)", RO, "" },
	{ "open /x/f: read-only file system", RO, "/x/f" },
	{ "mkdir /x: permission denied", AC, "/x" },
	/* trailing CR-free blanks are layout */
	{ "tee: /x: Read-only file system   ", RO, "/x" },
	/* not evidence: the phrase outside an error line's shape */
	{ "git@github.com: Permission denied (publickey).", 0, "" },
	{ "user@host: Permission denied (publickey,password).", 0, "" },
	{ "INFO: mounting it as a Read-only file system for safety", 0, "" },
	{ "warning: Read-only file system detected, falling back", 0, "" },
	{ "the error was Permission denied", 0, "" },
	{ "Permission denied, please try again.", 0, "" },
	{ "logged [Errno 13] Permission denied: '/x' yesterday", 0, "" },
	{ "EROFS: read-only file system, open '/x' was logged", 0, "" },
	{ "bash: ./x.sh: No such file or directory", 0, "" },
	{ "", 0, "" },
	/* shell-escaped quoting we do not parse: dialect kept, no path */
	{ "touch: cannot touch 'it'\\''s': Read-only file system", RO, "" },
	/* a lone program name is not a path */
	{ "cat: Permission denied", AC, "" },
};

Test(dialect, table)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[EVIDENCE_LINE_MAX];
		unsigned got;

		memset(path, 'Z', sizeof(path));
		got = dialect_match_line(rows[i].line, strlen(rows[i].line), ALL, path, sizeof(path));
		cr_expect_eq(got, rows[i].want, "line %zu \"%s\": dialect %u, want %u", i, rows[i].line,
			     got, rows[i].want);
		cr_expect_str_eq(path, rows[i].path, "line %zu \"%s\": path \"%s\", want \"%s\"", i,
				 rows[i].line, path, rows[i].path);
	}
}

Test(dialect, mask_limits_what_is_seen)
{
	const char *ro = "touch: cannot touch '/x': Read-only file system";
	const char *py = "PermissionError: [Errno 13] Permission denied: '/x'";
	const char *npm = "npm ERR! EROFS: read-only file system, open '/x'";
	char path[64];

	cr_expect_eq(dialect_match_line(ro, strlen(ro), DIALECT_EACCES, path, sizeof(path)), 0u);
	cr_expect_str_eq(path, "");
	cr_expect_eq(dialect_match_line(ro, strlen(ro), DIALECT_EROFS, path, sizeof(path)), DIALECT_EROFS);
	cr_expect_eq(dialect_match_line(py, strlen(py), DIALECT_EROFS, path, sizeof(path)), 0u);
	cr_expect_eq(dialect_match_line(npm, strlen(npm), DIALECT_EACCES | DIALECT_EXDEV, path,
					sizeof(path)),
		     0u);
	cr_expect_eq(dialect_match_line(ro, strlen(ro), 0, path, sizeof(path)), 0u);
}

Test(dialect, length_not_nul_bounds_the_line)
{
	/* only the first len bytes are the line: the phrase after them is not */
	const char *s = "tee: /x: Read-only file system";
	char path[64];

	cr_expect_eq(dialect_match_line(s, 10, ALL, path, sizeof(path)), 0u);
	cr_expect_eq(dialect_match_line(s, strlen(s), ALL, path, sizeof(path)), DIALECT_EROFS);
}

Test(dialect, nul_inside_path_names_no_path)
{
	static const char s[] = "touch: cannot touch '/x\0y': Read-only file system";
	char path[64];

	cr_expect_eq(dialect_match_line(s, sizeof(s) - 1, ALL, path, sizeof(path)), DIALECT_EROFS);
	cr_expect_str_eq(path, "");
}

Test(dialect, small_path_buffer_is_not_overrun)
{
	const char *s = "touch: cannot touch '/a/very/long/path': Read-only file system";
	char buf[16];

	memset(buf, 'Q', sizeof(buf));
	cr_expect_eq(dialect_match_line(s, strlen(s), ALL, buf, 8), DIALECT_EROFS);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(buf[8], 'Q');
}

Test(dialect, invalid_utf8_around_the_line)
{
	static const char s[] = "\xff\xfe\xe2\x80 touch: cannot touch '/x\xc3': Read-only file system";
	static const char cut_curly[] = "mkdir: cannot create directory \xe2\x80: Permission denied";
	char path[64];

	cr_expect_eq(dialect_match_line(s, sizeof(s) - 1, ALL, path, sizeof(path)), DIALECT_EROFS);
	cr_expect_str_eq(path, "/x\xc3");
	cr_expect_eq(dialect_match_line(cut_curly, sizeof(cut_curly) - 1, ALL, path, sizeof(path)),
		     DIALECT_EACCES);
}

Test(dialect, extract_path_directly)
{
	char path[64];
	const char *p = "mv: cannot move 'a' to 'b' to 'c'";

	cr_expect(dialect_extract_path(p, strlen(p), path, sizeof(path)));
	cr_expect_str_eq(path, "c");
	p = "cat";
	strcpy(path, "keep");
	cr_expect_not(dialect_extract_path(p, strlen(p), path, sizeof(path)));
	cr_expect_str_eq(path, "keep");
	p = "bash: line 1";
	cr_expect_not(dialect_extract_path(p, strlen(p), path, sizeof(path)));
}
