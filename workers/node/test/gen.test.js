'use strict';
// The generators against the Go reference: internal/gen/testdata/vectors.json
// (every generator, two seeds) and internal/workload/testdata/rows.json (the
// built-in schemas' rows, far-out rows included). Each list is compared
// whole.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const u = require('../lib/u64');
const fm = require('../lib/fmath');
const gen = require('../lib/gen');
const { SCHEMAS } = require('../lib/schemas');

const root = path.join(__dirname, '..', '..', '..');
const vectors = JSON.parse(fs.readFileSync(path.join(root, 'internal/gen/testdata/vectors.json'), 'utf8'));
const pinned = JSON.parse(fs.readFileSync(path.join(root, 'internal/workload/testdata/rows.json'), 'utf8'));

const big = (h, l) => u.toBig(h, l).toString();

function bitsOf(x) {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(x);
  return b.toString('hex');
}
function fromBits(hex) {
  return Buffer.from(hex, 'hex').readDoubleBE(0);
}

// The columns' args hold ±2^63, which JSON.parse rounds: read them again
// from the text.
function exactColumns() {
  const text = fs.readFileSync(path.join(root, 'internal/gen/testdata/vectors.json'), 'utf8');
  const cols = vectors.columns.map((c) => JSON.parse(JSON.stringify(c)));
  for (const c of cols) {
    if (c.kind === 'uniform_int') {
      const re = new RegExp(`"name": "${c.name}"[\\s\\S]*?"hi": (-?\\d+),\\s*"lo": (-?\\d+)`);
      const m = re.exec(text);
      c.args.hi = BigInt(m[1]);
      c.args.lo = BigInt(m[2]);
    }
  }
  return cols;
}

test('draw and splitmix', () => {
  for (const s of vectors.seeds) {
    const seed = gen.seedOf(s.seed);
    const draws = s.draw.map((_, k) => (gen.drawRow(seed, { h: 0, l: 0 }, k), big(u.R.h, u.R.l)));
    assert.deepEqual(draws, s.draw, `draw, seed ${s.seed}`);
    const st = { h: seed.h, l: seed.l };
    const seq = s.splitmix.map(() => (gen.splitmixNext(st), big(u.R.h, u.R.l)));
    assert.deepEqual(seq, s.splitmix, `splitmix, seed ${s.seed}`);
  }
});

test('math', () => {
  for (const m of vectors.math) {
    const got = m.in_out.map(([inp]) => {
      const a = inp.split(' ').map(fromBits);
      return bitsOf(fm[m.fn](...a));
    });
    assert.deepEqual(
      got,
      m.in_out.map(([, out]) => out),
      m.fn,
    );
  }
});

test('zipf', () => {
  for (const z of vectors.zipf) {
    const g = new gen.Zipf(z.n, z.theta);
    assert.deepEqual(
      [bitsOf(g.zetan), bitsOf(g.half), bitsOf(g.alpha), bitsOf(g.eta)],
      [z.zetan, z.half, z.alpha, z.eta],
      `zipf n ${z.n} theta ${z.theta}`,
    );
  }
});

test('columns', () => {
  const t = new gen.Table(exactColumns());
  for (const s of vectors.seeds) {
    const seed = gen.seedOf(s.seed);
    const out = new Array(t.names.length);
    const got = {};
    for (const n of t.names) {
      got[n] = [];
    }
    for (let i = 0; i < 100; i++) {
      t.row(seed, i, out);
      t.names.forEach((n, k) => got[n].push(String(out[k])));
    }
    for (const n of t.names) {
      assert.deepEqual(got[n], s.columns[n], `column ${n}, seed ${s.seed}`);
    }
    // A value alone is the value in its row.
    t.names.forEach((n, k) => assert.equal(String(t.value(k, seed, 7)), s.columns[n][7], `${n} alone`));
  }
});

test('keys', () => {
  for (const s of vectors.seeds) {
    const seed = gen.seedOf(s.seed);
    for (const k of s.keys) {
      const z = k.dist === 'uniform' ? null : new gen.Zipf(k.n, k.theta);
      const kg = new gen.KeyGen(k.dist, z, seed, k.worker);
      assert.notEqual(kg.unit, null, 'the WebAssembly stream');
      const got = k.keys.map(() => kg.next(k.n));
      assert.deepEqual(got, k.keys, `${k.dist} n ${k.n} worker ${k.worker}, seed ${s.seed}`);
      // The same keys in halves, where there is no WebAssembly.
      const halves = new gen.KeyGen(k.dist, z, seed, k.worker);
      halves.unit = null;
      const inHalves = k.keys.map(() => halves.next(k.n));
      assert.deepEqual(inHalves, k.keys, `in halves: ${k.dist} n ${k.n} worker ${k.worker}, seed ${s.seed}`);
    }
  }
});

test('op chooser and arrivals', () => {
  for (const s of vectors.seeds) {
    const seed = gen.seedOf(s.seed);
    for (const o of s.ops) {
      let got = '';
      for (let q = 0; q < o.ops.length; q++) {
        got += gen.writeOp(seed, q, o.write_percent) ? 'w' : 'r';
      }
      assert.equal(got, o.ops, `ops ${o.write_percent}%, seed ${s.seed}`);
    }
    for (const a of s.arrivals) {
      let prev = 0;
      const got = a.due_ns.map((_, q) => (prev = gen.schedule(true, a.rate, q, prev, seed)));
      assert.deepEqual(got, a.due_ns, `arrivals at ${a.rate}/s, seed ${s.seed}`);
    }
  }
});

function canonical(v) {
  if (typeof v === 'number' || typeof v === 'bigint') {
    return 'i:' + v.toString();
  }
  if (Buffer.byteLength(v) > 256) {
    return `t#${Buffer.byteLength(v)}:` + crypto.createHash('sha256').update(v).digest('hex');
  }
  return 't:' + v;
}

test('schemas: the pinned rows', () => {
  const rows = [0, 1, 2, 3, 4, 1000, 123456, 2 ** 32 + 7];
  assert.deepEqual(Object.keys(SCHEMAS).sort(), Object.keys(pinned).sort());
  for (const [name, sc] of Object.entries(SCHEMAS)) {
    for (const [seedText, want] of Object.entries(pinned[name])) {
      const seed = gen.seedOf(seedText);
      const out = new Array(sc.columns.length);
      const got = rows.map((i) => sc.table.row(seed, i, out).map(canonical));
      assert.deepEqual(got, want, `${name}, seed ${seedText}`);
      // Keys alone are the rows' first column.
      rows.forEach((i, k) => assert.equal(canonical(sc.key(seed, i)), want[k][0], `${name} key of row ${i}`));
    }
  }
});
