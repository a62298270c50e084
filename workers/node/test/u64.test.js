'use strict';
// The 32-bit-halves arithmetic against BigInt, on random and edge values.

const test = require('node:test');
const assert = require('node:assert/strict');
const u = require('../lib/u64');

const M64 = (1n << 64n) - 1n;
const edges = [0n, 1n, 0xffffffffn, 0x100000000n, M64, 1n << 63n, 0x9e3779b97f4a7c15n, 0xbf58476d1ce4e5b9n];

function* values(n) {
  yield* edges;
  let x = 0x243f6a8885a308d3n;
  for (let i = 0; i < n; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & M64;
    yield x;
  }
}

const hi = (b) => Number(b >> 32n);
const lo = (b) => Number(b & 0xffffffffn);

test('mul and add wrap at 2^64 as BigInt does', () => {
  const vs = [...values(300)];
  for (let i = 0; i < vs.length; i++) {
    const a = vs[i];
    const b = vs[(i * 7 + 3) % vs.length];
    u.mul(hi(a), lo(a), hi(b), lo(b));
    assert.equal(u.toBig(u.R.h, u.R.l), (a * b) & M64, `${a} * ${b}`);
    u.add(hi(a), lo(a), hi(b), lo(b));
    assert.equal(u.toBig(u.R.h, u.R.l), (a + b) & M64, `${a} + ${b}`);
  }
});

test('mod and unit', () => {
  const ns = [1, 2, 26, 67, 10000, 2 ** 21 - 1, 2 ** 21, 1e9 + 7, 2 ** 37 - 1, 2 ** 37, 2 ** 53 - 1];
  for (const a of values(200)) {
    for (const n of ns) {
      assert.equal(u.mod(hi(a), lo(a), n), Number(a % BigInt(n)), `${a} % ${n}`);
    }
    assert.equal(u.unit(hi(a), lo(a)), Number(a >> 11n) / 2 ** 53);
  }
});

test("the WebAssembly stream is the halves' stream", () => {
  // From random states and the edges (a carry out of the low half, the
  // state wrapping past 2^64), a thousand draws each: unit() is
  // unit(mix(state += GAMMA)), to the bit.
  const gamma = 0x9e3779b97f4a7c15n;
  let states = 0;
  for (const start of values(20)) {
    const next = u.stream(hi(start), lo(start));
    assert.notEqual(next, null);
    let st = start;
    for (let i = 0; i < 1000; i++) {
      st = (st + gamma) & M64;
      u.mix(hi(st), lo(st));
      assert.equal(next(), u.unit(u.R.h, u.R.l), `state ${start} draw ${i}`);
    }
    states++;
  }
  assert.equal(states, edges.length + 20);
});
