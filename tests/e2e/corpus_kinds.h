/* SPDX-License-Identifier: MIT */
/* The corpus of issue 31's kinds of miss, run by test_corpus_kinds.c with
 * the families' machinery (corpus_run.h) under both runners, as root and as
 * nobody, in fr_FR.UTF-8, ja_JP.UTF-8 and pl_PL.UTF-8 (« … », `…', „…”).
 * Every command is real and runs for real, confined and again unconfined
 * (truth: the confined run failed and the unconfined one succeeded). Each
 * kind has its bait: the same shape of message where the sandbox was not
 * the cause. @W@ is the workspace, @O@ a directory next to it the user
 * owns (tests/e2e/corpus/setup.sh). */
#ifndef SBX_CORPUS_KINDS_H
#define SBX_CORPUS_KINDS_H

#include "corpus_families.h"

#define PERL_OPEN(path, words) \
	"perl -e 'open(my $f, \">\", \"" path "\") or die \"" words " " path ": $!\"'"
#define PYTEST_WRAP "python3 -m pytest -q -p no:cacheprovider --capture=sys --tb=short test_wrap.py"
#define SQLITE_INSERT "'insert into t values(1);'"

static const struct family_entry kinds[] = {
	/* ---- a path inside a locale's own quotation marks ---- */
	{ "quotes: mkdir", WS, DENIAL, U_BOTH, REAL, 0, "", "mkdir @O@/kd" },
	{ "quotes: mkdir -p, a blank in the name", WS, DENIAL, U_BOTH, REAL, 0, "",
	  "mkdir -p '@O@/my dir/new'" },
	{ "quotes: mktemp -p", WS, DENIAL, U_BOTH, REAL, 0, "", "mktemp -p @O@" },
	{ "quotes: git clone", WS, DENIAL, U_BOTH, REAL, 0, "git", "git clone -q . @O@/clone" },
	{ "quotes: git's lock file", WS, DENIAL, U_BOTH, REAL, 0, "git",
	  "git -C @O@/proj " GITID " commit -q --allow-empty -m wip" },
	{ "quotes: read-only: mktemp in the workspace", RO, DENIAL, U_BOTH, REAL, 0, "", "mktemp -p ." },
	{ "quotes: bait: mkdir under /usr", WS, NOT, U_NOBODY, REAL, 0, "", "mkdir /usr/sbx-kinds" },
	{ "quotes: bait: mktemp -p /usr", WS, NOT, U_NOBODY, REAL, 0, "", "mktemp -p /usr" },

	/* ---- the path on one line, the reason on the next ---- */
	{ "two lines: unzip -d", WS, DENIAL, U_BOTH, REAL, 0, "unzip", "unzip -q arch.zip -d @O@/unz" },
	{ "two lines: cmake file(WRITE), the reason first", WS, DENIAL, U_BOTH, REAL, 0, "cmake",
	  "cmake -DOUT=@O@/cm.txt -P write.cmake" },
	{ "two lines: zip, the reason first", WS, DENIAL, U_BOTH, REAL, 0, "zip", "zip -q @O@/x.zip hello.c" },
	{ "two lines: read-only: unzip", RO, DENIAL, U_BOTH, REAL, 0, "unzip", "unzip -q arch.zip" },
	{ "two lines: bait: unzip -d under /usr", WS, NOT, U_NOBODY, REAL, 0, "unzip",
	  "unzip -q arch.zip -d /usr/sbx-kinds" },
	{ "two lines: bait: cmake writing /usr", WS, NOT, U_NOBODY, REAL, 0, "cmake",
	  "cmake -DOUT=/usr/sbx-kinds.txt -P write.cmake" },

	/* ---- a path relative to a directory the tool was told ---- */
	{ "relative: tar -C, a blank in the name", WS, DENIAL, U_BOTH, REAL, 0, "tar",
	  "tar -C '@O@/my dir' -xf src.tar" },
	{ "relative: tar --directory=, non-ASCII", WS, DENIAL, U_BOTH, REAL, 0, "tar",
	  "tar --directory=\"@O@/\xc3\xb1" "and\xc3\xba\" -xf src.tar" },
	{ "relative: cd into a CJK name, mkdir", WS, DENIAL, U_BOTH, REAL, 0, "",
	  "cd \"@O@/\xe7\x9b\xae\xe5\xbd\x95\" && mkdir sub" },
	{ "relative: unzip, cd there", WS, DENIAL, U_BOTH, REAL, 0, "unzip",
	  "cd '@O@/my dir' && unzip -q @W@/arch.zip" },
	{ "relative: patch -d", WS, DENIAL, U_BOTH, REAL, 0, "patch", "patch -s -d @O@ -p0 < fix.patch" },
	{ "relative: bait: cd /usr, touch", WS, NOT, U_NOBODY, REAL, 0, "", "cd /usr && touch sbx-kinds" },
	{ "relative: bait: read-only: cd /usr, touch", RO, NOT, U_NOBODY, REAL, 0, "",
	  "cd /usr && touch sbx-kinds" },
	{ "relative: bait: tar -C /usr", WS, NOT, U_NOBODY, REAL, 0, "tar", "tar -C /usr -xf src.tar" },

	/* ---- a program's own words around the system's message ---- */
	{ "own words: perl die", WS, DENIAL, U_BOTH, REAL, 0, "perl", PERL_OPEN("@O@/pl.txt", "Cannot open") },
	{ "own words: perl die, its words in French", WS, DENIAL, U_BOTH, REAL, 0, "perl",
	  PERL_OPEN("@O@/pl.txt", "Impossible d\xe2\x80\x99" "ouvrir") },
	{ "own words: rsync's (N)", WS, DENIAL, U_BOTH, REAL, 0, "rsync", "rsync -a hello.c @O@/" },
	{ "own words: patch's blank before the colon", WS, DENIAL, U_BOTH, REAL, 0, "patch",
	  "patch -s @O@/f.txt fix.patch" },
	{ "own words: read-only: patch's temporary file", RO, DENIAL, U_BOTH, REAL, 0, "patch",
	  "patch -s -p0 < fix.patch" },
	{ "own words: bait: perl die about /usr", WS, NOT, U_NOBODY, REAL, 0, "perl",
	  PERL_OPEN("/usr/sbx-kinds", "Cannot open") },
	{ "own words: bait: rsync into /usr", WS, NOT, U_NOBODY, REAL, 0, "rsync", "rsync -a hello.c /usr/" },

	/* ---- the system's message in the command's language, after a
	 * refused mkdir the command ignored (the supervisor's note) ---- */
	{ "own language: mkdir ignored, then cd", WS, DENIAL, U_BOTH, REAL, 0, "",
	  "mkdir -p @O@/nd 2>/dev/null; cd @O@/nd" },
	{ "own language: mkdir ignored, then a file in it", WS, DENIAL, U_BOTH, REAL, 0, "",
	  "mkdir -p @O@/nd 2>/dev/null; echo x > @O@/nd/f" },
	{ "own language: bait: cd into a directory no one made", WS, NOT, U_BOTH, REAL, 0, "",
	  "cd @O@/absent" },
	{ "own language: bait: mkdir under /usr ignored, then cd", WS, NOT, U_NOBODY, REAL, 0, "",
	  "mkdir -p /usr/sbx-kinds 2>/dev/null; cd /usr/sbx-kinds" },

	/* ---- Python's str(e) after any prefix, on stdout ---- */
	{ "str(e): in parentheses, on stdout", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 own_words.py paren @O@/py.txt" },
	{ "str(e): a logging line on stdout", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 own_words.py log @O@/py.txt" },
	{ "str(e): pytest, wrapped in a test's own error", WS, DENIAL, U_BOTH, REAL, 0, "python3 -m pytest",
	  "TARGET=@O@/pt.txt " PYTEST_WRAP },
	{ "str(e): read-only: in parentheses", RO, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 own_words.py paren state.txt" },
	{ "str(e): bait: about /usr", WS, NOT, U_NOBODY, REAL, 0, "python3",
	  "python3 own_words.py paren /usr/sbx-kinds" },
	{ "str(e): bait: an immutable file", WS, NOT, U_ROOT, REAL, NEEDS_IMMUTABLE, "python3",
	  "python3 own_words.py log @O@/locked.txt" },

	/* ---- no system error text at all: the kernel's fact ---- */
	{ "no text: sqlite3, a read-only database", WS, DENIAL, U_BOTH, REAL, 0, "sqlite3",
	  "sqlite3 @O@/o.db " SQLITE_INSERT },
	{ "no text: sqlite3, a new database", WS, DENIAL, U_BOTH, REAL, 0, "sqlite3",
	  "sqlite3 @O@/new.db 'create table t(x);'" },
	{ "no text: python's sqlite3", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 own_words.py sqlite @O@/o.db" },
	{ "no text: cmake's pkgRedirects", WS, DENIAL, U_BOTH, REAL, 0, "cmake", "cmake -S cm -B @O@/build" },
	{ "no text: cmake file(MAKE_DIRECTORY)", WS, DENIAL, U_BOTH, REAL, 0, "cmake",
	  "cmake -DDIR=@O@/cmd -P mkdir.cmake" },
	{ "no text: read-only: sqlite3 in the workspace", RO, DENIAL, U_BOTH, REAL, 0, "sqlite3",
	  "sqlite3 app.db " SQLITE_INSERT },
	{ "no text: bait: sqlite3, a table that is not there", WS, NOT, U_BOTH, REAL, 0, "sqlite3",
	  "sqlite3 @O@/o.db 'select * from nosuch;'" },
	{ "no text: bait: sqlite3 -readonly", WS, NOT, U_BOTH, REAL, 0, "sqlite3",
	  "sqlite3 -readonly @O@/o.db " SQLITE_INSERT },
	{ "no text: bait: root's database in the workspace", WS, NOT, U_NOBODY, REAL, 0, "sqlite3",
	  "sqlite3 ro.db " SQLITE_INSERT },
	{ "no text: bait: cmake -B under /usr", WS, NOT, U_NOBODY, REAL, 0, "cmake",
	  "cmake -S cm -B /usr/sbx-kinds" },
};

#endif
