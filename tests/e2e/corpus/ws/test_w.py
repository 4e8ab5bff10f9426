# SPDX-License-Identifier: MIT
# A test suite whose one test writes $TARGET: pytest reports a failure on
# stdout ("E       OSError: [Errno 30] ...", "FAILED ... - OSError: ...").
import os


def test_write():
    with open(os.environ["TARGET"], "w") as f:
        f.write("x")
