#!/bin/bash
# SPDX-License-Identifier: MIT
# What sbx's supervised watches cost real file watchers as they start (every
# inotify_add_watch is placed by the syscall supervisor, under both runners):
#   inotifywait -r  inotifywait -m -r over a tree of DIRS directories, until it
#                   says "Watches established." (one watch per directory)
#   node fs.watch   node watching every directory of the same tree, one
#                   fs.watch each (as watchpack and chokidar do)
#   tail -f         tail -f of one file that gets one line appended, until the
#                   line shows (one watch: the launch cost dominates)
# Each plain (no sbx), under the namespace runner and under the landlock
# runner, workspace-write over the tree; INTERLEAVED rounds, medians, the
# ratio against plain in the same run, and the extra time per watch. Asserts
# nothing about time.
#
#   scripts/bench-watch.sh [ROUNDS] [DIRS]   (default 5 rounds, 3000 dirs;
#                                             SBX=path for another binary)
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
DIRS=${2:-3000}
SBX=$(realpath "${SBX:-./sbx}")
[[ -x $SBX ]] || { echo "bench-watch: $SBX not found (make sbx)" >&2; exit 1; }
for t in inotifywait node python3; do
	command -v $t >/dev/null || { echo "bench-watch: $t not installed (scripts/deps.sh all)" >&2; exit 1; }
done

# Not under /tmp: the namespace runner puts a /tmp of its own there.
WORK=$(mktemp -d /var/tmp/sbx-bench-watch-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
R=$WORK/root
mkdir -p "$R/tree"
: >"$WORK/empty.conf"
(cd "$R/tree" && for i in $(seq 1 $((DIRS / 30))); do for j in $(seq 1 30); do echo "d$i/e$j"; done; done | xargs mkdir -p)
cat >"$R/inw.sh" <<'EOF'
L=$(mktemp)
inotifywait -m -r -e attrib tree 2>"$L" >/dev/null & p=$!
until grep -q established "$L"; do sleep 0.005; done
kill $p; rm -f "$L"
EOF
cat >"$R/nodewatch.js" <<'EOF'
const fs = require('fs'), path = require('path');
const ws = [];
(function walk(d) {
  ws.push(fs.watch(d, () => {}));
  for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
})('tree');
for (const w of ws) w.close();
EOF
cat >"$R/tailf.sh" <<'EOF'
: >log; L=$(mktemp)
tail -f log >"$L" & p=$!
sleep 0.05; echo line >>log
until grep -q line "$L"; do sleep 0.005; done
kill $p; rm -f "$L"
EOF

SBX="$SBX" ROUNDS="$ROUNDS" R="$R" CONF="$WORK/empty.conf" DIRS="$DIRS" python3 - <<'PY'
import os, shutil, statistics, subprocess, sys, time

SBX, R, CONF = os.environ["SBX"], os.environ["R"], os.environ["CONF"]
ROUNDS = int(os.environ["ROUNDS"])
dirs = sum(1 for _ in os.walk(os.path.join(R, "tree")))
env = {k: v for k, v in os.environ.items() if k != "SBX_CONFIG"}
bash = shutil.which("bash")


def sides(cmd):
    return [("plain", [bash, "-c", cmd]),
            ("namespace", [SBX, "run", "--config", CONF, "--root", R, "--mode",
                           "workspace-write", "--runner", "namespace", "--", cmd]),
            ("landlock", [SBX, "run", "--config", CONF, "--root", R, "--mode",
                          "workspace-write", "--runner", "landlock", "--", cmd])]


groups = [("inotifywait -r (%d dirs)" % dirs, dirs, sides("cd %s && bash inw.sh" % R)),
          ("node fs.watch (%d dirs)" % dirs, dirs, sides("cd %s && node nodewatch.js" % R)),
          ("tail -f (1 watch)", 1, sides("cd %s && bash tailf.sh" % R))]


def once(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench-watch: %s failed (%d): %s" % (argv[-1], p.returncode, p.stderr.decode()[-400:]))
    return dt


times = {(g, n): [] for g, _, cases in groups for n, _ in cases}
for _ in range(ROUNDS):
    for g, _, cases in groups:
        for n, argv in cases:
            times[(g, n)].append(once(argv))
print("bench-watch: %d rounds, medians (ratio against plain in this run)" % ROUNDS)
for g, watches, cases in groups:
    base = statistics.median(times[(g, "plain")])
    print(g)
    for n, _ in cases:
        m = statistics.median(times[(g, n)])
        extra = "" if n == "plain" or watches < 100 else \
            ", %+.0f us per watch over plain" % ((m - base) / watches * 1e6)
        print("  %-10s %8.1f ms  x%.2f%s" % (n, m * 1e3, m / base, extra))
PY
