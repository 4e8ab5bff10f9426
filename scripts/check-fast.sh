#!/bin/bash
# SPDX-License-Identifier: MIT
# The inner loop (make check-fast): the tree's shape (scripts/layers.py),
# every unit suite and every e2e suite that needs no VM, no kernel download
# and no network install, but the few left to make check (below), several
# suites at once, the attack suites in a diagonal of their matrix (each
# runner once, each user once: SBX_E2E_QUICK, tests/e2e/common.h). About 5
# minutes on an idle 2-core machine: the suites' CPU time is what it is made
# of, and each suite's is printed. `make check` stays
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
# time, the longest first. A suite is "NAME", "NAME:FILTER" (Criterion's
# --filter) or "NAME:FILTER:JOBS" (its tests JOBS at a time, else 2). Each suite's output goes to a log; a failing suite's log is
# printed whole. Exit 1 if any failed.
set -uo pipefail
TIMEFORMAT='%U %S'

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
# And one test alone, one instance at a time: git_hidden/above_root_in_tmp
# makes the user's own repository in the host's /tmp, and what changes there
# while any landlock run of the same uid is live counts as a run's (the git
# rules, docs/workspace.md): beside other suites its hook was put back.
# test_mount_calls compares the host's mount table before and after its
# runs, which other suites' fixtures (a full disk, a loop device) change.
solo=("test_supervisor:supervisor/@($hungry)" test_limits test_concurrent_ends
	"test_git_hidden:git_hidden/above_root_in_tmp:1" test_mount_calls)
# Left to `make check` (a third of this loop's time on 2 cores, where the
# loop must stay near 5 minutes): the classification corpora (real tools,
# gcc, pip, npm, git, three runs per entry per configuration; the unit
# suites test the classifier itself) and the 1 GiB output through each
# collector (256 MiB runs here), and serve_cleanup's 100,000 entries put
# back off serve's loop (at a scale that could not tell, it would catch
# nothing). Said when the loop starts.
left="the classification corpora (test_corpus, test_corpus_families, test_corpus_kinds), output/size_1g and test_serve_cleanup (100,000 entries)"
skip=" test_corpus test_corpus_families test_corpus_kinds test_serve_cleanup "
# A test that repeats a race or a load many times repeats it fewer times
# here, and the attack suites run each runner and each user once, with the
# same assertions (e2e_quick, e2e_matrix in tests/e2e/common.h).
export SBX_E2E_QUICK=1
# The longest first, so the pool drains evenly; the ones that mostly wait
# (sleeps, timeouts) among them, so their waits overlap the others' work.
long=("test_supervisor:supervisor/!($hungry)" test_socket_policy test_abstract_sockets
	test_sidedoors test_escape "test_output:output/!(size_1g)"
	test_credential_stores "test_git_hidden:git_hidden/!(above_root_in_tmp)" test_library test_git_trust test_git_staged
	test_git_allowlist test_markers_reader test_markers_unicode test_omitted_line test_spill
	test_contain test_run test_view test_serve)

logs=$(mktemp -d "${TMPDIR:-/tmp}/sbx-check-fast-XXXXXX")
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
failed=()
echo "check-fast: left to make check: $left"

python3 scripts/layers.py || failed+=(layers)
scripts/mutants/anchors.py || failed+=(mutant-anchors)

# One suite (PATH, PATH:FILTER or PATH:FILTER:JOBS): its log, its time, its
# verdict line.
run_suite() {
	local t=${1%%:*} filter= name s e jobs=2
	name=$(basename "$t")
	# Unit and e2e suites share some names (test_limits): one log each.
	case $t in tests/unit/*) name=unit.$name ;; esac
	case $1 in *:*:*) jobs=${1##*:} ;; esac
	case $1 in *:*) filter=${1#*:}; filter=${filter%:[0-9]*}
		name=$name.$(printf '%s' "$filter" | md5sum | cut -c1-6) ;; esac
	s=$(date +%s)
	# The CPU it took (user + system, its children's too): on 2 cores
	# that, not the wall time, is what the loop's length is made of.
	{ time { "$t" --jobs "$jobs" ${filter:+--filter "$filter"} >"$logs/$name.log" 2>&1
		echo $? >"$logs/$name.rc"; }; } 2>"$logs/$name.cpu"
	e=$(date +%s)
	printf '%-34s %4ss %5ss cpu  %s\n' "$name" $((e - s)) \
		"$(awk '{ printf "%.0f", $1 + $2 }' "$logs/$name.cpu")" \
		"$(grep -ho 'Tested: .*' "$logs/$name.log" | tail -n 1)"
}

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
	case $named$skip in *" $(basename "$t") "*) continue ;; esac
	queue+=("$t")
done
# The unit suites last: short, they fill the pool's gaps as it drains.
for t in tests/unit/test_*; do
	case $t in *.*) continue ;; esac
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
echo "check-fast: $(($(date +%s) - start)) s, $(cat "$logs"/*.cpu | awk '{ c += $1 + $2 } END { printf "%.0f", c }') s of CPU in the suites, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
