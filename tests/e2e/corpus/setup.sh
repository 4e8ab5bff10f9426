#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the corpus fixture template (tests/e2e/test_corpus_families.c) as
# the user the corpus runs as:
#   setup.sh BASE SRC      BASE/ws (the workspace root), BASE/outside (a
#                          directory next to it the user owns); SRC is this
#                          directory (tests/e2e/corpus).
# The test then adds the root-owned files (ws/ro.txt, ws/secret.txt, ws/rodir)
# and copies BASE afresh for every single run.
set -euo pipefail
base=$1 src=$2
ws=$base/ws out=$base/outside
ID=(-c user.name=agent -c user.email=agent@example.com)

cd "$ws"
git init -q .
cp "$src"/ws/* .
mkdir emu && cp "$src"/emu/* emu/
cat > Makefile <<'MK'
CFLAGS = -O2 -Wall
all: hello
hello: hello.c
	$(CC) $(CFLAGS) -o $@ $<
$(OUT)/stamp:
	echo built > $@
MK
printf '#include <stdio.h>\nint main(void)\n{\n\tputs("hi");\n\treturn 0;\n}\n' > hello.c
printf 'with open("out.txt", "w") as f:\n    f.write("result\\n")\nprint("done")\n' > tool.py
printf '#!/bin/sh\necho should not run\n' > script.sh
chmod 0644 script.sh
printf '# notes\n' > notes.md
cat > test_ok.py <<'PY'
def test_sum():
    assert 1 + 1 == 3, "open('/etc/sbx-corpus-absent/x') said: Permission denied"
PY
mkdir -p data/sub && echo a > data/a.txt && echo b > data/sub/b.txt
tar -cf src.tar -C data . && rm -r data
if command -v javac >/dev/null; then javac -d . W.java; fi
mkdir npkg
printf '{"name": "npkg", "version": "1.0.0"}\n' > npkg/package.json
echo 'module.exports = 1;' > npkg/index.js
# issue 31's kinds (corpus_kinds.h): an archive, a patch, a CMake project,
# a database, a directory to cd into
mkdir -p zsrc/sub sub && echo a > zsrc/a.txt && echo b > zsrc/sub/b.txt
if command -v zip >/dev/null; then (cd zsrc && zip -qr ../arch.zip .); fi
rm -r zsrc
printf 'orig\n' > f.txt && printf 'orig\n' > p.txt && printf 'patched\n' > p2.txt
{ diff -u p.txt p2.txt || true; } | sed 's|^--- p.txt.*|--- f.txt|; s|^+++ p2.txt.*|+++ f.txt|' > fix.patch
rm p.txt p2.txt
mkdir cm
printf 'cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\n' > cm/CMakeLists.txt
if command -v sqlite3 >/dev/null; then sqlite3 app.db 'create table t(x);'; fi
printf 'hello.c\nhello\nout.txt\nro.txt\nro.db\nsecret.txt\nrodir/\n*.class\n' > .git/info/exclude
git add -A
git "${ID[@]}" commit -q -m init

cd "$out"
echo orig > f.txt
mkdir d
git init -q proj
git -C proj "${ID[@]}" commit -q --allow-empty -m init
mkdir pj
printf '{"name": "pj", "version": "1.0.0"}\n' > pj/package.json
echo locked > locked.txt
mkdir "my dir" "$(printf '\303\261and\303\272')" "$(printf '\347\233\256\345\275\225')" rs
if command -v sqlite3 >/dev/null; then sqlite3 o.db 'create table t(x);'; fi
