#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints what a Go program prints when a file operation fails (Go is not
installed on CI machines, so its output shape is generated here). The
operation itself is real: the errno comes from the kernel under the sandbox.

  go_emu.py main OP PATH [DST]   stderr: "open /p/a: read-only file system", exit 1
  go_emu.py test OP PATH [DST]   stdout: `go test`'s report of the same, exit 1

Go's *PathError prints "<op> <path>: <errno text>", its errno texts are
glibc's English strerror texts in lower case (syscall/zerrors_linux_*.go);
os.Rename's *LinkError prints "rename <old> <new>: <text>". OP is open
(create and write), mkdir or rename.
"""
import os
import sys


def attempt(op, path, dst):
    if op == "open":
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        os.write(fd, b"x")
        os.close(fd)
    elif op == "mkdir":
        os.mkdir(path, 0o777)
    elif op == "rename":
        os.rename(path, dst)


def main():
    mode, op, path = sys.argv[1], sys.argv[2], sys.argv[3]
    dst = sys.argv[4] if len(sys.argv) > 4 else None
    try:
        attempt(op, path, dst)
    except OSError as e:
        text = os.strerror(e.errno).lower()
        names = f"{path} {dst}" if op == "rename" else path
        msg = f"{op} {names}: {text}"
        if mode == "main":
            print(msg, file=sys.stderr)
        else:
            print("--- FAIL: TestWrite (0.00s)")
            print(f"    w_test.go:14: {msg}")
            print("FAIL")
            print("exit status 1")
            print("FAIL\texample.com/w\t0.004s")
        sys.exit(1)
    if mode == "test":
        print("ok  \texample.com/w\t0.003s")


main()
