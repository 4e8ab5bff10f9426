#!/bin/bash
# SPDX-License-Identifier: MIT
# Output-collection benchmark (issues 2 and 18): 512 MiB of stdout through
# `sbx run --mode danger-full-access` (human mode, stdout to /dev/null) against
# the same bytes through a plain `| cat`, for both collectors
# (SBX_COLLECTOR=io_uring and =poll; sbx run's default is poll), interleaved, median of
# RUNS each, with the time ratio sbx/plain; --json (spilling the stream to a
# file) against its fair baseline, `| tee FILE > /dev/null` (the bytes go to a
# file too); and sbx's own peak RSS (VmHWM of the sbx process, read by the
# command from /proc/$PPID/status once the bytes went through). Prints
# figures, asserts nothing about time. Builds nothing: run `make sbx` first
# (and `make tests/helpers/nofeature` for BASELINE_SBX, whose poll case needs it).
#
#   scripts/bench-output.sh [RUNS]      (default 5; SIZE=512M to change the size;
#                                        BASELINE_SBX=path adds that binary's
#                                        human and --json cases, interleaved)
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${1:-5}
SIZE=${SIZE:-512M}
SBX=${SBX:-./sbx}
NOFEATURE=./tests/helpers/nofeature

[[ -x $SBX ]] || { echo "bench-output: ./sbx not found; build it first (make sbx)" >&2; exit 1; }
[[ -z ${BASELINE_SBX:-} || -x $NOFEATURE ]] || {
	echo "bench-output: $NOFEATURE (for BASELINE_SBX) not found; build it first (make tests/helpers/nofeature)" >&2
	exit 1
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

GEN="head -c $SIZE /dev/zero"

# name -> command line (run by bash -c, stdout to /dev/null)
declare -A CMD=(
	[plain]="$GEN | cat > /dev/null"
	[tee]="$GEN | tee $WORK/tee.out > /dev/null; rm -f $WORK/tee.out"
	[plain-cat]="$GEN | cat | cat > /dev/null"
	[sbx-cat]="$SBX run --mode danger-full-access -- '$GEN' | cat > /dev/null"
	[sbx-uring]="SBX_COLLECTOR=io_uring $SBX run --mode danger-full-access -- '$GEN' > /dev/null"
	[sbx-poll]="SBX_COLLECTOR=poll $SBX run --mode danger-full-access -- '$GEN' > /dev/null"
	[json-uring]="SBX_COLLECTOR=io_uring $SBX run --mode danger-full-access --json --spill-dir $WORK -- '$GEN' > /dev/null; rm -f $WORK/*"
	[json-poll]="SBX_COLLECTOR=poll $SBX run --mode danger-full-access --json --spill-dir $WORK -- '$GEN' > /dev/null; rm -f $WORK/*"
)
ORDER=(plain tee plain-cat sbx-uring sbx-poll sbx-cat json-uring json-poll)
if [[ -n ${BASELINE_SBX:-} ]]; then
	B=$(realpath "$BASELINE_SBX")
	CMD[base-uring]="$B run --mode danger-full-access -- '$GEN' > /dev/null"
	CMD[base-poll]="$NOFEATURE io_uring -- $B run --mode danger-full-access -- '$GEN' > /dev/null"
	CMD[base-cat]="$B run --mode danger-full-access -- '$GEN' | cat > /dev/null"
	CMD[json-base]="$B run --mode danger-full-access --json --spill-dir $WORK -- '$GEN' > /dev/null; rm -f $WORK/*"
	ORDER+=(base-uring base-poll base-cat json-base)
fi

now_ns() {
	local t=$EPOCHREALTIME # seconds.microseconds, no fork
	echo $(( ${t%.*} * 1000000000 + 10#${t#*.} * 1000 ))
}

declare -A TIMES
for ((i = 1; i <= RUNS; i++)); do
	for name in "${ORDER[@]}"; do
		t0=$(now_ns)
		bash -c "${CMD[$name]}"
		t1=$(now_ns)
		TIMES[$name]+="$(( (t1 - t0) / 1000 )) "
	done
done

median_us() { # list of microsecond figures -> median
	tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {
		if (NR % 2) print a[(NR + 1) / 2]; else print int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}

declare -A MED
for name in "${ORDER[@]}"; do
	MED[$name]=$(median_us "${TIMES[$name]}")
done

bytes=$(numfmt --from=iec "$SIZE")
echo "sbx output benchmark: $SIZE of stdout, median of $RUNS runs each (interleaved), $(nproc) CPUs"
# Human mode against `| cat`; --json (it spills) against `| tee FILE`;
# human mode read through a pipe (`sbx ... | cat`) against `| cat | cat`.
echo "plain: | cat > /dev/null; tee: | tee FILE; plain-cat: | cat | cat; sbx-uring, sbx-poll:"
echo "sbx run (human) > /dev/null with that collector; sbx-cat: sbx run | cat; json-*: sbx run --json"
echo "(spills the stream to a file); ratio: median / the baseline's median"
printf '%-12s %10s %10s %10s %12s   %s\n' variant median_ms MiB/s baseline ratio runs_ms
for name in "${ORDER[@]}"; do
	m=${MED[$name]}
	base=plain
	[[ $name == json-* ]] && base=tee
	# into a reader through one more pipe: against `| cat | cat`
	[[ $name == *-cat ]] && base=plain-cat
	runs=$(for t in ${TIMES[$name]}; do printf '%d ' $((t / 1000)); done)
	awk -v m="$m" -v p="${MED[$base]}" -v b="$bytes" -v n="$name" -v r="$runs" -v bn="$base" 'BEGIN {
		printf "%-12s %10.1f %10.0f %10s %11.2fx   %s\n", n, m / 1000, b / 1048576 / (m / 1e6), bn, m / p, r }'
done

# sbx's own peak RSS: VmHWM of the sbx process (bash's parent), read after the
# bytes went through; /usr/bin/time's %M (the largest of sbx, bash and head)
# for reference when it is installed.
rss() { # collector-prefix json-flag
	local pre=$1 json=$2 out probe="$GEN; sleep 0.2; grep VmHWM /proc/\$PPID/status >&2"
	if [[ -z $json ]]; then
		out=$($pre $SBX run --mode danger-full-access -- "$probe" 2>&1 >/dev/null | grep VmHWM || true)
	else
		# --json: the command's stderr is inside the JSON object ("VmHWM:\t  N kB")
		out=$($pre $SBX run --mode danger-full-access --json --spill-dir "$WORK" -- "$probe" |
			grep -o 'VmHWM:[^"]*kB' | sed 's/\\t/ /g' || true)
		rm -f "$WORK"/*
	fi
	awk '{print $2}' <<<"$out" | head -n1
}
echo
echo "sbx peak RSS (VmHWM of the sbx process after $SIZE):"
for c in uring poll; do
	pre="env SBX_COLLECTOR=poll"
	[[ $c == uring ]] && pre="env SBX_COLLECTOR=io_uring"
	h=$(rss "$pre" "")
	j=$(rss "$pre" "--json")
	printf '  %-6s human %6s kB   --json %6s kB\n' "$c" "${h:-?}" "${j:-?}"
done
if [[ -x /usr/bin/time ]]; then
	m=$(/usr/bin/time -f %M -o "$WORK/time.out" $SBX run --mode danger-full-access -- "$GEN" >/dev/null \
		&& cat "$WORK/time.out")
	echo "  /usr/bin/time %M (max of sbx, bash, head; default collector, human): ${m} kB"
	rm -f "$WORK/time.out"
fi
