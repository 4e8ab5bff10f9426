#!/bin/bash
# SPDX-License-Identifier: MIT
# Classifier benchmark (issues 5 and 14, "Performance"). Prints figures and
# the share of a run that classification costs; asserts nothing.
#
# 1. The classifier alone: tests/helpers/classify_bench.c, compiled here
#    against libsbx.a, feeds MIB MiB of realistic output (build noise, test
#    runners, JSON logs, colour; 1 line in 40 a dialect line, English and
#    German) through evidence_feed in 64 KiB chunks on both streams, with and
#    without the command's language, next to a memcpy of the same chunks;
#    and times the part every run pays whatever it prints (evidence_init with
#    the language, the cached locale lookup, evidence_finish, classify_denied).
# 2. Real runs: typical agent commands under `sbx run --mode workspace-write`
#    (confined, both streams watched, LANG=de_DE.UTF-8), the fastest wall
#    time of RUNS; the same command's stdout and stderr are captured once more
#    (unconfined, to files) and classify_bench --files times classifying
#    exactly that output (init, feed in 64 KiB reads, finish, decide): its
#    share of the run. The last row is a worst case (SIZE of output and
#    nothing else), reported as it is.
#
#   scripts/bench-classify.sh [MIB]     (default 64; RUNS=7, SIZE=64M to change)
# Builds nothing of sbx: run `make all` first.
set -euo pipefail

cd "$(dirname "$0")/.."
MIB=${1:-64}
RUNS=${RUNS:-7}
SIZE=${SIZE:-64M}
SBX=./sbx
CC=${CC:-gcc}

[[ -x $SBX && -f libsbx.a ]] || { echo "bench-classify: ./sbx or libsbx.a missing; build first (make all)" >&2; exit 1; }

# Not under /tmp: a confined command may write /tmp, and the spill directory
# must lie outside what it may write (sbx refuses otherwise).
WORK=$(mktemp -d "/var/tmp/sbx-bench-classify-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/spill" "$WORK/root"

echo "== 1. the classifier alone"
$CC -std=gnu11 -O2 -D_GNU_SOURCE -Iclassify -Ilauncher/engine -o "$WORK/classify_bench" \
	tests/helpers/classify_bench.c libsbx.a
"$WORK/classify_bench" "$MIB" "$RUNS" > "$WORK/alone"
val() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/alone"; }
EN=$(val feed_english_ns_per_mib)
DE=$(val feed_local_ns_per_mib)
CP=$(val memcpy_ns_per_mib)
FIXED=$(val per_run_fixed_ns)
FIRST=$(val first_derivation_ns)
printf '  %s MiB of output, %s lines, %s dialect lines; German text for EROFS: %s\n' \
	"$(val input_mib)" "$(val lines)" "$(val dialect_lines)" "$(awk '$1 == "local_text_erofs" { $1 = ""; print substr($0, 2) }' "$WORK/alone")"
printf '  evidence_feed, English only:      %8.0f ns per MiB  (%.1fx memcpy)\n' "$EN" "$(bc -l <<<"$EN / $CP")"
printf '  evidence_feed, command language:  %8.0f ns per MiB  (%.1fx memcpy)\n' "$DE" "$(bc -l <<<"$DE / $CP")"
printf '  every run, whatever its output:   %8.0f ns  (language from the cache)\n' "$FIXED"
printf '  first run in a new locale:        %8.0f ns  (catalogs read once per process and locale, while the command starts)\n' "$FIRST"

now_ns() {
	local t=$EPOCHREALTIME # seconds.microseconds, no fork
	echo $(( ${t%.*} * 1000000000 + 10#${t#*.} * 1000 ))
}

fastest() { # numbers -> the smallest (a shared machine only ever adds time)
	tr ' ' '\n' <<<"$1" | grep . | sort -n | head -1
}

cd "$WORK/root"
printf '#include <stdio.h>\nint main(void)\n{\n\tint unused;\n\tputs("hi");\n}\n' > hello.c
cd - > /dev/null

echo "== 2. real runs (workspace-write, fastest of $RUNS; classifying each run's own output, fastest of $RUNS)"
if ! $SBX run --mode workspace-write --root "$WORK/root" -- true 2>/dev/null; then
	echo "  (sbx cannot confine here; skipped)"
	exit 0
fi
printf '  %-44s %10s %12s %14s %9s\n' command "run (ms)" "output (KiB)" "classify (us)" "share"
worst_typical=0
row() { # TITLE COMMAND [typical|worst]
	local title=$1 cmd=$2 kind=${3:-typical} times="" bytes=0 t0 t1 ms kib us share
	for ((i = 1; i <= RUNS; i++)); do
		t0=$(now_ns)
		LANG=de_DE.UTF-8 $SBX run --json --mode workspace-write --root "$WORK/root" \
			--spill-dir "$WORK/spill" -- "$cmd" > /dev/null || true
		t1=$(now_ns)
		rm -rf "${WORK:?}/spill/"* 2>/dev/null || true
		times+="$(( (t1 - t0) / 1000 )) "
	done
	local us_run
	us_run=$(fastest "$times")
	ms=$(bc -l <<<"$us_run / 1000")
	(cd "$WORK/root" && LANG=de_DE.UTF-8 bash -c "$cmd" > "$WORK/out" 2> "$WORK/err") || true
	"$WORK/classify_bench" --files "$WORK/out" "$WORK/err" "$RUNS" > "$WORK/files"
	bytes=$(awk '$1 == "files_bytes" { print $2 }' "$WORK/files")
	kib=$(bc -l <<<"$bytes / 1024")
	us=$(bc -l <<<"$(awk '$1 == "files_ns" { print $2 }' "$WORK/files") / 1000")
	share=$(bc -l <<<"100 * $us / $us_run")
	printf '  %-44s %10.1f %12.1f %14.1f %8.3f%%\n' "$title" "$ms" "$kib" "$us" "$share"
	if [[ $kind == typical ]] && (( $(bc <<<"$share > $worst_typical") )); then
		worst_typical=$share
	fi
}
row "true" "true"
row "gcc -Wall -c (one warning)" "gcc -Wall -c hello.c"
row "git --version; ls -la /usr/bin" "git --version; ls -la /usr/bin"
row "python3: 2000 test-report lines on stdout" \
	"python3 -c 'for i in range(2000): print(f\"tests/test_{i}.py::test_case PASSED [{i%100:3d}%]\")'"
row "find /usr/share/doc (a large listing)" "find /usr/share/doc"
row "$SIZE of compiler warnings (worst case)" \
	"yes \"src/parser.c:412:17: warning: unused variable 'tmp' [-Wunused-variable]\" | head -c $SIZE" worst
printf '  typical runs: classification costs at most %.3f%% of a run (%s)\n' "$worst_typical" \
	"$( (( $(bc <<<"$worst_typical < 1") )) && echo "under 1%" || echo "NOT under 1%")"
