#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages sbx builds and tests with, if any is missing.
# Idempotent: with everything present it installs nothing and says so.
set -eu

# qemu-system-x86, busybox-static, cpio: scripts/vm-check.sh boots Debian's
# cloud kernel (which it unpacks itself, never installs) with them.
PACKAGES="gcc make pkg-config liburing-dev libseccomp-dev libmnl-dev libcriterion-dev \
libjansson-dev bubblewrap git util-linux procps iproute2 python3 nodejs man-db libcap2-bin \
keyutils tar qemu-system-x86 busybox-static cpio"

missing=""
for pkg in $PACKAGES; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "installed" ] || missing="$missing $pkg"
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
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
