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

// mulHi returns the high 32 bits of a * b for uint32 a and b (16-bit limbs
// keep every partial product exact).
function mulHi(a, b) {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const mid = a1 * b0 + a0 * b1; // < 2^33, exact
  return a1 * b1 + Math.floor((mid + ((a0 * b0) >>> 16)) / 65536);
}

// mul sets R to the low 64 bits of (ah:al) * (bh:bl).
function mul(ah, al, bh, bl) {
  R.h = (mulHi(al, bl) + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
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

// The finaliser's result, for the two functions below (module variables:
// no object between them).
let mh = 0;
let ml = 0;

// finalise sets (mh:ml) to splitmix64's finaliser of (h:l), in local
// variables.
function finalise(h, l) {
  // z = (z ^ (z >> 30)) * M1
  let xl = (l ^ ((l >>> 30) | (h << 2))) >>> 0;
  let xh = (h ^ (h >>> 30)) >>> 0;
  h = (mulHi(xl, M1_L) + Math.imul(xh, M1_L) + Math.imul(xl, M1_H)) >>> 0;
  l = Math.imul(xl, M1_L) >>> 0;
  // z = (z ^ (z >> 27)) * M2
  xl = (l ^ ((l >>> 27) | (h << 5))) >>> 0;
  xh = (h ^ (h >>> 27)) >>> 0;
  h = (mulHi(xl, M2_L) + Math.imul(xh, M2_L) + Math.imul(xl, M2_H)) >>> 0;
  l = Math.imul(xl, M2_L) >>> 0;
  // z ^ (z >> 31)
  ml = (l ^ ((l >>> 31) | (h << 1))) >>> 0;
  mh = (h ^ (h >>> 31)) >>> 0;
}

// mix sets R to splitmix64's finaliser of (h:l).
function mix(h, l) {
  finalise(h, l);
  R.h = mh;
  R.l = ml;
}

// mixUnit is unit(mix(h:l)), the number a key or an arrival gap is drawn
// from.
function mixUnit(h, l) {
  finalise(h, l);
  return unit(mh, ml);
}

// draw sets R to value (ih:il) of stream (th:tl) under seed (sh:sl):
// mix((seed ^ stream) * GAMMA + index * M1 + M2).
function draw(sh, sl, th, tl, ih, il) {
  const xh = (sh ^ th) >>> 0;
  const xl = (sl ^ tl) >>> 0;
  let h = (mulHi(xl, GAMMA_L) + Math.imul(xh, GAMMA_L) + Math.imul(xl, GAMMA_H)) >>> 0;
  let l = Math.imul(xl, GAMMA_L) >>> 0;
  const ph = (mulHi(il, M1_L) + Math.imul(ih, M1_L) + Math.imul(il, M1_H)) >>> 0;
  let sum = l + (Math.imul(il, M1_L) >>> 0);
  let carry = sum >= TWO32 ? 1 : 0;
  l = sum - carry * TWO32;
  h = (h + ph + carry) >>> 0;
  sum = l + M2_L;
  carry = sum >= TWO32 ? 1 : 0;
  mix((h + M2_H + carry) >>> 0, sum - carry * TWO32);
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

// A splitmix64 stream in WebAssembly, whose i64 arithmetic is a few
// instructions where the halves above take dozens of operations: a key of a
// point read costs some 9 ns instead of 60 (hot; twice that between reads,
// the halves' code having left the caches), a share of the read the
// harness would otherwise add. Its exports: seed(h, l) sets the state;
// unit() adds GAMMA to the state and returns unit(mix(state)), exactly as
// the halves compute it (test/u64.test.js compares them). Built here from
// its bytes, as the module is 200 bytes and has no other source.
function sleb(v) {
  const out = [];
  v = BigInt.asIntN(64, v);
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

function uleb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) {
      b |= 0x80;
    }
    out.push(b);
  } while (n !== 0);
  return out;
}

function streamModule() {
  if (typeof WebAssembly !== 'object') {
    return null; // node --jitless: the halves do it
  }
  // The opcodes the two functions use.
  const LOCAL_GET = 0x20, LOCAL_SET = 0x21, LOCAL_TEE = 0x22, GLOBAL_GET = 0x23, GLOBAL_SET = 0x24; // prettier-ignore
  const I64_ADD = 0x7c, I64_MUL = 0x7e, I64_OR = 0x84, I64_XOR = 0x85, I64_SHL = 0x86, I64_SHR_U = 0x88; // prettier-ignore
  const I64_EXTEND_I32_U = 0xad, F64_CONVERT_I64_U = 0xba, F64_CONST = 0x44, F64_MUL = 0xa2, END = 0x0b; // prettier-ignore
  const I64 = 0x7e, F64 = 0x7c, I32 = 0x7f, FUNC = 0x60; // prettier-ignore
  const i64 = (v) => [0x42, ...sleb(v)]; // i64.const v
  const z = 0; // unit's local
  // z ^= z >> s; z *= m
  const step = (s, m) => [LOCAL_GET, z, LOCAL_GET, z, ...i64(s), I64_SHR_U, I64_XOR, ...i64(m), I64_MUL, LOCAL_SET, z];
  // prettier-ignore
  const unitBody = [
    1, 1, I64, // one local: z
    GLOBAL_GET, 0, ...i64(0x9e3779b97f4a7c15n), I64_ADD, LOCAL_TEE, z, GLOBAL_SET, 0, // z = state += GAMMA
    ...step(30n, 0xbf58476d1ce4e5b9n),
    ...step(27n, 0x94d049bb133111ebn),
    LOCAL_GET, z, LOCAL_GET, z, ...i64(31n), I64_SHR_U, I64_XOR, // z ^ (z >> 31)
    ...i64(11n), I64_SHR_U, F64_CONVERT_I64_U, // its top 53 bits,
    F64_CONST, ...new Uint8Array(new Float64Array([2 ** -53]).buffer), F64_MUL, // over 2^53
    END,
  ];
  // prettier-ignore
  const seedBody = [
    0, // no locals
    LOCAL_GET, 0, I64_EXTEND_I32_U, ...i64(32n), I64_SHL, LOCAL_GET, 1, I64_EXTEND_I32_U, I64_OR, GLOBAL_SET, 0, // state = h << 32 | l
    END,
  ];
  const section = (id, body) => [id, ...uleb(body.length), ...body];
  const name = (s) => [s.length, ...Buffer.from(s)];
  // prettier-ignore
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, // "\0asm", version 1
    ...section(1, [2, FUNC, 0, 1, F64, FUNC, 2, I32, I32, 0]), // types: () -> f64, (i32, i32) -> ()
    ...section(3, [2, 0, 1]), // functions: unit, seed
    ...section(6, [1, I64, 1, ...i64(0n), END]), // the state: a mutable i64
    ...section(7, [2, ...name('unit'), 0, 0, ...name('seed'), 0, 1]), // exports
    ...section(10, [2, ...uleb(unitBody.length), ...unitBody, ...uleb(seedBody.length), ...seedBody]), // code
  ];
  return new WebAssembly.Module(Uint8Array.from(bytes));
}

const STREAM = streamModule();

// stream returns a splitmix64 stream at state (h:l): a function that
// advances it and returns the next unit() of the mixed state; null where
// WebAssembly is not available.
function stream(h, l) {
  if (STREAM === null) {
    return null;
  }
  const e = new WebAssembly.Instance(STREAM).exports;
  e.seed(h, l);
  return e.unit;
}

module.exports = {
  R,
  TWO32,
  mul,
  add,
  mix,
  mixUnit,
  draw,
  hiOf,
  loOf,
  unit,
  mod,
  toBig,
  fromBig,
  stream,
  GAMMA_H,
  GAMMA_L,
};
