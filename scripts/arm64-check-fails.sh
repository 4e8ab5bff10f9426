#!/bin/bash
# SPDX-License-Identifier: MIT
# make check-arm64 can fail: a scratch copy of this tree whose landlock runner
# lets a confined command write /var/tmp on purpose (where the guest's checks
# keep the files the command must not change), cross-built and checked in the
# stock boot. The check must fail, and name the checks that caught it. Exit 0
# when it did (the lines are printed), 1 when the broken build passed.
#
#   scripts/arm64-check-fails.sh
#
# The tree itself is never changed; the copy is removed at exit.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-arm64-broken-XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$top" && tar --exclude='*.o' --exclude='*.a' --exclude='libsbx.so*' --exclude='./sbx' \
	--exclude='./.git' --exclude='./tests/mcp/node_modules' --exclude='./.config.stamp' \
	--exclude='./build' --exclude='./deps' -cf - .) | tar -C "$work" -xf -
make -s -C "$work" clean >/dev/null
# The break: beside the run's /tmp, the landlock runner grants /var/tmp.
f=$work/launcher/runners/runner_landlock.c
sed -i 's|(rc = landlock_allow_path(rs, spec->tmp_dir, all)) < 0)|((rc = landlock_allow_path(rs, spec->tmp_dir, all)) < 0 \|\| (rc = landlock_allow_path(rs, "/var/tmp", all)) < 0))|' "$f"
grep -q '"/var/tmp", all' "$f" || {
	echo "arm64-check-fails: the break did not apply to $f" >&2
	exit 2
}
echo "arm64-check-fails: scratch build with /var/tmp writable under the landlock runner"
jobs=$(nproc 2>/dev/null || echo 2)
make -s -C "$work" ARCH=arm64 -j"$jobs" all \
	$(printf 'build/arm64/tests/helpers/%s ' sidedoor sockserver syscallprobe inodeioctl) >/dev/null
if SBX_ARM64_BUILD=$work/build/arm64 "$top/scripts/arm64-check.sh" stock >"$work/log" 2>&1; then
	cat "$work/log"
	echo "arm64-check-fails: the broken build PASSED make check-arm64's checks" >&2
	exit 1
fi
grep -E ': FAIL |failed' "$work/log"
if grep -q ': FAIL confined-write \[landlock/' "$work/log"; then
	echo "arm64-check-fails: the broken build failed, with the checks named: as it must"
	exit 0
fi
echo "arm64-check-fails: it failed, but not at confined-write [landlock/...]" >&2
exit 1
