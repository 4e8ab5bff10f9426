# SPDX-License-Identifier: MIT
# Everyday file tools: sqlite3, vim, tar, zip, sed, perl, patch, sort, find,
# cp/mv/ln/chmod/touch, mkfifo (sourced; see dsl.sh).

text_files() {
	setup <<'EOF'
mkdir -p docs src/sub
for i in 3 1 2; do printf 'line %s\nTODO item %s\n' "$i" "$i" > "docs/n$i.txt"; done
printf 'alpha\nbeta\ngamma\n' > src/words.txt
printf '#!/bin/sh\necho run\n' > src/sub/run.sh
EOF
}

wf sqlite3 "sqlite3: create, insert in a transaction (journal), query, WAL" fast need=sqlite3
call <<'EOF'
sqlite3 app.db 'create table t(id integer primary key, v text); begin; insert into t(v) values ("a"),("b"); commit; select count(*) from t;' &&
sqlite3 app.db 'pragma journal_mode=wal; insert into t(v) values ("c"); select group_concat(v) from t;'
EOF

wf vim-ex "vim -es: substitute and write (viminfo off, as a script would)" fast need=vim
text_files
call <<'EOF'
vim -es -i NONE -c '%s/beta/BETA/' -c 'wq' src/words.txt && cat src/words.txt
EOF

wf tar-zip "tar czf/xzf, zip/unzip, gzip" need=tar,zip,unzip,gzip
text_files
call <<'EOF'
tar czf docs.tgz docs && mkdir x && tar xzf docs.tgz -C x && ls x/docs &&
zip -qr src.zip src && unzip -q src.zip -d y && ls -R y | head -n 5 &&
gzip -k src/words.txt && gunzip -c src/words.txt.gz | head -n 1
EOF
volatile '^docs\.tgz$|^src\.zip$|^src/words\.txt\.gz$'

wf tar-owners "tar xpf of an archive with other owners (root keeps them)" fast need=tar
setup <<'EOF'
mkdir -p t/a && echo x > t/a/f && tar --owner=1234 --group=1234 --mtime=@1700000000 -cf owned.tar t && rm -rf t
EOF
call <<'EOF'
tar xpf owned.tar && stat -c '%u:%g %n' t t/a t/a/f
EOF

wf text-edit "sed -i, perl -pi, patch, sort, uniq, find -exec, xargs -P" need=perl,patch
text_files
call <<'EOF'
sed -i 's/TODO/DONE/' docs/*.txt && perl -pi -e 's/alpha/ALPHA/' src/words.txt &&
cp src/words.txt src/words.new && echo delta >> src/words.new && diff -u --label a --label b src/words.txt src/words.new > p.diff;
patch -s src/words.txt < p.diff && cat docs/*.txt | sort | uniq -c | sort -rn | head -n 3 &&
find . -name '*.txt' -newer p.diff -o -name '*.txt' -print | sort &&
find docs -name '*.txt' | sort | xargs -P2 -n1 wc -l | sort
EOF

wf sort-big "sort of a larger file with temp files in TMPDIR" need=python3
call <<'EOF'
python3 -c 'import random; random.seed(1); print("\n".join(str(random.random()) for _ in range(200000)))' > big.txt &&
sort -S 64K -T /tmp -o sorted.txt big.txt && head -c 20 sorted.txt && sort -c sorted.txt && echo sorted
EOF

wf file-ops "cp -a, mv, ln, ln -s, chmod, touch -d, mkdir -p, rm -r" fast
text_files
call <<'EOF'
cp -a src src2 && mv src2/words.txt src2/w.txt && ln src2/w.txt hard.txt && ln -s src2/w.txt soft.txt &&
chmod 600 hard.txt && chmod +x src/sub/run.sh && touch -d '2020-01-01 00:00' docs/n1.txt && mkdir -p a/b/c &&
rm -r docs/n3.txt a/b && ./src/sub/run.sh && stat -c '%a %h %n' hard.txt src/sub/run.sh && date -r docs/n1.txt +%Y
EOF

wf fifo "mkfifo in the root, a writer and a reader"
call <<'EOF'
mkfifo pipe && (echo through > pipe &) && cat pipe && rm pipe
EOF

wf setgid-dir "chmod g+s on a directory (setuid/setgid bits are refused)" fast
setup <<'EOF'
mkdir shared
EOF
call <<'EOF'
chmod g+s shared && stat -c '%A' shared
EOF
deny ws/shared
