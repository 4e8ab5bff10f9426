#!/bin/bash
# SPDX-License-Identifier: MIT
# What the protected paths cost a workspace-write run (start and end), per
# runner: `sbx run -- true` on
#   off          protected_paths = none (no baseline, no lock, no snapshot)
#   empty root   the default list, none of it present (locks, a baseline
#                file written and removed, nothing to snapshot)
#   git root     the default list on a fresh `git init` (.git/hooks with git's
#                sample hooks, .git/config: snapshotted at the start, compared
#                at the end)
#   git, live    the same while another run of the root is live (a
#                background `sbx run` sleeping): the run joins the recorded
#                baseline instead of recording it
#   git, 5k dirs a git root holding 5,000 directories and 10 repositories
#                below it (the walk after each workspace-write run: it grows
#                with the directories in the root)
# INTERLEAVED rounds, so drift in the machine's load hits every case alike.
# Prints the median (p10, p90) per run in microseconds and the ratio to the
# `off` case of the same runner. Asserts nothing about time. Builds nothing:
# run `make sbx` first.
#
#   scripts/bench-protect.sh [ROUNDS]    (default 100; SBX=path for another binary)
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-100}
SBX=$(realpath "${SBX:-./sbx}")

[[ -x $SBX ]] || { echo "bench-protect: $SBX not found; build it first (make sbx)" >&2; exit 1; }
command -v git >/dev/null || { echo "bench-protect: git not installed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-protect: python3 not installed" >&2; exit 1; }

# Not under /tmp: the namespace runner puts a private directory there.
WORK=$(mktemp -d /var/tmp/sbx-bench-protect-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/empty" "$WORK/git" "$WORK/live" "$WORK/cache" "$WORK/big"
git -C "$WORK/git" init -q
git -C "$WORK/live" init -q
git -C "$WORK/big" init -q
(cd "$WORK/big" && for i in $(seq 10); do git init -q "repo$i"; done &&
	python3 -c 'import os
for i in range(50):
    for j in range(100):
        os.makedirs("src/d%d/e%d" % (i, j))')
: >"$WORK/default.conf"
echo "protected_paths = none" >"$WORK/off.conf"

SBX="$SBX" ROUNDS="$ROUNDS" WORK="$WORK" python3 - <<'PY'
import os, signal, statistics, subprocess, sys, time

SBX = os.environ["SBX"]
ROUNDS = int(os.environ["ROUNDS"])
WORK = os.environ["WORK"]
env = {k: v for k, v in os.environ.items() if k != "SBX_CONFIG"}
env["XDG_CACHE_HOME"] = os.path.join(WORK, "cache")
devnull = os.open(os.devnull, os.O_RDWR)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)]


def sbx(runner, conf, root, cmd="true"):
    return [SBX, "run", "--config", os.path.join(WORK, conf), "--mode", "workspace-write",
            "--runner", runner, "--root", os.path.join(WORK, root), "--", cmd]


cases = []
for runner in ("namespace", "landlock"):
    cases += [
        (runner, "off (git root)", sbx(runner, "off.conf", "git")),
        (runner, "empty root", sbx(runner, "default.conf", "empty")),
        (runner, "git root", sbx(runner, "default.conf", "git")),
        (runner, "git root, another run live", sbx(runner, "default.conf", "live")),
        (runner, "git root, 5k dirs, 10 repos", sbx(runner, "default.conf", "big")),
    ]


def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
    _, st = os.waitpid(pid, 0)
    dt = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit("bench-protect: %s exited %d" % (" ".join(argv),
                                                  os.waitstatus_to_exitcode(st)))
    return dt / 1000.0


# The live run of "live": a background run that lasts the whole benchmark.
live = subprocess.Popen(sbx("namespace", "default.conf", "live", "sleep 100000"), env=env,
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        start_new_session=True)
base = os.path.join(WORK, "cache", "sbx", "protect")
deadline = time.time() + 30
while not (os.path.isdir(base) and any(os.path.exists(os.path.join(base, d, "base"))
                                       for d in os.listdir(base))):
    if time.time() > deadline:
        sys.exit("bench-protect: the live run recorded no baseline")
    time.sleep(0.05)
try:
    for _, _, argv in cases:  # warm the page cache, and fail early
        once(argv)
    samples = [[] for _ in cases]
    for _ in range(ROUNDS):
        for i, (_, _, argv) in enumerate(cases):
            samples[i].append(once(argv))
finally:
    os.killpg(live.pid, signal.SIGTERM)
    live.wait()

print("bench-protect: %d interleaved rounds, uid %d, kernel %s" % (ROUNDS, os.getuid(),
                                                                    os.uname().release))
print("| %-9s | %-28s | %9s | %8s | %8s | %6s |" % ("runner", "case", "median us", "p10 us",
                                                     "p90 us", "x off"))
print("|%s|%s|%s|%s|%s|%s|" % ("-" * 11, "-" * 30, "-" * 11, "-" * 10, "-" * 10, "-" * 8))
off = {}
for (runner, name, _), s in zip(cases, samples):
    m = statistics.median(s)
    q = statistics.quantiles(s, n=10)
    off.setdefault(runner, m)
    print("| %-9s | %-28s | %9.0f | %8.0f | %8.0f | %5.2fx |" % (runner, name, m, q[0], q[-1],
                                                                 m / off[runner]))
PY
