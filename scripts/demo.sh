#!/bin/bash
# SPDX-License-Identifier: MIT
# A newcomer's first look: the three modes on one small workspace. Each step
# prints the command as you would type it, what it printed, and what that
# means; a refusal the step expects is shown as expected. Exits non-zero if
# anything went otherwise than the demo says.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
SBX=$top/sbx
[ -x "$SBX" ] || { echo "demo: build sbx first (make)" >&2; exit 1; }

ws=$(mktemp -d /var/tmp/sbx-demo-XXXXXX)
outside=$(mktemp -d /var/tmp/sbx-demo-outside-XXXXXX)
spills=$(mktemp -d /var/tmp/sbx-demo-cache-XXXXXX)
trap 'rm -rf "$ws" "$outside" "$spills"' EXIT
export XDG_CACHE_HOME=$spills # keep the demo's spill files (if any) with the demo
echo "hello" > "$ws/README"
cd "$ws"
surprises=0

# Colours only to a terminal (and not with NO_COLOR): a log file gets plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	B=$'\033[1m' G=$'\033[32m' R=$'\033[31m' N=$'\033[0m'
else
	B='' G='' R='' N=''
fi
bold() { printf '\n%s%s%s\n' "$B" "$*" "$N"; }
note() { printf '  %s-> %s%s\n' "$G" "$*" "$N"; }
surprise() { printf '  %s-> UNEXPECTED: %s%s\n' "$R" "$*" "$N"; surprises=$((surprises + 1)); }

# A word as a user would type it: bare when the shell would leave it alone,
# else in single quotes.
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./=:@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}

# show PROGRAM ARGS...: print the command line, run it (sbx from this build),
# leave its exit status in $rc.
show() {
	local prog=$1 line=$1
	shift
	for a in "$@"; do line="$line $(quote "$a")"; done
	printf '$ %s\n' "$line"
	[ "$prog" = sbx ] && prog=$SBX
	set +e
	"$prog" "$@"
	rc=$?
	set -e
}

denied_as_expected() {
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 125 ]; then
		note "denied, as expected: the sandbox refused the write (exit $rc) and the marker line says so"
	else
		surprise "the write was not refused (exit $rc)"
	fi
}

allowed() {
	if [ "$rc" -eq 0 ]; then note "allowed (exit 0)"; else surprise "exit $rc"; fi
}

echo "sbx demo: a workspace at $ws with one file, README."
echo "Commands are shown as you would type them in that directory; 'sbx' is $SBX."

bold "What this kernel gives sbx"
show sbx probe

bold "read-only (the default): a write in the workspace is refused"
show sbx run -- 'echo change >> README'
denied_as_expected
show cat README

bold "workspace-write: the same write is allowed ..."
show sbx run --mode workspace-write -- 'echo change >> README'
allowed
show cat README

bold "... while a write outside the workspace is refused"
show sbx run --mode workspace-write -- "touch $outside/escaped"
denied_as_expected
if [ -e "$outside/escaped" ]; then surprise "$outside/escaped exists"; else note "and $outside/escaped does not exist"; fi

bold "danger-full-access: no confinement at all"
show sbx run --mode danger-full-access -- "touch $outside/allowed"
allowed
[ -e "$outside/allowed" ] && note "$outside/allowed exists" || surprise "$outside/allowed is missing"

bold "What a harness reads: one JSON object per command"
show sbx run --json --escalation -- 'rm README'
if [ "$rc" -ne 0 ] && [ -e README ]; then
	note "denied, as expected: \"denied\":true, and the second marker tells the model it may ask for more"
else
	surprise "rm README was not refused (exit $rc)"
fi

echo
if [ "$surprises" -eq 0 ]; then
	echo "Every step went as described. Next: ./sbx help (make install puts sbx on your" \
		"PATH), man -l man/sbx.1, README.md."
else
	echo "demo: $surprises step(s) went otherwise than described" >&2
	exit 1
fi
