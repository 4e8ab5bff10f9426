#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end check of what a newcomer installs and copies: scripts/install.sh
# into a temporary DESTDIR, pkg-config on the staged sbx.pc, examples/embed.c
# compiled and run against the installed files, man -l on the installed pages,
# no setuid bit or file capabilities on the installed sbx, and both
# `sbx serve` examples against the built ./sbx.
#
# Run from anywhere after `make all`. Last line: "N passed, M failed";
# exits non-zero on any failure.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
prefix=/usr/local
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-examples-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
dest=$work/dest
staged=$dest$prefix
log=$work/log
passed=0
failed=0

# t NAME COMMAND...: run COMMAND, count it, show its output on failure.
t() {
	name=$1
	shift
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok    $name"
	else
		failed=$((failed + 1))
		echo "FAIL  $name"
		sed 's/^/      /' "$log" | tail -n 40
	fi
}

have() { command -v "$1" >/dev/null 2>&1; }

# ---- install ----
t "install.sh into a temporary DESTDIR" scripts/install.sh "$dest" "$prefix"
t "install.sh is idempotent" scripts/install.sh "$dest" "$prefix"
for f in bin/sbx include/sbx.h lib/libsbx.a lib/pkgconfig/sbx.pc \
	share/man/man1/sbx.1 share/man/man5/sbx.conf.5; do
	t "installed $f" test -f "$staged/$f"
done

# ---- no privilege on the installed binary ----
t "bin/sbx has mode 0755" sh -c '[ "$(stat -c %a "$1")" = 755 ]' _ "$staged/bin/sbx"
t "bin/sbx is neither setuid nor setgid" sh -c '[ ! -u "$1" ] && [ ! -g "$1" ]' _ "$staged/bin/sbx"
getcap_bin=$(PATH=$PATH:/usr/sbin:/sbin command -v getcap 2>/dev/null || true)
if [ -n "$getcap_bin" ]; then
	t "bin/sbx carries no file capabilities" \
		sh -c 'out=$("$1" "$2") || exit 1; [ -z "$out" ] || { echo "$out"; exit 1; }' \
		_ "$getcap_bin" "$staged/bin/sbx"
else
	echo "skip  getcap not installed (install.sh checks too)"
fi
t "installed sbx runs and confines (read-only write denied, marker shown)" \
	sh -c 'out=$("$1" run -- "echo x > /etc/sbx-examples-test" 2>&1); rc=$?
		printf "%s\n(exit %s)\n" "$out" "$rc"
		[ "$rc" -ne 0 ] && [ "$rc" -ne 125 ] &&
		printf "%s\n" "$out" | grep -qxF "[sandbox: file access denied under read-only mode]"' \
	_ "$staged/bin/sbx"

# ---- pkg-config ----
PKG_CONFIG_PATH=$staged/lib/pkgconfig
export PKG_CONFIG_PATH
pc() { pkg-config --define-variable=prefix="$staged" "$@"; }
t "pkg-config --exists sbx" pc --exists sbx
t "pkg-config --validate sbx" pkg-config --validate sbx
t "sbx.pc has no unreplaced placeholder" sh -c '! grep -n "@[A-Z]*@" "$1"' _ "$staged/lib/pkgconfig/sbx.pc"
t "sbx.pc names the real prefix" grep -qx "prefix=$prefix" "$staged/lib/pkgconfig/sbx.pc"
t "pkg-config --cflags points at the staged include dir" \
	sh -c 'pkg-config --define-variable=prefix="$1" --cflags sbx | grep -qF -- "-I$1/include"' _ "$staged"

# ---- examples/embed.c against the installed files only ----
t "embed.c compiles against the installed sbx" \
	sh -c 'cc -std=gnu11 -Wall -Wextra -Werror -o "$2/embed" examples/embed.c \
		$(pkg-config --define-variable=prefix="$1" --cflags --libs --static sbx)' _ "$staged" "$work"
t "embed reports the denial and exits 0" \
	sh -c '"$1/embed" > "$1/embed.out" && cat "$1/embed.out" &&
		grep -qx "denied: yes" "$1/embed.out" &&
		grep -qF "\"denied\":true" "$1/embed.out"' _ "$work"

# ---- man pages ----
for page in share/man/man1/sbx.1 share/man/man5/sbx.conf.5; do
	t "man -l $page" sh -c 'man -l "$1" >/dev/null' _ "$staged/$page"
	t "man --warnings $page is silent" \
		sh -c 'w=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null); [ -z "$w" ] || { echo "$w"; exit 1; }' \
		_ "$staged/$page"
done
t "sbx(1) shows the three markers byte for byte" sh -c '
	LC_ALL=C.UTF-8 MANWIDTH=300 man -l "$1" 2>/dev/null | sed -n "s/^ *\(\[sandbox: [a-z].*\]\)$/\1/p" > "$2/m.txt"
	grep -qxF "[sandbox: file access denied under <mode> mode]" "$2/m.txt" &&
	grep -qxF "[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]" "$2/m.txt" &&
	grep -qxF "[sandbox: the sandbox runner itself failed under <mode> mode — the command did not run; this is a sandbox problem, not a command failure]" "$2/m.txt"' \
	_ "$staged/share/man/man1/sbx.1" "$work"

# ---- sbx serve examples against the built ./sbx ----
if have python3; then
	t "scripts/serve_example.py" python3 -B scripts/serve_example.py "$top/sbx"
else
	failed=$((failed + 1))
	echo "FAIL  python3 not found"
fi
if have node; then
	t "scripts/serve_example.mjs" node scripts/serve_example.mjs "$top/sbx"
else
	failed=$((failed + 1))
	echo "FAIL  node not found"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
