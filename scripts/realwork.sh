#!/bin/bash
# SPDX-License-Identifier: MIT
# The real-work suite (issue 19): everyday agent workflows (git, make, cmake,
# ccache, venv + pip, pytest, black/pylint/mypy, npm/npx, node, go, cargo,
# sqlite3, vim, tar/zip, sockets, locks, ptys, daemons, file watchers, /tmp across calls,
# /dev/shm, /dev/tty, nested namespaces, ...), each run unconfined and then
# confined under each runner, every time in a fresh fixture at the same path,
# and compared: exit status, stdout and stderr (after the workflow's own
# normalisation), the workspace on disk (type, mode, owner, size, content),
# and that nothing outside the root and the tool cache changed. A workflow that
# writes where the policy must refuse (the user's config files in $HOME,
# anything outside the root and the cache, protected paths such as
# .git/hooks) says so in its definition: then the confined run must be marked
# denied (sandbox.denied and the marker) and leave that path alone; anywhere
# else a marker is a FAIL.
#
# Users: "caller" (whoever runs this, over a workspace of its own), and when
# that is root also "nobody" (uid 65534 over its own workspace) and
# "root>nobody" (root over a workspace nobody owns). Without root only the
# caller's column runs; the others say "needs root".
#
# Prints a table (workflow x runner x user: same / denied / FAIL) and the
# reason for every FAIL; exits 1 on any FAIL.
#
#   scripts/realwork.sh [--fast] [--only ERE] [--runner R] [--user KIND]
#                       [--jobs N] [--keep] [--list]
#
# --fast is what `make check` runs (make check-realwork): the 43 workflows
# marked fast in tests/realwork/wf_*.sh, about 3 minutes on 2 cores (the whole
# suite: 84 workflows, 10-15 minutes by the load). Left out of the fast subset, and why:
#   - the npm registry (npm-registry): the network may be slow or down;
#   - the slow tools (cmake, cargo, go, mypy, pylint, black, venvs and pip,
#     expect, bwrap): each run costs seconds; the whole suite covers them;
#   - near-duplicates of a fast workflow (more git, tar, text, tty and watcher
#     workflows, tcp-local beside http-daemon, home-config-dir beside
#     home-dotfile, ...), for time;
# Known cells (ssh-agent under the landlock runner on kernels before 6.16)
# run and show as "known": not counted in the fast subset, FAIL in the whole
# suite.
# Every tool the suite drives is installed by `scripts/deps.sh all`; a tool
# that is missing is a FAIL that names it, never a silent skip.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
SBX=${SBX:-$top/sbx}
fast=0
only=""
runners="namespace landlock"
kinds=""
jobs=2
keep=0
list=0
timeout_s=300

while [ $# -gt 0 ]; do
	case $1 in
	--fast) fast=1 ;;
	--only) only=$2; shift ;;
	--runner) runners=$2; shift ;;
	--user) kinds="$kinds $2"; shift ;;
	--jobs) jobs=$2; shift ;;
	--keep) keep=1 ;;
	--list) list=1 ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "realwork: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
	shift
done

[ -x "$SBX" ] || { echo "realwork: $SBX not found; build it first (make sbx)" >&2; exit 2; }
for tool in jq setpriv setsid timeout find md5sum; do
	command -v $tool >/dev/null || { echo "realwork: $tool is missing (scripts/deps.sh all)" >&2; exit 2; }
done

me=$(id -u)
if [ -z "$kinds" ]; then
	kinds=caller
	[ "$me" -ne 0 ] || kinds="caller nobody root>nobody"
fi
all_kinds="caller nobody root>nobody"

# Not under /tmp: the namespace runner gives the command a /tmp of its own,
# and the landlock runner lets it write the host's.
work=$(mktemp -d /var/tmp/sbx-realwork-XXXXXX) || exit 2
chmod 755 "$work"
cleanup() {
	[ "$keep" -eq 1 ] && { echo "realwork: kept $work"; return; }
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/bin" "$work/defs" "$work/res" "$work/fx"
# A copy every user can execute (the build tree may be private).
cp "$SBX" "$work/bin/sbx" && chmod 755 "$work/bin/sbx"
SBX=$work/bin/sbx

RW_DEFS=$work/defs
. "$top/tests/realwork/dsl.sh"
for f in "$top"/tests/realwork/wf_*.sh; do
	. "$f"
done
. "$top/tests/realwork/side.sh"
. "$top/tests/realwork/verdict.sh"

selected=""
for d in "$RW_DEFS"/*/; do
	name=$(basename "$d")
	[ "$fast" -eq 0 ] || [ -e "$d/fast" ] || continue
	[ -z "$only" ] || echo "$name" | grep -Eq -- "$only" || continue
	selected="$selected $name"
done
[ -n "$selected" ] || { echo "realwork: no workflow selected" >&2; exit 2; }

if [ "$list" -eq 1 ]; then
	for name in $selected; do
		d=$RW_DEFS/$name
		printf '%-24s %-4s %-15s %s\n' "$name" "$([ -e "$d/fast" ] && echo fast)" \
			"$(cat "$d/mode")" "$(cat "$d/desc")"
	done
	exit 0
fi

start=$(date +%s)
n=0
for name in $selected; do
	for kind in $kinds; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
		done
		run_job "$name" "$kind" &
		n=$((n + 1))
	done
done
wait
elapsed=$(($(date +%s) - start))

print_table "$selected"
echo "realwork: $n workflow x user jobs, ${elapsed}s ($([ "$fast" -eq 1 ] && echo fast subset || echo whole suite))"
[ "$(cat "$work/res"/*/*/*.cell 2>/dev/null | grep -c '^FAIL')" -eq 0 ]
