'use strict';
// The program runner against the Go reference: each program of
// internal/spec/testdata/program-runs.json set up and run as a job by this
// worker (through the protocol, as litebench runs it) writes the rows the
// Go reference evaluator writes: equal content digests after set-up and
// after the run, every operation done, and op counts that add up.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');

const root = path.join(__dirname, '..', '..', '..');
const CASES = JSON.parse(fs.readFileSync(path.join(root, 'internal/spec/testdata/program-runs.json'), 'utf8'));

// converse runs job through a fresh worker and returns its setup_done and
// final events (or its error event).
function converse(job) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'worker.js')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
    const out = {};
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const ev = JSON.parse(line);
      switch (ev.t) {
        case 'hello':
          send({ t: 'setup', job });
          break;
        case 'setup_done':
          out.setup = ev;
          send({ t: 'run' });
          break;
        case 'final':
          out.final = ev;
          child.stdin.end();
          break;
        case 'error':
          out.error = ev.error;
          child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve(out));
    send({ t: 'hello', protocol: 1 });
  });
}

for (const c of CASES) {
  test(`program ${c.id}`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-node-prog-'));
    try {
      const job = {
        run_id: c.id,
        workload: c.name,
        program: c.program,
        settings: c.settings,
        target: 'node-better-sqlite3',
        path: path.join(dir, 'p.db'),
        digest: true,
      };
      const { setup, final, error } = await converse(job);
      assert.equal(error, undefined);
      assert.equal(setup.digest, c.setup_digest, 'set-up digest');
      assert.equal(final.status, 'ok', final.error);
      assert.equal(final.digest, c.final_digest, 'final digest');
      const p = c.program;
      const ops = new Map(final.final_ops.map((o) => [o.name, o]));
      if (p.load) {
        assert.equal(final.done, p.load.count);
        const ntx = p.transactions.length;
        let n = 0;
        for (const name of p.ops.slice(0, ntx)) {
          n += (ops.get(name) || { count: 0 }).count;
        }
        assert.equal(n, final.done, 'transactions counted');
        for (const o of final.final_ops) {
          const k = p.ops.indexOf(o.name);
          assert.equal(o.of || '', p.of[k] || '', `of of ${o.name}`);
        }
      } else {
        assert.equal(ops.get('insert').count, p.insert.rows);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

// runCase runs case id's program after patch(program) and returns the
// final event.
async function runCase(id, patch) {
  const c = CASES.find((x) => x.id === id);
  const program = JSON.parse(JSON.stringify(c.program));
  patch(program);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-node-prog-'));
  try {
    const job = { workload: c.name, program, settings: c.settings, path: path.join(dir, 'p.db') };
    const { final, error } = await converse(job);
    assert.equal(error, undefined);
    return final;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a failed check fails the run, naming it', async () => {
  const final = await runCase('queue', (p) => {
    Object.assign(p.checks[0], { expect: 'cmp', cmp: '<', want: '5' });
  });
  assert.equal(final.status, 'failed');
  assert.equal(final.error, 'check "check 1" failed: got 500, want < 5 (gset.toml:47:3)');
  assert.deepEqual(final.notes, [final.error]);
});

test('an expression that fails stops the run at its position', async () => {
  const final = await runCase('kv', (p) => {
    p.transactions[0].steps[0].expr = {
      op: 'binary',
      fn: '/',
      a: [
        { op: 'int', v: '1' },
        { op: 'int', v: '0' },
      ],
      at: 'kv.toml:9:9',
    };
  });
  assert.equal(final.status, 'failed');
  assert.equal(final.error, 'kv.toml:9:9: division by zero');
});

test('a query into variables that returns no row is counted missing', async () => {
  const final = await runCase('kv', (p) => {
    p.statements[0].sql = 'SELECT v FROM kv WHERE id = ? + 100000';
    p.statements[0].into = [0];
  });
  assert.equal(final.status, 'ok');
  const get = final.final_ops.find((o) => o.name === 'get');
  assert.ok(get.errors.missing > 0 && get.count === 0, JSON.stringify(get));
  assert.equal(get.errors.missing + final.done, 300);
});
