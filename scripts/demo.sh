#!/bin/bash
# SPDX-License-Identifier: MIT
# A newcomer's first look: the three modes on one small workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
SBX=./sbx
[ -x "$SBX" ] || { echo "demo: build sbx first (make)" >&2; exit 1; }

ws=$(mktemp -d /var/tmp/sbx-demo-XXXXXX)
outside=$(mktemp -d /var/tmp/sbx-demo-outside-XXXXXX)
trap 'rm -rf "$ws" "$outside"' EXIT
echo "hello" > "$ws/README"

step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }
run() { set +e; "$@"; local rc=$?; set -e; echo "(exit $rc)"; }

step "what this kernel gives sbx" "sbx probe"
$SBX probe

step "read-only (the default): a write in the workspace is denied" \
     "sbx run --root $ws -- 'echo change >> README'"
run $SBX run --root "$ws" -- 'echo change >> README'
echo "README still says: $(cat "$ws/README")"

step "workspace-write: the same write is allowed ..." \
     "sbx run --mode workspace-write --root $ws -- 'echo change >> README'"
run $SBX run --mode workspace-write --root "$ws" -- 'echo change >> README'
echo "README now says: $(tr '\n' ' ' < "$ws/README")"

step "... while a write outside the root is denied" \
     "sbx run --mode workspace-write --root $ws -- 'touch $outside/escaped'"
run $SBX run --mode workspace-write --root "$ws" -- "touch $outside/escaped"
[ -e "$outside/escaped" ] && echo "UNEXPECTED: $outside/escaped exists" || echo "$outside/escaped does not exist"

step "danger-full-access: no confinement at all" \
     "sbx run --mode danger-full-access --root $ws -- 'touch $outside/allowed'"
run $SBX run --mode danger-full-access --root "$ws" -- "touch $outside/allowed"
[ -e "$outside/allowed" ] && echo "$outside/allowed exists"

step "the JSON result of one call (what a harness reads)" \
     "sbx run --json --escalation --root $ws -- 'rm README'"
run $SBX run --json --escalation --root "$ws" -- 'rm README'
