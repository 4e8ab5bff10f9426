#!/bin/sh
# SPDX-License-Identifier: MIT
# Build every libFuzzer target (tests/fuzz/fuzz_*.c) and run each for a
# bounded time from a scratch copy of its seed corpus (tests/fuzz/corpus_*/),
# so the checked-in corpus is never changed. Exits non-zero if a target fails
# to build or finds a crash, a sanitizer report, a leak or a timeout; the
# reproducer is kept and its path printed.
#
#   FUZZ_SECONDS=60 (default) seconds per target
#   CLANG=clang      the compiler (falls back to clang-14)
#   FUZZ_KEEP=1      keep the scratch directory even when all is well
set -eu

cd "$(dirname "$0")/.."

SECONDS_EACH=${FUZZ_SECONDS:-60}
case $SECONDS_EACH in
'' | *[!0-9]*) echo "fuzz: FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2 ;;
esac
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || CLANG=clang-14
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz: clang not found" >&2; exit 2; }

CFLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
-D_GNU_SOURCE -Iinclude -Ilauncher/front -Ilauncher/engine -Ilauncher/supervisor -Ilauncher/protect -Ilauncher/output -Ilauncher/runners -Ilauncher/kernel -Ipolicy -Iclassify"
JANSSON=$(pkg-config --libs jansson 2>/dev/null || echo -ljansson)
JANSSON=$(echo $JANSSON) # no stray spaces

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbx-fuzz.XXXXXX")
failed=0

# target name, then its sources (besides tests/fuzz/fuzz_<name>.c) and libraries
build() {
	name=$1
	shift
	echo "fuzz: building $name"
	# shellcheck disable=SC2086
	"$CLANG" $CFLAGS "tests/fuzz/fuzz_$name.c" "$@" -o "$WORK/fuzz_$name"
}

# target name, then extra libFuzzer flags (one word list)
run() {
	name=$1
	extra=$2
	mkdir -p "$WORK/corpus_$name" "$WORK/artifacts_$name"
	cp -R "tests/fuzz/corpus_$name/." "$WORK/corpus_$name/"
	echo "fuzz: running $name for ${SECONDS_EACH}s"
	# shellcheck disable=SC2086
	if "$WORK/fuzz_$name" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
		-detect_leaks=1 -print_final_stats=1 $extra \
		-artifact_prefix="$WORK/artifacts_$name/" "$WORK/corpus_$name" \
		>"$WORK/$name.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/$name.log")
		echo "fuzz: $name ok (${runs:-?} runs)"
	else
		failed=1
		echo "fuzz: $name FAILED; log: $WORK/$name.log" >&2
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$WORK/$name.log" | head -20 >&2
		for a in "$WORK/artifacts_$name"/*; do
			[ -e "$a" ] && echo "fuzz: reproducer: $a" >&2
		done
	fi
}

# A dictionary of the request grammar helps libFuzzer past the JSON syntax.
cat >"$WORK/request.dict" <<'DICT'
"{"
"}"
"\"jsonrpc\":\"2.0\""
"\"id\":"
"\"method\":"
"\"params\":"
"\"result\":"
"\"error\":"
"\"run\""
"\"task/output\""
"\"task/kill\""
"\"session/open\""
"\"$/cancel\""
"\"session\":"
"\"command\":"
"\"cwd\":"
"\"sandbox_permissions\":"
"\"justification\":"
"\"timeout_ms\":"
"\"background\":"
"\"since\":"
"\"stdout\":"
"\"stderr\":"
"true"
"false"
"null"
"\\u0000"
"604800000"
DICT

build config policy/*.c launcher/engine/error.c $JANSSON || failed=1
build request launcher/front/jsonrpc_msg.c launcher/front/jsonrpc_params.c launcher/engine/error.c $JANSSON || failed=1
build baseline launcher/protect/protect_base_file.c launcher/protect/protect_record.c launcher/protect/protect_fs.c \
	launcher/protect/protect_ancestors.c launcher/protect/protect_snapshot.c || failed=1
if [ "$failed" -ne 0 ]; then
	echo "fuzz: build failed; scratch: $WORK" >&2
	exit 1
fi

run config ""
run request "-dict=$WORK/request.dict -max_len=8192"
run baseline "-max_len=4096"

if [ "$failed" -ne 0 ]; then
	echo "fuzz: FAILED (scratch kept: $WORK)" >&2
	exit 1
fi
if [ "${FUZZ_KEEP:-0}" = 1 ]; then
	echo "fuzz: all targets clean (scratch kept: $WORK)"
else
	rm -rf "$WORK"
	echo "fuzz: all targets clean"
fi
