#!/bin/sh
# SPDX-License-Identifier: MIT
# libmnl's static archive for the static sbx binary (CONFIG_STATIC=y): Debian
# ships libmnl only as a shared library, so this builds libmnl.a from
# Debian's own source package (apt-get source libmnl, the version the system
# has) into deps/ of the tree, where the Makefile looks for it. Idempotent.
# When the source package cannot be had (a mirror that serves binary
# packages only), it says so and changes nothing: the static sbx is then
# built without netlink, and --net none sets lo up with the SIOCSIFFLAGS
# ioctl (the Makefile says so too); CONFIG_STATIC=n links glibc and libmnl
# dynamically. Never fetches libmnl from anywhere but Debian's archive.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/deps
[ -f "$prefix/lib/libmnl.a" ] && { echo "deps: $prefix/lib/libmnl.a present"; exit 0; }

if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
# dpkg-source unpacks the source package.
command -v dpkg-source >/dev/null 2>&1 ||
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends dpkg-dev ||
	{ echo "deps: no dpkg-source (dpkg-dev): libmnl.a not built" >&2; exit 0; }

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
# this machine's libmnl0 (with arm64 added, libmnl0:arm64 may be there too)
version=$(dpkg-query -W -f='${source:Version}' "libmnl0:$(dpkg --print-architecture)" 2>/dev/null || true)
# shellcheck disable=SC2086
if ! apt-get -q $APT update >"$work/log" 2>&1 ||
	! (cd "$work" && apt-get -q $APT source --download-only "libmnl${version:+=$version}") >>"$work/log" 2>&1; then
	echo "deps: libmnl's source package is not reachable from this machine's Debian archive" >&2
	grep -E '^(E|Err):' "$work/log" | head -n 3 >&2 || true
	echo "deps: libmnl.a not built: the static sbx sets up --net none's loopback with an ioctl, not netlink through libmnl (docs/performance.md)" >&2
	exit 0
fi
(cd "$work" && dpkg-source -x --no-check ./libmnl_*.dsc src >/dev/null)
(cd "$work/src" && ./configure -q --prefix="$prefix" --enable-static --disable-shared --with-pic &&
	make -s && make -s install) >"$work/build.log" 2>&1 ||
	{ tail -n 20 "$work/build.log" >&2; echo "deps: building libmnl.a failed" >&2; exit 1; }
echo "deps: built $prefix/lib/libmnl.a from Debian's libmnl ${version:-source package}"
