'use strict';
// Unsigned 64-bit arithmetic on pairs of uint32 halves (hi, lo), for the
// generators of docs/data-generation.md. BigInt would do the same with a heap
// allocation per operation; these functions allocate nothing and leave their
// result in the registers `R.h` and `R.l`, so the key generator of a read
// costs tens of nanoseconds. Every function here is checked against BigInt
// in test/u64.test.js and against the Go reference's vectors in
// test/gen.test.js.

const TWO32 = 4294967296;

// Result registers: the last result's high and low 32 bits.
const R = { h: 0, l: 0 };

// mul sets R to the low 64 bits of (ah:al) * (bh:bl).
function mul(ah, al, bh, bl) {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0; // < 2^32
  const mid = a1 * b0 + a0 * b1; // < 2^33, exact
  // al*bl = a1*b1*2^32 + mid*2^16 + p00: its high word, then the cross terms
  // (only their low 32 bits reach the result).
  const hi = a1 * b1 + Math.floor((mid + (p00 >>> 16)) / 65536);
  R.h = (hi + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  R.l = Math.imul(al, bl) >>> 0;
}

// add sets R to (ah:al) + (bh:bl) modulo 2^64.
function add(ah, al, bh, bl) {
  const lo = al + bl;
  const carry = lo >= TWO32 ? 1 : 0;
  R.l = lo - carry * TWO32;
  R.h = (ah + bh + carry) >>> 0;
}

// splitmix64's constants, as halves.
const GAMMA_H = 0x9e3779b9;
const GAMMA_L = 0x7f4a7c15;
const M1_H = 0xbf58476d;
const M1_L = 0x1ce4e5b9;
const M2_H = 0x94d049bb;
const M2_L = 0x133111eb;

// mix sets R to splitmix64's finaliser of (h:l).
function mix(h, l) {
  // z ^= z >> 30
  l = (l ^ ((l >>> 30) | (h << 2))) >>> 0;
  h = (h ^ (h >>> 30)) >>> 0;
  mul(h, l, M1_H, M1_L);
  h = R.h;
  l = R.l;
  // z ^= z >> 27
  l = (l ^ ((l >>> 27) | (h << 5))) >>> 0;
  h = (h ^ (h >>> 27)) >>> 0;
  mul(h, l, M2_H, M2_L);
  h = R.h;
  l = R.l;
  // z ^= z >> 31
  R.l = (l ^ ((l >>> 31) | (h << 1))) >>> 0;
  R.h = (h ^ (h >>> 31)) >>> 0;
}

// draw sets R to value (ih:il) of stream (th:tl) under seed (sh:sl):
// mix((seed ^ stream) * GAMMA + index * M1 + M2).
function draw(sh, sl, th, tl, ih, il) {
  mul((sh ^ th) >>> 0, (sl ^ tl) >>> 0, GAMMA_H, GAMMA_L);
  const xh = R.h;
  const xl = R.l;
  mul(ih, il, M1_H, M1_L);
  add(xh, xl, R.h, R.l);
  add(R.h, R.l, M2_H, M2_L);
  mix(R.h, R.l);
}

// hiOf and loOf split a non-negative integer below 2^53 (a row index, a
// sequence number) into halves.
function hiOf(n) {
  return Math.floor(n / TWO32) >>> 0;
}
function loOf(n) {
  return n >>> 0;
}

// unit maps (h:l) to a double in [0, 1): its top 53 bits over 2^53.
function unit(h, l) {
  return (h * 2097152 + (l >>> 11)) / 9007199254740992;
}

// mod returns (h:l) % n for a whole number 1 ≤ n < 2^53.
function mod(h, l, n) {
  if (n < 2097152) {
    return ((h % n) * TWO32 + l) % n; // (h % n) * 2^32 < 2^53: exact
  }
  if (n < 137438953472) {
    // 2^37: each step keeps r * 2^16 below 2^53.
    let r = h % n;
    r = (r * 65536 + (l >>> 16)) % n;
    return (r * 65536 + (l & 0xffff)) % n;
  }
  return Number(toBig(h, l) % BigInt(n));
}

// toBig and fromBig convert to and from BigInt (setup and tests only).
function toBig(h, l) {
  return (BigInt(h) << 32n) | BigInt(l);
}
function fromBig(b) {
  const x = BigInt.asUintN(64, b);
  R.h = Number(x >> 32n);
  R.l = Number(x & 0xffffffffn);
}

module.exports = { R, TWO32, mul, add, mix, draw, hiOf, loOf, unit, mod, toBig, fromBig, GAMMA_H, GAMMA_L };
