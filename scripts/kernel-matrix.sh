#!/bin/bash
# SPDX-License-Identifier: MIT
# The old-kernel matrix (issue 13): the containment and run suites, with sbx
# and everything it starts seeing the system calls of an older kernel: every
# call introduced after it answers ENOSYS, and the newer flags and operations
# of old calls that sbx depends on answer EINVAL (tests/helpers/nofeature
# kernel=X.Y, from launcher/kernel/syscall_table.def). Both suites run as
# root and as nobody (AS_CALLER / AS_NOBODY), under every runner the
# emulated kernel offers; the other runner's cases check that sbx refuses it.
#
#   scripts/kernel-matrix.sh [X.Y...]     (default: 4.19 5.4 5.10 5.15)
#
# One line per kernel; exit 1 if any failed. It runs natively (about a
# minute), so `make check` runs it (`make check-kernels`). What it cannot
# show: what an old kernel silently ignores (clone's CLONE_PIDFD before 5.2:
# sbx asks pidfd_open first, which the emulation does refuse), changed
# semantics, and /proc or /sys contents; the qemu runs (vm-check.sh) boot a
# real 6.1 for those.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.19 5.4 5.10 5.15)
nofeature=$top/tests/helpers/nofeature
for b in sbx tests/helpers/nofeature tests/e2e/test_contain tests/e2e/test_run; do
	[ -x "$top/$b" ] || {
		echo "kernel-matrix: $b is not built (run: make check-kernels)" >&2
		exit 2
	}
done
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-matrix-XXXXXX")
trap 'rm -rf "$work"' EXIT

# What sbx must make of each kernel: which runners work (Landlock came with
# 5.13) and what `sbx probe` says about the pieces that came later.
expect() {
	case $1 in
	4.19)
		runners=namespace
		probe=("landlock: no:" "io_uring: no: io_uring_setup: Function not implemented"
			"mount API: mount_setattr no"
			"workspace-write: runner namespace, enforcement full, processes private")
		;;
	5.4)
		runners=namespace
		probe=("landlock: no:" "io_uring: no: io_uring lacks the operations sbx uses"
			"mount API: mount_setattr no"
			"workspace-write: runner namespace, enforcement full, processes private")
		;;
	5.10)
		runners=namespace
		probe=("landlock: no:" "io_uring: yes" "mount API: mount_setattr no"
			"workspace-write: runner namespace, enforcement full, processes private")
		;;
	5.15)
		runners=namespace,landlock
		probe=("landlock: ABI" "io_uring: yes" "mount API: mount_setattr yes"
			"workspace-write: runner namespace, enforcement full, processes private")
		;;
	*)
		echo "kernel-matrix: no expectations written for $1" >&2
		exit 2
		;;
	esac
}

# A build without io_uring (CONFIG_IO_URING=n) never uses it, on any kernel.
uring_built=yes
"$top/sbx" probe --json | grep -q '"io_uring":false' && uring_built=no

failed=0
passed_versions=0
for v in "${versions[@]}"; do
	expect "$v"
	line=""
	bad=0
	out=$("$nofeature" "kernel=$v" -- "$top/sbx" probe 2>&1)
	for want in "${probe[@]}"; do
		[[ $uring_built == no && $want == io_uring:* ]] && continue
		if ! grep -qF -- "$want" <<<"$out"; then
			line="$line; probe does not say \"$want\""
			bad=1
		fi
	done
	for s in contain run; do
		tap=$work/$v-$s.tap
		SBX_E2E_RUNNERS=$runners "$nofeature" "kernel=$v" -- \
			"$top/tests/e2e/test_$s" --jobs 2 --ascii --tap="$tap" >"$work/$v-$s.log" 2>&1
		rc=$?
		p=$(grep -c '^ok - .*)$' "$tap")
		r=$(grep -c '^ok - .*# SKIP .*is not offered here' "$tap")
		f=$(grep -c '^not ok' "$tap")
		line="$line; $s $p passed, $r refused as expected, $f failed"
		if [ $rc != 0 ] || [ "$f" != 0 ]; then
			bad=1
			grep -a -A8 -E '\[FAIL\]|Assertion Failed|CRASH' "$work/$v-$s.log" | head -n 40 |
				sed 's/^/    /'
		fi
	done
	if [ $bad = 0 ]; then
		echo "kernel-matrix: as $v (runners: $runners): PASS${line}"
		passed_versions=$((passed_versions + 1))
	else
		echo "kernel-matrix: as $v (runners: $runners): FAIL${line}"
		echo "$out" | sed 's/^/    probe: /'
		failed=$((failed + 1))
	fi
done
echo "kernel-matrix: $passed_versions passed, $failed failed"
[ $failed = 0 ]
