#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/deps.sh and deps-mnl.sh (the optional libmnl.a) as `make demo` and
# `make check` run them, on a multiarch system (every package installed for
# two architectures) whose Debian archive serves no source packages (the
# package manager answers 404): with everything installed, nothing is
# installed and no package manager runs; libmnl.a's skip is one line saying
# it is optional, none of the package manager's Err:/E: lines, exit 0; a
# second run says the same without asking the archive again; the version
# asked for is the package's, once. Runs the scripts in a scratch copy of
# the tree with a fake apt-get, dpkg-query and npm first on PATH. Last line:
# "N passed, M failed".
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-deps-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
passed=0
failed=0

t() {
	name=$1
	shift
	if "$@" >"$work/t.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok    $name"
	else
		failed=$((failed + 1))
		echo "FAIL  $name"
		sed 's/^/      /' "$work/t.log" | tail -n 20
	fi
}

mkdir -p "$work/tree/scripts" "$work/bin"
cp "$top/scripts/deps.sh" "$top/scripts/deps-mnl.sh" "$work/tree/scripts/"
# What apt-get says where the source package is not there.
cat >"$work/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_LOG"
case " $* " in
*" source "*)
	echo "Err:1 http://deb.debian.org/debian bookworm/main libmnl 1.0.4-3 (tar)" >&2
	echo "  404  Not Found [IP: 203.0.113.80 80]" >&2
	echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/libm/libmnl/libmnl_1.0.4.orig.tar.bz2  404  Not Found" >&2
	exit 100 ;;
esac
exit 0
EOF
# libmnl0 installed for two architectures: dpkg-query -W prints its -f
# format once for each (no newline unless the format has one).
cat >"$work/bin/dpkg-query" <<'EOF'
#!/bin/sh
for a; do case $a in -f=*) f=${a#-f=} ;; esac; done
v=$(printf '%s' "$f" | sed 's/\${source:Version}/1.0.4-3/g; s/\${db:Status-Status}/installed/g')
printf "$v"
printf "$v"
EOF
printf '#!/bin/sh\nexit 0\n' >"$work/bin/dpkg-source"
cp "$work/bin/dpkg-source" "$work/bin/npm"
chmod +x "$work/bin/apt-get" "$work/bin/dpkg-query" "$work/bin/dpkg-source" "$work/bin/npm"
export FAKE_LOG="$work/apt.log"

run() { PATH="$work/bin:$PATH" sh "$work/tree/scripts/deps-mnl.sh" >"$work/out" 2>&1; }

# Everything installed, for two architectures: no package manager at all.
all_present() {
	PATH="$work/bin:$PATH" sh "$work/tree/scripts/deps.sh" "$1" >"$work/out" 2>&1 ||
		{ cat "$work/out"; return 1; }
	cat "$work/out" "$FAKE_LOG" 2>/dev/null
	grep -qx "deps: all packages present ($1)" "$work/out" && ! grep -q " install " "$FAKE_LOG"
}
for group in run all; do
	: >"$FAKE_LOG"
	rm -rf "$work/tree/deps"
	t "deps.sh $group: everything installed (multiarch), nothing installed" all_present "$group"
done
rm -rf "$work/tree/deps"
: >"$FAKE_LOG"

one_line_skip() {
	run || { echo "exit status $?"; cat "$work/out"; return 1; }
	cat "$work/out"
	[ "$(wc -l <"$work/out")" -eq 1 ] && grep -q "(optional) skipped" "$work/out" &&
		! grep -qE '(^|: )(E|Err|W):' "$work/out"
}
t "an unreachable source package: one line, optional and skipped, exit 0" one_line_skip
t "the package manager's words are kept in deps/libmnl.log" \
	grep -q "404  Not Found" "$work/tree/deps/libmnl.log"
t "the version asked for is the package's, once (multiarch)" \
	sh -c 'cat "$1"; grep -q "source --download-only libmnl=1.0.4-3\$" "$1"' _ "$FAKE_LOG"
: >"$FAKE_LOG"
again() {
	one_line_skip && grep -q "as before" "$work/out" && [ ! -s "$FAKE_LOG" ]
}
t "a second run says so in one line, without asking the archive" again

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
