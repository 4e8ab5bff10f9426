# SPDX-License-Identifier: MIT
# A test that wraps the OSError of a write in its own message: pytest's
# report on stdout carries str(e) inside other words (issue 31).
import os


def test_save():
    try:
        with open(os.environ["TARGET"], "w") as f:
            f.write("x")
    except OSError as e:
        raise RuntimeError(f"save failed ({e})") from None
