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
    observed.observe(op, 1, L.index(ns));
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

test('a recorder publishes what it notes a millisecond on, and the rest when asked', () => {
  const { Recorder } = require('../lib/recorder');
  const L = Layout.of(2);
  const live = new Live(Live.alloc(1), 1);
  const rec = new Recorder(['insert'], live);
  const t0 = 5e9;
  rec.note(0, 100, 2000, t0); // the first note publishes (nothing published before)
  rec.note(0, 100, 3000, t0 + 0.4e6);
  rec.note(0, 100, 3000, t0 + 0.9e6);
  let got = taken(live);
  assert.equal(got[0].n, 100);
  rec.note(0, 50, 9000, t0 + 1.0e6); // a millisecond after the last publish
  got = taken(live);
  assert.equal(got[0].n, 250);
  assert.equal(got[0].counts[L.index(3000)], 2);
  assert.equal(got[0].counts[L.index(9000)], 1);
  rec.note(0, 7, 1000, t0 + 1.5e6);
  assert.equal(taken(live)[0].n, 0);
  rec.publish();
  assert.equal(taken(live)[0].n, 7);
  // The run's own figures saw every note at once.
  assert.equal(rec.recs[0].count, 357);
  assert.equal(rec.recs[0].service.total, 5);
});
