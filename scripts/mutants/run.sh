#!/bin/bash
# SPDX-License-Identifier: MIT
# The mutation suite (make check-mutants): each file scripts/mutants/*.mut
# breaks one security decision with a one-line change, and names the suites
# that must catch it. In a scratch copy of the tree (objects kept, so each
# mutant rebuilds one file), every mutant is applied alone, sbx and the
# named suites are rebuilt, the suites run, and the file is restored. A
# mutant is killed when a suite fails; it survives when all pass. A mutant
# whose line is no longer in its file (the code moved on) is stale: that is
# a failure too, so the suite cannot rot silently.
#
#   scripts/mutants/run.sh [NAME...]     all mutants, or those named
#
# Prints one line per mutant, then `mutants: N, killed: K`, and every
# survivor or stale mutant by name. Exit 1 on any survivor or stale mutant.
#
# A .mut file:
#   # what the mutant breaks, and the promise (a doc and its section)
#   file: launcher/runners/ns_proc.c
#   suites: test_view:view/proc_* test_root_caller
#   - <the exact line as it is, leading whitespace ignored>
#   + <what it becomes>
# `suites` lists e2e or unit suites, each with an optional Criterion filter
# after a colon; they run in that order and the first failure kills.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
muts=()
if [ $# -gt 0 ]; then
	for n in "$@"; do muts+=("$top/scripts/mutants/$n.mut"); done
else
	for m in "$top"/scripts/mutants/*.mut; do muts+=("$m"); done
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/sbx-mutants-XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
# nobody runs the suites' commands from inside the copy
chmod 755 "$scratch"
(cd "$top" && tar --exclude='./.git' --exclude='./tests/mcp/node_modules' --exclude='./build' \
	-cf - .) | tar -C "$scratch" -xf -
jobs=$(nproc 2>/dev/null || echo 2)
echo "mutants: building the scratch copy"
make -s -C "$scratch" -j"$jobs" test-programs >"$scratch/build.log" 2>&1 ||
	{ cat "$scratch/build.log"; echo "mutants: the tree does not build" >&2; exit 2; }

field() { sed -n "s/^$1:[[:space:]]*//p" "$2" | head -n 1; }

# One suite spec (SUITE or SUITE:FILTER) in the scratch copy; its log in
# $scratch/suite.log. 0: every test passed and at least one ran.
run_spec() {
	local b=${1%%:*} f= bin
	case $1 in *:*) f=${1#*:} ;; esac
	[ -x "$scratch/tests/e2e/$b" ] && bin=$scratch/tests/e2e/$b || bin=$scratch/tests/unit/$b
	(cd "$scratch" && "$bin" --jobs 2 ${f:+--filter "$f"}) >"$scratch/suite.log" 2>&1 || return 1
	grep -q 'Tested: [1-9]' "$scratch/suite.log" || return 2
}

# Every suite a mutant names must pass on the tree as it is, once: a kill
# is then the mutant's doing, not a suite that fails anyway (a helper not
# built, a filter that matches nothing, a flaky test).
declare -A clean
for m in "${muts[@]}"; do
	[ -f "$m" ] || continue
	for s in $(field suites "$m"); do
		[ -n "${clean[$s]:-}" ] && continue
		if run_spec "$s"; then
			clean[$s]=ok
		else
			clean[$s]=fails
			echo "mutants: $s fails (or runs nothing) without any mutant:"
			grep -m3 -A2 'Assertion Failed\|CRASH\|Timed out\|Tested:' "$scratch/suite.log"
		fi
	done
done

total=0 killed=0
bad=()
for m in "${muts[@]}"; do
	name=$(basename "$m" .mut)
	total=$((total + 1))
	if [ ! -f "$m" ]; then
		echo "STALE    $name: no such mutant"
		bad+=("$name (no such mutant)")
		continue
	fi
	file=$(field file "$m")
	suites=$(field suites "$m")
	old=$(sed -n 's/^- //p' "$m")
	new=$(sed -n 's/^+ //p' "$m")
	if ! python3 - "$scratch/$file" "$old" "$new" <<'PY'; then
import sys
path, old, new = sys.argv[1], sys.argv[2].strip(), sys.argv[3]
try:
    lines = open(path).read().split("\n")
except OSError:
    sys.exit(1)
hits = [i for i, l in enumerate(lines) if l.strip() == old]
if len(hits) != 1:
    sys.exit(1)
i = hits[0]
indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
lines[i] = indent + new.strip()
open(path + ".mutant", "w").write("\n".join(lines))
PY
		echo "STALE    $name: its line is not in $file exactly once"
		bad+=("$name (stale: $file)")
		continue
	fi
	cp -p "$scratch/$file" "$scratch/$file.orig"
	mv "$scratch/$file.mutant" "$scratch/$file"
	targets="sbx"
	for s in $suites; do
		b=${s%%:*}
		case $b in
		*/*) targets="$targets $b" ;;
		test_unit_* | test_*) [ -f "$scratch/tests/e2e/$b.c" ] && targets="$targets tests/e2e/$b" ||
			targets="$targets tests/unit/$b" ;;
		esac
	done
	verdict=SURVIVED
	why=""
	for s in $suites; do
		[ "${clean[$s]}" = ok ] || { verdict=BROKEN; why="$s fails without the mutant"; }
	done
	if [ $verdict = BROKEN ]; then
		:
	elif ! make -s -C "$scratch" -j"$jobs" $targets tests/helpers/nofeature >"$scratch/build.log" 2>&1; then
		verdict=BROKEN
		why="does not build: $(grep -m1 'error' "$scratch/build.log")"
	else
		for s in $suites; do
			if ! run_spec "$s"; then
				verdict=KILLED
				why="by $s: $(grep -m1 -A2 'Assertion Failed\|CRASH\|Timed out' "$scratch/suite.log" |
					tr -s ' \n' ' ' | cut -c1-160)"
				break
			fi
		done
	fi
	mv "$scratch/$file.orig" "$scratch/$file"
	touch "$scratch/$file"
	printf '%-8s %s %s\n' "$verdict" "$name" "$why"
	case $verdict in
	KILLED) killed=$((killed + 1)) ;;
	*) bad+=("$name ($verdict${why:+: $why})") ;;
	esac
done
echo "mutants: $total, killed: $killed"
for b in "${bad[@]}"; do echo "  not killed: $b"; done
[ ${#bad[@]} -eq 0 ]
