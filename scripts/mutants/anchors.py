#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Every mutant's line is in its file exactly once (what run.sh needs to
# apply it), checked without building anything: a change that moves or
# repeats a mutant's line fails check-layers in seconds, not check-mutants
# at the end of make check. Exit 1 naming each mutant whose line is gone or
# repeated, and how to re-anchor it.
import glob
import os
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
bad = 0
for m in sorted(glob.glob(os.path.join(top, "scripts/mutants/*.mut"))):
    name = os.path.basename(m)[:-4]
    lines = open(m).read().split("\n")
    files = [l.split(":", 1)[1].strip() for l in lines if l.startswith("file:")]
    olds = [l[2:].strip() for l in lines if l.startswith("- ")]
    news = [l for l in lines if l.startswith("+ ")]
    if len(files) != 1 or len(olds) != 1 or len(news) != 1:
        print(f"mutant {name}: needs one file:, one '- ' and one '+ ' line")
        bad += 1
        continue
    try:
        src = open(os.path.join(top, files[0])).read().split("\n")
    except OSError as e:
        print(f"mutant {name}: {files[0]}: {e.strerror}")
        bad += 1
        continue
    hits = sum(1 for l in src if l.strip() == olds[0])
    if hits != 1:
        where = "is not in" if hits == 0 else f"is {hits} times in"
        print(f"mutant {name}: its line {where} {files[0]}: "
              f"re-anchor it (scripts/mutants/README.md): {olds[0]!r}")
        bad += 1
sys.exit(1 if bad else 0)
