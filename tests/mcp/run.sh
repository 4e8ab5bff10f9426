#!/bin/sh
# SPDX-License-Identifier: MIT
# Real MCP clients against the built ./sbx: the official TypeScript SDK
# (test_sdk.mjs) and the MCP inspector's CLI mode. Installs the pinned
# clients from the npm registry first (npm ci from package-lock.json) when
# they are missing or stale. Run from anywhere after `make sbx
# tests/helpers/nofeature`. Last line: "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
sbx=$top/sbx
passed=0
failed=0

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
	echo "mcp: node and npm are needed (scripts/deps.sh installs them)" >&2
	echo "0 passed, 1 failed"
	exit 1
}
# The lock file is the pin: install exactly it, again whenever it changed.
if ! cmp -s "$here/package-lock.json" "$here/node_modules/.package-lock.json.sbx" 2>/dev/null; then
	echo "mcp: installing the pinned clients (npm ci)"
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || {
		echo "0 passed, 1 failed"
		exit 1
	}
	cp "$here/package-lock.json" "$here/node_modules/.package-lock.json.sbx"
fi

# ---- the SDK ----
out=$(cd "$here" && node test_sdk.mjs "$sbx" "$top/tests/helpers/nofeature" 2>&1)
echo "$out"
line=$(echo "$out" | tail -n 1)
p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))

# ---- the inspector's CLI mode, a second client ----
work=$(mktemp -d /var/tmp/sbx-mcp-inspector-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/root" "$work/outside"
inspector() {
	(cd "$here" && env -u SBX_CONFIG npx --no -- @modelcontextprotocol/inspector --cli "$@")
}
# t NAME FUNCTION: run the check, count it, show its output on failure.
t() {
	if "$2" >"$work/log" 2>&1; then
		passed=$((passed + 1))
		echo "ok    inspector: $1"
	else
		failed=$((failed + 1))
		echo "FAIL  inspector: $1"
		sed 's/^/      /' "$work/log" | tail -n 30
	fi
}
list_tools() {
	out=$(inspector --method tools/list -- "$sbx" mcp --root "$work/root") || return 1
	echo "$out"
	for n in bash task_output task_stop; do
		echo "$out" | grep -q "\"name\": \"$n\"" || return 1
	done
}
# The inspector takes --tool-arg values up to the next option: it comes first.
write_inside() {
	out=$(inspector --tool-arg 'command=echo hi > via-inspector' --method tools/call \
		--tool-name bash -- "$sbx" mcp --root "$work/root" --mode workspace-write) || return 1
	echo "$out"
	echo "$out" | grep -q '"isError": false' && [ "$(cat "$work/root/via-inspector")" = hi ]
}
write_outside() {
	out=$(inspector --tool-arg "command=echo x > $work/outside/x" --method tools/call \
		--tool-name bash -- "$sbx" mcp --root "$work/root" --mode workspace-write)
	echo "$out"
	echo "$out" | grep -q '"isError": true' &&
		echo "$out" | grep -qF '[sandbox: file access denied under workspace-write mode]' &&
		[ ! -e "$work/outside/x" ]
}
t "tools/list names bash, task_output, task_stop" list_tools
t "tools/call bash writes inside the root (on disk)" write_inside
t "tools/call bash outside the root is denied (nothing on disk)" write_outside

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
