#!/bin/sh
# SPDX-License-Identifier: MIT
# Build and test the minimal configuration (no io_uring, no seccomp filter, no
# network namespaces) in a private copy of the tree, so the full build's
# objects are left alone. Tests ask the binary what it was built with
# (`sbx probe --json`) and assert the behaviour that build must have.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-minimal-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
chmod 755 "$work"
(cd "$top" && tar --exclude='*.o' --exclude='*.a' --exclude='libsbx.so*' --exclude='./sbx' \
	--exclude='./.git' --exclude='./tests/mcp/node_modules' -cf - .) | tar -C "$work" -xf -
# The copy may carry test binaries of the full build: start clean.
make -s -C "$work" clean >/dev/null
echo "== minimal build: CONFIG_IO_URING=n CONFIG_SECCOMP=n CONFIG_NETNS=n"
make -C "$work" CONFIG_IO_URING=n CONFIG_SECCOMP=n CONFIG_NETNS=n all unit e2e
# The dynamic build (glibc and libmnl shared): where no libmnl.a exists, the
# default static sbx sets lo up without netlink, so --net none through
# libmnl is checked here, with the run and view suites.
make -s -C "$work" clean >/dev/null
echo "== dynamic build: CONFIG_STATIC=n (netlink through libmnl)"
make -C "$work" CONFIG_STATIC=n all tests/e2e/test_net tests/e2e/test_run tests/e2e/test_view \
	tests/helpers/nofeature
for t in test_net test_run test_view; do
	echo "== $t (dynamic)"
	"$work/tests/e2e/$t" --jobs 2
done
