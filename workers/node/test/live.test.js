'use strict';
// The interval source: what a live recorder records reaches the main
// thread's takes once each, in the intervals' layout, as recording each
// latency there directly would; overruns and errors go where the run's
// figures say.

const test = require('node:test');
const assert = require('node:assert/strict');
const { Live } = require('../lib/shared');
const { Hist, Layout, HIGHEST } = require('../lib/hist');
const { Recorder, merge } = require('../lib/recorder');

function taken(live) {
  const out = Array.from({ length: live.ops }, () => ({ n: 0, err: 0, hist: new Hist(2) }));
  live.take(out);
  for (const o of out) {
    assert.equal(o.hist.total, o.n, 'an interval counts its samples');
  }
  return out.map((o) => ({ n: o.n, err: o.err, counts: Array.from(o.hist.counts) }));
}

// direct is the interval histogram of lat recorded one by one.
function direct(lat) {
  const h = new Hist(2);
  lat.forEach((ns) => h.record(ns));
  return Array.from(h.counts);
}

// latencies: a spread from 1 ns to the histograms' highest value.
function latencies(n, seed) {
  const out = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 48271) % 2147483647;
    out.push(1 + Math.floor((x / 2147483647) * Math.pow(2, 1 + (i % 39))));
  }
  out.push(1, 2047, 2048, 2049, HIGHEST);
  return out;
}

test("the run layout's buckets fold into the intervals' whole", () => {
  const fold = Live.fold();
  const run = Layout.of(3);
  const iv = Layout.of(2);
  for (const v of latencies(20000, 7)) {
    assert.equal(fold[run.index(v)], iv.index(v), `value ${v}`);
  }
  // Each run bucket's lowest and highest values land in one interval bucket.
  for (let i = 0; i < run.length; i++) {
    const v = run.valueFromIndex(i);
    if (v <= HIGHEST) {
      assert.equal(iv.index(run.highestEquivalent(v)), fold[i], `bucket ${i}`);
    }
  }
});

test('a closed loop recorder feeds each take what it gained, once', () => {
  const live = new Live(Live.alloc(2), 2);
  const rec = new Recorder(['read', 'write', 'stmt'], live);
  const a = latencies(500, 11);
  const b = latencies(300, 13);
  a.forEach((ns) => rec.observe(0, 1, ns));
  b.forEach((ns) => rec.observe(1, 1, ns));
  rec.observe(2, 1, 5000); // a statement of its own: in no interval
  rec.error(1, 'busy');
  rec.error(1, 'busy');
  rec.error(2, 'busy');
  let got = taken(live);
  assert.deepEqual(got[0], { n: a.length, err: 0, counts: direct(a) });
  assert.deepEqual(got[1], { n: b.length, err: 2, counts: direct(b) });
  // Nothing is handed over twice.
  got = taken(live);
  assert.ok(got.every((o) => o.n === 0 && o.err === 0 && o.counts.every((c) => c === 0)));
  // Then only what came after.
  const c = latencies(40, 17);
  c.forEach((ns) => rec.observe(0, 1, ns));
  rec.error(0, 'locked');
  got = taken(live);
  assert.deepEqual(got[0], { n: c.length, err: 1, counts: direct(c) });
  assert.equal(got[1].n, 0);
  // The run's own figures saw everything.
  assert.equal(rec.recs[0].count, a.length + c.length);
  assert.equal(rec.recs[0].service.total, a.length + c.length);
  assert.equal(
    rec.recs[1].errs.reduce((s, x) => s + x, 0),
    2,
  );
});

test('overruns are in the run latency, not in the count nor the intervals', () => {
  const live = new Live(Live.alloc(2), 2);
  const rec = new Recorder(['read', 'write'], live);
  rec.observe(0, 1, 3000);
  rec.observeOverrun(0, 9e6);
  const got = taken(live);
  assert.equal(got[0].n, 1);
  assert.deepEqual(got[0].counts, direct([3000]));
  const [op] = merge(['read', 'write'], [rec.export()]);
  assert.equal(op.count, 1);
  assert.equal(op.overrun, 1);
  assert.equal(op.service.count, 2);
  assert.equal(Hist.decode(op.hist).max(), new Hist(3).layout.highestEquivalent(9e6));
});

test("an open loop recorder's intervals report the response time", () => {
  const live = new Live(Live.alloc(2), 2);
  const rec = new Recorder(['read', 'write'], live, true);
  rec.observeScheduled(0, 2000, 50000, false);
  rec.observeScheduled(0, 3000, 70000, true);
  const got = taken(live);
  assert.equal(got[0].n, 2);
  assert.deepEqual(got[0].counts, direct([50000, 70000]));
  const [op] = merge(['read', 'write'], [rec.export()]);
  assert.equal(op.count, 2);
  assert.equal(op.late, 1);
  assert.equal(op.service.max, 3.001);
  assert.ok(op.response.min >= 49.9);
});

test('a recorder without intervals records as before', () => {
  const rec = new Recorder(['insert']);
  rec.observe(0, 100, 2000);
  rec.observe(0, 50, 9000);
  assert.equal(rec.recs[0].count, 150);
  assert.equal(rec.recs[0].service.total, 2);
  assert.ok(!(rec.recs[0].service.counts.buffer instanceof SharedArrayBuffer));
});
