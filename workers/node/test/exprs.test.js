'use strict';
// The program expressions against the Go reference's vectors
// (internal/spec/testdata/program-vectors.json): each case evaluated five
// times in a row by a fresh worker, typed results or the error.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const gen = require('../lib/gen');
const exprs = require('../lib/exprs');
const { ProgTable } = require('../lib/ptable');

const root = path.join(__dirname, '..', '..', '..');
const V = JSON.parse(fs.readFileSync(path.join(root, 'internal/spec/testdata/program-vectors.json'), 'utf8'));

function bitsOf(x) {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(x);
  return b.toString('hex');
}

function typed(v) {
  if (v === null) {
    return { null: true };
  }
  switch (typeof v) {
    case 'boolean':
      return { bool: v };
    case 'bigint':
      return { int: v.toString() };
    case 'number':
      return { float: bitsOf(v) };
  }
  return { text: v };
}

test('expression vectors', () => {
  const p = V.program;
  const seed = gen.seedOf(p.seed);
  const bad = [];
  for (const c of V.cases) {
    const tables = p.tables.map((t) => new ProgTable(t, seed));
    const ctx = exprs.workerCtx(p, seed, tables, c.worker, 1);
    const got = [];
    let err = null;
    for (let k = 0; k < 5; k++) {
      try {
        got.push(typed(exprs.evaluate(c.expr, ctx)));
      } catch (e) {
        if (!(e instanceof exprs.EvalError)) {
          throw e;
        }
        err = e.message;
        break;
      }
    }
    const want = c.values || [];
    if (JSON.stringify(got) !== JSON.stringify(want) || err !== (c.error || null)) {
      bad.push(
        `${c.src} (worker ${c.worker}): got ${JSON.stringify(got)} ${err}, want ${JSON.stringify(want)} ${c.error}`,
      );
    }
  }
  assert.deepEqual(bad, []);
});

test('floats as Go writes them', () => {
  const cases = [
    [1.5, '1.5'],
    [1e21, '1e+21'],
    [123456789.0, '1.23456789e+08'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [100.0, '100'],
    [-2.5, '-2.5'],
    [0.0, '0'],
    [1e20, '1e+20'],
    [1234567.0, '1.234567e+06'],
    [123456.0, '123456'],
    [1e100, '1e+100'],
    [0.1 + 0.2, '0.30000000000000004'],
  ];
  for (const [f, want] of cases) {
    assert.equal(exprs.goFloat(f), want, String(f));
  }
});

test('text read back', () => {
  for (const [s, want] of [
    ['42', 42n],
    ['-7', -7n],
    ['042', '042'],
    ['+7', '+7'],
    ['-0', '-0'],
    ['9223372036854775807', 9223372036854775807n],
    ['9223372036854775808', '9223372036854775808'],
    ['1e+06', '1e+06'],
  ]) {
    assert.equal(exprs.textValue(s), want, s);
  }
});

test('integers past 2^53 in a message reach BigInt exactly', () => {
  const { exactInts } = require('../lib/main');
  const text =
    '{"a": -9223372036854775808, "b": 9007199254740991, "c": "x 12345678901234567890", "d": 1.2345678901234567e+30, "e": 0.12345678901234567891}';
  const v = JSON.parse(exactInts(text));
  assert.equal(v.a, '-9223372036854775808');
  assert.equal(v.b, 9007199254740991);
  assert.equal(v.c, 'x 12345678901234567890');
  assert.equal(v.d, 1.2345678901234567e30);
  assert.equal(v.e, Number('0.12345678901234567891'));
  const t = new gen.Table([{ name: 'x', kind: 'uniform_int', args: { lo: v.a, hi: '9223372036854775807' } }]);
  assert.equal(typeof t.value(0, gen.seedOf(1), 0), 'bigint');
});
