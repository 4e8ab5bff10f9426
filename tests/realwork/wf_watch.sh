# SPDX-License-Identifier: MIT
# File watchers: every inotify watch is placed by sbx's supervisor under both
# runners (docs/supervisor.md, "Watches"). Watches a user expects to work
# must see the events they see unconfined; a watch on a hidden path is
# refused and marked. Each waits for its event (bounded), never a fixed
# sleep, so a loaded machine only makes it slower (sourced; see dsl.sh).

watch_tree() {
	setup <<'EOF'
mkdir -p src/a/b src/c && echo one > src/a/b/f.txt && : > app.log
EOF
}

wf watch-tail-f "tail -f and tail -F see lines another process appends" fast
watch_tree
call <<'EOF'
# The files exist before the first grep: a background job's redirect may
# run after the loop's first look.
: > "$RW.f"; : > "$RW.F"
tail -f app.log > "$RW.f" & f=$!
tail -F app.log > "$RW.F" & F=$!
for i in $(seq 1 200); do
	echo "line $i" >> app.log
	grep -q line "$RW.f" && grep -q line "$RW.F" && break
	sleep 0.05
done
kill $f $F; wait 2>/dev/null
head -n 1 "$RW.f"; head -n 1 "$RW.F"; rm -f "$RW.f" "$RW.F"
EOF
norm 's/^line [0-9]*$/line N/'
volatile '^app\.log$'

wf watch-node-recursive "node fs.watch({recursive: true}) sees a file made two levels down" fast need=node
watch_tree
call <<'EOF'
node - <<'JS'
const fs = require("fs");
let seen = false, n = 0;
fs.watch("src", { recursive: true }, (ev, f) => { if (f === "a/b/new.txt") seen = true; });
// The recursive watch is set up asynchronously: write until it is seen.
const t = setInterval(() => {
  fs.writeFileSync("src/a/b/new.txt", "n\n");
  if (seen || ++n > 200) { clearInterval(t); console.log(seen ? "saw a/b/new.txt" : "no event"); process.exit(0); }
}, 50);
JS
EOF

wf watch-inotifywait "inotifywait -m -r: a file made in a subdirectory, a directory made, a file rewritten" need=inotifywait
watch_tree
call <<'EOF'
: > "$RW.ev"
inotifywait -q -m -r -e create,close_write --format '%e %w%f' src > "$RW.ev" 2> "$RW.err" & p=$!
sleep 0.2
for i in $(seq 1 200); do
	echo x > src/a/new.txt; mkdir -p src/c/d; echo two > src/a/b/f.txt
	grep -q 'CREATE,ISDIR src/c/d' "$RW.ev" && grep -q 'CLOSE_WRITE,CLOSE src/a/b/f.txt' "$RW.ev" && break
	sleep 0.05
done
kill $p; wait 2>/dev/null
sort -u "$RW.ev"; rm -f "$RW.ev" "$RW.err"
EOF

wf watch-vim-save "a watcher sees vim write the file it watches (vim -es, :wq)" need=inotifywait,vim
watch_tree
call <<'EOF'
: > "$RW.ev"
inotifywait -q -m -e close_write,moved_to --format '%e %f' src/a/b > "$RW.ev" & p=$!
for i in $(seq 1 100); do
	vim -es -i NONE -c "%s/.*/edit $i/" -c wq src/a/b/f.txt
	grep -q ' f.txt$' "$RW.ev" && break
	sleep 0.05
done
kill $p; wait 2>/dev/null
grep ' f.txt$' "$RW.ev" | sort -u; rm -f "$RW.ev"
EOF
norm 's/^edit [0-9]*$/edit N/'
volatile '^src/a/b/f\.txt$'

wf watch-hidden-refused "a watch on ~/.ssh (a hidden path): refused and marked" fast need=node
home <<'EOF'
mkdir -m 700 .ssh && echo 'secret' > .ssh/id_ed25519 && echo 'host key' > .ssh/known_hosts
EOF
call <<'EOF'
node -e 'require("fs").watch(require("os").homedir() + "/.ssh").close(); console.log("watched")'
EOF
refuse '*' "a watch on ~/.ssh, whose use it would time (docs/security.md)"

wf watch-tolerated-refusal "a watcher skips what it cannot watch (a symlink to /dev/null in the tree), then a test fails on its own" fast need=node
setup <<'EOF'
mkdir -p src/a && ln -s /dev/null src/muted.log
EOF
call <<'EOF'
node - <<'JS'
const fs = require("fs");
// As chokidar and watchpack do: a path that cannot be watched is skipped.
for (const f of ["src", "src/a", "src/muted.log"]) try { fs.watch(f).close(); } catch (e) {}
console.log("watching; 1 test failed"); process.exit(1);
JS
EOF
