'use strict';
// exp, log, log1p and pow as docs/data-generation.md §8 specifies them (Go's
// portable implementations, after FreeBSD's msun): sequences of IEEE-754
// operations that every language rounds alike. Math.exp and Math.pow may
// differ from them in the last bit, and a last bit is enough to move a key
// or an arrival by a nanosecond. JavaScript never fuses a multiply-add, so
// the expressions are written as the specification gives them.

const buf = new DataView(new ArrayBuffer(8));

function hiBits(x) {
  buf.setFloat64(0, x);
  return buf.getUint32(0);
}
function loBits(x) {
  buf.setFloat64(0, x);
  return buf.getUint32(4);
}
function fromBits(hi, lo) {
  buf.setUint32(0, hi >>> 0);
  buf.setUint32(4, lo >>> 0);
  return buf.getFloat64(0);
}

const SMALLEST_NORMAL = 2.2250738585072014e-308;
const TWO52 = 4503599627370496;

// frexp returns [m, e] with x = m * 2^e and 0.5 ≤ |m| < 1 (Go's math.Frexp).
function frexp(x) {
  if (x === 0 || !Number.isFinite(x)) {
    return [x, 0];
  }
  let e = 0;
  if (Math.abs(x) < SMALLEST_NORMAL) {
    x *= TWO52;
    e = -52;
  }
  const hi = hiBits(x);
  e += ((hi >>> 20) & 0x7ff) - 1023 + 1;
  return [fromBits((hi & ~(0x7ff << 20)) | (1022 << 20), loBits(x)), e];
}

// ldexp returns m * 2^e rounded once (Go's math.Ldexp).
function ldexp(frac, exp) {
  if (frac === 0 || !Number.isFinite(frac)) {
    return frac;
  }
  if (Math.abs(frac) < SMALLEST_NORMAL) {
    frac *= TWO52;
    exp -= 52;
  }
  const hi = hiBits(frac);
  exp += ((hi >>> 20) & 0x7ff) - 1023;
  if (exp < -1075) {
    return frac < 0 ? -0 : 0;
  }
  if (exp > 1023) {
    return frac < 0 ? -Infinity : Infinity;
  }
  let m = 1;
  if (exp < -1022) {
    exp += 53;
    m = 1 / 9007199254740992; // 2^-53
  }
  return m * fromBits((hi & ~(0x7ff << 20)) | ((exp + 1023) << 20), loBits(frac));
}

const LN2HI = 6.9314718036912381649e-1;
const LN2LO = 1.90821492927058770002e-10;
const LG1 = 6.66666666666673513e-1;
const LG2 = 3.999999999940941908e-1;
const LG3 = 2.857142874366239149e-1;
const LG4 = 2.222219843214978396e-1;
const LG5 = 1.818357216161805012e-1;
const LG6 = 1.531383769920937332e-1;
const LG7 = 1.479819860511658591e-1;

function exp(x) {
  const LOG2E = 1.442695040888963387;
  const OVERFLOW = 7.09782712893383973096e2;
  const UNDERFLOW = -7.4513321910194110842e2;
  const NEAR_ZERO = 1 / 268435456; // 2^-28
  if (Number.isNaN(x)) {
    return x;
  }
  if (x > OVERFLOW) {
    return Infinity;
  }
  if (x < UNDERFLOW) {
    return 0;
  }
  if (-NEAR_ZERO < x && x < NEAR_ZERO) {
    return 1 + x;
  }
  let k = 0;
  if (x < 0) {
    k = Math.trunc(LOG2E * x - 0.5);
  } else if (x > 0) {
    k = Math.trunc(LOG2E * x + 0.5);
  }
  const hi = x - k * LN2HI;
  const lo = k * LN2LO;
  const P1 = 1.66666666666666657415e-1;
  const P2 = -2.77777777770155933842e-3;
  const P3 = 6.61375632143793436117e-5;
  const P4 = -1.6533902205465251539e-6;
  const P5 = 4.13813679705723846039e-8;
  const r = hi - lo;
  const t = r * r;
  const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  const y = 1 - (lo - (r * c) / (2 - c) - hi);
  return ldexp(y, k);
}

function log(x) {
  if (Number.isNaN(x) || x === Infinity) {
    return x;
  }
  if (x < 0) {
    return NaN;
  }
  if (x === 0) {
    return -Infinity;
  }
  let [f1, ki] = frexp(x);
  if (f1 < Math.SQRT2 / 2) {
    f1 *= 2;
    ki--;
  }
  const f = f1 - 1;
  const k = ki;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (LG1 + s4 * (LG3 + s4 * (LG5 + s4 * LG7)));
  const t2 = s4 * (LG2 + s4 * (LG4 + s4 * LG6));
  const r = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2HI - (hfsq - (s * (hfsq + r) + k * LN2LO) - f);
}

function log1p(x) {
  const SQRT2M1 = 0.41421356237309503; // 0x3fda827999fcef32
  const SQRT2HALFM1 = -0.2928932188134525; // 0xbfd2bec333018867
  const SMALL = 1 / 536870912; // 2^-29
  const TINY = 1 / 18014398509481984; // 2^-54
  const TWO53 = 9007199254740992;
  if (x < -1 || Number.isNaN(x)) {
    return NaN;
  }
  if (x === -1) {
    return -Infinity;
  }
  if (x === Infinity) {
    return Infinity;
  }
  const absx = Math.abs(x);
  let f = 0;
  let iu = 0; // the low 52 bits of a double's representation, below 2^53
  let k = 1;
  if (absx < SQRT2M1) {
    if (absx < SMALL) {
      if (absx < TINY) {
        return x;
      }
      return x - x * x * 0.5;
    }
    if (x > SQRT2HALFM1) {
      k = 0;
      f = x;
      iu = 1;
    }
  }
  let c = 0;
  if (k !== 0) {
    let u;
    let uh;
    let ul;
    if (absx < TWO53) {
      u = 1.0 + x;
      uh = hiBits(u);
      ul = loBits(u);
      k = (uh >>> 20) - 1023;
      if (k > 0) {
        c = 1.0 - (u - x);
      } else {
        c = x - (u - 1.0);
      }
      c /= u;
    } else {
      u = x;
      uh = hiBits(u);
      ul = loBits(u);
      k = (uh >>> 20) - 1023;
      c = 0;
    }
    const mh = uh & 0xfffff;
    iu = mh * 4294967296 + ul;
    if (iu < 0x0006a09e667f3bcd) {
      u = fromBits(mh | 0x3ff00000, ul);
    } else {
      k++;
      u = fromBits(mh | 0x3fe00000, ul);
      iu = Math.floor((0x0010000000000000 - iu) / 4);
    }
    f = u - 1.0;
  }
  const hfsq = 0.5 * f * f;
  const fk = k;
  if (iu === 0) {
    if (f === 0) {
      if (k === 0) {
        return 0;
      }
      c += fk * LN2LO;
      return fk * LN2HI + c;
    }
    const r = hfsq * (1.0 - 0.6666666666666666 * f);
    if (k === 0) {
      return f - r;
    }
    return fk * LN2HI - (r - (fk * LN2LO + c) - f);
  }
  const s = f / (2.0 + f);
  const z = s * s;
  const r = z * (LG1 + z * (LG2 + z * (LG3 + z * (LG4 + z * (LG5 + z * (LG6 + z * LG7))))));
  if (k === 0) {
    return f - (hfsq - s * (hfsq + r));
  }
  return fk * LN2HI - (hfsq - (s * (hfsq + r) + (fk * LN2LO + c)) - f);
}

const TWO63 = 9223372036854775808;

// pow returns x**y for finite x and y.
function pow(x, y) {
  if (y === 0 || x === 1) {
    return 1;
  }
  if (y === 1) {
    return x;
  }
  if (Number.isNaN(x) || Number.isNaN(y) || !Number.isFinite(x) || !Number.isFinite(y)) {
    return NaN;
  }
  if (x === 0) {
    return y < 0 ? Infinity : 0;
  }
  if (y === 0.5) {
    return Math.sqrt(x);
  }
  if (y === -0.5) {
    return 1 / Math.sqrt(x);
  }
  let yi = Math.trunc(Math.abs(y));
  let yf = Math.abs(y) - yi;
  if (yf !== 0 && x < 0) {
    return NaN;
  }
  if (yi >= TWO63) {
    if (x === -1) {
      return 1;
    }
    if (Math.abs(x) < 1 === y > 0) {
      return 0;
    }
    return Infinity;
  }
  let a1 = 1.0;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = exp(yf * log(x));
  }
  let [x1, xe] = frexp(x);
  for (let i = yi; i !== 0; i = Math.floor(i / 2)) {
    if (xe < -4096 || 4096 < xe) {
      ae += xe;
      break;
    }
    if (i % 2 === 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}

module.exports = { exp, log, log1p, pow, frexp, ldexp };
