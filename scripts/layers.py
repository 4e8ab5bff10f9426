#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The shape of the tree, checked on the built objects (nm): calls between
files form no circle, calls between folders run down the layers only, and no
launcher/ folder holds more than 30 .c files.

    scripts/layers.py            after `make all`; exit 1 with what is wrong

The layers, top to bottom; a folder may call its own files and any folder
below it. policy/ and classify/ are pure and call nothing in launcher/.
error.o (sbx_error_set, the public error type's one function) may be called
from any layer."""
import collections, glob, os, subprocess, sys

LAYERS = [
    ["launcher/front"],
    ["launcher/engine"],
    ["launcher/supervisor", "launcher/protect", "launcher/output"],
    ["launcher/runners"],
    ["launcher/kernel"],
    ["policy", "classify"],
]
ANYWHERE = {"launcher/engine/error.o"}
MAX_C_FILES = 30


def rank(folder):
    for i, layer in enumerate(LAYERS):
        if folder in layer:
            return i
    return None


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    folders = [f for layer in LAYERS for f in layer]
    objs = [o for f in folders for o in sorted(glob.glob(f + "/*.o")) if not o.endswith(".pic.o")]
    objs = [o for o in objs if os.path.exists(o[:-2] + ".c")]
    if not objs:
        print("layers: no objects: run `make all` first", file=sys.stderr)
        return 2
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defs[p[2]] = o
            elif len(p) == 2 and p[0] == "U":
                uses[o].add(p[1])
    calls = collections.defaultdict(set)
    for o, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d and d != o:
                calls[o].add((d, s))
    bad = []
    for o in objs:
        fo = os.path.dirname(o)
        for d, s in sorted(calls[o]):
            fd = os.path.dirname(d)
            if d in ANYWHERE or fd == fo:
                continue
            ro, rd = rank(fo), rank(fd)
            if rd <= ro or (ro == len(LAYERS) - 1):
                bad.append("%s calls %s (%s): up or across the layers" % (o[:-2] + ".c", d[:-2] + ".c", s))
    # circles between files (Tarjan)
    graph = {o: {d for d, _ in calls[o]} for o in objs}
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(c[:-2] + ".c" for c in comp))

    for v in objs:
        if v not in index:
            visit(v)
    for comp in sccs:
        bad.append("a circle of calls: " + " ".join(comp))
    for f in folders:
        n = len(glob.glob(f + "/*.c"))
        if f.startswith("launcher/") and n > MAX_C_FILES:
            bad.append("%s holds %d .c files (at most %d)" % (f, n, MAX_C_FILES))
    for b in bad:
        print("layers: " + b)
    print("layers: %d files, %d calls between them, %s" %
          (len(objs), sum(len(v) for v in graph.values()), "FAIL" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
