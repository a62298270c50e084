'use strict';
// litebench's deterministic data, ported from the Go reference
// (internal/gen) as docs/data-generation.md specifies it: the columns of
// every row, the keys reads and updates pick, the choice between a read and
// a write, and open-loop arrival times. Every value is a pure function of a
// 64-bit seed and an index.
//
// 64-bit values travel as two uint32 halves (lib/u64.js); a seed is an object
// {h, l}. Integer column values are Numbers when they are safe integers
// (every built-in schema's are) and BigInts otherwise.

const crypto = require('crypto');
const u = require('./u64');
const { pow, log1p } = require('./fmath');

const R = u.R;
const mixUnit = u.mixUnit;

const STREAM_UUID_LOW = 0xa5a5a5a5;
const STREAM_WORDS = 0x5bd1e995;
const STREAM_KEYS = 0x6b6579;
const STREAM_OPS = 0x726174;
const STREAM_SCATTER = 0x7a697066;

// seedOf parses a seed: a decimal string (as jobs and vectors carry it), a
// BigInt, or a Number.
function seedOf(v) {
  const b = BigInt.asUintN(64, BigInt(v));
  return { h: Number(b >> 32n), l: Number(b & 0xffffffffn) };
}

// seedPlus returns seed + n (modulo 2^64).
function seedPlus(s, n) {
  u.add(s.h, s.l, 0, n);
  return { h: R.h, l: R.l };
}

function seedString(s) {
  return u.toBig(s.h, s.l).toString();
}

// drawRow sets R to draw(seed, stream, i) for a row index i ≥ 0.
function drawRow(seed, stream, i) {
  u.draw(seed.h, seed.l, stream.h, stream.l, u.hiOf(i), u.loOf(i));
}

// Above this many items zeta expands instead of summing (§5).
const ZETA_EXACT_MAX = 2 ** 20;

// zeta is the sum of 1/k^theta for k = 1 … n: summed up to ZETA_EXACT_MAX,
// above it the first nine terms plus the Euler–Maclaurin expansion to the
// B6 term.
function zeta(n, theta) {
  let zn = 0;
  if (n <= ZETA_EXACT_MAX) {
    for (let i = 1; i <= n; i++) {
      zn += 1 / pow(i, theta);
    }
    return zn;
  }
  for (let i = 1; i < 10; i++) {
    zn += 1 / pow(i, theta);
  }
  const a = 10;
  const b = n;
  const c1 = theta;
  const c3 = c1 * (theta + 1) * (theta + 2);
  const c5 = c3 * (theta + 3) * (theta + 4);
  const integral = (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta);
  const ends = (1 / pow(a, theta) + 1 / pow(b, theta)) / 2;
  const d1 = (c1 / pow(a, theta + 1) - c1 / pow(b, theta + 1)) / 12;
  const d3 = (c3 / pow(a, theta + 3) - c3 / pow(b, theta + 3)) / 720;
  const d5 = (c5 / pow(a, theta + 5) - c5 / pow(b, theta + 5)) / 30240;
  return zn + (integral + ends + d1 - d3 + d5);
}

// Zipf is the zipfian of §5 (Gray et al., as YCSB) over n items. zetan,
// the sum that costs up to 2^20 powers, may be given (a thread reuses the one computed
// at set-up).
class Zipf {
  constructor(n, theta, zetan) {
    n = Math.max(n, 1);
    let zn = 0;
    if (zetan !== undefined) {
      zn = zetan;
    } else {
      zn = zeta(n, theta);
    }
    this.n = n;
    this.zetan = zn;
    this.half = 1 + pow(0.5, theta);
    this.alpha = 1 / (1 - theta);
    this.eta = (1 - pow(2 / n, 1 - theta)) / (1 - this.half / zn);
  }

  rank(x) {
    const uz = x * this.zetan;
    if (uz < 1) {
      return 0;
    }
    if (uz < this.half) {
      return Math.min(1, this.n - 1);
    }
    const f = this.n * pow(this.eta * x - this.eta + 1, this.alpha);
    if (!(f >= 0)) {
      return 0;
    }
    return Math.min(Math.trunc(Math.min(f, this.n)), this.n - 1);
  }
}

// scatter maps a rank to a row index in [0, n).
function scatter(rank, n) {
  u.draw(0, 0, 0, STREAM_SCATTER, u.hiOf(rank), u.loOf(rank));
  return u.mod(R.h, R.l, n);
}

// KeyGen is worker w's sequence of row indexes (§5).
class KeyGen {
  constructor(kind, zipf, seed, w) {
    this.kind = kind === 'zipfian' ? 1 : kind === 'latest' ? 2 : 0;
    this.zipf = zipf;
    u.draw(seed.h, seed.l, 0, STREAM_KEYS, u.hiOf(w + 1), u.loOf(w + 1));
    this.sh = R.h;
    this.sl = R.l;
    // The stream in WebAssembly where there is one (u64.stream): the same
    // numbers at a seventh of the cost.
    this.unit = u.stream(R.h, R.l);
  }

  // next returns a row index in [0, n), n being how many rows exist now.
  next(n) {
    if (n <= 1) {
      return 0;
    }
    const x = this.unit !== null ? this.unit() : this.step();
    switch (this.kind) {
      case 1:
        return scatter(this.zipf.rank(x), n);
      case 2:
        return Math.max(n - 1 - this.zipf.rank(x), 0);
    }
    return Math.trunc(x * n);
  }

  // step is next's draw in halves, where there is no WebAssembly.
  step() {
    // s += GAMMA; x = unit(mix(s))
    let l = this.sl + u.GAMMA_L;
    const carry = l >= u.TWO32 ? 1 : 0;
    l -= carry * u.TWO32;
    const h = (this.sh + u.GAMMA_H + carry) >>> 0;
    this.sh = h;
    this.sl = l;
    return mixUnit(h, l);
  }
}

// splitmix sets R to the next value of the sequence in state st = {h, l}.
function splitmixNext(st) {
  u.add(st.h, st.l, u.GAMMA_H, u.GAMMA_L);
  st.h = R.h;
  st.l = R.l;
  u.mix(R.h, R.l);
}

// writeOp says whether open-loop operation seq is a write (§6).
function writeOp(seed, seq, writePercent) {
  u.draw(seed.h, seed.l, 0, STREAM_OPS, u.hiOf(seq), u.loOf(seq));
  return u.mod(R.h, R.l, 10000) < writePercent * 100;
}

// arrivalU is the uniform number spacing open-loop operation seq (§7).
function arrivalU(seed, seq) {
  u.add((seed.h ^ u.hiOf(seq)) >>> 0, (seed.l ^ u.loOf(seq)) >>> 0, u.GAMMA_H, u.GAMMA_L);
  u.mix(R.h, R.l);
  return u.unit(R.h, R.l);
}

// poissonGap is an exponential gap in nanoseconds at rate per second.
function poissonGap(rate, x) {
  return Math.trunc(-log1p(-x) * (1e9 / rate));
}

// schedule returns operation seq's due time in nanoseconds from the start,
// given operation seq-1's (loadgen.Schedule).
function schedule(poisson, rate, seq, prev, seed) {
  if (seq === 0) {
    return 0;
  }
  if (!poisson) {
    return Math.trunc((seq * 1e9) / rate);
  }
  return prev + poissonGap(rate, arrivalU(seed, seq));
}

// Column generators (§3). compile turns a list of column specifications
// ({name, kind, args}) into a table that generates rows.

const HEX = [];
for (let b = 0; b < 256; b++) {
  HEX.push((b < 16 ? '0' : '') + b.toString(16));
}

const WORDS = `lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor
incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco
laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse
cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia
deserunt mollit anim id est laborum sqlite page journal wal checkpoint`.split(/\s+/);

function streamOf(args) {
  return seedOf(args.stream === undefined ? 0 : args.stream);
}

// rawHex writes the bytes a hex column of n bytes encodes for draw (h:l)
// into dst (a Buffer of at least n bytes).
function rawHex(h, l, n, dst) {
  const dh = h;
  const dl = l;
  let w = 0;
  for (let j = 0; 8 * j < n; j++) {
    if (j > 0) {
      u.draw(dh, dl, 0, 0, 0, j);
      h = R.h;
      l = R.l;
    }
    const k = Math.min(8, n - 8 * j);
    for (let b = 0; b < k; b++) {
      dst[w++] = b < 4 ? (l >>> (8 * b)) & 0xff : (h >>> (8 * (b - 4))) & 0xff;
    }
  }
}

function hexOf(bytes, n) {
  let s = '';
  for (let k = 0; k < n; k++) {
    s += HEX[bytes[k]];
  }
  return s;
}

const sha256Hex =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'hex')
    : (data) => crypto.createHash('sha256').update(data).digest('hex');

// checkBench verifies a bench row as seed 000's reader does: decode rand,
// hash it, compare with the stored hash.
function checkBench(rand, hash) {
  if (typeof rand !== 'string' || !/^[0-9a-f]*$/i.test(rand) || rand.length % 2 !== 0) {
    return false;
  }
  return sha256Hex(Buffer.from(rand, 'hex')) === hash;
}

function big(v) {
  return typeof v === 'bigint' ? v : BigInt(v);
}

// intValue returns a BigInt as a Number when it is safe.
function intValue(b) {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

// rfc3339 formats Unix nanoseconds (a BigInt) as Go's time.RFC3339Nano in
// UTC.
function rfc3339(ns) {
  let sec = ns / 1000000000n;
  let frac = ns - sec * 1000000000n;
  if (frac < 0n) {
    frac += 1000000000n;
    sec -= 1n;
  }
  const base = new Date(Number(sec) * 1000).toISOString().slice(0, 19);
  if (frac === 0n) {
    return base + 'Z';
  }
  return base + '.' + frac.toString().padStart(9, '0').replace(/0+$/, '') + 'Z';
}

// Timestamp's fast path: start and step whole milliseconds, so that
// start + i·step is exact as a Number of milliseconds.
function timestampGen(name, args) {
  const startMs = Date.parse(args.start);
  if (Number.isNaN(startMs)) {
    throw new Error(`timestamp start ${JSON.stringify(args.start)} is not an RFC 3339 time`);
  }
  const startNs = startNanos(args.start, startMs);
  const step = big(args.step_ns);
  const msOK = startNs % 1000000n === 0n && step % 1000000n === 0n;
  const startMsN = Number(startNs / 1000000n);
  const stepMs = Number(step / 1000000n);
  const nsAt = (i) => startNs + BigInt(i) * step;
  if (args.format === 'unix_ms') {
    return {
      text: false,
      int: (seed, i) => {
        if (msOK) {
          const v = startMsN + i * stepMs;
          if (Number.isSafeInteger(v)) {
            return v;
          }
        }
        const ns = nsAt(i);
        let ms = ns / 1000000n;
        if (ns % 1000000n < 0n) {
          ms -= 1n;
        }
        return intValue(ms);
      },
    };
  }
  if (args.format === 'rfc3339nano') {
    return {
      text: true,
      text1: (seed, i) => {
        if (msOK) {
          const ms = startMsN + i * stepMs;
          if (Number.isSafeInteger(ms) && ms >= -62135596800000 && ms < 253402300800000) {
            const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
            const m = ms - Math.floor(ms / 1000) * 1000;
            if (m === 0) {
              return iso.slice(0, 19) + 'Z';
            }
            return iso.slice(0, 23).replace(/0+$/, '') + 'Z';
          }
        }
        return rfc3339(nsAt(i));
      },
    };
  }
  throw new Error(`timestamp format ${JSON.stringify(args.format)}: want rfc3339nano or unix_ms`);
}

// startNanos reads an RFC 3339 time's Unix nanoseconds exactly (Date.parse
// keeps milliseconds only).
function startNanos(s, ms) {
  const m = /\.(\d+)/.exec(s.slice(19));
  let ns = BigInt(Math.floor(ms / 1000)) * 1000000000n;
  if (m) {
    ns += BigInt(m[1].slice(0, 9).padEnd(9, '0'));
  }
  return ns;
}

// compileColumn returns {text, int?, text1?, raw?} for one column: int(seed,
// i) for an integer column, text1(seed, i, vals) for a text column (vals
// holds the earlier columns' values of the row, or null).
function compileColumn(c, pos, cols) {
  const a = c.args || {};
  switch (c.kind) {
    case 'seq': {
      const start = Number(a.start || 0);
      return { text: false, int: (seed, i) => start + i };
    }
    case 'const_int': {
      const v = intValue(big(a.value || 0));
      return { text: false, int: () => v };
    }
    case 'uniform_int': {
      const lo = big(a.lo);
      const hi = big(a.hi);
      if (lo > hi) {
        throw new Error(`uniform_int lo ${lo} is above hi ${hi}`);
      }
      const st = streamOf(a);
      const span = BigInt.asUintN(64, hi - lo + 1n);
      return {
        text: false,
        int: (seed, i) => {
          drawRow(seed, st, i);
          const d = u.toBig(R.h, R.l);
          const v = span === 0n ? lo + BigInt.asIntN(64, d) : lo + BigInt.asIntN(64, d % span);
          return intValue(BigInt.asIntN(64, v));
        },
      };
    }
    case 'zipf_int': {
      const n = Number(a.n);
      const theta = Number(a.theta);
      if (!(n >= 1) || !(theta > 0 && theta < 1)) {
        throw new Error(`zipf_int wants n ≥ 1 and 0 < theta < 1`);
      }
      const z = new Zipf(n, theta);
      const st = streamOf(a);
      return {
        text: false,
        int: (seed, i) => {
          drawRow(seed, st, i);
          return scatter(z.rank(u.unit(R.h, R.l)), n);
        },
      };
    }
    case 'latest_int': {
      const n = Number(a.n);
      const theta = Number(a.theta);
      if (!(n >= 1) || !(theta > 0 && theta < 1)) {
        throw new Error(`latest_int wants n ≥ 1 and 0 < theta < 1`);
      }
      const z = new Zipf(n, theta);
      const st = streamOf(a);
      return {
        text: false,
        int: (seed, i) => {
          drawRow(seed, st, i);
          return Math.max(n - 1 - z.rank(u.unit(R.h, R.l)), 0);
        },
      };
    }
    case 'timestamp':
      return timestampGen(c.name, a);
    case 'hex': {
      const n = Number(a.bytes);
      if (!(n >= 1)) {
        throw new Error(`hex wants bytes ≥ 1`);
      }
      const st = streamOf(a);
      const own = Buffer.alloc(n);
      const raw = (seed, i, dst) => {
        drawRow(seed, st, i);
        rawHex(R.h, R.l, n, dst);
        return n;
      };
      return {
        text: true,
        raw,
        bytes: n,
        text1: (seed, i) => hexOf(own, raw(seed, i, own)),
      };
    }
    case 'letters': {
      const n = Number(a.len || 0);
      const st = streamOf(a);
      return {
        text: true,
        text1: (seed, i) => {
          drawRow(seed, st, i);
          let h = R.h;
          let l = R.l;
          let s = '';
          for (let k = 0; k < n; k++) {
            if (k > 0 && k % 12 === 0) {
              u.draw(h, l, 0, 0, 0, k);
              h = R.h;
              l = R.l;
            }
            // m % 26 and m / 26 on (h:l).
            const r = h % 26;
            const t = r * 4294967296 + l; // < 26·2^32: exact
            s += String.fromCharCode(65 + (t % 26));
            h = Math.floor(h / 26);
            l = Math.floor(t / 26);
          }
          return s;
        },
      };
    }
    case 'text': {
      const min = Number(a.min || 0);
      const max = Number(a.max || 0);
      if (min < 0 || max < min || max - min >= 1 << 24) {
        throw new Error(`text wants 0 ≤ min ≤ max < min + 2^24`);
      }
      const st = streamOf(a);
      return {
        text: true,
        text1: (seed, i) => {
          let n = min;
          if (max > min) {
            drawRow(seed, st, i);
            n = min + ((R.h >>> 8) % (max - min + 1));
          }
          return words({ h: (seed.h ^ st.h) >>> 0, l: (seed.l ^ st.l) >>> 0 }, i, n);
        },
      };
    }
    case 'uuid4': {
      const st = streamOf(a);
      const low = { h: st.h, l: (st.l ^ STREAM_UUID_LOW) >>> 0 };
      const b = Buffer.alloc(16);
      return {
        text: true,
        text1: (seed, i) => {
          drawRow(seed, st, i);
          b.writeUInt32LE(R.l, 0);
          b.writeUInt32LE(R.h, 4);
          drawRow(seed, low, i);
          b.writeUInt32LE(R.l, 8);
          b.writeUInt32LE(R.h, 12);
          b[6] = (b[6] & 0x0f) | 0x40;
          b[8] = (b[8] & 0x3f) | 0x80;
          return (
            HEX[b[0]] +
            HEX[b[1]] +
            HEX[b[2]] +
            HEX[b[3]] +
            '-' +
            HEX[b[4]] +
            HEX[b[5]] +
            '-' +
            HEX[b[6]] +
            HEX[b[7]] +
            '-' +
            HEX[b[8]] +
            HEX[b[9]] +
            '-' +
            HEX[b[10]] +
            HEX[b[11]] +
            HEX[b[12]] +
            HEX[b[13]] +
            HEX[b[14]] +
            HEX[b[15]]
          );
        },
      };
    }
    case 'sha256_of': {
      const s = pos.get(a.column);
      if (s === undefined) {
        throw new Error(`sha256_of ${JSON.stringify(a.column)}: name an earlier column`);
      }
      const src = cols[s];
      if (a.decode_hex) {
        if (!src.raw) {
          throw new Error(`sha256_of ${JSON.stringify(a.column)} with decode_hex: that column is not hex`);
        }
        const rb = Buffer.alloc(src.bytes);
        return {
          text: true,
          text1: (seed, i) => {
            src.raw(seed, i, rb);
            return sha256Hex(rb);
          },
        };
      }
      if (!src.text) {
        return { text: true, text1: (seed, i) => sha256Hex(String(src.int(seed, i))) };
      }
      return {
        text: true,
        text1: (seed, i, vals) => sha256Hex(vals ? vals[s] : src.text1(seed, i, null)),
      };
    }
    case 'choice': {
      const list = a.list || [];
      const count = Number(a.count || 0);
      if (list.length === 0 || count < 0 || count > 4) {
        throw new Error(`choice wants a list and a count from 1 to 4`);
      }
      const sep = a.sep || '';
      const st = streamOf(a);
      const n = list.length;
      return {
        text: true,
        text1: (seed, i) => {
          drawRow(seed, st, i);
          const h = R.h;
          const l = R.l;
          let s = list[u.mod(h, l, n)];
          for (let j = 1; j < Math.max(count, 1); j++) {
            // (h:l) >> 16j
            let sh;
            let sl;
            if (j === 1) {
              sh = h >>> 16;
              sl = ((l >>> 16) | (h << 16)) >>> 0;
            } else if (j === 2) {
              sh = 0;
              sl = h;
            } else {
              sh = 0;
              sl = h >>> 16;
            }
            s += sep + list[u.mod(sh, sl, n)];
          }
          return s;
        },
      };
    }
    case 'const': {
      const v = String(a.value || '');
      return { text: true, text1: () => v };
    }
    case 'seq_text': {
      const prefix = a.prefix || '';
      const suffix = a.suffix || '';
      const start = Number(a.start || 0);
      return {
        text: true,
        text1: (seed, i) => {
          const v = start + i;
          return (
            prefix + (Number.isSafeInteger(v) ? String(v) : (BigInt(a.start || 0) + BigInt(i)).toString()) + suffix
          );
        },
      };
    }
  }
  throw new Error(`unknown generator ${JSON.stringify(c.kind)}`);
}

// words returns n bytes of row i's lorem ipsum under seed (already XORed
// with the column's stream).
function words(seed, i, n) {
  const ih = u.hiOf(i);
  const il = u.loOf(i);
  // (i << 20) | k, wrapping at 2^64.
  const kh = ((ih << 20) | (il >>> 12)) >>> 0;
  const kl0 = (il << 20) >>> 0;
  const parts = [];
  let left = n;
  for (let k = 0; left > 0; k++) {
    if (k > 0) {
      if (--left === 0) {
        parts.push('');
        break;
      }
    }
    u.draw(seed.h, seed.l, 0, STREAM_WORDS, kh, (kl0 | k) >>> 0);
    let w = WORDS[u.mod(R.h, R.l, WORDS.length)];
    if (w.length > left) {
      w = w.slice(0, left);
    }
    parts.push(w);
    left -= w.length;
  }
  return parts.join(' ');
}

// Table is a compiled list of columns.
class Table {
  constructor(columns) {
    this.columns = columns;
    this.names = columns.map((c) => c.name);
    const pos = new Map();
    this.gens = [];
    for (const c of columns) {
      if (!c.name) {
        throw new Error('a column has no name');
      }
      if (pos.has(c.name)) {
        throw new Error(`column ${JSON.stringify(c.name)} appears twice`);
      }
      let g;
      try {
        g = compileColumn(c, pos, this.gens);
      } catch (e) {
        throw new Error(`column ${JSON.stringify(c.name)}: ${e.message}`);
      }
      this.gens.push(g);
      pos.set(c.name, this.gens.length - 1);
    }
    this.text = this.gens.map((g) => g.text);
  }

  // row writes row i's values into out (an array of the columns' length).
  row(seed, i, out) {
    const g = this.gens;
    for (let k = 0; k < g.length; k++) {
      out[k] = g[k].text ? g[k].text1(seed, i, out) : g[k].int(seed, i);
    }
    return out;
  }

  // value returns column k of row i alone.
  value(k, seed, i) {
    const g = this.gens[k];
    return g.text ? g.text1(seed, i, null) : g.int(seed, i);
  }
}

module.exports = {
  seedOf,
  seedPlus,
  seedString,
  Zipf,
  KeyGen,
  scatter,
  splitmixNext,
  writeOp,
  arrivalU,
  poissonGap,
  schedule,
  Table,
  compileColumn,
  WORDS,
  sha256Hex,
  checkBench,
  drawRow,
};
