#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Drive `sbx serve` (protocol 2) from Node: a small example for harness authors.
//
// Usage: scripts/serve_example.mjs [PATH_TO_SBX]      (default: ./sbx)
//
// sbx serve speaks JSON-RPC 2.0, one message per line on stdin/stdout
// (docs/protocol.md). Answers arrive in *completion* order, so a harness
// matches them by id; notifications (task/settled) have no id. This script
// initializes, opens a read-only session with escalation and a
// workspace-write one on one workspace, sends two overlapping runs (a denied
// write, an allowed one), retries the denied command with an approved
// escalation, cancels a long foreground run with $/cancel, waits for a
// background task's task/settled notification and reads its output from a
// byte offset, then closes stdin and checks that sbx exits 0. It exits
// non-zero if any expectation fails. No npm packages: child_process and
// readline only.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const DENIED = (mode) => `[sandbox: file access denied under ${mode} mode]`;
const TIMEOUT_MS = 30000;

const failures = [];
function check(ok, what) {
  console.log((ok ? '  ok    ' : '  FAIL  ') + what);
  if (!ok) failures.push(what);
  return ok;
}

class RpcError extends Error {
  constructor(error) {
    super(`${error.data?.code}: ${error.message}`);
    this.error = error;
  }
}

// One `sbx serve` child: requests get promises, notifications go to waiters.
class Server {
  constructor(sbx) {
    this.proc = spawn(sbx, ['serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    this.notes = [];
    this.noteWaiters = [];
    this.exited = new Promise((r) => this.proc.on('exit', (code, signal) => r(signal ?? code)));
    this.proc.stdin.on('error', (e) => this.failAll(e));
    const lines = createInterface({ input: this.proc.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const msg = JSON.parse(line);
      if (!('id' in msg)) {
        this.notes.push(msg);
        this.noteWaiters.forEach((w) => w());
        return;
      }
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new RpcError(msg.error));
      else p.resolve(msg.result);
    });
    lines.on('close', () => this.failAll(new Error('sbx serve closed stdout')));
  }

  failAll(err) {
    for (const [, p] of this.pending) p.reject(err);
    this.pending.clear();
  }

  send(method, params) {
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      setTimeout(() => reject(new Error(`no answer for ${method} (id ${id})`)), TIMEOUT_MS).unref();
    });
    this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return { id, answer };
  }

  call(method, params) {
    return this.send(method, params).answer;
  }

  notify(method, params) {
    this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  async notification(method, task) {
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const i = this.notes.findIndex((n) => n.method === method && n.params.task === task);
      if (i >= 0) return this.notes.splice(i, 1)[0].params;
      if (Date.now() > deadline) throw new Error(`no ${method} for ${task}`);
      await new Promise((r) => { this.noteWaiters.push(r); setTimeout(r, 200); });
    }
  }

  async close() {
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

async function runAll(server, root) {
  console.log('initialize');
  const info = await server.call('initialize', { client: { name: 'serve_example.mjs' } });
  check(info.protocol === 2, `sbx ${info.sbx_version}, protocol ${info.protocol}, runners ${info.runners}`);

  console.log(`two sessions on ${root}`);
  const esc = info.escalation_allowed;
  const ro = (await server.call('session/open', { root, mode: 'read-only', escalation: esc })).session;
  const ww = (await server.call('session/open', { root, mode: 'workspace-write' })).session;
  const props = (await server.call('schema', { session: ro })).schema.properties;
  check('command' in props && ('sandbox_permissions' in props) === esc,
        `schema: ${Object.keys(props).sort().join(', ')}`);

  console.log('two overlapping runs');
  const write = 'sleep 0.3; echo hello > denied.txt';
  const [denied, allowed] = await Promise.all([
    server.call('run', { session: ro, command: write }),
    server.call('run', { session: ww, command: 'echo ok > allowed.txt && cat allowed.txt' }),
  ]);
  check(denied.exit_code !== 0 && denied.sandbox.denied === true,
        `read-only write denied (runner ${denied.sandbox.runner})`);
  check(denied.markers[0] === DENIED('read-only'), `denial marker: ${denied.markers[0]}`);
  check(denied.text.endsWith(denied.markers.join('\n') + '\n'), 'the markers end `text`');
  check(!existsSync(join(root, 'denied.txt')), 'denied.txt was not written');
  console.log('  what the model sees:\n    ' + denied.text.replace(/\n$/, '').replaceAll('\n', '\n    '));
  check(allowed.exit_code === 0 && allowed.markers.length === 0 && allowed.stdout === 'ok\n',
        'workspace-write write allowed, no markers');

  if (esc) {
    console.log('escalation retry');
    const retry = await server.call('run', { session: ro, command: write,
      sandbox_permissions: 'workspace-write', justification: 'write denied.txt in the workspace' });
    check(retry.exit_code === 0 && retry.sandbox.mode === 'workspace-write',
          'escalated retry ran under workspace-write');
    check(readFileSync(join(root, 'denied.txt'), 'utf8') === 'hello\n', 'denied.txt written by the retry');
  }

  console.log('cancel a foreground run');
  const long = server.send('run', { session: ro, command: 'sleep 60' });
  setTimeout(() => server.notify('$/cancel', { id: long.id }), 300);
  try {
    await long.answer;
    check(false, 'the cancelled run answered as if it had finished');
  } catch (e) {
    check(e.error?.data?.code === 'CANCELLED', `cancelled run: ${e.message}`);
  }

  console.log('background task');
  const task = (await server.call('run', { session: ro, background: true,
    command: 'for i in 1 2 3; do echo tick $i; sleep 0.2; done' })).task;
  const settled = await server.notification('task/settled', task);
  check(settled.status === 'exited' && settled.result.exit_code === 0,
        `task ${task} settled as ${settled.status} (task/settled notification)`);
  const out = await server.call('task/output', { session: ro, task, since: 7 });
  check(out.stdout === 'tick 2\ntick 3\n' && out.next.stdout === 21,
        `task/output since byte 7: ${JSON.stringify(out.stdout)}`);
}

async function main() {
  const sbx = resolve(process.argv[2] ?? './sbx');
  const root = realpathSync(mkdtempSync('/var/tmp/sbx-serve-js-'));
  const server = new Server(sbx);
  try {
    await runAll(server, root);
  } catch (e) {
    check(false, `protocol: ${e.message}`);
  }
  const code = await server.close();
  check(code === 0, `sbx serve exited 0 at end of stdin (got ${code})`);
  rmSync(root, { recursive: true, force: true });
  console.log(`\n${failures.length ? 'FAILED' : 'all good'}: ${failures.length} expectation(s) failed`);
  process.exitCode = failures.length ? 1 : 0;
}

main();
