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
#define BARE DIALECT_MATCH_BARE

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
	{ "OSError: [Errno 30] Read-only file system", RO | BARE, "" },
	{ "PermissionError: [Errno 13] Permission denied: \"/x/it's\"", AC, "/x/it's" },
	/* node, npm */
	{ "npm ERR! EROFS: read-only file system, open '/x'", RO, "/x" },
	{ "npm ERR! EACCES: permission denied, mkdir '/x'", AC, "/x" },
	{ "npm error EACCES: permission denied, mkdir '/usr/lib/node_modules'", AC, "/usr/lib/node_modules" },
	{ "Error: EXDEV: cross-device link not permitted, rename '/a' -> '/b'", XD, "/b" },
	{ "[Error: EROFS: read-only file system, open '/x'] {", RO, "/x" },
	{ "npm ERR! path /x", 0, "" },
	{ "npm ERR! EBUSY: read-only file system, open '/x'", 0, "" },
	/* str(e) of an OSError inside any message (issue 31) */
	{ "retrying after [Errno 13] Permission denied: '/x'", AC, "/x" },
	{ "cannot save state ([Errno 30] Read-only file system: '/x'), giving up", RO, "/x" },
	{ "npm ERR! code EROFS", 0, "" },
	/* Rust, Go */
	{ "Error: failed to create /x: Read-only file system (os error 30)", RO, "/x" },
	{ "    Read-only file system (os error 30)", RO | BARE, "" },
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
	/* shell-escaped quoting we do not parse: no path, so no evidence */
	{ "touch: cannot touch 'it'\\''s': Read-only file system", 0, "" },
	/* a lone program name is not a path: nothing to check, no evidence */
	{ "cat: Permission denied", 0, "" },
	/* a bare message is a chain's cause: evidence only with the line above */
	{ "Permission denied", AC | BARE, "" },
	{ "    1: Read-only file system (os error 30)", RO | BARE, "" },
};

Test(dialect, table)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[EVIDENCE_LINE_MAX];
		unsigned got;

		memset(path, 'Z', sizeof(path));
		got = dialect_match_line(rows[i].line, strlen(rows[i].line), ALL, NULL, path, sizeof(path));
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

	cr_expect_eq(dialect_match_line(ro, strlen(ro), DIALECT_EACCES, NULL, path, sizeof(path)), 0u);
	cr_expect_str_eq(path, "");
	cr_expect_eq(dialect_match_line(ro, strlen(ro), DIALECT_EROFS, NULL, path, sizeof(path)), DIALECT_EROFS);
	cr_expect_eq(dialect_match_line(py, strlen(py), DIALECT_EROFS, NULL, path, sizeof(path)), 0u);
	cr_expect_eq(dialect_match_line(npm, strlen(npm), DIALECT_EACCES | DIALECT_EXDEV, NULL, path,
					sizeof(path)),
		     0u);
	cr_expect_eq(dialect_match_line(ro, strlen(ro), 0, NULL, path, sizeof(path)), 0u);
}

Test(dialect, length_not_nul_bounds_the_line)
{
	/* only the first len bytes are the line: the phrase after them is not */
	const char *s = "tee: /x: Read-only file system";
	char path[64];

	cr_expect_eq(dialect_match_line(s, 10, ALL, NULL, path, sizeof(path)), 0u);
	cr_expect_eq(dialect_match_line(s, strlen(s), ALL, NULL, path, sizeof(path)), DIALECT_EROFS);
}

Test(dialect, nul_inside_path_names_no_path)
{
	static const char s[] = "touch: cannot touch '/x\0y': Read-only file system";
	char path[64];

	cr_expect_eq(dialect_match_line(s, sizeof(s) - 1, ALL, NULL, path, sizeof(path)), 0u);
	cr_expect_str_eq(path, "");
}

Test(dialect, small_path_buffer_is_not_overrun)
{
	const char *s = "touch: cannot touch '/a/very/long/path': Read-only file system";
	char buf[16];

	memset(buf, 'Q', sizeof(buf));
	cr_expect_eq(dialect_match_line(s, strlen(s), ALL, NULL, buf, 8), 0u);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(buf[8], 'Q');
}

Test(dialect, invalid_utf8_around_the_line)
{
	static const char s[] = "\xff\xfe\xe2\x80 touch: cannot touch '/x\xc3': Read-only file system";
	static const char cut_curly[] = "mkdir: cannot create directory \xe2\x80: Permission denied";
	char path[64];

	cr_expect_eq(dialect_match_line(s, sizeof(s) - 1, ALL, NULL, path, sizeof(path)), DIALECT_EROFS);
	cr_expect_str_eq(path, "/x\xc3");
	cr_expect_eq(dialect_match_line(cut_curly, sizeof(cut_curly) - 1, ALL, NULL, path, sizeof(path)),
		     DIALECT_EACCES);
}

Test(dialect, extract_path_directly)
{
	char path[64];
	const char *p = "mv: cannot move 'a' to 'b' to 'c'";

	cr_expect(dialect_extract_path(p, strlen(p), false, path, sizeof(path)));
	cr_expect_str_eq(path, "c");
	p = "cat";
	strcpy(path, "keep");
	cr_expect_not(dialect_extract_path(p, strlen(p), false, path, sizeof(path)));
	cr_expect_str_eq(path, "keep");
	p = "bash: line 1";
	cr_expect_not(dialect_extract_path(p, strlen(p), false, path, sizeof(path)));
}

/* ---- other runtimes' shapes (English texts) ---- */

static void expect_rows(const struct row *r, size_t n, const struct dialect_texts *local,
			const char *what)
{
	for (size_t i = 0; i < n; i++) {
		char path[EVIDENCE_LINE_MAX];
		unsigned got;

		memset(path, 'Z', sizeof(path));
		got = dialect_match_line(r[i].line, strlen(r[i].line), ALL, local, path, sizeof(path));
		cr_expect_eq(got, r[i].want, "%s %zu \"%s\": dialect %#x, want %#x", what, i, r[i].line,
			     got, r[i].want);
		cr_expect_str_eq(path, r[i].path, "%s %zu \"%s\": path \"%s\", want \"%s\"", what, i,
				 r[i].line, path, r[i].path);
	}
}

Test(dialect, runtimes)
{
	static const struct row table[] = {
		/* Java: java.io names the path, then strerror in parentheses */
		{ "Exception in thread \"main\" java.io.FileNotFoundException: /p/a (Read-only file system)", RO, "/p/a" },
		{ "java.io.FileNotFoundException: out.txt (Permission denied)", AC, "out.txt" },
		{ "java.io.FileNotFoundException: /p/my dir/a (Permission denied)", AC, "/p/my dir/a" },
		{ "warning: could not do it (Permission denied)", 0, "" },
		/* the quoted "main" is the program's field, not a path */
		{ "Exception in thread \"main\" java.nio.file.FileSystemException: /p/a: Read-only file system", RO, "/p/a" },
		{ "Exception in thread \"main\" java.nio.file.AccessDeniedException: /p/a", AC, "/p/a" },
		{ "Caused by: java.nio.file.AccessDeniedException: /a -> /p/b", AC, "/p/b" },
		{ "java.nio.file.NoSuchFileException: /p/a", 0, "" },
		{ "my.AccessDeniedException: /p/a", 0, "" },
		/* Ruby: the errno by name */
		{ "Read-only file system @ rb_sysopen - /p/a (Errno::EROFS)", RO, "/p/a" },
		{ "/app/x.rb:1:in `initialize': Permission denied @ rb_sysopen - /p/a (Errno::EACCES)", AC, "/p/a" },
		{ "No such file or directory @ rb_sysopen - /p/a (Errno::ENOENT)", 0, "" },
		/* Rust: "(os error N)" names the errno whatever the text */
		{ "Error: failed to create /p/x: Schreibgeschuetzt (os error 30)", RO, "/p/x" },
		{ "Error: failed to create /p/x: whatever (os error 2)", 0, "" },
		{ "  Read-only file system (os error 30)", RO | BARE, "" },
		{ "Error: Os { code: 30, kind: ReadOnlyFilesystem, message: \"Read-only file system\" }", 0, "" },
		/* Python: "[Errno N]" names the errno whatever the text */
		{ "OSError: [Errno 30] Schreibgeschuetzt: '/p/a'", RO, "/p/a" },
		{ "E       OSError: [Errno 30] Read-only file system: '/p/a'", RO, "/p/a" },
		{ "FileNotFoundError: [Errno 2] No such file or directory: '/p/a'", 0, "" },
		{ "PermissionError: [Errno 13] Keine Berechtigung: \"/p/it's\"", AC, "/p/it's" },
		/* Go */
		{ "rename /a /p/b: invalid cross-device link", XD, "/p/b" },
		{ "    w_test.go:9: open /p/a: read-only file system", RO, "/p/a" },
		/* node's test runner quotes the message: only its unescaped string
		 * (evidence.c) is evidence, not the line */
		{ "  error: \"EROFS: read-only file system, open '/p/a'\"", 0, "" },
		{ "Error: EROFS: read-only file system, write", RO | BARE, "" },
		/* node's recursive mkdir reports EROFS as ENOENT (mkdir only) */
		{ "npm error enoent ENOENT: no such file or directory, mkdir '/p/node_modules'", RO, "/p/node_modules" },
		{ "Error: ENOENT: no such file or directory, open '/p/a'", 0, "" },
		/* ssh, whatever the punctuation */
		{ "git@github.com: Permission denied (publickey)", 0, "" },
		/* quotes of other tools: cargo's backticks */
		{ "error: could not write `/p/target`: Read-only file system", RO, "/p/target" },
	};

	expect_rows(table, sizeof(table) / sizeof(table[0]), NULL, "runtime");
}

/* ---- issue 31: quotes of every locale, a program's own words around the
 * message, str(e) after any prefix ---- */

Test(dialect, quotes_and_words_around_the_message)
{
	static const struct row table[] = {
		/* quotes: Polish „…”, French « … » with no-break spaces, GNU's
		 * old `…' (Spanish, Japanese, Korean catalogs), ‹…›, ”…” */
		{ "mkdir: nie mo\xc5\xbcna utworzy\xc4\x87 katalogu \xe2\x80\x9e/p/d\xe2\x80\x9d: Read-only file system", RO, "/p/d" },
		{ "mkdir: impossible de cr\xc3\xa9" "er le r\xc3\xa9pertoire \xc2\xab\xc2\xa0/p/my d\xc2\xa0\xc2\xbb: Permission denied", AC, "/p/my d" },
		{ "mktemp: impossible de cr\xc3\xa9" "er le fichier \xc2\xab ./tmp.XXXX \xc2\xbb: Read-only file system", RO, "./tmp.XXXX" },
		{ "touch: no se puede efectuar `touch' sobre '/p/x': Read-only file system", RO, "/p/x" },
		{ "mkdir: \xe3\x83\x87\xe3\x82\xa3\xe3\x83\xac\xe3\x82\xaf\xe3\x83\x88\xe3\x83\xaa `sub' \xe3\x82\x92\xe4\xbd\x9c\xe6\x88\x90\xe3\x81\xa7\xe3\x81\x8d\xe3\x81\xbe\xe3\x81\x9b\xe3\x82\x93: Permission denied", AC, "sub" },
		{ "mv: 'notes.md'\xec\x9d\x84(\xeb\xa5\xbc) '/p/n'(\xec\x9c\xbc)\xeb\xa1\x9c \xec\x9d\xb4\xeb\x8f\x99: Permission denied", AC, "/p/n" },
		{ "x: cannot create \xe2\x80\xb9/p/a\xe2\x80\xba: Read-only file system", RO, "/p/a" },
		{ "x: cannot create \xe2\x80\x9d/p/a\xe2\x80\x9d: Read-only file system", RO, "/p/a" },
		{ "x: cannot create \xc2\xbb/p/a\xc2\xbb: Read-only file system", RO, "/p/a" },
		/* French spacing before the colon, patch's after its file name */
		{ "tar: /p/x.tar : Read-only file system", RO, "/p/x.tar" },
		{ "patch: **** Can't create temporary file ./f.txt.oAbC : Permission denied", AC, "./f.txt.oAbC" },
		/* rsync's errno after the text: it must be the text's */
		{ "rsync: [receiver] mkstemp \"/p/.x.AbC\" failed: Permission denied (13)", AC, "/p/.x.AbC" },
		{ "rsync: [generator] recv_generator: mkdir \"/p/d\" failed: Read-only file system (30)", RO, "/p/d" },
		{ "x: /p/a: Read-only file system (13)", 0, "" },
		/* Perl's "at FILE line N." after the message */
		{ "Cannot open /p/pl.txt: Permission denied at -e line 1.", AC, "/p/pl.txt" },
		{ "mkdir /p/d: Read-only file system at /w/x.pl line 3, <STDIN> line 2.", RO, "/p/d" },
		{ "Kann /p/pl.txt nicht \xc3\xb6" "ffnen: Permission denied at -e line 1.", AC, "/p/pl.txt" },
		{ "ouch: Permission denied at the gate.", 0, "" },
		/* Python's str(e) inside other words */
		{ "2024-05-01 10:00:00,1 ERROR app: save failed [Errno 30] Read-only file system: '/p/a'", RO, "/p/a" },
		{ "FAILED test_w.py::test_w - PermissionError: [Errno 13] Permission denied: '/p/a'", AC, "/p/a" },
		{ "shutil.Error: [('a', '/p/b', \"[Errno 30] Read-only file system: '/p/b'\")]", RO, "/p/b" },
		{ "FAILED test_w.py::test_w - OSError: [Errno 30] Read-only file system: '/p/tmp/...", 0, "" },
		/* the reason first, the file on the lines after it: not here */
		{ "  file failed to open for writing (Read-only file system):", 0, "" },
	};

	expect_rows(table, sizeof(table) / sizeof(table[0]), NULL, "issue 31");
}

/* ---- the command's own language ---- */

/* What glibc 2.36's catalogs hold (the engine derives these at run time;
 * here they are the test's input). */
static const struct dialect_texts de = { .text = {
	"Das Dateisystem ist nur lesbar", "Keine Berechtigung",
	"Ung\xc3\xbcltiger Link \xc3\xbc" "ber Ger\xc3\xa4tegrenzen hinweg",
	"Die Operation ist nicht erlaubt" } };
static const struct dialect_texts zh = { .text = {
	"\xe5\x8f\xaa\xe8\xaf\xbb\xe6\x96\x87\xe4\xbb\xb6\xe7\xb3\xbb\xe7\xbb\x9f", /* 只读文件系统 */
	"\xe6\x9d\x83\xe9\x99\x90\xe4\xb8\x8d\xe5\xa4\x9f",                         /* 权限不够 */
	"\xe6\x97\xa0\xe6\x95\x88\xe7\x9a\x84\xe8\xb7\xa8\xe8\xae\xbe\xe5\xa4\x87\xe9\x93\xbe\xe6\x8e\xa5",
	"\xe4\xb8\x8d\xe5\x85\x81\xe8\xae\xb8\xe7\x9a\x84\xe6\x93\x8d\xe4\xbd\x9c" } };

#define DE_RO ": Das Dateisystem ist nur lesbar"
#define DE_AC ": Keine Berechtigung"
#define ZH_RO ": \xe5\x8f\xaa\xe8\xaf\xbb\xe6\x96\x87\xe4\xbb\xb6\xe7\xb3\xbb\xe7\xbb\x9f"
#define ZH_AC ": \xe6\x9d\x83\xe9\x99\x90\xe4\xb8\x8d\xe5\xa4\x9f"
#define FW_COLON "\xef\xbc\x9a"

Test(dialect, german)
{
	static const struct row table[] = {
		{ "touch: '/p/a' kann nicht ber\xc3\xbchrt werden" DE_RO, RO, "/p/a" },
		{ "mkdir: das Verzeichnis \xe2\x80\x9e/p/d\xe2\x80\x9c kann nicht angelegt werden" DE_RO, RO, "/p/d" },
		{ "bash: Zeile 1: /p/b" DE_AC, AC, "/p/b" },
		{ "bash: Zeile 1: out" DE_AC, AC, "out" },
		{ "mv: das Verschieben von '/etc/hostname' nach '/p/z' ist nicht m\xc3\xb6glich" DE_RO, RO, "/p/z" },
		{ "ln: Die harte Verkn\xc3\xbcpfung '/p/h' => '/w/x' konnte nicht angelegt werden" DE_AC, AC, "/p/h" },
		{ "sed: Tempor\xc3\xa4re Datei /p/sedxo7p9N kann nicht ge\xc3\xb6" "ffnet werden" DE_RO, RO, "/p/sedxo7p9N" },
		{ "tar: /p/t.tar: Funktion open fehlgeschlagen" DE_AC, AC, "/p/t.tar" },
		{ "tar: ./a.txt: Funktion open fehlgeschlagen" DE_RO, RO, "./a.txt" },
		{ "Schwerwiegend: kann Verzeichnis /p/g nicht erstellen" DE_RO, RO, "/p/g" },
		{ "mv: das Verschieben zwischen Ger\xc3\xa4ten ist fehlgeschlagen: '/w/x' zu '/p/x'; das Ziel kann nicht entfernt werden" DE_RO, RO, "/p/x" },
		{ "/usr/bin/ld: cannot open output file /p/a.out" DE_AC, AC, "/p/a.out" },
		{ "Exception in thread \"main\" java.io.FileNotFoundException: /p/j1 (Das Dateisystem ist nur lesbar)", RO, "/p/j1" },
		{ "Exception in thread \"main\" java.nio.file.FileSystemException: /p/j2" DE_RO, RO, "/p/j2" },
		{ "OSError: [Errno 30] Das Dateisystem ist nur lesbar: '/p/a'", RO, "/p/a" },
		/* English is still understood */
		{ "touch: cannot touch '/p/e': Read-only file system", RO, "/p/e" },
		/* not evidence: no path to check, or not an error line's shape */
		{ "prog: Fehler" DE_AC, 0, "" },
		{ "Keine Berechtigung", AC | BARE, "" },
		{ "Das Dateisystem ist nur lesbar, sagt das Log", 0, "" },
		{ "Hinweis Keine Berechtigung", 0, "" },
	};

	expect_rows(table, sizeof(table) / sizeof(table[0]), &de, "de");
}

Test(dialect, chinese)
{
	static const struct row table[] = {
		{ "touch: \xe6\x97\xa0\xe6\xb3\x95 touch '/p/a'" ZH_RO, RO, "/p/a" },
		{ "mkdir: \xe6\x97\xa0\xe6\xb3\x95\xe5\x88\x9b\xe5\xbb\xba\xe7\x9b\xae\xe5\xbd\x95 \"/p/d\"" ZH_AC, AC, "/p/d" },
		{ "bash: \xe8\xa1\x8c 1: /p/b" ZH_RO, RO, "/p/b" },
		{ "mv: \xe6\x97\xa0\xe6\xb3\x95\xe5\xb0\x86 '/etc/hostname' \xe7\xa7\xbb\xe5\x8a\xa8\xe8\x87\xb3 '/p/z'" ZH_RO, RO, "/p/z" },
		{ "ln: \xe6\x97\xa0\xe6\xb3\x95\xe5\x88\x9b\xe5\xbb\xba\xe7\xa1\xac\xe9\x93\xbe\xe6\x8e\xa5 '/p/h' => '/w/x'" ZH_AC, AC, "/p/h" },
		{ "sed: \xe6\x97\xa0\xe6\xb3\x95\xe6\x89\x93\xe5\xbc\x80\xe4\xb8\xb4\xe6\x97\xb6\xe6\x96\x87\xe4\xbb\xb6 /p/sedmNNYLK" ZH_RO, RO, "/p/sedmNNYLK" },
		{ "tar: /p/t.tar" FW_COLON "\xe6\x97\xa0\xe6\xb3\x95 open" ZH_RO, RO, "/p/t.tar" },
		{ "\xe8\x87\xb4\xe5\x91\xbd\xe9\x94\x99\xe8\xaf\xaf" FW_COLON "\xe4\xb8\x8d\xe8\x83\xbd\xe5\x88\x9b\xe5\xbb\xba\xe7\x9b\xae\xe5\xbd\x95 /p/g" ZH_RO, RO, "/p/g" },
		{ "mv: \xe6\x97\xa0\xe6\xb3\x95\xe8\xbf\x9b\xe8\xa1\x8c\xe8\xb7\xa8\xe8\xae\xbe\xe5\xa4\x87\xe7\x9a\x84\xe7\xa7\xbb\xe5\x8a\xa8" FW_COLON "'/w/x' \xe8\x87\xb3 '/p/x'\xef\xbc\x9b\xe6\x97\xa0\xe6\xb3\x95\xe5\x88\xa0\xe9\x99\xa4\xe7\x9b\xae\xe6\xa0\x87" ZH_RO, RO, "/p/x" },
		/* git: a relative path mid-sentence */
		{ "\xe9\x94\x99\xe8\xaf\xaf" FW_COLON "\xe4\xb8\x8d\xe8\x83\xbd\xe9\x94\x81\xe5\xae\x9a\xe9\x85\x8d\xe7\xbd\xae\xe6\x96\x87\xe4\xbb\xb6 .git/config" ZH_RO, RO, ".git/config" },
		/* no blanks, a full-width colon before the message */
		{ "cp" FW_COLON "\xe6\x97\xa0\xe6\xb3\x95\xe8\xae\xbf\xe9\x97\xae'/p/c'" FW_COLON "\xe6\x9d\x83\xe9\x99\x90\xe4\xb8\x8d\xe5\xa4\x9f", AC, "/p/c" },
		{ "Exception in thread \"main\" java.io.FileNotFoundException: /p/j1 (\xe5\x8f\xaa\xe8\xaf\xbb\xe6\x96\x87\xe4\xbb\xb6\xe7\xb3\xbb\xe7\xbb\x9f)", RO, "/p/j1" },
		{ "OSError: [Errno 30] \xe5\x8f\xaa\xe8\xaf\xbb\xe6\x96\x87\xe4\xbb\xb6\xe7\xb3\xbb\xe7\xbb\x9f: '/p/a'", RO, "/p/a" },
		{ "make: *** \xe6\xb2\xa1\xe6\x9c\x89\xe8\xa7\x84\xe5\x88\x99\xe5\x8f\xaf\xe5\x88\xb6\xe4\xbd\x9c\xe7\x9b\xae\xe6\xa0\x87\xe2\x80\x9c/p/q\xe2\x80\x9d\xe3\x80\x82 \xe5\x81\x9c\xe6\xad\xa2\xe3\x80\x82", 0, "" },
		{ "\xe6\x9d\x83\xe9\x99\x90\xe4\xb8\x8d\xe5\xa4\x9f", AC | BARE, "" },
	};

	expect_rows(table, sizeof(table) / sizeof(table[0]), &zh, "zh");
}

Test(dialect, local_texts_follow_the_mask)
{
	const char *l = "touch: '/p/a' kann nicht ber\xc3\xbchrt werden" DE_RO;
	char path[64];

	cr_expect_eq(dialect_match_line(l, strlen(l), DIALECT_EACCES, &de, path, sizeof(path)), 0u);
	cr_expect_eq(dialect_match_line(l, strlen(l), DIALECT_EROFS, NULL, path, sizeof(path)), 0u,
		     "without the local texts a German line is not understood");
	cr_expect_eq(dialect_match_line(l, strlen(l), DIALECT_EROFS, &de, path, sizeof(path)),
		     DIALECT_EROFS);
}

Test(dialect, errno_mapping)
{
	cr_expect_eq(dialect_of_errno(30), DIALECT_EROFS);
	cr_expect_eq(dialect_of_errno(-13), DIALECT_EACCES);
	cr_expect_eq(dialect_of_errno(18), DIALECT_EXDEV);
	cr_expect_eq(dialect_of_errno(1), DIALECT_SEATBELT);
	cr_expect_eq(dialect_of_errno(2), 0u);
	cr_expect_eq(dialect_of_errno_name("EROFS", 5), DIALECT_EROFS);
	cr_expect_eq(dialect_of_errno_name("EROFSX", 6), 0u);
	for (unsigned i = 0; i < DIALECT_KINDS; i++)
		cr_expect_eq(dialect_of_errno(dialect_errno(dialect_bit(i))), dialect_bit(i));
}
