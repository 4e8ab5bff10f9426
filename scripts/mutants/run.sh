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
#   scripts/mutants/run.sh [--no-baseline] [NAME-OR-GLOB...]
#       all mutants, or those named (`run.sh 'ns-*' keyring-no-fresh-session`)
#
# Prints one line per mutant, then `mutants: N, killed: K`, and every
# survivor or stale mutant by name. Exit 1 on any survivor or stale mutant.
#
# Speed (it runs in CI after make check): the scratch copy persists between
# runs (SBX_MUTANTS_DIR, default $TMPDIR/sbx-mutants-UID-HASH of the tree) and
# is brought up to date with the tree, objects and test programs included, so
# a built tree needs no build there. A mutant recompiles its one object and
# relinks sbx and its suites; afterwards the source, that object and every
# program relinked are put back as they were (same bytes, same times), so
# the next mutant starts from a built tree again. The baseline (each suite
# spec passes without any mutant) runs once per distinct spec; --no-baseline
# (SBX_MUTANTS_BASELINE=0) skips it when make check has just run the suites.
#
# A .mut file:
#   # what the mutant breaks, and the promise (a doc and its section)
#   file: launcher/runners/ns_proc.c
#   suites: test_view:view/proc_* test_root_caller
#   rebuilds: <optional: further files its build rewrites, to be put back>
#   - <the exact line as it is, leading whitespace ignored>
#   + <what it becomes>
# `suites` lists e2e or unit suites, each with an optional Criterion filter
# after a colon; they run in that order and the first failure kills. Name
# the narrowest filter that kills: every suite named costs a run per mutant.
# Killers to avoid: suites that leave many fds in flight for nobody
# (inflight, passed_fds, lingering, lockstep, waiting_sends) can make later
# runs as nobody fail with ETOOMANYREFS, a kill that is not the mutant's.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
baseline=${SBX_MUTANTS_BASELINE:-1}
pats=()
for a in "$@"; do
	case $a in
	--no-baseline) baseline=0 ;;
	*) pats+=("${a%.mut}") ;;
	esac
done
muts=()
if [ ${#pats[@]} -gt 0 ]; then
	for n in "${pats[@]}"; do
		found=0
		for m in "$top"/scripts/mutants/$n.mut; do
			[ -f "$m" ] && { muts+=("$m"); found=1; }
		done
		[ $found = 1 ] || muts+=("$top/scripts/mutants/$n.mut")
	done
else
	for m in "$top"/scripts/mutants/*.mut; do muts+=("$m"); done
fi

scratch=${SBX_MUTANTS_DIR:-${TMPDIR:-/tmp}/sbx-mutants-$(id -u)-$(printf %s "$top" | md5sum | cut -c1-8)}
mkdir -p "$scratch"
# nobody runs the suites' commands from inside the copy
chmod 755 "$scratch"
# One run at a time in one scratch copy.
exec 9>"$scratch.lock"
flock -n 9 || { echo "mutants: another run holds $scratch.lock" >&2; exit 2; }
# A run stopped half-way left a mutant in the copy: the next sync puts the
# tree's file back (its size or time differs) and make rebuilds from there.
if command -v rsync >/dev/null; then
	rsync -a --delete --exclude=/.git --exclude=/tests/mcp/node_modules --exclude=/.mutant \
		"$top"/ "$scratch"/
else
	(cd "$top" && tar --exclude='./.git' --exclude='./tests/mcp/node_modules' -cf - .) |
		tar -C "$scratch" -xf -
fi
rm -rf "$scratch/.mutant"
mkdir -p "$scratch/.mutant"
jobs=$(nproc 2>/dev/null || echo 2)
echo "mutants: bringing the scratch copy up to date ($scratch)"
make -s -C "$scratch" -j"$jobs" test-programs >"$scratch/.mutant/build.log" 2>&1 ||
	{ cat "$scratch/.mutant/build.log"; echo "mutants: the tree does not build" >&2; exit 2; }

field() { sed -n "s/^$1:[[:space:]]*//p" "$2" | head -n 1; }

# One suite spec (SUITE or SUITE:FILTER) in the scratch copy; its log in
# $scratch/.mutant/suite.log. 0: every test passed and at least one ran.
run_spec() {
	local b=${1%%:*} f= bin
	case $1 in *:*) f=${1#*:} ;; esac
	[ -x "$scratch/tests/e2e/$b" ] && bin=$scratch/tests/e2e/$b || bin=$scratch/tests/unit/$b
	(cd "$scratch" && "$bin" --jobs 2 ${f:+--filter "$f"}) >"$scratch/.mutant/suite.log" 2>&1 || return 1
	grep -q 'Tested: [1-9]' "$scratch/.mutant/suite.log" || return 2
}

# Every suite a mutant names must pass on the tree as it is, once: a kill
# is then the mutant's doing, not a suite that fails anyway (a helper not
# built, a filter that matches nothing, a flaky test).
declare -A clean
for m in "${muts[@]}"; do
	[ -f "$m" ] || continue
	for s in $(field suites "$m"); do
		[ -n "${clean[$s]:-}" ] && continue
		# Once more on a failure: a suite can fail under load, or on a
		# count another user's tests hold (ETOOMANYREFS).
		if [ "$baseline" = 0 ] || run_spec "$s" || run_spec "$s"; then
			clean[$s]=ok
		else
			clean[$s]=fails
			echo "mutants: $s fails (or runs nothing) without any mutant:"
			grep -m3 -A2 'Assertion Failed\|CRASH\|Timed out\|Tested:' "$scratch/.mutant/suite.log"
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
	cp -p "$scratch/$file" "$scratch/.mutant/source"
	mv "$scratch/$file.mutant" "$scratch/$file"
	targets="sbx tests/helpers/nofeature"
	for s in $suites; do
		b=${s%%:*}
		[ -f "$scratch/tests/e2e/$b.c" ] && targets="$targets tests/e2e/$b" ||
			targets="$targets tests/unit/$b"
	done
	# What the mutant's build rewrites, kept to be put back: its object,
	# the archive and the programs it relinks.
	saved="libsbx.a $targets $(field rebuilds "$m")"
	case $file in *.c) saved="$saved ${file%.c}.o" ;; esac
	rm -rf "$scratch/.mutant/saved"
	for o in $saved; do
		[ -f "$scratch/$o" ] || continue
		mkdir -p "$scratch/.mutant/saved/$(dirname "$o")"
		cp -p "$scratch/$o" "$scratch/.mutant/saved/$o"
	done
	touch "$scratch/.mutant/stamp"
	verdict=SURVIVED
	why=""
	for s in $suites; do
		[ "${clean[$s]}" = ok ] || { verdict=BROKEN; why="$s fails without the mutant"; }
	done
	if [ $verdict = BROKEN ]; then
		:
	elif ! make -s -C "$scratch" -j"$jobs" $targets >"$scratch/.mutant/build.log" 2>&1; then
		verdict=BROKEN
		why="does not build: $(grep -m1 'error' "$scratch/.mutant/build.log")"
	else
		for s in $suites; do
			if ! run_spec "$s"; then
				verdict=KILLED
				why="by $s: $(grep -m1 -A2 'Assertion Failed\|CRASH\|Timed out' "$scratch/.mutant/suite.log" |
					tr -s ' \n' ' ' | cut -c1-160)"
				break
			fi
		done
	fi
	# Put back the source and what was rebuilt from it, times included:
	# make then sees the tree as built, and the next mutant rebuilds only
	# its own object. Anything else the build rewrote (a generated file)
	# is not known good: the source is touched, so make redoes it all.
	cp -p "$scratch/.mutant/source" "$scratch/$file"
	(cd "$scratch/.mutant/saved" 2>/dev/null && find . -type f) | while read -r o; do
		cp -p "$scratch/.mutant/saved/$o" "$scratch/$o"
	done
	if (cd "$scratch" && find . -path ./.mutant -prune -o -path ./.git -prune -o -type f \
		-newer .mutant/stamp -print | grep -v '^\./tests/' | grep -q .); then
		echo "  ($name: its build rewrote more than it names: rebuilt from its source next)"
		touch "$scratch/$file"
	fi
	printf '%-8s %s %s\n' "$verdict" "$name" "$why"
	case $verdict in
	KILLED) killed=$((killed + 1)) ;;
	*) bad+=("$name ($verdict${why:+: $why})") ;;
	esac
done
echo "mutants: $total, killed: $killed"
for b in "${bad[@]}"; do echo "  not killed: $b"; done
[ ${#bad[@]} -eq 0 ]
