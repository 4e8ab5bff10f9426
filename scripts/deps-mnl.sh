#!/bin/sh
# SPDX-License-Identifier: MIT
# libmnl's static archive for the static sbx binary (CONFIG_STATIC=y): Debian
# ships libmnl only as a shared library, so this builds libmnl.a from
# Debian's own source package (apt-get source libmnl, the version the system
# has) into deps/ of the tree, where the Makefile looks for it. Idempotent.
# It is optional: when the source package cannot be had (a mirror that
# serves binary packages only), it says so in one line, keeps the package
# manager's words in deps/libmnl.log, and changes nothing: the static sbx is
# then built without netlink, and --net none sets lo up with the
# SIOCSIFFLAGS ioctl (the Makefile says so too); CONFIG_STATIC=n links glibc
# and libmnl dynamically. A skip is remembered (deps/libmnl.skipped, for
# that libmnl version): later runs say so in the same one line without
# asking the archive again; remove the file to try again. Never fetches
# libmnl from anywhere but Debian's archive.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/deps
[ -f "$prefix/lib/libmnl.a" ] && { echo "deps: $prefix/lib/libmnl.a present"; exit 0; }
mkdir -p "$prefix"
log=$prefix/libmnl.log
skipped=$prefix/libmnl.skipped
# One line per architecture on a multiarch system (amd64 and arm64 both
# installed): the first is the version.
version=$(dpkg-query -W -f='${source:Version}\n' libmnl0 2>/dev/null | head -n 1 || true)

# skip WHY: the one line, and the skip remembered.
skip() {
	echo "deps: libmnl.a (optional) skipped: $1; the static sbx sets up --net none's" \
		"loopback with an ioctl instead (details: deps/libmnl.log; remove" \
		"deps/libmnl.skipped to try again)"
	echo "${version:-unknown}" >"$skipped"
	exit 0
}
if [ -f "$skipped" ] && [ "$(cat "$skipped")" = "${version:-unknown}" ]; then
	echo "deps: libmnl.a (optional) skipped, as before (details: deps/libmnl.log; remove" \
		"deps/libmnl.skipped to try again)"
	exit 0
fi
: >"$log"

if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
# dpkg-source unpacks the source package.
command -v dpkg-source >/dev/null 2>&1 ||
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends dpkg-dev \
		>>"$log" 2>&1 ||
	skip "no dpkg-source (package dpkg-dev) to unpack its source"

work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-deps-mnl-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/lists/partial"
# deb-src twins of the system's own deb lines, in a private list: the
# system's apt configuration is left as it is.
{
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && sed -n 's/^Types:.*deb\b.*/Types: deb-src/p; /^URIs:/p; /^Suites:/p; /^Components:/p; /^Signed-By:/p; /^$/p' "$f"
		echo
	done
} >"$work/src.sources"
[ -f /etc/apt/sources.list ] && sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >"$work/src.list"
: >>"$work/src.list"
APT="-o Dir::Etc::SourceList=$work/src.list -o Dir::Etc::SourceParts=$work -o Dir::State::Lists=$work/lists"
# shellcheck disable=SC2086
apt-get -q $APT update >>"$log" 2>&1 &&
	(cd "$work" && apt-get -q $APT source --download-only "libmnl${version:+=$version}") \
		>>"$log" 2>&1 ||
	skip "its source package${version:+ $version} is not reachable from this machine's Debian archive"
(cd "$work" && dpkg-source -x --no-check ./libmnl_*.dsc src >>"$log" 2>&1) ||
	skip "its source package did not unpack"
(cd "$work/src" && ./configure -q --prefix="$prefix" --enable-static --disable-shared --with-pic &&
	make -s && make -s install) >>"$log" 2>&1 ||
	skip "building it failed"
rm -f "$skipped"
echo "deps: built $prefix/lib/libmnl.a from Debian's libmnl ${version:-source package}"
