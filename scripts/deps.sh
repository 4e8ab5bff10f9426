#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages sbx needs, if any is missing.
#
#   scripts/deps.sh run     what building and running sbx needs (make demo)
#   scripts/deps.sh arm64   that, plus the arm64 cross build and its check
#                           (make ARCH=arm64, make check-arm64)
#   scripts/deps.sh all     all of it, plus what the tests and benchmarks drive
#                           (make check)
#
# Both then build libmnl's static archive from Debian's source package
# (scripts/deps-mnl.sh), for the one static sbx binary (CONFIG_STATIC=y).
#
# Idempotent: with everything present it installs nothing and says so.
set -eu

# Building libsbx and sbx, and running them.
RUN_PACKAGES="gcc make pkg-config libc6-dev liburing-dev libseccomp-dev libmnl-dev libjansson-dev"
# The test framework and the tools the tests and benchmarks drive: git and
# util-linux in the corpus, procps and iproute2 in the containment tests,
# python3 and nodejs for the serve examples, man-db and libcap2-bin for the
# install check, bubblewrap as the benchmarks' baseline; locales and
# libc-l10n: localedef and the C library's translations (the classifier corpus
# runs in de_DE.UTF-8 and zh_CN.UTF-8, issue 31's kinds in fr_FR, ja_JP and
# pl_PL); python3-pytest and default-jdk-headless: real test-runner and Java
# output in that corpus; rsync, zip, unzip, patch, perl, sqlite3 and cmake:
# the kinds corpus's tools;
# qemu-system-x86, busybox-static and cpio: scripts/vm-check.sh boots Debian's
# cloud kernel (which it unpacks itself, never installs) with them.
# The real-work suite (scripts/realwork.sh) drives everyday tools: jq reads
# sbx's results; the rest are the workflows' own (venv + pip, linters,
# builds, sqlite, vim, archives, sockets, ptys, ssh-agent, go, cargo,
# inotify-tools for the file watchers). e2fsprogs and btrfs-progs make the
# loop-mounted file systems of test_inode_ioctls and test_setuid_content
# (an ext4 with encryption, a btrfs for subvolumes and reflinks).
# unicode-data: the Unicode property
# files the marker guard's table is generated from (test_markers_forged
# checks the committed classify/unicode_table.h against them).
# apparmor: apparmor_parser checks the installed AppArmor profile's syntax
# without loading it (test_examples.sh).
TEST_PACKAGES="libcriterion-dev git util-linux procps iproute2 python3 nodejs man-db \
e2fsprogs btrfs-progs \
libcap2-bin bubblewrap keyutils tar locales libc-l10n python3-pytest default-jdk-headless \
qemu-system-x86 busybox-static cpio \
jq bsdutils cmake ccache sqlite3 vim zip unzip gzip curl socat openssh-client expect \
python3-venv python3-pip python3-setuptools python3-wheel black pylint mypy golang-go cargo perl patch \
inotify-tools unicode-data apparmor rsync"

# The arm64 cross build: the cross compiler and the arm64 -dev packages of
# sbx's own libraries (multiarch: libraries to link against, no arm64
# program is installed); qemu-system-arm boots the arm64 kernel, which
# scripts/arm64-check.sh downloads with arm64 bash and busybox and unpacks,
# never installs (bash:arm64 would replace the host's bash). file: the
# check asks it what the cross build made.
ARM64_PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm file cpio \
libc6-dev:arm64 libseccomp-dev:arm64 liburing-dev:arm64 libjansson-dev:arm64 libmnl-dev:arm64"

case ${1:-all} in
run) PACKAGES=$RUN_PACKAGES ;;
arm64) PACKAGES="$RUN_PACKAGES $ARM64_PACKAGES" ;;
all) PACKAGES="$RUN_PACKAGES $TEST_PACKAGES $ARM64_PACKAGES" ;;
*)
	echo "usage: $0 [run|arm64|all]" >&2
	exit 2
	;;
esac

# arm64 packages need dpkg to know the architecture, and apt its lists.
case $PACKAGES in
*:arm64*)
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" -eq 0 ] && SUDO= || SUDO=sudo
		echo "deps: adding the arm64 architecture (dpkg --add-architecture arm64)"
		$SUDO dpkg --add-architecture arm64
		$SUDO apt-get update -q
	fi
	;;
esac

missing=""
for pkg in $PACKAGES; do
	# One line per installed architecture (libc6-dev for amd64 and arm64 on a
	# multiarch system): installed for any of them is installed. A name with
	# :arm64 is asked of that architecture alone.
	dpkg-query -W -f='${db:Status-Status}\n' "$pkg" 2>/dev/null | grep -qx installed ||
		missing="$missing $pkg"
done

# npm comes with NodeSource's nodejs and separately with Debian's (which
# conflicts with NodeSource's): ask for it only when there is none.
command -v npm >/dev/null 2>&1 || missing="$missing npm"

if [ -z "$missing" ]; then
	echo "deps: all packages present (${1:-all})"
	exec "$(dirname "$0")/deps-mnl.sh"
fi

echo "deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "deps: missing packages and not root (no sudo): install$missing" >&2
		exit 1
	fi
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y -q --no-install-recommends $missing; then
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi
exec "$(dirname "$0")/deps-mnl.sh"
