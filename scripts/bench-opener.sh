#!/bin/bash
# SPDX-License-Identifier: MIT
# The opener's cost (issue 29): in workspace-write every open for writing
# (and truncate) is performed by the run's opener (docs/supervisor.md,
# "Opens for writing"), so that no file of the run is ever open for writing
# with a setuid or setgid bit.
#   build          a small C build (make -j2 of 24 gcc -c, then ar): the
#                  objects, gcc's temporary files, ar's archive
#   write x2000    one process creating and writing 2,000 files
#   rewrite x2000  one process opening 2,000 existing files for writing
#   devnull x2000  bash redirecting to /dev/null 2,000 times
#   tar x          unpacking 2,000 small files
# Each as plain bash, under each runner supervised, and the same
# unsupervised (as on a kernel without user notification:
# tests/helpers/nofeature user_notif; no opener then). INTERLEAVED rounds,
# medians, ratios against plain bash measured in the same run, and the cost
# per open (supervised minus unsupervised, per open). Asserts nothing about
# time. Builds nothing: run `make sbx tests/helpers/nofeature` first.
#
#   scripts/bench-opener.sh [ROUNDS]   (default 5; SBX=path for another binary)
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SBX=$(realpath "${SBX:-./sbx}")
NOFEATURE=$(realpath tests/helpers/nofeature)

[[ -x $SBX ]] || { echo "bench-opener: $SBX not found (make sbx)" >&2; exit 1; }
[[ -x $NOFEATURE ]] || { echo "bench-opener: $NOFEATURE not found (make tests/helpers/nofeature)" >&2; exit 1; }
for t in python3 gcc make ar tar; do
	command -v $t >/dev/null || { echo "bench-opener: $t not installed" >&2; exit 1; }
done

# Not under /tmp: the namespace runner puts a private tmpfs there.
WORK=$(mktemp -d /var/tmp/sbx-bench-opener-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/root" "$WORK/root/src" "$WORK/tree"
: >"$WORK/empty.conf"
cat >"$WORK/root/writes.py" <<'PY'
import os
os.makedirs("w", exist_ok=True)
for i in range(2000):
    with open("w/f%d" % i, "w") as f:
        f.write("x")
PY
cat >"$WORK/root/rewrites.py" <<'PY'
import os
for i in range(2000):
    fd = os.open("w/f%d" % i, os.O_WRONLY)
    os.write(fd, b"y")
    os.close(fd)
PY
for i in $(seq 1 2000); do echo "file $i" >"$WORK/tree/f$i"; done
tar -C "$WORK" -cf "$WORK/root/tree.tar" tree
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


def cases(cmd):
    return [("plain bash", [bash, "-c", cmd]),
            ("sbx namespace, supervised", sbx("namespace", cmd)),
            ("sbx namespace, unsupervised", sbx("namespace", cmd, False)),
            ("sbx landlock, supervised", sbx("landlock", cmd)),
            ("sbx landlock, unsupervised", sbx("landlock", cmd, False))]


BUILD = "cd %s && rm -rf out lib.a && make -s -j2 >/dev/null" % R
WRITE = "cd %s && rm -rf w && python3 writes.py" % R
REWRITE = "cd %s && python3 rewrites.py" % R
DEVNULL = "for i in $(seq 2000); do : >/dev/null; done"
TAR = "cd %s && rm -rf tree && tar xf tree.tar" % R
groups = [
    ("build (24 gcc -c, ar)", 0, cases(BUILD)),
    ("write x2000 (new files)", 2000, cases(WRITE)),
    ("rewrite x2000 (existing files)", 2000, cases(REWRITE)),
    ("devnull x2000 (bash > /dev/null)", 2000, cases(DEVNULL)),
    ("tar x (2000 files)", 2000, cases(TAR)),
]


def once(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench-opener: %s exited %d: %s" % (argv[-1], p.returncode,
                                                    p.stderr.decode()[-400:]))
    return dt * 1000.0


print("bench-opener: %d interleaved rounds, uid %d, kernel %s, load %.1f" %
      (ROUNDS, os.getuid(), os.uname().release, os.getloadavg()[0]))
subprocess.run([bash, "-c", WRITE], env=env, check=True)  # the files rewrite opens
for title, calls, cs in groups:
    for _, argv in cs:  # warm up, and fail early
        once(argv)
    samples = [[] for _ in cs]
    for _ in range(ROUNDS):
        for i, (_, argv) in enumerate(cs):
            samples[i].append(once(argv))
    med = [statistics.median(s) for s in samples]
    print("\n%s" % title)
    print("| %-30s | %9s | %8s | %8s | %8s |" % ("case", "median ms", "min ms", "max ms", "x plain"))
    print("|%s|%s|%s|%s|%s|" % ("-" * 32, "-" * 11, "-" * 10, "-" * 10, "-" * 10))
    for (name, _), s, m in zip(cs, samples, med):
        print("| %-30s | %9.1f | %8.1f | %8.1f | %7.2fx |" % (name, m, min(s), max(s), m / med[0]))
    for k, runner in ((1, "namespace"), (3, "landlock")):
        print("%s: supervised / unsupervised %.2fx" % (runner, med[k] / med[k + 1]), end="")
        if calls:
            print(", per open %.1f us" % ((med[k] - med[k + 1]) * 1000.0 / calls))
        else:
            print(", +%.1f ms" % (med[k] - med[k + 1]))
PY
