#!/bin/bash
# SPDX-License-Identifier: MIT
# Does a launch grow with the host? (issue 30) The cost of one `sbx run -- true`
# (workspace-write under each runner, danger-full-access) with and without EXTRA
# more processes of the caller's uid on the host (idle children of this script).
# Blocks alternate: without, with, without, ... (BLOCKS of them, every case once
# per round in each block, in a shuffled order), so drift in the machine's load
# hits both alike. Prints the median per case in each state and the ratio
# with/without. Asserts nothing about time (it does check that every launch
# exited 0). Run as root it measures as nobody (setpriv), the caller whose
# process limit is a count of its tasks (docs/limits.md); AS=root keeps root.
#
#   scripts/bench-host-procs.sh [ROUNDS] [EXTRA]   (defaults 60, 2000; SBX=path,
#                                                   BLOCKS=4)
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-60}
EXTRA=${2:-2000}
BLOCKS=${BLOCKS:-4}
SBX=$(realpath "${SBX:-./sbx}")
[[ -x $SBX ]] || { echo "bench-host-procs: $SBX not found; build it first (make sbx)" >&2; exit 1; }

# Not under /tmp: the namespace runner puts a private tmpfs there.
WORK=$(mktemp -d /var/tmp/sbx-bench-procs-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/root"
: >"$WORK/empty.conf"
AS_PREFIX=()
if [[ $(id -u) == 0 && ${AS:-nobody} != root ]]; then
	chown -R 65534:65534 "$WORK"
	chmod 755 "$WORK"
	AS_PREFIX=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

"${AS_PREFIX[@]}" env SBX="$SBX" ROUNDS="$ROUNDS" EXTRA="$EXTRA" BLOCKS="$BLOCKS" WORK="$WORK" \
	HOME="$WORK" python3 - <<'PY'
import os, random, signal, statistics, sys, time

SBX, WORK = os.environ["SBX"], os.environ["WORK"]
ROUNDS, EXTRA, BLOCKS = (int(os.environ[k]) for k in ("ROUNDS", "EXTRA", "BLOCKS"))
R = os.path.join(WORK, "root")
CONF = os.path.join(WORK, "empty.conf")
env = {k: v for k, v in os.environ.items() if k != "SBX_CONFIG"}
devnull = os.open(os.devnull, os.O_RDWR)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)]


def sbx(*a):
    return [SBX, "run", "--config", CONF, "--root", R, *a, "--", "true"]


cases = [("workspace-write, namespace", sbx("--mode", "workspace-write", "--runner", "namespace")),
         ("workspace-write, landlock", sbx("--mode", "workspace-write", "--runner", "landlock")),
         ("danger-full-access", sbx("--mode", "danger-full-access"))]


def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
    _, st = os.waitpid(pid, 0)
    dt = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit("bench-host-procs: %s exited %d" % (" ".join(argv), os.waitstatus_to_exitcode(st)))
    return dt / 1000.0


def start_extra():
    pids = []
    for _ in range(EXTRA):
        pid = os.fork()
        if pid == 0:
            signal.pause()
            os._exit(0)
        pids.append(pid)
    return pids


def stop_extra(pids):
    for p in pids:
        os.kill(p, signal.SIGKILL)
    for p in pids:
        os.waitpid(p, 0)


def tasks_of_uid():
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.stat("/proc/" + d).st_uid == os.getuid():
                    n += 1
            except OSError:
                pass
    return n


for _, a in cases:  # warm-up, fail early
    once(a)
res = {(n, w): [] for n, _ in cases for w in (False, True)}
counts = {False: [], True: []}
rnd = random.Random(3)
per_block = max(1, ROUNDS // BLOCKS)
for b in range(2 * BLOCKS):
    extra = b % 2 == 1
    pids = start_extra() if extra else []
    try:
        counts[extra].append(tasks_of_uid())
        for _ in range(per_block):
            order = list(cases)
            rnd.shuffle(order)
            for n, a in order:
                res[(n, extra)].append(once(a))
    finally:
        stop_extra(pids)

print("bench-host-procs: uid %d, %d rounds per state in %d blocks each, processes of the uid: "
      "%d without, %d with; load avg %s" % (
          os.getuid(), per_block * BLOCKS, BLOCKS, statistics.median(counts[False]),
          statistics.median(counts[True]), open("/proc/loadavg").read().split()[0]))
print("| case | median us, few | median us, +%d | ratio |" % EXTRA)
print("|---|---:|---:|---:|")
for n, _ in cases:
    a, b = statistics.median(res[(n, False)]), statistics.median(res[(n, True)])
    print("| %s | %.0f | %.0f | %.2fx |" % (n, a, b, b / a))
PY
