#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates classify/unicode_table.h, the code points the marker guard
(classify/markers.c) reads past or folds, from Unicode's own property files
as Debian's unicode-data package installs them (/usr/share/unicode):

  dropped  code points that print as nothing or as a space: the general
           categories Zs, Zl, Zp (separators), Cc (controls), Cf (format),
           Mn and Me (marks that sit on another character, with nothing of
           their own), the White_Space property (PropList.txt), the
           Default_Ignorable_Code_Point property (DerivedCoreProperties.txt:
           variation selectors, tags, fillers, invisible operators...), and
           U+2800 BRAILLE PATTERN BLANK (So, but blank in every font).
  folded   code points whose compatibility decomposition (UnicodeData.txt,
           as NFKC applies it) is one ASCII letter or '[': fullwidth,
           mathematical, circled... forms read as that letter; the small
           capitals (named LATIN LETTER SMALL CAPITAL X) as X; opening
           brackets (Ps) named SQUARE, LENTICULAR or TORTOISE SHELL BRACKET
           as '[' .
  alnum    code points past ASCII that are letters or digits (general
           categories L* and N*): a line that starts with any other one
           (a symbol, a bracket, punctuation) is prefixed by the guard.

    scripts/gen-unicode-table.py > classify/unicode_table.h
    scripts/gen-unicode-table.py --check    # exit 1 if the committed file differs

The generated file is committed; tests/unit/test_markers_forged.c checks
every code point of both sets against the guard."""
import os, re, sys

UCD = os.environ.get("UCD", "/usr/share/unicode")


def ranges(path, want):
    """code points of lines 'A..B ; Prop' or 'A ; Prop' whose Prop is want"""
    out = set()
    with open(os.path.join(UCD, path), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cps, prop = [x.strip() for x in line.split(";")[:2]]
            if prop != want:
                continue
            lo, _, hi = cps.partition("..")
            out.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


def unicode_data():
    """(code point, category, decomposition) for every assigned code point,
    ranges (First/Last) expanded"""
    rows, first = [], None
    with open(os.path.join(UCD, "UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split(";")
            cp, name, cat, decomp = int(p[0], 16), p[1], p[2], p[5]
            if name.endswith(", First>"):
                first = cp
                continue
            if name.endswith(", Last>"):
                rows += [(c, cat, "") for c in range(first, cp + 1)]
                continue
            rows.append((cp, cat, decomp))
    return rows


def unicode_names():
    names = {}
    with open(os.path.join(UCD, "UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            p = line.split(";")
            names[int(p[0], 16)] = (p[1], p[2])
    return names


def name_fold():
    """small capitals and square-ish opening brackets, by their names"""
    folds = {}
    for cp, (name, cat) in unicode_names().items():
        m = re.fullmatch(r"LATIN LETTER SMALL CAPITAL ([A-Z])", name)
        if m:
            folds[cp] = ord(m.group(1).lower())
        elif cat == "Ps" and re.search(r"(SQUARE|LENTICULAR|TORTOISE SHELL) BRACKET", name):
            folds[cp] = ord("[")
    return folds


def compat_fold(rows):
    """code point -> ASCII char, where the full compatibility decomposition
    is one ASCII letter or '['"""
    decomp = {cp: d for cp, _, d in rows if d}

    def full(cp, depth=0):
        d = decomp.get(cp)
        if not d or depth > 8:
            return [cp]
        parts = d.split()
        if parts[0].startswith("<"):
            parts = parts[1:]
        out = []
        for x in parts:
            out += full(int(x, 16), depth + 1)
        return out

    cat = {cp: c for cp, c, _ in rows}
    folds = {}
    for cp in decomp:
        f = full(cp)
        # a letter with marks on it (o with an acute, precomposed) reads as
        # the letter: what follows the first is all combining marks
        if (f[0] < 0x80 and (chr(f[0]).isalpha() or chr(f[0]) == "[") and cp >= 0x80 and
                all(cat.get(x, "").startswith("M") for x in f[1:])):
            folds[cp] = f[0]
    return folds


def merge(cps):
    out = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def generate():
    rows = unicode_data()
    dropped = {cp for cp, cat, _ in rows if cat in ("Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me")}
    dropped |= ranges("PropList.txt", "White_Space")
    dropped |= ranges("DerivedCoreProperties.txt", "Default_Ignorable_Code_Point")
    dropped.add(0x2800)
    folds = name_fold()
    folds.update(compat_fold(rows))
    version = "unknown version"
    with open(os.path.join(UCD, "ReadMe.txt"), encoding="utf-8", errors="replace") as f:
        m = re.search(r"Version (\d+\.\d+\.\d+)", f.read())
        if m:
            version = "Unicode " + m.group(1)
    lines = [
        "/* SPDX-License-Identifier: MIT */",
        "/* Generated by scripts/gen-unicode-table.py from the Unicode Character",
        " * Database (%s): do not edit. */" % version,
        "#ifndef SBX_UNICODE_TABLE_H",
        "#define SBX_UNICODE_TABLE_H",
        "",
        "#include <stdint.h>",
        "",
        "/* Code points that print as nothing or as a space (sorted ranges). */",
        "static const struct { uint32_t lo, hi; } unicode_dropped[] = {",
    ]
    lines += ["\t{ 0x%04X, 0x%04X }," % (lo, hi) for lo, hi in merge(dropped)]
    lines += [
        "};",
        "",
        "/* Code points read as one ASCII letter or '[' (sorted). */",
        "static const struct { uint32_t cp; char ascii; } unicode_folded[] = {",
    ]
    lines += ["\t{ 0x%04X, '%s' }," % (cp, chr(a)) for cp, a in sorted(folds.items())]
    lines += [
        "};",
        "",
        "/* Letters and digits past ASCII (L*, N*; sorted ranges). */",
        "static const struct { uint32_t lo, hi; } unicode_alnum[] = {",
    ]
    alnum = {cp for cp, cat, _ in rows if cat[0] in "LN" and cp >= 0x80}
    lines += ["\t{ 0x%04X, 0x%04X }," % (lo, hi) for lo, hi in merge(alnum)]
    lines += ["};", "", "#endif", ""]
    return "\n".join(lines)


def main():
    text = generate()
    if sys.argv[1:] == ["--check"]:
        here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "classify",
                            "unicode_table.h")
        with open(here, encoding="utf-8") as f:
            if f.read() != text:
                print("gen-unicode-table: classify/unicode_table.h is not what the "
                      "generator makes from %s" % UCD, file=sys.stderr)
                return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
