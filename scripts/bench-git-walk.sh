#!/bin/bash
# SPDX-License-Identifier: MIT
# What the git pass's walk costs (launcher/protect/protect_walk.c), the part
# of every workspace-write run's end that grows with the root: the walk
# alone (tests/helpers/walk_bench.c, built here against each built sbx tree
# given: its headers and libsbx.a), the fastest of RUNS, on
#   plain N      N directories, 100 per directory (a node_modules' shape)
#   repo M       a repository holding M loose objects (under git gc --auto's
#                6,700): the walk goes through its objects/, refs/ and logs/
#                too since issue 29's finding 2
# Prints microseconds per walk, nanoseconds per directory walked, and the
# ratio to the first tree given. Asserts nothing about time. Builds no sbx:
# run `make all` in each tree first.
#
#   scripts/bench-git-walk.sh [TREE...]   (default .; N=200000 M=5000
#       RUNS=5 BENCH_DIR=/var/tmp to change)
set -euo pipefail

cd "$(dirname "$0")/.."
N=${N:-200000}
M=${M:-5000}
RUNS=${RUNS:-5}
CC=${CC:-gcc}
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(.)
for l in "${libs[@]}"; do
	[[ -f $l/libsbx.a ]] || { echo "bench-git-walk: $l/libsbx.a missing; build it first (make all)" >&2; exit 1; }
done
command -v git >/dev/null && command -v python3 >/dev/null ||
	{ echo "bench-git-walk: needs git and python3" >&2; exit 1; }

WORK=$(mktemp -d "${BENCH_DIR:-/var/tmp}/sbx-bench-walk-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/plain" "$WORK/repo"
N=$N python3 - "$WORK/plain" <<'PY'
import os, sys
n = int(os.environ["N"])
os.chdir(sys.argv[1])
for i in range(n):
    os.makedirs("p%d/d%d" % (i // 100, i % 100))
PY
(cd "$WORK/repo" && git init -q . && M=$M python3 -c '
import os
for i in range(int(os.environ["M"])):
    open("f%d" % i, "w").write("%d\n" % i)' &&
	git add -A && git -c user.email=b@b -c user.name=b commit -qm m)
LOOSE=$(find "$WORK/repo/.git/objects" -type f | wc -l)

i=0
for l in "${libs[@]}"; do
	$CC -std=gnu11 -O2 -D_GNU_SOURCE -I"$l/include" -I"$l/launcher/protect" \
		-I"$l/launcher/engine" -I"$l/launcher/runners" -I"$l/launcher/kernel" -I"$l/classify" \
		-I"$l/policy" -o "$WORK/walk$i" \
		tests/helpers/walk_bench.c "$l/libsbx.a" -ljansson
	i=$((i + 1))
done

printf 'bench-git-walk: fastest of %s walks, kernel %s, %s\n' "$RUNS" "$(uname -r)" \
	"$(df -T "$WORK" | awk 'NR == 2 { print $2 }')"
printf '| %-28s | %-26s | %10s | %8s | %9s | %7s |\n' tree case "us/walk" dirs "ns/dir" ratio
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------ ---------------------------- \
	------------ ---------- ----------- ---------
for c in plain repo; do
	label="plain $N dirs"
	[ $c = repo ] && label="repo, $LOOSE loose objects"
	first=
	for j in $(seq 0 $((i - 1))); do
		out=$("$WORK/walk$j" "$WORK/$c" "$RUNS")
		ns=$(awk '$1 == "ns" { print $2 }' <<<"$out")
		dirs=$(awk '$1 == "dirs" { print $2 }' <<<"$out")
		[ "$(awk '$1 == "partial" { print $2 }' <<<"$out")" = 1 ] && dirs="$dirs*"
		first=${first:-$ns}
		printf '| %-28s | %-26s | %10.0f | %8s | %9.0f | %6.2fx |\n' "${libs[$j]}" "$label" \
			"$(bc -l <<<"$ns / 1000")" "$dirs" "$(bc -l <<<"$ns / ${dirs%\*}")" \
			"$(bc -l <<<"$ns / $first")"
	done
done
echo "(* the walk stopped short: \"protected\": \"partial\")"
