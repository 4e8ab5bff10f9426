#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A service writing structured (JSON lines) logs, as many agents' projects
do; real Python, real write.

  jsonlog.py plain PATH      stdout: {"level": "error", "err": "[Errno 30] ...: '/p'"}
  jsonlog.py localized PATH  the same after setlocale(LC_ALL, ""): the
                             strerror text in the locale's language, and
                             json.dumps escaping it as \\uXXXX
  jsonlog.py traceback PATH  stderr: the logging module's exc_info, the
                             whole traceback inside one JSON string
"""
import json
import locale
import logging
import sys

mode, path = sys.argv[1], sys.argv[2]
if mode == "localized":
    locale.setlocale(locale.LC_ALL, "")


class JsonFormatter(logging.Formatter):
    def format(self, record):
        out = {"level": record.levelname.lower(), "msg": record.getMessage()}
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out)


try:
    with open(path, "w") as f:
        f.write("x")
except OSError as e:
    if mode == "traceback":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        log = logging.getLogger("svc")
        log.addHandler(handler)
        log.error("could not save state", exc_info=True)
    else:
        print(json.dumps({"level": "error", "msg": "could not save state", "err": str(e)}))
    sys.exit(1)
print(json.dumps({"level": "info", "msg": "saved"}))
