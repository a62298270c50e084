'use strict';
// The histogram layout against hdr-histogram-js's, the round trip through
// the wire form, and the statistics on a known distribution.

const test = require('node:test');
const assert = require('node:assert/strict');
const hdr = require('hdr-histogram-js');
const { Hist, Layout, HIGHEST, PERCENTILES } = require('../lib/hist');

function* values() {
  for (let v = 1; v < 5000; v++) {
    yield v;
  }
  let x = 1;
  for (let i = 0; i < 20000; i++) {
    x = (x * 48271) % 2147483647;
    yield 1 + Math.floor((x / 2147483647) * Math.pow(2, 1 + (i % 39)));
  }
  for (let e = 1; e < 40; e++) {
    const p = Math.pow(2, e);
    yield p - 1;
    yield p;
    yield p + 1;
  }
  yield HIGHEST;
}

for (const sigfigs of [2, 3]) {
  test(`layout with ${sigfigs} significant figures is hdr-histogram-js's`, () => {
    const L = Layout.of(sigfigs);
    const lib = L.library();
    for (const v of values()) {
      if (v > HIGHEST) {
        continue;
      }
      const idx = L.index(v);
      assert.equal(idx, lib.countsArrayIndex(v), `index of ${v}`);
      assert.equal(L.valueFromIndex(idx), lib.valueFromIndex(idx), `value of index ${idx}`);
      assert.equal(L.lowestEquivalent(v), lib.lowestEquivalentValue(v), `lowest equivalent of ${v}`);
      assert.equal(L.highestEquivalent(v), lib.highestEquivalentValue(v), `highest equivalent of ${v}`);
    }
  });
}

test('encode and decode keep every count', () => {
  const h = new Hist(3);
  for (const v of values()) {
    h.record(v);
  }
  const back = Hist.decode(h.encode());
  assert.equal(back.total, h.total);
  assert.deepEqual(Array.from(back.counts), Array.from(h.counts));
  assert.equal(new Hist(3).encode(), '');
  assert.equal(Hist.decode('').total, 0);
});

// libraryEncode is hdr-histogram-js's own encoding of h's counts.
function libraryEncode(h) {
  const lib = h.layout.library();
  h.counts.forEach((c, i) => {
    if (c !== 0) {
      lib.recordValueWithCount(h.layout.valueFromIndex(i), c);
    }
  });
  return hdr.encodeIntoCompressedBase64(lib);
}

test("encode writes hdr-histogram-js's bytes", () => {
  for (const sigfigs of [2, 3]) {
    const all = new Hist(sigfigs);
    for (const v of values()) {
      all.record(v);
    }
    assert.equal(all.encode(), libraryEncode(all));
    // One value; values at the bottom and top of the range; counts that
    // take every LEB128 length, up to 2^52.
    const one = new Hist(sigfigs);
    one.record(4321);
    assert.equal(one.encode(), libraryEncode(one));
    const ends = new Hist(sigfigs);
    ends.record(1);
    ends.record(HIGHEST);
    assert.equal(ends.encode(), libraryEncode(ends));
    const big = new Hist(sigfigs);
    for (let e = 0; e <= 52; e++) {
      big.counts[big.layout.index(1000 + 37 * e)] = Math.pow(2, e) + e;
    }
    big.total = 1; // encode looks only at whether it is empty
    assert.equal(big.encode(), libraryEncode(big));
    assert.deepEqual(Array.from(Hist.decode(big.encode(), sigfigs).counts), Array.from(big.counts));
  }
});

test("summary's one pass gives the figures of min, mean, max and valueAtPercentile", () => {
  const us = (v) => Math.round((v / 1e3) * 1000) / 1000;
  let x = 7;
  for (let trial = 0; trial < 40; trial++) {
    const h = new Hist(trial % 2 ? 2 : 3);
    const n = 1 + ((trial * 37) % 500);
    for (let i = 0; i < n; i++) {
      x = (x * 48271) % 2147483647;
      h.record(1 + Math.floor((x / 2147483647) * Math.pow(2, 1 + ((i + trial) % 39))));
    }
    const d = h.summary();
    assert.equal(d.count, n);
    assert.equal(d.min, us(h.min()));
    assert.equal(d.max, us(h.max()));
    assert.equal(d.mean, Math.round((h.mean() / 1e3) * 1000) / 1000);
    for (const [k, p] of PERCENTILES) {
      assert.equal(d[k], us(h.valueAtPercentile(p)), `${k} of trial ${trial}`);
    }
  }
  assert.deepEqual(new Hist(3).summary(), { count: 0, min: 0, mean: 0, max: 0 });
});

test('statistics of 1..1000 µs', () => {
  const h = new Hist(3);
  for (let i = 1; i <= 1000; i++) {
    h.record(i * 1000);
  }
  const s = h.summary();
  assert.equal(s.count, 1000);
  assert.equal(s.min, 1);
  assert.equal(s.p50, 500.223); // 500 µs, to 3 significant figures' bucket end
  assert.equal(s.max, 1000.447);
  assert.ok(Math.abs(s.mean - 500.5) < 0.5, `mean ${s.mean}`);
  assert.ok(s.p99 >= 990 && s.p99 <= 991, `p99 ${s.p99}`);
});
