#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Drive `sbx serve` from Node: a small example for harness authors.
//
// Usage: scripts/serve_example.mjs [PATH_TO_SBX]      (default: ./sbx)
//
// sbx serve speaks JSON lines (CONTRACT section 7): one request per line on
// its stdin, one answer per line on its stdout. Every request carries an "id"
// that its answer echoes, and answers arrive in *completion* order, so a
// harness matches them by id. This script asks for the schema additions and
// capabilities, sends two overlapping runs (a denied read-only write, an
// allowed workspace-write write), retries the denied command with an approved
// escalation, polls a background task until it settles, then closes stdin and
// checks that sbx exits 0. It exits non-zero if any expectation fails.
// No npm packages: child_process and readline only.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const DENIED = (mode) => `[sandbox: file access denied under ${mode} mode]`;
const ESCALATION =
  '[sandbox: escalation available \u2014 retry this exact command once with ' +
  'sandbox_permissions (the narrowest wider mode that suffices) + justification; ' +
  'the approval prompt asks the user]';
const TIMEOUT_MS = 30000;

const failures = [];
function check(ok, what) {
  console.log((ok ? '  ok    ' : '  FAIL  ') + what);
  if (!ok) failures.push(what);
  return ok;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One `sbx serve` child; answers are matched to requests by id.
class Server {
  constructor(sbx) {
    this.proc = spawn(sbx, ['serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.waiting = new Map(); // id -> {resolve, reject, timer}
    this.early = new Map(); // answers that came before anyone waited for them
    this.order = []; // ids in the order their answers arrived
    this.exited = new Promise((r) => {
      this.proc.on('exit', (code, signal) => r(signal ?? code));
      this.proc.on('error', (e) => { this.failAll(e); r(`error: ${e.message}`); });
    });
    this.proc.stdin.on('error', (e) => this.failAll(e)); // EPIPE if sbx died
    const lines = createInterface({ input: this.proc.stdout });
    lines.on('line', (line) => {
      let answer;
      try {
        answer = JSON.parse(line);
      } catch (e) {
        this.failAll(new Error(`not JSON from sbx serve: ${line}`));
        return;
      }
      this.order.push(answer.id);
      const w = this.waiting.get(answer.id);
      if (w) {
        this.waiting.delete(answer.id);
        clearTimeout(w.timer);
        w.resolve(answer);
      } else {
        this.early.set(answer.id, answer);
      }
    });
    lines.on('close', () => this.failAll(new Error('sbx serve closed stdout')));
  }

  failAll(err) {
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.waiting.clear();
  }

  send(request) {
    this.proc.stdin.write(JSON.stringify(request) + '\n');
  }

  async wait(id, timeoutMs = TIMEOUT_MS) {
    let answer = this.early.get(id);
    if (answer) {
      this.early.delete(id);
    } else {
      answer = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this.waiting.delete(id);
          reject(new Error(`no answer for id ${id} after ${timeoutMs} ms`));
        }, timeoutMs);
        this.waiting.set(id, { resolve, reject, timer });
      });
    }
    if (answer.error) throw new Error(`id ${id}: ${JSON.stringify(answer.error)}`);
    return answer;
  }

  call(request, timeoutMs) {
    this.send(request);
    return this.wait(request.id, timeoutMs);
  }

  async close(timeoutMs = 10000) {
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

// The first object (depth-first) in obj that has key, or null.
function findKey(obj, key) {
  if (obj === null || typeof obj !== 'object') return null;
  if (!Array.isArray(obj) && key in obj) return obj;
  for (const child of Object.values(obj)) {
    const found = findKey(child, key);
    if (found) return found;
  }
  return null;
}

async function runAll(server, root) {
  // 1. What a bash tool gains when confinement is on, and what this server offers.
  console.log('schema and capabilities');
  const props = findKey(await server.call({ id: 1, op: 'schema' }), 'sandbox_permissions') ?? {};
  const perms = props.sandbox_permissions ?? {};
  check(JSON.stringify([...(perms.enum ?? [])].sort()) ===
        JSON.stringify(['danger-full-access', 'workspace-write']),
        `schema: sandbox_permissions enum ${JSON.stringify(perms.enum)}`);
  check(props.justification?.type === 'string', 'schema: justification is a string');
  const caps = findKey(await server.call({ id: 2, op: 'capabilities' }), 'sandbox_mode') ?? {};
  check(['read-only', 'workspace-write', 'danger-full-access'].includes(caps.sandbox_mode),
        `capabilities: default mode ${caps.sandbox_mode}, runners ${JSON.stringify(caps.runners)}, ` +
        `escalation ${caps.escalation}`);

  // 2. Two runs in flight at once; the answers come back in completion order.
  console.log(`two overlapping runs in ${root}`);
  const write = 'sleep 0.3; echo hello > denied.txt';
  server.send({ id: 3, op: 'run', command: write, session: { root, mode: 'read-only' } });
  server.send({ id: 4, op: 'run', command: 'echo ok > allowed.txt && cat allowed.txt',
                session: { root, mode: 'workspace-write' } });
  const [denied, allowed] = (await Promise.all([server.wait(3), server.wait(4)]))
    .map((a) => a.result);
  console.log(`  answers arrived in the order ${JSON.stringify(server.order.slice(-2))} ` +
              '(completion order)');

  check(denied.exit_code !== 0 && denied.sandbox.denied === true,
        `read-only write denied (exit ${denied.exit_code}, runner ${denied.sandbox.runner})`);
  const markers = denied.markers;
  check(markers[0] === DENIED('read-only'), `denial marker: ${JSON.stringify(markers.slice(0, 1))}`);
  check(markers.length === 1 || (markers.length === 2 && markers[1] === ESCALATION),
        'escalation marker, if any, is exact');
  check(markers.every((m) => denied.text.includes(m)), 'the markers are in `text`');
  check(!existsSync(join(root, 'denied.txt')), 'denied.txt was not written');
  console.log('  what the model sees:\n    ' + denied.text.replace(/\n$/, '').replaceAll('\n', '\n    '));

  check(allowed.exit_code === 0 && allowed.sandbox.denied === false &&
        allowed.markers.length === 0 && allowed.stdout === 'ok\n',
        'workspace-write write allowed, no markers');

  // 3. The user approved the escalation: retry the exact command, once.
  console.log('escalation retry');
  const retry = (await server.call({
    id: 5, op: 'run', command: write, session: { root, mode: 'read-only' },
    sandbox_permissions: 'workspace-write', justification: 'write denied.txt in the workspace',
  })).result;
  check(retry.exit_code === 0 && retry.sandbox.mode === 'workspace-write' &&
        retry.markers.length === 0, 'escalated retry ran under workspace-write');
  check(existsSync(join(root, 'denied.txt')) &&
        readFileSync(join(root, 'denied.txt'), 'utf8') === 'hello\n',
        'denied.txt written by the retry');

  // 4. A background task: a handle at once, then task_output until it settles.
  console.log('background task');
  const handle = await server.call({
    id: 6, op: 'run', background: true,
    command: 'for i in 1 2 3; do echo tick $i; sleep 0.2; done',
    session: { root, mode: 'read-only' },
  });
  const task = handle.task;
  check(typeof task === 'string' && !('result' in handle), `background handle ${JSON.stringify(task)}`);
  let nextId = 7, polls = 0, status = 'running', out = {};
  const deadline = Date.now() + TIMEOUT_MS;
  while (status === 'running' && Date.now() < deadline) {
    await sleep(100);
    out = await server.call({ id: nextId++, op: 'task_output', task });
    polls++;
    status = out.status;
  }
  const result = out.result ?? {};
  check(status === 'exited' && result.exit_code === 0 && (result.stdout ?? '').includes('tick 3'),
        `task ${task} settled as ${JSON.stringify(status)} after ${polls} polls`);
}

async function main() {
  const sbx = resolve(process.argv[2] ?? './sbx');
  const work = mkdtempSync(join(tmpdir(), 'sbx-serve-js-'));
  const root = realpathSync(work);
  const server = new Server(sbx);
  try {
    await runAll(server, root);
  } catch (e) {
    check(false, `protocol: ${e.message}`);
  }
  const code = await server.close();
  check(code === 0, `sbx serve exited 0 at end of stdin (got ${code})`);
  rmSync(work, { recursive: true, force: true });
  console.log(`\n${failures.length ? 'FAILED' : 'all good'}: ${failures.length} expectation(s) failed`);
  process.exitCode = failures.length ? 1 : 0;
}

main();
