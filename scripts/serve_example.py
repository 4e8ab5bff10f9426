#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive `sbx serve` (protocol 2) from Python: a small example for harness authors.

Usage: scripts/serve_example.py [PATH_TO_SBX]      (default: ./sbx)

sbx serve speaks JSON-RPC 2.0, one message per line on stdin/stdout
(docs/protocol.md). Answers arrive in *completion* order, so a harness matches
them by id; notifications (task/settled) have no id. This script:

  1. initialize: the sbx version, protocol 2, the usable runners;
  2. opens two sessions on one temporary workspace: read-only with escalation,
     and workspace-write; asks for the bash tool's schema;
  3. sends two runs at once: a write in the read-only session (denied: the
     result carries markers and a `text` for the model) and one in the
     workspace-write session (allowed);
  4. retries the denied command once with an approved escalation
     (sandbox_permissions + justification), as the escalation marker asks;
  5. starts a background task, waits for its task/settled notification and
     reads its output from a byte offset (task/output `since`);
  6. closes stdin and checks that sbx exits 0.

It prints a short summary and exits non-zero if any expectation fails.
Standard library only.
"""
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

DENIED = "[sandbox: file access denied under {} mode]"
ESCALATION = ("[sandbox: escalation available \u2014 retry this exact command once with "
              "sandbox_permissions (the narrowest wider mode that suffices) + justification; "
              "the approval prompt asks the user]")
TIMEOUT_S = 30

failures = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)
    return ok


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(f"{error.get('data', {}).get('code')}: {error.get('message')}")
        self.error = error


class Server:
    """One `sbx serve` child; answers matched by id, notifications kept apart."""

    def __init__(self, sbx):
        # Answers stay under 256 KiB (--max-answer); asyncio users: raise
        # the stream limit past that, its default is 64 KiB.
        self.proc = subprocess.Popen([sbx, "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.lines = queue.Queue()
        self.answers = {}
        self.notes = []
        self.order = []
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("sbx serve did not answer in time")
        line = self.lines.get(timeout=left)
        if line is None:
            raise EOFError("sbx serve closed stdout")
        msg = json.loads(line)
        if "id" in msg:
            self.order.append(msg["id"])
            self.answers[msg["id"]] = msg
        else:
            self.notes.append(msg)

    def send(self, method, params):
        req_id = self.next_id
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": req_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        return req_id

    def wait(self, req_id):
        deadline = time.monotonic() + TIMEOUT_S
        while req_id not in self.answers:
            self._pump(deadline)
        msg = self.answers.pop(req_id)
        if "error" in msg:
            raise RpcError(msg["error"])
        return msg["result"]

    def call(self, method, params):
        return self.wait(self.send(method, params))

    def notification(self, method, task):
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for n in self.notes:
                if n["method"] == method and n["params"].get("task") == task:
                    self.notes.remove(n)
                    return n["params"]
            self._pump(deadline)

    def close(self, timeout=10):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def run_all(server, root):
    print("initialize")
    info = server.call("initialize", {"client": {"name": "serve_example.py"}})
    check(info["protocol"] == 2 and info["sbx_version"],
          f"sbx {info['sbx_version']}, protocol {info['protocol']}, runners {info['runners']}")

    print("two sessions on", root)
    esc = info["escalation_allowed"]
    ro = server.call("session/open", {"root": root, "mode": "read-only", "escalation": esc})
    ww = server.call("session/open", {"root": root, "mode": "workspace-write"})
    props = server.call("schema", {"session": ro["session"]})["schema"]["properties"]
    check("command" in props and ("sandbox_permissions" in props) == esc,
          f"schema: {sorted(props)}")

    print("two overlapping runs")
    write = "sleep 0.3; echo hello > denied.txt"
    a = server.send("run", {"session": ro["session"], "command": write})
    b = server.send("run", {"session": ww["session"],
                            "command": "echo ok > allowed.txt && cat allowed.txt"})
    denied, allowed = server.wait(a), server.wait(b)
    print(f"  answers arrived in the order {server.order[-2:]} (completion order)")
    check(denied["exit_code"] != 0 and denied["sandbox"]["denied"] is True,
          f"read-only write denied (runner {denied['sandbox'].get('runner')})")
    markers = denied["markers"]
    check(markers[:1] == [DENIED.format("read-only")], f"denial marker: {markers[:1]}")
    check(markers[1:] == ([ESCALATION] if esc else []), "escalation marker as the session says")
    check(denied["text"].endswith("\n".join(markers) + "\n"), "the markers end `text`")
    check(not os.path.exists(os.path.join(root, "denied.txt")), "denied.txt was not written")
    print("  what the model sees:\n    " + denied["text"].rstrip("\n").replace("\n", "\n    "))
    check(allowed["exit_code"] == 0 and allowed["markers"] == [] and allowed["stdout"] == "ok\n",
          "workspace-write write allowed, no markers")

    if esc:
        print("escalation retry")
        retry = server.call("run", {"session": ro["session"], "command": write,
                                    "sandbox_permissions": "workspace-write",
                                    "justification": "write denied.txt in the workspace"})
        check(retry["exit_code"] == 0 and retry["sandbox"]["mode"] == "workspace-write",
              "escalated retry ran under workspace-write")
        with open(os.path.join(root, "denied.txt"), encoding="utf-8") as f:
            check(f.read() == "hello\n", "denied.txt written by the retry")

    print("background task")
    task = server.call("run", {"session": ro["session"], "background": True,
                               "command": "for i in 1 2 3; do echo tick $i; sleep 0.2; done"})
    settled = server.notification("task/settled", task["task"])
    check(settled["status"] == "exited" and settled["result"]["exit_code"] == 0,
          f"task {task['task']} settled as {settled['status']!r} (task/settled notification)")
    out = server.call("task/output", {"session": ro["session"], "task": task["task"],
                                      "since": 7})
    check(out["stdout"] == "tick 2\ntick 3\n" and out["next"]["stdout"] == 21,
          f"task/output since byte 7: {out['stdout']!r}")
    server.call("session/close", {"session": ro["session"]})
    try:
        server.call("task/output", {"session": ro["session"], "task": task["task"]})
        check(False, "a closed session's tasks are gone")
    except RpcError as e:
        check(e.error["data"]["code"] == "NOT_FOUND", "a closed session's tasks are gone")


def main():
    sbx = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./sbx")
    if not os.access(sbx, os.X_OK):
        print(f"serve_example.py: {sbx} is not an executable", file=sys.stderr)
        return 2
    work = tempfile.TemporaryDirectory(prefix="sbx-serve-py-", dir="/var/tmp")
    root = os.path.realpath(work.name)
    server = Server(sbx)
    try:
        run_all(server, root)
    except (OSError, EOFError, RpcError, ValueError, KeyError, TypeError, queue.Empty) as e:
        check(False, f"protocol: {type(e).__name__}: {e}")
    rc = server.close()
    check(rc == 0, f"sbx serve exited 0 at end of stdin (got {rc})")
    work.cleanup()
    print(f"\n{'FAILED' if failures else 'all good'}: {len(failures)} expectation(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
