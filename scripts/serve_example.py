#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive `sbx serve` from Python: a small example for harness authors.

Usage: scripts/serve_example.py [PATH_TO_SBX]      (default: ./sbx)

sbx serve speaks JSON lines (CONTRACT section 7): one request per line on its
stdin, one answer per line on its stdout. Every request carries an "id" that
its answer echoes, and answers arrive in *completion* order, so a harness
matches them by id. This script:

  1. asks for the bash tool's schema additions and the server's capabilities;
  2. sends two runs at once in a temporary workspace: a write in read-only mode
     (denied: the result carries markers and a `text` for the model) and a
     write in workspace-write mode (allowed);
  3. retries the denied command once with an approved escalation
     (sandbox_permissions + justification), as the escalation marker asks;
  4. starts a background task and polls task_output until it settles;
  5. closes stdin and checks that sbx exits 0.

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


class Server:
    """One `sbx serve` child; answers are matched to requests by id."""

    def __init__(self, sbx):
        self.proc = subprocess.Popen([sbx, "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.lines = queue.Queue()
        self.early = {}  # answers that came before anyone waited for them
        self.order = []  # ids in the order their answers arrived
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # end of output

    def send(self, request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def wait(self, req_id, timeout=TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while req_id not in self.early:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer for id {req_id} after {timeout}s")
            line = self.lines.get(timeout=left)
            if line is None:
                raise EOFError(f"sbx serve closed stdout before answering id {req_id}")
            answer = json.loads(line)
            self.order.append(answer.get("id"))
            self.early[answer.get("id")] = answer
        answer = self.early.pop(req_id)
        if "error" in answer:
            raise RuntimeError(f"id {req_id}: {answer['error']}")
        return answer

    def call(self, request, timeout=TIMEOUT_S):
        self.send(request)
        return self.wait(request["id"], timeout)

    def close(self, timeout=10):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass  # sbx already exited; its status tells
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def find_key(obj, key):
    """The first dict (depth-first) in obj that has key, or None."""
    if isinstance(obj, dict):
        if key in obj:
            return obj
        children = obj.values()
    elif isinstance(obj, list):
        children = obj
    else:
        return None
    for child in children:
        found = find_key(child, key)
        if found is not None:
            return found
    return None


def main():
    sbx = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./sbx")
    if not os.access(sbx, os.X_OK):
        print(f"serve_example.py: {sbx} is not an executable", file=sys.stderr)
        return 2
    work = tempfile.TemporaryDirectory(prefix="sbx-serve-py-")
    root = os.path.realpath(work.name)
    server = Server(sbx)
    try:
        run_all(server, root)
    except (OSError, EOFError, RuntimeError, ValueError, KeyError, TypeError,
            queue.Empty) as e:  # OSError: TimeoutError, BrokenPipeError (sbx died)
        check(False, f"protocol: {type(e).__name__}: {e}")
    rc = server.close()
    check(rc == 0, f"sbx serve exited 0 at end of stdin (got {rc})")
    work.cleanup()
    print(f"\n{'FAILED' if failures else 'all good'}: {len(failures)} expectation(s) failed")
    return 1 if failures else 0


def run_all(server, root):
    # 1. What a bash tool gains when confinement is on, and what this server offers.
    print("schema and capabilities")
    schema = server.call({"id": 1, "op": "schema"})
    props = find_key(schema, "sandbox_permissions") or {}
    perms = props.get("sandbox_permissions", {})
    check(sorted(perms.get("enum", [])) == ["danger-full-access", "workspace-write"],
          f"schema: sandbox_permissions enum {perms.get('enum')}")
    check(props.get("justification", {}).get("type") == "string",
          "schema: justification is a string")
    caps = find_key(server.call({"id": 2, "op": "capabilities"}), "sandbox_mode") or {}
    check(caps.get("sandbox_mode") in ("read-only", "workspace-write", "danger-full-access"),
          f"capabilities: default mode {caps.get('sandbox_mode')}, "
          f"runners {caps.get('runners')}, escalation {caps.get('escalation')}")

    # 2. Two runs in flight at once; the answers come back in completion order.
    print("two overlapping runs in", root)
    write = "sleep 0.3; echo hello > denied.txt"
    server.send({"id": 3, "op": "run", "command": write,
                 "session": {"root": root, "mode": "read-only"}})
    server.send({"id": 4, "op": "run", "command": "echo ok > allowed.txt && cat allowed.txt",
                 "session": {"root": root, "mode": "workspace-write"}})
    denied = server.wait(3)["result"]
    allowed = server.wait(4)["result"]
    print(f"  answers arrived in the order {server.order[-2:]} (completion order)")

    check(denied["exit_code"] != 0 and denied["sandbox"]["denied"] is True,
          f"read-only write denied (exit {denied['exit_code']}, "
          f"runner {denied['sandbox'].get('runner')})")
    markers = denied["markers"]
    check(markers[:1] == [DENIED.format("read-only")], f"denial marker: {markers[:1]}")
    check(markers[1:] in ([], [ESCALATION]), "escalation marker, if any, is exact")
    check(all(m in denied["text"] for m in markers), "the markers are in `text`")
    check(not os.path.exists(os.path.join(root, "denied.txt")), "denied.txt was not written")
    print("  what the model sees:\n    " + denied["text"].rstrip("\n").replace("\n", "\n    "))

    check(allowed["exit_code"] == 0 and allowed["sandbox"]["denied"] is False
          and allowed["markers"] == [] and allowed["stdout"] == "ok\n",
          "workspace-write write allowed, no markers")

    # 3. The user approved the escalation: retry the exact command, once.
    print("escalation retry")
    retry = server.call({"id": 5, "op": "run", "command": write,
                         "session": {"root": root, "mode": "read-only"},
                         "sandbox_permissions": "workspace-write",
                         "justification": "write denied.txt in the workspace"})["result"]
    check(retry["exit_code"] == 0 and retry["sandbox"]["mode"] == "workspace-write"
          and retry["markers"] == [], "escalated retry ran under workspace-write")
    with open(os.path.join(root, "denied.txt"), encoding="utf-8") as f:
        check(f.read() == "hello\n", "denied.txt written by the retry")

    # 4. A background task: a handle at once, then task_output until it settles.
    print("background task")
    handle = server.call({"id": 6, "op": "run", "background": True,
                          "command": "for i in 1 2 3; do echo tick $i; sleep 0.2; done",
                          "session": {"root": root, "mode": "read-only"}})
    task = handle.get("task")
    check(isinstance(task, str) and "result" not in handle, f"background handle {task!r}")
    next_id, polls, status, out = 7, 0, "running", {}
    deadline = time.monotonic() + TIMEOUT_S
    while status == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
        out = server.call({"id": next_id, "op": "task_output", "task": task})
        next_id, polls, status = next_id + 1, polls + 1, out["status"]
    result = out.get("result", {})
    check(status == "exited" and result.get("exit_code") == 0
          and "tick 3" in result.get("stdout", ""),
          f"task {task} settled as {status!r} after {polls} polls")


if __name__ == "__main__":
    sys.exit(main())
