'use strict';
// The expressions of workload programs (docs/workload-program.md) as the Go
// reference evaluates them (internal/spec's eval.go and funcs.go). Values
// are null (NULL), booleans, BigInts (64-bit integers), Numbers (doubles)
// and strings (text). Functions that draw take from the worker's
// splitmix64 sequence (Rng), held as two uint32 halves.

const u = require('./u64');
const fm = require('./fmath');
const gen = require('./gen');

const R = u.R;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const M64 = (1n << 64n) - 1n;

// EvalError is an expression that cannot be evaluated: it stops the run.
class EvalError extends Error {}

function fail(x, msg) {
  throw new EvalError(`${x.at || ''}: ${msg}`);
}

// goFloat writes f as Go's strconv does with the 'g' format and the
// shortest precision (fmt's %v, database/sql's text of a real).
function goFloat(f) {
  if (Number.isNaN(f)) {
    return 'NaN';
  }
  if (!Number.isFinite(f)) {
    return f > 0 ? '+Inf' : '-Inf';
  }
  if (f === 0) {
    return Object.is(f, -0) ? '-0' : '0';
  }
  const [m, e] = f.toExponential().split('e');
  const neg = m[0] === '-';
  const ds = m.replace('-', '').replace('.', '');
  const exp = Number(e);
  let s;
  if (exp < -4 || exp >= 6) {
    const ae = Math.abs(exp);
    s = ds[0] + (ds.length > 1 ? '.' + ds.slice(1) : '') + 'e' + (exp < 0 ? '-' : '+') + (ae < 10 ? '0' : '') + ae;
  } else if (exp < 0) {
    s = '0.' + '0'.repeat(-exp - 1) + ds;
  } else if (ds.length <= exp + 1) {
    s = ds + '0'.repeat(exp + 1 - ds.length);
  } else {
    s = ds.slice(0, exp + 1) + '.' + ds.slice(exp + 1);
  }
  return (neg ? '-' : '') + s;
}

const CANON_INT = /^-?(0|[1-9][0-9]{0,18})$/;

// canonInt is s as an integer if it is one written plainly (no +, no
// leading zero, not -0) within 64 bits, else null.
function canonInt(s) {
  if (!CANON_INT.test(s) || s === '-0') {
    return null;
  }
  const n = BigInt(s);
  return n < I64_MIN || n > I64_MAX ? null : n;
}

// textValue is text as \gset reads it: an integer written plainly is an
// integer.
function textValue(s) {
  const n = canonInt(s);
  return n === null ? s : n;
}

// show is a value as the messages write it.
function show(v) {
  if (v === null) {
    return 'NULL';
  }
  if (typeof v === 'number') {
    return goFloat(v);
  }
  return String(v);
}

function quote(s) {
  return JSON.stringify(s);
}

function toBool(v, x) {
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'bigint':
      return v !== 0n;
    case 'number':
      return v !== 0;
    case 'string':
      switch (v.toLowerCase()) {
        case 'true':
        case 't':
        case 'yes':
        case 'on':
        case '1':
          return true;
        case 'false':
        case 'f':
        case 'no':
        case 'off':
        case '0':
          return false;
      }
  }
  return fail(x, `${quote(show(v))} is not a boolean`);
}

const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i;

// parseFloatText reads s as Go's strconv.ParseFloat does (decimal forms,
// inf, infinity, nan), or returns null.
function parseFloatText(s) {
  if (FLOAT_TEXT.test(s)) {
    return Number(s);
  }
  const m = SPECIAL_FLOAT.exec(s);
  if (m) {
    return m[2].toLowerCase() === 'nan' ? NaN : m[1] === '-' ? -Infinity : Infinity;
  }
  return null;
}

function toNumber(v, x) {
  switch (typeof v) {
    case 'bigint':
    case 'number':
      return v;
    case 'boolean':
      return fail(x, 'a boolean is not a number');
    case 'string': {
      const s = v.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
      const n = canonInt(s);
      if (n !== null) {
        return n;
      }
      const f = parseFloatText(s);
      if (f !== null) {
        return f;
      }
      return fail(x, `${quote(s)} is not a number`);
    }
  }
  return fail(x, 'NULL is not a number');
}

function toInt(v, x) {
  v = toNumber(v, x);
  if (typeof v === 'number') {
    if (Number.isNaN(v) || v < -9.2233720368547758e18 || v >= 9.2233720368547758e18) {
      fail(x, `${goFloat(v)} is out of range for an integer`);
    }
    return BigInt(Math.trunc(v));
  }
  return v;
}

function toFloat(v, x) {
  return Number(toNumber(v, x));
}

function checked(n, x) {
  if (n < I64_MIN || n > I64_MAX) {
    fail(x, 'bigint out of range');
  }
  return n;
}

const wrap = (n) => BigInt.asIntN(64, n);

function cmp(op, c) {
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
  }
  return c >= 0;
}

const sign = (a, b) => (a > b ? 1 : a < b ? -1 : 0);

// Rng is a worker's splitmix64 sequence.
class Rng {
  constructor(h, l) {
    this.h = h;
    this.l = l;
  }
  step() {
    u.add(this.h, this.l, u.GAMMA_H, u.GAMMA_L);
    this.h = R.h;
    this.l = R.l;
  }
  // next sets R to the next value.
  next() {
    this.step();
    u.mix(this.h, this.l);
  }
  nextBig() {
    this.next();
    return u.toBig(R.h, R.l);
  }
  // unit is unit(next()).
  unit() {
    this.step();
    return u.mixUnit(this.h, this.l);
  }
  // pick is the key generator of data-generation.md §5 over n rows: kind
  // 0 uniform, 1 zipfian, 2 latest (zipf prepared for the table).
  pick(kind, zipf, n) {
    if (n <= 1) {
      return 0;
    }
    const x = this.unit();
    switch (kind) {
      case 1:
        return gen.scatter(zipf.rank(x), n);
      case 2:
        return Math.max(n - 1 - zipf.rank(x), 0);
    }
    return Math.trunc(x * n);
  }
}

const KEY_KINDS = { uniform: 0, zipfian: 1, latest: 2 };

// Ctx is one worker's variables and sequence, and the run's tables (each
// with visible(), zipf(theta) and key(i)).
class Ctx {
  constructor(nvars, rng, tables) {
    this.vars = new Array(nvars).fill(null);
    this.set = new Array(nvars).fill(false);
    this.rng = rng;
    this.tables = tables;
  }
  assign(slot, v) {
    this.vars[slot] = v;
    this.set[slot] = true;
  }
}

const STREAM_KEYS = 0x6b6579;

// workerCtx is worker w's state for program p: its variables as they start
// (literal values, :client_id = w, :scale), its sequence Draw(seed,
// 0x6b6579, w+1); seed is {h, l}.
function workerCtx(p, seed, tables, w, scale) {
  const vars = p.vars || [];
  u.draw(seed.h, seed.l, 0, STREAM_KEYS, u.hiOf(w + 1), u.loOf(w + 1));
  const c = new Ctx(vars.length, new Rng(R.h, R.l), tables);
  vars.forEach((v, k) => {
    if (v.value) {
      c.assign(k, literal(v.value));
    }
  });
  c.assign(p.client_id || 0, BigInt(w));
  if (p.scale >= 0) {
    c.assign(p.scale, BigInt(scale));
  }
  return c;
}

// literal is a literal expression's value.
function literal(e) {
  switch (e.op) {
    case 'int':
      return BigInt(e.v);
    case 'float':
      return Number(e.f || 0);
    case 'bool':
      return Boolean(e.b);
    case 'text':
      return e.s || '';
  }
  return null;
}

function evaluate(e, c) {
  switch (e.op) {
    case 'var': {
      const k = e.slot || 0;
      if (!c.set[k]) {
        fail(e, `variable :${e.name || ''} is not set`);
      }
      return c.vars[k];
    }
    case 'call':
      return call(e, c);
    case 'binary':
      return binary(e, c);
    case 'unary': {
      const a = evaluate(e.a[0], c);
      if (a === null) {
        return null;
      }
      switch (e.fn) {
        case 'not':
          return !toBool(a, e);
        case '~':
          return ~toInt(a, e);
      }
      const n = toNumber(a, e);
      return typeof n === 'number' ? -n : checked(-n, e);
    }
    case 'is': {
      const a = evaluate(e.a[0], c);
      const r = e.fn === 'null' ? a === null : a !== null && toBool(a, e) === (e.fn === 'true');
      return r !== Boolean(e.not);
    }
    case 'case': {
      const a = e.a || [];
      for (let k = 0; k + 1 < a.length; k += 2) {
        const w = evaluate(a[k], c);
        if (w !== null && toBool(w, e)) {
          return evaluate(a[k + 1], c);
        }
      }
      return e.else ? evaluate(e.else, c) : null;
    }
    case 'int':
    case 'float':
    case 'bool':
    case 'text':
    case 'null':
      return literal(e);
  }
  return fail(e, `unknown expression ${quote(e.op)}`);
}

function binary(e, c) {
  const fn = e.fn;
  const a = evaluate(e.a[0], c);
  if (fn === 'and' || fn === 'or') {
    const conj = fn === 'and';
    if (a !== null) {
      const ab = toBool(a, e);
      if (ab !== conj) {
        return ab;
      }
    }
    const b = evaluate(e.a[1], c);
    if (b === null) {
      return null;
    }
    const bb = toBool(b, e);
    if (a === null) {
      return bb !== conj ? bb : null;
    }
    return bb;
  }
  const b = evaluate(e.a[1], c);
  if (a === null || b === null) {
    return null;
  }
  switch (fn) {
    case '|':
      return toInt(a, e) | toInt(b, e);
    case '#':
      return toInt(a, e) ^ toInt(b, e);
    case '&':
      return toInt(a, e) & toInt(b, e);
    case '<<': {
      const ai = toInt(a, e);
      return wrap(ai << (toInt(b, e) & 63n));
    }
    case '>>': {
      const ai = toInt(a, e);
      return ai >> (toInt(b, e) & 63n);
    }
  }
  const x = toNumber(a, e);
  const y = toNumber(b, e);
  if (typeof x === 'bigint' && typeof y === 'bigint') {
    switch (fn) {
      case '+':
        return checked(x + y, e);
      case '-':
        return checked(x - y, e);
      case '*':
        return checked(x * y, e);
      case '/':
      case '%':
        if (y === 0n) {
          fail(e, 'division by zero');
        }
        return fn === '/' ? checked(x / y, e) : x % y;
    }
    return cmp(fn, sign(x, y));
  }
  const af = Number(x);
  const bf = Number(y);
  switch (fn) {
    case '+':
      return af + bf;
    case '-':
      return af - bf;
    case '*':
      return af * bf;
    case '/':
      return af / bf;
    case '%':
      return fail(e, '% wants integers');
  }
  return cmp(fn, sign(af, bf));
}

function arg(e, c, i) {
  const v = evaluate(e.a[i], c);
  if (v === null) {
    fail(e, `${e.fn}(): argument ${i + 1} is NULL`);
  }
  return v;
}

// inRange is lb + trunc(span × r), capped at ub.
function inRange(lb, ub, r) {
  const span = Number(ub - lb + 1n);
  const off = BigInt(Math.trunc(span * r));
  return lb + (off < ub - lb ? off : ub - lb);
}

function bounds(e, c) {
  const lb = toInt(arg(e, c, 0), e);
  const ub = toInt(arg(e, c, 1), e);
  if (ub < lb) {
    fail(e, `${e.fn}(${lb}, ${ub}): empty range; the upper bound must not be below the lower`);
  }
  return [lb, ub];
}

function normal(c) {
  for (;;) {
    const v1 = 2 * c.rng.unit() - 1;
    const v2 = 2 * c.rng.unit() - 1;
    const s = v1 * v1 + v2 * v2;
    if (s > 0 && s < 1) {
      return v1 * Math.sqrt((-2 * fm.log(s)) / s);
    }
  }
}

function fnv1a(v, seed) {
  let r = 0xcbf29ce484222325n ^ BigInt.asUintN(64, seed);
  v = BigInt.asUintN(64, v);
  for (let k = 0; k < 8; k++) {
    r ^= v & 0xffn;
    v >>= 8n;
    r = (r * 0x100000001b3n) & M64;
  }
  return wrap(r);
}

function murmur2(v, seed) {
  const m = 0xc6a4a7935bd1e995n;
  let r = BigInt.asUintN(64, seed) ^ 0x35253c9ade8f4ca8n;
  let k = (BigInt.asUintN(64, v) * m) & M64;
  k ^= k >> 47n;
  k = (k * m) & M64;
  r ^= k;
  r = (r * m) & M64;
  r ^= r >> 47n;
  r = (r * m) & M64;
  r ^= r >> 47n;
  return wrap(r);
}

const MAX_LEN = 1 << 20;

function length(e, c, i) {
  const n = toInt(arg(e, c, i), e);
  if (n < 0n || n > BigInt(MAX_LEN)) {
    fail(e, `${e.fn}(): length ${n}: want 0 to ${MAX_LEN}`);
  }
  return Number(n);
}

function extreme(e, c, dir) {
  let best = null;
  let isf = false;
  for (const a of e.a || []) {
    const v0 = evaluate(a, c);
    if (v0 === null) {
      continue;
    }
    const v = toNumber(v0, e);
    isf = isf || typeof v === 'number';
    if (best === null || sign(v, best) * dir > 0) {
      best = v;
    }
  }
  return isf && typeof best === 'bigint' ? Number(best) : best;
}

// textGen is the column generator kind with args under seed R (row 0).
function textGen(kind, args) {
  const col = gen.compileColumn({ name: 'x', kind, args }, new Map(), []);
  const seed = { h: R.h, l: R.l };
  return col.text1(seed, 0, null);
}

function call(e, c) {
  const fn = e.fn;
  switch (fn) {
    case 'random': {
      const [lb, ub] = bounds(e, c);
      return inRange(lb, ub, c.rng.unit());
    }
    case 'random_exponential': {
      const [lb, ub] = bounds(e, c);
      const p = toFloat(arg(e, c, 2), e);
      if (!(p > 0)) {
        fail(e, `random_exponential(): parameter ${goFloat(p)} must be greater than 0`);
      }
      const cut = fm.exp(-p);
      const r = -fm.log(cut + (1 - cut) * (1 - c.rng.unit())) / p;
      return inRange(lb, ub, r);
    }
    case 'random_gaussian': {
      const [lb, ub] = bounds(e, c);
      const p = toFloat(arg(e, c, 2), e);
      if (!(p >= 2)) {
        fail(e, `random_gaussian(): parameter ${goFloat(p)} must be at least 2`);
      }
      let z;
      do {
        z = normal(c);
      } while (!(z >= -p && z < p));
      return inRange(lb, ub, (z + p) / (p * 2));
    }
    case 'random_zipfian': {
      const [lb, ub] = bounds(e, c);
      const s = toFloat(arg(e, c, 2), e);
      if (!(s >= 1.001 && s <= 1000)) {
        fail(e, `random_zipfian(): parameter ${goFloat(s)} must be from 1.001 to 1000`);
      }
      if (ub === lb) {
        return lb;
      }
      const n = Number(ub - lb + 1n);
      const b = fm.pow(2, s - 1);
      for (;;) {
        const uu = c.rng.unit();
        const v = c.rng.unit();
        const x = Math.floor(fm.pow(uu, -1 / (s - 1)));
        const t = fm.pow(1 + 1 / x, s - 1);
        if ((v * x * (t - 1)) / (b - 1) <= t / b && x <= n) {
          return lb - 1n + BigInt(x);
        }
      }
    }
    case 'hash':
    case 'hash_murmur2':
    case 'hash_fnv1a': {
      const v = toInt(arg(e, c, 0), e);
      const s = toInt(arg(e, c, 1), e);
      return fn === 'hash_fnv1a' ? fnv1a(v, s) : murmur2(v, s);
    }
    case 'abs': {
      const v = toNumber(arg(e, c, 0), e);
      return typeof v === 'number' ? Math.abs(v) : checked(v < 0n ? -v : v, e);
    }
    case 'int':
      return toInt(arg(e, c, 0), e);
    case 'double':
      return toFloat(arg(e, c, 0), e);
    case 'exp':
      return fm.exp(toFloat(arg(e, c, 0), e));
    case 'ln':
      return fm.log(toFloat(arg(e, c, 0), e));
    case 'sqrt': {
      const x = toFloat(arg(e, c, 0), e);
      return x >= 0 ? Math.sqrt(x) : NaN;
    }
    case 'pow':
    case 'power':
      return fm.pow(toFloat(arg(e, c, 0), e), toFloat(arg(e, c, 1), e));
    case 'pi':
      return Math.PI;
    case 'greatest':
      return extreme(e, c, 1);
    case 'least':
      return extreme(e, c, -1);
    case 'mod': {
      const a = toInt(arg(e, c, 0), e);
      const b = toInt(arg(e, c, 1), e);
      if (b === 0n) {
        fail(e, 'division by zero');
      }
      return b === -1n ? 0n : a % b;
    }
    case 'rows':
      return BigInt(c.tables[e.table || 0].visible());
    case 'key': {
      const t = c.tables[e.table || 0];
      const kind = KEY_KINDS[e.dist || 'uniform'];
      return t.keyValue(c.rng.pick(kind, kind === 0 ? null : t.zipf(e.theta || 0), t.visible()));
    }
    case 'hex': {
      const n = length(e, c, 0);
      if (n === 0) {
        return '';
      }
      c.rng.next();
      return textGen('hex', { bytes: n });
    }
    case 'letters': {
      const n = length(e, c, 0);
      c.rng.next();
      return textGen('letters', { len: n });
    }
    case 'text': {
      const lo = length(e, c, 0);
      const hi = length(e, c, 1);
      if (hi < lo) {
        fail(e, `text(${lo}, ${hi}): the maximum is below the minimum`);
      }
      c.rng.next();
      return textGen('text', { min: lo, max: hi });
    }
    case 'uuid4':
      c.rng.next();
      return textGen('uuid4', {});
    case 'choice': {
      const a = e.a || [];
      c.rng.next();
      return evaluate(a[u.mod(R.h, R.l, a.length)], c);
    }
  }
  return fail(e, `unknown function ${fn}()`);
}

module.exports = {
  EvalError,
  Rng,
  Ctx,
  workerCtx,
  KEY_KINDS,
  evaluate,
  literal,
  goFloat,
  canonInt,
  textValue,
  toInt,
  toNumber,
  parseFloatText,
  cmp,
  show,
};
