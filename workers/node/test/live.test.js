'use strict';
// The interval counters: what a thread notes reaches a take once published,
// and adds up as observe's records do.

const test = require('node:test');
const assert = require('node:assert/strict');
const { Live } = require('../lib/shared');
const { Hist, Layout } = require('../lib/hist');

function taken(live) {
  const out = Array.from({ length: live.ops }, () => ({ n: 0, err: 0, hist: new Hist(2) }));
  live.take(out);
  return out.map((o) => ({ n: o.n, err: o.err, counts: Array.from(o.hist.counts) }));
}

test('noted operations reach a take when published, as observed ones do', () => {
  const L = Layout.of(2);
  const noted = new Live(Live.alloc(2), 2);
  const observed = new Live(Live.alloc(2), 2);
  const lat = [1500, 1500, 250000, 7, 9e9];
  lat.forEach((ns, k) => {
    const op = k % 2;
    noted.note(op, 1, L.index(ns));
    observed.observe(op, 1, ns, L.index(ns));
  });
  noted.error(1);
  observed.error(1);
  // Before the publish a take sees the error only.
  const early = taken(noted);
  assert.deepEqual(
    early.map((o) => [o.n, o.err]),
    [
      [0, 0],
      [0, 1],
    ],
  );
  assert.ok(early.every((o) => o.counts.every((c) => c === 0)));
  noted.publish();
  noted.error(1);
  const want = taken(observed);
  want[1].err = 1; // the first error went with the early take
  assert.deepEqual(taken(noted), want);
  // Published once: nothing is handed over twice, and the held slots are empty.
  noted.publish();
  assert.ok(taken(noted).every((o) => o.n === 0 && o.err === 0 && o.counts.every((c) => c === 0)));
  assert.equal(noted.nheld, 0);
  assert.ok(noted.pend.every((c) => c === 0));
});
