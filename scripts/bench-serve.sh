#!/bin/bash
# SPDX-License-Identifier: MIT
# Serve benchmark (issue 6): N `true` commands (default 1000)
#   - through ONE `sbx serve`, INFLIGHT (default 8) requests in flight,
#   - as N sequential `sbx run -- true` processes,
#   - as a loop of N `bwrap --ro-bind / / --dev /dev --bind R R --tmpfs /tmp
#     --unshare-user --cap-drop ALL true`,
# all in one run, sbx in workspace-write with the default runner and with the
# landlock runner (the serve cases in ROUNDS=3 interleaved rounds, the best
# counting: the machine is shared). Prints commands per second for each; asserts nothing about
# time (it does check that every command ran and exited 0). Builds nothing:
# run `make sbx` first.
#
# Protocol 2 (JSON-RPC, sessions) is what ./sbx speaks; BASELINE_SBX=path adds
# the same serve cases for another binary (e.g. one built from an older main,
# protocol 1 or 2, detected), measured in the same run, with the ratio.
#
#   scripts/bench-serve.sh [N]          (INFLIGHT=8 to change the concurrency;
#                                        SBX=path to bench another binary;
#                                        BASELINE_SBX=path for a baseline)
set -euo pipefail

cd "$(dirname "$0")/.."
N=${1:-1000}
INFLIGHT=${INFLIGHT:-8}
SBX=$(realpath "${SBX:-./sbx}")
BASELINE_SBX=${BASELINE_SBX:+$(realpath "$BASELINE_SBX")}

[[ -x $SBX ]] || { echo "bench-serve: $SBX not found; build it first (make sbx)" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bench-serve: bwrap not installed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-serve: python3 not installed" >&2; exit 1; }

# Not under /tmp: the namespace runner puts a private tmpfs there.
WORK=$(mktemp -d /var/tmp/sbx-bench-serve-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/root"
: >"$WORK/default.conf"
echo "runner = landlock" >"$WORK/landlock.conf"

SBX="$SBX" BASELINE_SBX="${BASELINE_SBX:-}" N="$N" INFLIGHT="$INFLIGHT" WORK="$WORK" python3 - <<'PY'
import json, os, subprocess, sys, time

SBX = os.environ["SBX"]
BASELINE = os.environ.get("BASELINE_SBX") or None
N = int(os.environ["N"])
INFLIGHT = int(os.environ["INFLIGHT"])
WORK = os.environ["WORK"]
ROOT = os.path.join(WORK, "root")
env = {k: v for k, v in os.environ.items() if k != "SBX_CONFIG"}
devnull = os.open(os.devnull, os.O_RDWR)


def protocol_of(sbx):
    """2 if sbx serve answers a JSON-RPC initialize, else 1."""
    p = subprocess.run([sbx, "serve", "--config", os.path.join(WORK, "default.conf")],
                       input=b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n',
                       capture_output=True, env=env, timeout=60)
    first = p.stdout.split(b"\n", 1)[0]
    return 2 if first and "result" in json.loads(first) else 1


def serve(conf, sbx=SBX):
    """N runs through one serve, INFLIGHT at a time; returns seconds."""
    v2 = protocol_of(sbx) == 2
    p = subprocess.Popen([sbx, "serve", "--config", conf], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, bufsize=0)
    out = p.stdout
    buf = b""
    if v2:
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": "open", "method": "session/open",
                                   "params": {"root": ROOT, "mode": "workspace-write"}})
                       + "\n").encode())
        while b"\n" not in buf:
            buf += os.read(out.fileno(), 65536)
        line, buf = buf.split(b"\n", 1)
        session = json.loads(line)["result"]["session"]
        req = lambda i: (json.dumps({"jsonrpc": "2.0", "id": i, "method": "run",
                                     "params": {"session": session, "command": "true"}})
                         + "\n").encode()
    else:
        req = lambda i: (json.dumps({"id": i, "op": "run", "command": "true",
                                     "session": {"root": ROOT, "mode": "workspace-write"}})
                         + "\n").encode()
    t0 = time.perf_counter()
    sent = 0
    while sent < min(INFLIGHT, N):
        p.stdin.write(req(sent))
        sent += 1
    done = 0
    seen = set()
    while done < N:
        chunk = os.read(out.fileno(), 65536)
        if not chunk:
            sys.exit("bench-serve: serve closed stdout after %d answers" % done)
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            a = json.loads(line)
            res = a.get("result")
            if not res or res.get("exit_code") != 0 or a["id"] in seen:
                sys.exit("bench-serve: unexpected answer: %s" % line[:500])
            seen.add(a["id"])
            done += 1
            if sent < N:
                p.stdin.write(req(sent))
                sent += 1
    dt = time.perf_counter() - t0
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("bench-serve: serve exited %d" % p.returncode)
    return dt


def loop(argv):
    """N sequential launches of argv; returns seconds."""
    fa = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)]
    t0 = time.perf_counter()
    for _ in range(N):
        pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
        _, st = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(st) != 0:
            sys.exit("bench-serve: %s failed (%d)" % (" ".join(argv), st))
    return time.perf_counter() - t0


bwrap = subprocess.run(["sh", "-c", "command -v bwrap"], capture_output=True,
                       text=True).stdout.strip()
cases = [
    ("sbx serve, %d in flight, namespace (auto)" % INFLIGHT,
     lambda: serve(os.path.join(WORK, "default.conf"))),
    ("sbx serve, %d in flight, landlock" % INFLIGHT,
     lambda: serve(os.path.join(WORK, "landlock.conf"))),
    ("sequential sbx run, namespace (auto)",
     lambda: loop([SBX, "run", "--config", os.path.join(WORK, "default.conf"),
                   "--mode", "workspace-write", "--root", ROOT, "--", "true"])),
    ("sequential sbx run --runner landlock",
     lambda: loop([SBX, "run", "--config", os.path.join(WORK, "default.conf"),
                   "--mode", "workspace-write", "--runner", "landlock", "--root", ROOT,
                   "--", "true"])),
    ("sequential bwrap ... true",
     lambda: loop([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--bind", ROOT, ROOT,
                   "--tmpfs", "/tmp", "--unshare-user", "--cap-drop", "ALL", "true"])),
]

if BASELINE:
    cases[2:2] = [
        ("baseline serve, %d in flight, namespace (auto)" % INFLIGHT,
         lambda: serve(os.path.join(WORK, "default.conf"), BASELINE)),
        ("baseline serve, %d in flight, landlock" % INFLIGHT,
         lambda: serve(os.path.join(WORK, "landlock.conf"), BASELINE)),
    ]

ROUNDS = int(os.environ.get("ROUNDS", "3"))
print("bench-serve: %d x `true`, workspace-write, root %s, uid %d" % (N, ROOT, os.getuid()))
if BASELINE:
    print("baseline: %s (protocol %d)" % (BASELINE, protocol_of(BASELINE)))
print("the serve cases run %d rounds, interleaved; the best round counts" % ROUNDS)
print("%-44s %10s %12s" % ("case", "seconds", "commands/s"))
rates = {}
serve_cases = [c for c in cases if "serve" in c[0]]
for _ in range(ROUNDS):
    for name, fn in serve_cases:
        rates[name] = max(rates.get(name, 0), N / fn())
for name, fn in cases:
    if name not in rates:
        rates[name] = N / fn()
    print("%-44s %10.2f %12.0f" % (name, N / rates[name], rates[name]), flush=True)
if BASELINE:
    for runner in ("namespace (auto)", "landlock"):
        now = rates["sbx serve, %d in flight, %s" % (INFLIGHT, runner)]
        then = rates["baseline serve, %d in flight, %s" % (INFLIGHT, runner)]
        print("serve %-16s this sbx / baseline: %.2f" % (runner, now / then))
PY
