#!/bin/bash
# SPDX-License-Identifier: MIT
# Supervisor benchmark (issue 12): what seccomp user notification costs.
#   chmod x10000   one process doing 10,000 chmod(2) calls on a file inside
#                  the root: plain (no sbx), sbx landlock runner supervised,
#                  the same unsupervised (as on a kernel without user
#                  notification: tests/helpers/nofeature user_notif), and the
#                  namespace runner (which does not supervise metadata)
#   fchmod x10000  the same by fd: each call reopens the object behind the
#                  command's fd (/proc/<tid>/fd/N, O_PATH)
#   build          a small C build with no supervised call (make -j2 of 24
#                  gcc -c, then ar): plain, supervised, unsupervised
#   connect x2000  2,000 TCP connects to loopback (every connect is
#                  performed by the supervisor): plain, supervised,
#                  unsupervised
#   inotify x10000 one process adding 10,000 inotify watches (2,000 files,
#                  five times each), as a file watcher starting up: every
#                  one is placed by the supervisor: plain, supervised,
#                  unsupervised
#   mkdir x5000    one process making and removing 5,000 directories inside
#                  the root: every mkdir is looked at (noted where the
#                  sandbox refuses it) and continued by the kernel, under
#                  both runners: plain, each runner supervised and
#                  unsupervised
# INTERLEAVED rounds (each round runs every case once), medians, ratios
# against baselines measured in the same run, and the per-call cost of the
# supervisor (supervised minus unsupervised, per call). Asserts nothing about
# time. Builds nothing: run `make sbx tests/helpers/nofeature` first.
#
#   scripts/bench-supervisor.sh [ROUNDS]   (default 10; SBX=path for another binary)
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-10}
SBX=$(realpath "${SBX:-./sbx}")
NOFEATURE=$(realpath tests/helpers/nofeature)

[[ -x $SBX ]] || { echo "bench-supervisor: $SBX not found (make sbx)" >&2; exit 1; }
[[ -x $NOFEATURE ]] || { echo "bench-supervisor: $NOFEATURE not found (make tests/helpers/nofeature)" >&2; exit 1; }
for t in python3 gcc make ar; do
	command -v $t >/dev/null || { echo "bench-supervisor: $t not installed" >&2; exit 1; }
done
"$SBX" probe --json | python3 -c 'import json,sys; s=json.load(sys.stdin)["supervisor"]; sys.exit(0 if s["available"] else "bench-supervisor: no supervisor here: %s" % s["reason"])'

# Not under /tmp: the namespace runner puts a private tmpfs there.
WORK=$(mktemp -d /var/tmp/sbx-bench-supervisor-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/root" "$WORK/root/src"
: >"$WORK/empty.conf"
: >"$WORK/root/file"
cat >"$WORK/root/chmods.py" <<'PY'
import os
for i in range(10000):
    os.chmod("file", 0o600 if i & 1 else 0o640)
PY
cat >"$WORK/root/fchmods.py" <<'PY'
import os
fd = os.open("file", os.O_RDONLY)
for i in range(10000):
    os.fchmod(fd, 0o600 if i & 1 else 0o640)
PY
cat >"$WORK/root/connects.py" <<'PY'
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4096)
addr = s.getsockname()
for i in range(2000):
    c = socket.socket(); c.connect(addr); a, _ = s.accept(); a.close(); c.close()
PY
cat >"$WORK/root/watches.py" <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("watched", exist_ok=True)
names = []
for i in range(2000):
    n = ("watched/f%d" % i).encode()
    open(n, "w").close()
    names.append(n)
fd = libc.inotify_init1(os.O_CLOEXEC)
for k in range(5):
    for n in names:
        if libc.inotify_add_watch(fd, n, 0x2 | 0x8) < 0:
            raise OSError(ctypes.get_errno(), n.decode())
PY
cat >"$WORK/root/mkdirs.py" <<'PY'
import os
for i in range(5000):
    os.mkdir("d%d" % i)
for i in range(5000):
    os.rmdir("d%d" % i)
PY
for i in $(seq 1 24); do
	cat >"$WORK/root/src/f$i.c" <<C
#include <stdio.h>
#include <string.h>
struct s$i { int a[64]; char name[32]; };
int f$i(int x) { struct s$i s; memset(&s, 0, sizeof s); for (int k = 0; k < 64; k++) s.a[k] = x * k; snprintf(s.name, sizeof s.name, "%d", s.a[x & 63]); return (int)strlen(s.name); }
C
done
cat >"$WORK/root/Makefile" <<'MK'
OBJ := $(patsubst src/%.c,out/%.o,$(wildcard src/*.c))
lib.a: $(OBJ)
	ar rcs $@ $^
out/%.o: src/%.c | out
	gcc -O2 -c -o $@ $<
out:
	mkdir -p out
MK

SBX="$SBX" NOFEATURE="$NOFEATURE" ROUNDS="$ROUNDS" WORK="$WORK" python3 - <<'PY'
import os, shutil, statistics, subprocess, sys, time

SBX, NOFEATURE = os.environ["SBX"], os.environ["NOFEATURE"]
ROUNDS = int(os.environ["ROUNDS"])
WORK = os.environ["WORK"]
R = os.path.join(WORK, "root")
CONF = os.path.join(WORK, "empty.conf")
env = {k: v for k, v in os.environ.items() if k != "SBX_CONFIG"}
bash = shutil.which("bash")


def sbx(runner, cmd, supervised=True):
    argv = [SBX, "run", "--config", CONF, "--root", R, "--mode", "workspace-write",
            "--runner", runner, "--", cmd]
    return argv if supervised else [NOFEATURE, "user_notif", "--"] + argv


CHMOD = "cd %s && python3 chmods.py" % R
FCHMOD = "cd %s && python3 fchmods.py" % R
BUILD = "cd %s && rm -rf out lib.a && make -s -j2 >/dev/null" % R
CONNECT = "cd %s && python3 connects.py" % R
WATCH = "cd %s && python3 watches.py" % R
MKDIR = "cd %s && python3 mkdirs.py" % R
groups = [
    ("chmod x10000", 10000, [
        ("plain bash", [bash, "-c", CHMOD]),
        ("sbx landlock, supervised", sbx("landlock", CHMOD)),
        ("sbx landlock, unsupervised", sbx("landlock", CHMOD, False)),
        ("sbx namespace (no metadata calls trapped)", sbx("namespace", CHMOD)),
    ]),
    ("fchmod x10000 (by fd)", 10000, [
        ("plain bash", [bash, "-c", FCHMOD]),
        ("sbx landlock, supervised", sbx("landlock", FCHMOD)),
        ("sbx landlock, unsupervised", sbx("landlock", FCHMOD, False)),
    ]),
    ("build (no supervised call)", 0, [
        ("plain bash", [bash, "-c", BUILD]),
        ("sbx landlock, supervised", sbx("landlock", BUILD)),
        ("sbx landlock, unsupervised", sbx("landlock", BUILD, False)),
    ]),
    ("connect x2000 (loopback TCP)", 2000, [
        ("plain bash", [bash, "-c", CONNECT]),
        ("sbx landlock, supervised", sbx("landlock", CONNECT)),
        ("sbx landlock, unsupervised", sbx("landlock", CONNECT, False)),
    ]),
    ("inotify x10000 (2000 files, 5 times)", 10000, [
        ("plain bash", [bash, "-c", WATCH]),
        ("sbx landlock, supervised", sbx("landlock", WATCH)),
        ("sbx landlock, unsupervised", sbx("landlock", WATCH, False)),
    ]),
    ("mkdir x5000 (and rmdir)", 5000, [
        ("plain bash", [bash, "-c", MKDIR]),
        ("sbx landlock, supervised", sbx("landlock", MKDIR)),
        ("sbx landlock, unsupervised", sbx("landlock", MKDIR, False)),
        ("sbx namespace, supervised", sbx("namespace", MKDIR)),
        ("sbx namespace, unsupervised", sbx("namespace", MKDIR, False)),
    ]),
]


def once(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench-supervisor: %s exited %d: %s" % (argv[-1], p.returncode,
                                                        p.stderr.decode()[-400:]))
    return dt * 1000.0


print("bench-supervisor: %d interleaved rounds, uid %d, kernel %s" % (ROUNDS, os.getuid(),
                                                                       os.uname().release))
for title, calls, cases in groups:
    for _, argv in cases:  # warm up, and fail early
        once(argv)
    samples = [[] for _ in cases]
    for _ in range(ROUNDS):
        for i, (_, argv) in enumerate(cases):
            samples[i].append(once(argv))
    med = [statistics.median(s) for s in samples]
    print("\n%s" % title)
    print("| %-43s | %9s | %8s | %8s | %8s |" % ("case", "median ms", "min ms", "max ms",
                                                 "x plain"))
    print("|%s|%s|%s|%s|%s|" % ("-" * 45, "-" * 11, "-" * 10, "-" * 10, "-" * 10))
    for (name, _), s, m in zip(cases, samples, med):
        print("| %-43s | %9.1f | %8.1f | %8.1f | %7.2fx |" % (name, m, min(s), max(s),
                                                             m / med[0]))
    print("supervised / unsupervised: %.2fx" % (med[1] / med[2]), end="")
    if calls:
        print("; per supervised call: %.1f us" % ((med[1] - med[2]) * 1000.0 / calls))
    else:
        print(" (no supervised call: this is launch noise)")
PY
