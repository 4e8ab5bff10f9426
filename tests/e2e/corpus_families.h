/* SPDX-License-Identifier: MIT */
/* The corpus of issue 14's families, run by test_corpus_families.c under
 * both runners, as root and as nobody, in C.UTF-8, de_DE.UTF-8 and
 * zh_CN.UTF-8. Every command is real and runs for real, confined and again
 * unconfined (truth: the confined run failed and the unconfined one
 * succeeded). Where a runtime is not on CI machines (Go, Rust, npm 6) a tiny
 * script in tests/e2e/corpus/emu/ makes the real write and prints that
 * runtime's exact output shape: those entries say EMU; REAL entries run the
 * tool itself (installed by scripts/deps.sh, except npm: Debian's nodejs
 * lacks it, so the real npm entries run only where npm is). @W@ is the
 * workspace, @O@ a directory next to it the user owns. */
#ifndef SBX_CORPUS_FAMILIES_H
#define SBX_CORPUS_FAMILIES_H

enum { WS = 0, RO = 1 };           /* confined mode */
enum { NOT = 0, DENIAL = 1 };      /* the author's label */
enum { U_ROOT = 1, U_NOBODY = 2, U_BOTH = 3 };
enum { REAL = 0, EMU = 1 };
enum { NEEDS_NOTHING = 0, NEEDS_IMMUTABLE = 1 }; /* @O@/locked.txt made immutable */

struct family_entry {
	const char *label;
	int mode, expect, users, source, needs;
	const char *tool; /* must be runnable ("" = bash and coreutils) */
	const char *cmd;
};

#define GITID "-c user.name=agent -c user.email=agent@example.com"
#define NOISE                                                                            \
	"for i in $(seq 4000); do echo \"src/mod$i.c:12:5: warning: unused variable 'tmp' "    \
	"[-Wunused-variable]\"; done >&2"
#define JAVA "java -XX:-UsePerfData -cp . W"
/* --capture=sys: pytest's default capture needs a temporary file, which
 * read-only mode refuses before the test even runs */
#define PYTEST "python3 -m pytest -q -p no:cacheprovider --capture=sys"
#define NPMFLAGS "--offline --no-audit --no-fund --cache /tmp/npmc-$$"
#define LOCALIZED_STRERROR(n)                                                            \
	"python3 -c 'import locale, os, sys; locale.setlocale(locale.LC_ALL, \"\"); "          \
	"print(os.strerror(" #n "), file=sys.stderr); sys.exit(1)'"

static const struct family_entry families[] = {
	/* ---- coreutils, bash, git, tar, make, sed, gcc: localized by the locale ---- */
	{ "bash > overwrite", WS, DENIAL, U_BOTH, REAL, 0, "", "echo hello > @O@/f.txt" },
	{ "bash >> new file", WS, DENIAL, U_BOTH, REAL, 0, "", "echo line >> @O@/new.log" },
	{ "touch", WS, DENIAL, U_BOTH, REAL, 0, "", "touch @O@/stamp" },
	{ "mkdir", WS, DENIAL, U_BOTH, REAL, 0, "", "mkdir @O@/build" },
	{ "mkdir -p", WS, DENIAL, U_BOTH, REAL, 0, "", "mkdir -p @O@/build/obj" },
	{ "rm file", WS, DENIAL, U_BOTH, REAL, 0, "", "rm @O@/f.txt" },
	{ "rm -rf dir", WS, DENIAL, U_BOTH, REAL, 0, "", "rm -rf @O@/d" },
	{ "cp", WS, DENIAL, U_BOTH, REAL, 0, "", "cp hello.c @O@/" },
	{ "mv", WS, DENIAL, U_BOTH, REAL, 0, "", "mv notes.md @O@/" },
	{ "ln -s", WS, DENIAL, U_BOTH, REAL, 0, "", "ln -s @W@/hello.c @O@/link.c" },
	{ "ln hard link", WS, DENIAL, U_BOTH, REAL, 0, "", "ln hello.c @O@/hard.c" },
	{ "tee", WS, DENIAL, U_BOTH, REAL, 0, "", "echo data | tee @O@/tee.txt" },
	{ "truncate", WS, DENIAL, U_BOTH, REAL, 0, "", "truncate -s 0 @O@/f.txt" },
	{ "install", WS, DENIAL, U_BOTH, REAL, 0, "", "install -m 644 hello.c @O@/inst.c" },
	{ "sed -i", WS, DENIAL, U_BOTH, REAL, 0, "sed", "sed -i s/orig/new/ @O@/f.txt" },
	{ "git init", WS, DENIAL, U_BOTH, REAL, 0, "git", "git init -q @O@/newrepo" },
	{ "git commit in a repo outside", WS, DENIAL, U_BOTH, REAL, 0, "git",
	  "git -C @O@/proj " GITID " commit -q --allow-empty -m wip" },
	{ "git config in a repo outside", WS, DENIAL, U_BOTH, REAL, 0, "git",
	  "git -C @O@/proj config core.autocrlf false" },
	{ "tar -x -C", WS, DENIAL, U_BOTH, REAL, 0, "tar", "tar -xf src.tar -C @O@" },
	{ "make with a target outside", WS, DENIAL, U_BOTH, REAL, 0, "make", "make -s OUT=@O@ @O@/stamp" },
	{ "gcc -o", WS, DENIAL, U_BOTH, REAL, 0, "gcc", "gcc -O2 -o @O@/hello hello.c" },
	{ "gcc, coloured diagnostics", WS, DENIAL, U_BOTH, REAL, 0, "gcc",
	  "gcc -fdiagnostics-color=always -S -o @O@/x.s hello.c" },
	{ "cd outside, relative touch", WS, DENIAL, U_BOTH, REAL, 0, "", "cd @O@ && touch rel.txt" },
	{ "denial, 200 KB of stderr, exit 1", WS, DENIAL, U_BOTH, REAL, 0, "",
	  "touch @O@/late.txt || { " NOISE "; exit 1; }" },

	/* ---- language runtimes ---- */
	{ "python3 open()", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 -c \"open('@O@/py.txt', 'w').write('x')\"" },
	{ "python3 after setlocale: localized [Errno N]", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 -c \"import locale; locale.setlocale(locale.LC_ALL, ''); open('@O@/py.txt', 'w')\"" },
	{ "python3 JSON log on stdout", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 emu/jsonlog.py plain @O@/state.json" },
	{ "python3 JSON log, localized, \\u-escaped", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 emu/jsonlog.py localized @O@/state.json" },
	{ "python3 JSON log with a traceback inside", WS, DENIAL, U_BOTH, REAL, 0, "python3",
	  "python3 emu/jsonlog.py traceback @O@/state.json" },
	{ "pytest report on stdout", WS, DENIAL, U_BOTH, REAL, 0, "python3 -m pytest",
	  "TARGET=@O@/pt.txt " PYTEST " test_w.py" },
	{ "pytest --color=yes", WS, DENIAL, U_BOTH, REAL, 0, "python3 -m pytest",
	  "TARGET=@O@/pt.txt " PYTEST " --color=yes test_w.py" },
	{ "node writeFileSync", WS, DENIAL, U_BOTH, REAL, 0, "node",
	  "node -e \"require('fs').writeFileSync('@O@/n.txt', 'x')\"" },
	{ "node mkdirSync", WS, DENIAL, U_BOTH, REAL, 0, "node",
	  "node -e \"require('fs').mkdirSync('@O@/nd')\"" },
	{ "node mkdirSync recursive (ENOENT on a read-only mount)", WS, DENIAL, U_BOTH, REAL, 0, "node",
	  "node -e \"require('fs').mkdirSync('@O@/node_modules', {recursive: true})\"" },
	{ "node --test, TAP on stdout", WS, DENIAL, U_BOTH, REAL, 0, "node",
	  "TARGET=@O@/nt.txt node --test w.test.js" },
	{ "npm install --prefix", WS, DENIAL, U_BOTH, REAL, 0, "npm",
	  "npm install " NPMFLAGS " --prefix @O@ ./npkg; s=$?; rm -rf /tmp/npmc-$$; exit $s" },
	{ "npm pkg set in a project outside", WS, DENIAL, U_BOTH, REAL, 0, "npm",
	  "cd @O@/pj && npm pkg set version=2.0.0 " NPMFLAGS "; s=$?; rm -rf /tmp/npmc-$$; exit $s" },
	{ "npm 6 error block (code, path, errno lines)", WS, DENIAL, U_BOTH, EMU, 0, "node",
	  "node emu/npm_emu.js @O@/pj/package.json" },
	{ "java.io FileOutputStream", WS, DENIAL, U_BOTH, REAL, 0, "javac", JAVA " io @O@/j.txt" },
	{ "java.nio Files.writeString", WS, DENIAL, U_BOTH, REAL, 0, "javac", JAVA " nio @O@/j.txt" },
	{ "go: open", WS, DENIAL, U_BOTH, EMU, 0, "python3", "python3 emu/go_emu.py main open @O@/go.txt" },
	{ "go: mkdir", WS, DENIAL, U_BOTH, EMU, 0, "python3", "python3 emu/go_emu.py main mkdir @O@/god" },
	{ "go test report on stdout", WS, DENIAL, U_BOTH, EMU, 0, "python3",
	  "python3 emu/go_emu.py test open @O@/go.txt" },
	{ "rust: anyhow error chain", WS, DENIAL, U_BOTH, EMU, 0, "python3",
	  "python3 emu/rust_emu.py anyhow @O@/rs.txt" },
	{ "rust: cargo, coloured", WS, DENIAL, U_BOTH, EMU, 0, "python3",
	  "python3 emu/rust_emu.py cargo @O@/target" },

	/* ---- read-only mode: writes in the workspace ---- */
	{ "read-only: touch", RO, DENIAL, U_BOTH, REAL, 0, "", "touch newfile.txt" },
	{ "read-only: bash >", RO, DENIAL, U_BOTH, REAL, 0, "", "echo 'int x;' > gen.c" },
	{ "read-only: mkdir", RO, DENIAL, U_BOTH, REAL, 0, "", "mkdir build" },
	{ "read-only: sed -i", RO, DENIAL, U_BOTH, REAL, 0, "sed", "sed -i s/hi/hello/ hello.c" },
	{ "read-only: git commit", RO, DENIAL, U_BOTH, REAL, 0, "git",
	  "git " GITID " commit -q --allow-empty -m wip" },
	{ "read-only: python script", RO, DENIAL, U_BOTH, REAL, 0, "python3", "python3 tool.py" },
	{ "read-only: java, relative path", RO, DENIAL, U_BOTH, REAL, 0, "javac", JAVA " io out.txt" },
	{ "read-only: pytest on stdout", RO, DENIAL, U_BOTH, REAL, 0, "python3 -m pytest",
	  "TARGET=pt.txt " PYTEST " test_w.py" },
	{ "read-only: go test on stdout", RO, DENIAL, U_BOTH, EMU, 0, "python3",
	  "python3 emu/go_emu.py test open go.txt" },

	/* ---- allowed work ---- */
	{ "make in the workspace", WS, NOT, U_BOTH, REAL, 0, "make", "make -s && ./hello" },
	{ "python script in the workspace", WS, NOT, U_BOTH, REAL, 0, "python3", "python3 tool.py" },
	{ "pytest writing in the workspace", WS, NOT, U_BOTH, REAL, 0, "python3 -m pytest",
	  "TARGET=pt.txt " PYTEST " test_w.py" },
	{ "read outside", WS, NOT, U_BOTH, REAL, 0, "", "ls @O@ && cat @O@/f.txt" },
	{ "/tmp", WS, NOT, U_BOTH, REAL, 0, "", "echo t > /tmp/fam-$$ && rm /tmp/fam-$$" },
	{ "read-only: git status", RO, NOT, U_BOTH, REAL, 0, "git", "git status --short" },

	/* ---- false-alarm bait: failures the sandbox did not cause ---- */
	{ "bait: non-executable script (126)", WS, NOT, U_BOTH, REAL, 0, "", "./script.sh" },
	{ "bait: read-only: non-executable script (126)", RO, NOT, U_BOTH, REAL, 0, "", "./script.sh" },
	{ "bait: command not found (127)", WS, NOT, U_BOTH, REAL, 0, "", "no-such-tool --version" },
	{ "bait: denial || true", WS, NOT, U_BOTH, REAL, 0, "", "touch @O@/f.txt || true" },
	{ "bait: ssh publickey", WS, NOT, U_BOTH, REAL, 0, "",
	  "echo 'git@github.com: Permission denied (publickey).' >&2; exit 255" },
	{ "bait: a log quoting errors, on stderr", WS, NOT, U_BOTH, REAL, 0, "", "cat build.log >&2; exit 1" },
	{ "bait: a log quoting errors, on stdout", WS, NOT, U_BOTH, REAL, 0, "", "cat build.log; exit 1" },
	{ "bait: read-only: a log on stdout", RO, NOT, U_BOTH, REAL, 0, "", "cat build.log; exit 1" },
	{ "bait: grep through a log", WS, NOT, U_BOTH, REAL, 0, "grep",
	  "grep -h -e lesbar -e Read-only -e denied build.log; exit 2" },
	{ "bait: the EACCES message alone, localized", WS, NOT, U_BOTH, REAL, 0, "python3",
	  LOCALIZED_STRERROR(13) },
	{ "bait: the EROFS message alone, localized", WS, NOT, U_BOTH, REAL, 0, "python3",
	  LOCALIZED_STRERROR(30) },
	{ "bait: a failing test", WS, NOT, U_BOTH, REAL, 0, "python3 -m pytest", PYTEST " test_ok.py" },
	{ "bait: compile error", WS, NOT, U_BOTH, REAL, 0, "gcc", "gcc -c missing.c" },
	{ "bait: node exits 3", WS, NOT, U_BOTH, REAL, 0, "node", "node -e 'process.exit(3)'" },
	/* the user could not write these anyway */
	{ "bait: cat an unreadable file", WS, NOT, U_NOBODY, REAL, 0, "", "cat secret.txt" },
	{ "bait: read-only: cat an unreadable file", RO, NOT, U_NOBODY, REAL, 0, "", "cat secret.txt" },
	{ "bait: root's read-only file in the workspace", WS, NOT, U_NOBODY, REAL, 0, "",
	  "echo changed > ro.txt" },
	{ "bait: read-only: root's read-only file", RO, NOT, U_NOBODY, REAL, 0, "", "echo changed > ro.txt" },
	{ "bait: sed -i root's file", WS, NOT, U_NOBODY, REAL, 0, "sed", "sed -i s/a/b/ ro.txt" },
	{ "bait: touch in root's directory in the workspace", WS, NOT, U_NOBODY, REAL, 0, "",
	  "touch rodir/x" },
	{ "bait: touch /etc/passwd", WS, NOT, U_NOBODY, REAL, 0, "", "touch /etc/passwd" },
	{ "bait: mkdir under /usr", WS, NOT, U_NOBODY, REAL, 0, "", "mkdir /usr/local/sbx-fam" },
	{ "bait: python3 write /etc", WS, NOT, U_NOBODY, REAL, 0, "python3",
	  "python3 -c \"open('/etc/sbx-fam.conf', 'w')\"" },
	{ "bait: python3 JSON log about /etc", WS, NOT, U_NOBODY, REAL, 0, "python3",
	  "python3 emu/jsonlog.py localized /etc/sbx-fam.json" },
	{ "bait: pytest writing /etc", WS, NOT, U_NOBODY, REAL, 0, "python3 -m pytest",
	  "TARGET=/etc/sbx-fam.txt " PYTEST " test_w.py" },
	{ "bait: node write /etc", WS, NOT, U_NOBODY, REAL, 0, "node",
	  "node -e \"require('fs').writeFileSync('/etc/sbx-fam', 'x')\"" },
	{ "bait: node mkdir recursive under /usr", WS, NOT, U_NOBODY, REAL, 0, "node",
	  "node -e \"require('fs').mkdirSync('/usr/sbx-fam/x', {recursive: true})\"" },
	{ "bait: npm 6 block about /etc", WS, NOT, U_NOBODY, EMU, 0, "node", "node emu/npm_emu.js /etc/sbx-fam.json" },
	{ "bait: java write /etc", WS, NOT, U_NOBODY, REAL, 0, "javac", JAVA " io /etc/sbx-fam" },
	{ "bait: java.nio write /etc", WS, NOT, U_NOBODY, REAL, 0, "javac", JAVA " nio /etc/sbx-fam" },
	{ "bait: go write /etc", WS, NOT, U_NOBODY, EMU, 0, "python3", "python3 emu/go_emu.py main open /etc/sbx-fam" },
	{ "bait: rust chain about /etc", WS, NOT, U_NOBODY, EMU, 0, "python3",
	  "python3 emu/rust_emu.py anyhow /etc/sbx-fam" },
	{ "bait: cargo target under /usr", WS, NOT, U_NOBODY, EMU, 0, "python3",
	  "python3 emu/rust_emu.py cargo /usr/sbx-fam-target" },
	/* root could not write an immutable file either */
	{ "bait: bash > an immutable file", WS, NOT, U_ROOT, REAL, NEEDS_IMMUTABLE, "", "echo x > @O@/locked.txt" },
	{ "bait: python3 an immutable file", WS, NOT, U_ROOT, REAL, NEEDS_IMMUTABLE, "python3",
	  "python3 -c \"open('@O@/locked.txt', 'w')\"" },
	{ "bait: java an immutable file", WS, NOT, U_ROOT, REAL, NEEDS_IMMUTABLE, "javac", JAVA " io @O@/locked.txt" },
	{ "bait: rust chain, an immutable file", WS, NOT, U_ROOT, EMU, NEEDS_IMMUTABLE, "python3",
	  "python3 emu/rust_emu.py anyhow @O@/locked.txt" },
};

#endif
