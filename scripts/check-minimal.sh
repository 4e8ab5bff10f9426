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
	--exclude='./.git' --exclude='./tests/mcp/node_modules' --exclude='./.config.stamp' --exclude='./build' \
	-cf - .) | tar -C "$work" -xf -
# As a fresh clone: the first make there must find a rule for every object
# (it once did not: .config.stamp is made while the Makefile is read).
make -s -n -C "$work" all >/dev/null ||
	{ echo "check-minimal: a fresh tree does not build (make -n all above)" >&2; exit 1; }
# The copy may carry test binaries of the full build: start clean.
make -s -C "$work" clean >/dev/null
# The suites whose code paths this build changes: the collection loop (poll
# instead of io_uring: output, run, serve, faults), the network (net), the
# filters (hardening, sidedoors, supervisor) and the runners' setup without
# them (contain, escape, failclosed). And every containment suite (the view,
# root callers, host objects, sockets, ptys, protected paths, CLONE_PARENT,
# limits): without the filter, each of the other layers stands alone here
# (the fresh session keyring: sidedoors/keyrings_session_is_fresh); what only
# the filter refuses is not built (#ifdef CONFIG_SECCOMP). The classifier,
# spills and the CLI run the same code in both builds: the full build's run
# of them stands for both (the corpus families alone take minutes).
suites="test_contain test_escape test_failclosed test_faults test_hardening test_net \
test_output test_run test_serve test_sidedoors test_supervisor \
test_view test_root_caller test_host_objects test_socket_policy test_ptys test_protect_git \
test_clone_parent test_limits"
e2e=""
for s in $suites; do e2e="$e2e tests/e2e/$s"; done
# Built in parallel, run one suite after another.
jobs=$(nproc 2>/dev/null || echo 2)
minimal="CONFIG_IO_URING=n CONFIG_SECCOMP=n CONFIG_NETNS=n"
echo "== minimal build: $minimal"
make -s -C "$work" -j"$jobs" $minimal test-programs E2E_BIN="$e2e"
make -C "$work" $minimal all unit e2e E2E_BIN="$e2e"
# The dynamic build (glibc and libmnl shared): where no libmnl.a exists, the
# default static sbx sets lo up without netlink, so --net none through
# libmnl is checked here, with the run and view suites.
make -s -C "$work" clean >/dev/null
echo "== dynamic build: CONFIG_STATIC=n (netlink through libmnl)"
make -C "$work" -j"$jobs" CONFIG_STATIC=n all tests/e2e/test_net tests/e2e/test_run tests/e2e/test_view \
	tests/helpers/nofeature
for t in test_net test_run test_view; do
	echo "== $t (dynamic)"
	"$work/tests/e2e/$t" --jobs 2
done
