#!/bin/bash
# SPDX-License-Identifier: MIT
# Launch benchmark (issues 3 and 4): the cost of starting one command.
#   plain        bash -c true
#   sbx run -- true in read-only, workspace-write with the namespace runner,
#                workspace-write with the landlock runner, danger-full-access
#   bwrap        bwrap --ro-bind / / --dev /dev --bind R R --tmpfs /tmp
#                --unshare-user --cap-drop ALL bash -c true
# INTERLEAVED: each round launches every case once (round-robin), so drift in
# the machine's load hits every case alike. Prints the median (and p10/p90)
# per launch in microseconds and the ratio of medians to plain bash. Asserts
# nothing about time (it does check that every launch exited 0). Builds
# nothing: run `make sbx` first.
#
#   scripts/bench-launch.sh [ROUNDS]    (default 200; SBX=path for another binary;
#                                        BASELINE_SBX=path adds its sbx cases,
#                                        interleaved, with the ratio to this sbx)
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-200}
SBX=$(realpath "${SBX:-./sbx}")
BASELINE_SBX=${BASELINE_SBX:+$(realpath "$BASELINE_SBX")}

[[ -x $SBX ]] || { echo "bench-launch: $SBX not found; build it first (make sbx)" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bench-launch: bwrap not installed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-launch: python3 not installed" >&2; exit 1; }

# Not under /tmp: the namespace runner puts a private tmpfs there.
WORK=$(mktemp -d /var/tmp/sbx-bench-launch-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/root"
: >"$WORK/empty.conf"

SBX="$SBX" BASELINE_SBX="${BASELINE_SBX:-}" ROUNDS="$ROUNDS" WORK="$WORK" python3 - <<'PY'
import os, shutil, statistics, sys, time

SBX = os.environ["SBX"]
BASELINE = os.environ.get("BASELINE_SBX") or None
ROUNDS = int(os.environ["ROUNDS"])
WORK = os.environ["WORK"]
R = os.path.join(WORK, "root")
CONF = os.path.join(WORK, "empty.conf")
env = {k: v for k, v in os.environ.items() if k != "SBX_CONFIG"}
devnull = os.open(os.devnull, os.O_RDWR)
bash = shutil.which("bash")
bwrap = shutil.which("bwrap")


def sbx(*args, binary=SBX):
    return [binary, "run", "--config", CONF, "--root", R, *args, "--", "true"]


SBX_CASES = [
    ("read-only", ("--mode", "read-only")),
    ("workspace-write, namespace", ("--mode", "workspace-write", "--runner", "namespace")),
    ("workspace-write, landlock", ("--mode", "workspace-write", "--runner", "landlock")),
    ("danger-full-access", ("--mode", "danger-full-access")),
]
cases = [("bash -c true (plain)", [bash, "-c", "true"])]
cases += [("sbx run, " + n, sbx(*a)) for n, a in SBX_CASES]
if BASELINE:
    cases += [("baseline, " + n, sbx(*a, binary=BASELINE)) for n, a in SBX_CASES]
cases += [
    ("bwrap ... bash -c true", [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--bind", R, R,
                                "--tmpfs", "/tmp", "--unshare-user", "--cap-drop", "ALL",
                                bash, "-c", "true"]),
]
fa = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)]


def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
    _, st = os.waitpid(pid, 0)
    dt = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit("bench-launch: %s exited %d" % (" ".join(argv),
                                                 os.waitstatus_to_exitcode(st)))
    return dt / 1000.0


for _, argv in cases:  # warm the page cache, and fail early
    once(argv)
samples = [[] for _ in cases]
for _ in range(ROUNDS):
    for i, (_, argv) in enumerate(cases):
        samples[i].append(once(argv))

plain = statistics.median(samples[0])
print("bench-launch: %d interleaved rounds, uid %d, kernel %s" % (ROUNDS, os.getuid(),
                                                                   os.uname().release))
print("| %-37s | %10s | %9s | %9s | %8s |" % ("case", "median us", "p10 us", "p90 us",
                                              "x plain"))
print("|%s|%s|%s|%s|%s|" % ("-" * 39, "-" * 12, "-" * 11, "-" * 11, "-" * 10))
for (name, _), s in zip(cases, samples):
    q = statistics.quantiles(s, n=10)
    m = statistics.median(s)
    print("| %-37s | %10.0f | %9.0f | %9.0f | %7.2fx |" % (name, m, q[0], q[-1], m / plain))
if BASELINE:
    print("baseline: %s" % BASELINE)
    med = {name: statistics.median(s) for (name, _), s in zip(cases, samples)}
    for n, _ in SBX_CASES:
        print("%-30s this sbx / baseline (time): %.2f" % (n, med["sbx run, " + n] /
                                                          med["baseline, " + n]))
PY
