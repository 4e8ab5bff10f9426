# SPDX-License-Identifier: MIT
# A program that reports a failed write in its own words around Python's
# str(e), the way applications and their logs do (issue 31):
#   own_words.py paren PATH   stdout: "cannot save state ([Errno 30] ...: 'PATH'), giving up"
#   own_words.py log PATH     stdout: a logging line, "... ERROR app: save failed [Errno 30] ..."
#   own_words.py sqlite PATH  sqlite3: insert into PATH's table t; the module's own
#                             "attempt to write a readonly database" when refused
import logging
import sqlite3
import sys

mode, path = sys.argv[1], sys.argv[2]
if mode == "sqlite":
    db = sqlite3.connect(path)
    db.execute("insert into t values (1)")
    db.commit()
    sys.exit(0)
try:
    with open(path, "w") as f:
        f.write("state\n")
except OSError as e:
    if mode == "paren":
        print("cannot save state (" + str(e) + "), giving up")
    else:
        logging.basicConfig(stream=sys.stdout,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        logging.getLogger("app").error("save failed %s", e)
    sys.exit(1)
