#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints what a Rust program prints when a file write fails (rustc and cargo
are not installed on CI machines, so the output shape is generated here; the
write itself is real).

  rust_emu.py anyhow PATH   a CLI using anyhow with context:
        Error: failed to write /p/a
        <blank>
        Caused by:
            Read-only file system (os error 30)
  rust_emu.py cargo DIR     cargo creating its target directory, coloured
                            as under CARGO_TERM_COLOR=always:
        error: failed to create directory `/p/target`
        <blank>
        Caused by:
          Read-only file system (os error 30)

std::io::Error displays as "<strerror> (os error N)", strerror from the C
library in the "C" locale (Rust programs do not call setlocale).
"""
import os
import sys

mode, path = sys.argv[1], sys.argv[2]
try:
    if mode == "anyhow":
        with open(path, "w") as f:
            f.write("x")
    else:
        os.mkdir(path)
except OSError as e:
    cause = f"{os.strerror(e.errno)} (os error {e.errno})"
    if mode == "anyhow":
        sys.stderr.write(f"Error: failed to write {path}\n\nCaused by:\n    {cause}\n")
        sys.exit(1)
    sys.stderr.write(f"\x1b[1m\x1b[91merror\x1b[0m\x1b[1m:\x1b[0m failed to create directory "
                     f"`{path}`\n\nCaused by:\n  {cause}\n")
    sys.exit(101)
