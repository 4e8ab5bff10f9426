#!/bin/bash
# SPDX-License-Identifier: MIT
# The inner loop (make check-fast): the tree's shape (scripts/layers.py),
# every unit suite and every e2e suite that needs no VM, no kernel download
# and no network install (the classification corpora in one locale, below),
# several suites at once. `make check` stays
# everything (this, the examples, MCP clients, real work, the minimal and
# dynamic builds, the old-kernel matrix, the VMs) and is what CI runs.
#
#   scripts/check-fast.sh [-j N]     N suites at once (default 3)
#
# Tests that fill per-user kernel resources would fail others running beside
# them, so they run alone, after the rest: the supervisor's tests of fds in
# flight on unix sockets and of lingering copies (the user's share of fds in
# flight, RLIMIT_NPROC), test_limits (a user's process count is its
# RLIMIT_NPROC) and test_concurrent_ends (pid reuse). The rest run N at a
# time, the longest first. A suite is "NAME" or "NAME:FILTER" (Criterion's
# --filter). Each suite's output goes to a log; a failing suite's log is
# printed whole. Exit 1 if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
par=3
while [ $# -gt 0 ]; do
	case $1 in
	-j) par=$2; shift 2 ;;
	-j*) par=${1#-j}; shift ;;
	*) echo "usage: $0 [-j N]" >&2; exit 2 ;;
	esac
done

hungry='*inflight*|*passed_fds*|*lingering*|*lockstep*|*waiting_sends*'
solo=("test_supervisor:supervisor/@($hungry)" test_limits test_concurrent_ends)
# The classification corpora run in one locale each here (root and nobody,
# both runners), the one whose catalog differs most from the C locale's
# words; `make check` runs them in every locale (C.UTF-8, de_DE, zh_CN for
# the families; fr_FR, ja_JP, pl_PL for the kinds). They are most of this
# loop's time otherwise: each entry is three runs per configuration.
families="test_corpus_families:families/zh_cn_*"
kinds="test_corpus_kinds:kinds/ja_jp_*"
# The longest first, so the pool drains evenly.
long=("$families" "$kinds" "test_supervisor:supervisor/!($hungry)" test_corpus test_output
	test_socket_policy test_sidedoors test_escape test_library test_spill test_contain test_run
	test_view test_serve)

logs=$(mktemp -d "${TMPDIR:-/tmp}/sbx-check-fast-XXXXXX")
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
failed=()

python3 scripts/layers.py || failed+=(layers)

# One suite (PATH or PATH:FILTER): its log, its time, its verdict line.
run_suite() {
	local t=${1%%:*} filter= name s e rc
	name=$(basename "$t")
	case $1 in *:*) filter=${1#*:}; name=$name.$(printf '%s' "$filter" | md5sum | cut -c1-6) ;; esac
	s=$(date +%s)
	"$t" --jobs 2 ${filter:+--filter "$filter"} >"$logs/$name.log" 2>&1
	rc=$?
	e=$(date +%s)
	echo "$rc" >"$logs/$name.rc"
	printf '%-34s %4ss  %s\n' "$name" $((e - s)) \
		"$(grep -ho 'Tested: .*' "$logs/$name.log" | tail -n 1)"
}

for t in tests/unit/test_*; do
	case $t in *.*) continue ;; esac
	run_suite "$t"
done

queue=()
named=" "
for n in "${long[@]}" "${solo[@]}"; do
	named="$named${n%%:*} "
done
for n in "${long[@]}"; do
	queue+=("tests/e2e/$n")
done
for t in tests/e2e/test_*; do
	case $t in *.*) continue ;; esac
	case $named in *" $(basename "$t") "*) continue ;; esac
	queue+=("$t")
done
for t in "${queue[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do
		wait -n
	done
	run_suite "$t" &
done
wait
for n in "${solo[@]}"; do
	run_suite "tests/e2e/$n"
done

for rc in "$logs"/*.rc; do
	[ "$(cat "$rc")" = 0 ] && continue
	n=$(basename "$rc" .rc)
	failed+=("$n")
	echo "==== $n (failed) ===="
	cat "$logs/$n.log"
done
echo "check-fast: $(($(date +%s) - start)) s, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
