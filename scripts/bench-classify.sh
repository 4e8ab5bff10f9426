#!/bin/bash
# SPDX-License-Identifier: MIT
# Classifier benchmark (issue 5, "Performance"). Prints figures, asserts nothing.
#
# 1. The classifier alone: tests/helpers/classify_bench.c, compiled here with
#    gcc together with classify/*.c (the classifier is pure; no libsbx.a needed),
#    feeds MIB MiB of realistic stderr (compiler/build noise, 1 line in 40 a
#    dialect line) through evidence_feed in 64 KiB chunks and reports MiB/s and
#    ns per MiB, next to a memcpy of the same chunks.
# 2. The classifier inside sbx: `sbx run --json --mode danger-full-access` with
#    SIZE bytes to stderr (classified) against the same to stdout (not
#    classified), interleaved, median of RUNS, and the ratio stderr/stdout.
#    Then the same pair with line-structured output (every line goes through
#    the line matcher), and confined (workspace-write, the runner's dialects
#    watched) when this machine can confine.
#
#   scripts/bench-classify.sh [MIB]     (default 64; RUNS=3, SIZE=256M to change)
# Builds nothing of sbx: run `make sbx` first.
set -euo pipefail

cd "$(dirname "$0")/.."
MIB=${1:-64}
RUNS=${RUNS:-3}
SIZE=${SIZE:-256M}
SBX=./sbx
CC=${CC:-gcc}

[[ -x $SBX ]] || { echo "bench-classify: ./sbx not found; build it first (make sbx)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench-classify-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/spill" "$WORK/root"

echo "== 1. evidence_feed alone"
$CC -std=gnu11 -O2 -D_GNU_SOURCE -Iclassify -o "$WORK/classify_bench" \
	tests/helpers/classify_bench.c classify/*.c
"$WORK/classify_bench" "$MIB" 5

now_ns() {
	local t=$EPOCHREALTIME # seconds.microseconds, no fork
	echo $(( ${t%.*} * 1000000000 + 10#${t#*.} * 1000 ))
}

median_us() { # list of microsecond figures -> median
	tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {
		if (NR % 2) print a[(NR + 1) / 2]; else print int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}

# bench_pair TITLE SBX_ARGS GEN: GEN to stderr vs to stdout through sbx --json,
# interleaved, median of RUNS, ratio.
bench_pair() {
	local title=$1 args=$2 gen=$3 err_t="" out_t="" t0 t1 e o
	for ((i = 1; i <= RUNS; i++)); do
		for which in err out; do
			local redir='>&2'
			[[ $which == out ]] && redir=''
			t0=$(now_ns)
			# shellcheck disable=SC2086
			$SBX run --json $args --spill-dir "$WORK/spill" -- "$gen $redir" > /dev/null
			t1=$(now_ns)
			rm -f "$WORK/spill"/* 2>/dev/null || true
			rm -rf "$WORK/spill"/*/ 2>/dev/null || true
			if [[ $which == err ]]; then err_t+="$(( (t1 - t0) / 1000 )) "; else out_t+="$(( (t1 - t0) / 1000 )) "; fi
		done
	done
	e=$(median_us "$err_t")
	o=$(median_us "$out_t")
	printf '  %-58s stderr %7.3f s  stdout %7.3f s  ratio stderr/stdout %.3f\n' \
		"$title" "$(bc -l <<<"$e / 1000000")" "$(bc -l <<<"$o / 1000000")" \
		"$(bc -l <<<"$e / $o")"
}

echo "== 2. inside sbx ($SIZE per run, median of $RUNS, interleaved)"
bench_pair "danger-full-access, head -c $SIZE /dev/zero" \
	"--mode danger-full-access" "head -c $SIZE /dev/zero"
LINE="src/parser.c:412:17: warning: unused variable 'tmp' [-Wunused-variable]"
bench_pair "danger-full-access, $SIZE of compiler warning lines" \
	"--mode danger-full-access" "yes \"$LINE\" | head -c $SIZE"
if $SBX run --mode workspace-write --root "$WORK/root" -- true 2>/dev/null; then
	bench_pair "workspace-write (dialects watched), $SIZE of warning lines" \
		"--mode workspace-write --root $WORK/root" "yes \"$LINE\" | head -c $SIZE"
else
	echo "  (workspace-write: sbx cannot confine here; skipped)"
fi
