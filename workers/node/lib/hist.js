'use strict';
// Latency histograms. Recording uses HdrHistogram's own counts layout in a
// plain Float64Array (lowest value 1 ns, highest 10 minutes, 3 significant
// figures for whole-run histograms, 2 for intervals), with the bucket index
// computed from the value's bit length: a few nanoseconds and no allocation
// per value, and the counts array may live in shared memory. The wire form is
// hdr-histogram-js's V2 compressed base64 (the library encodes and decodes);
// the summaries reproduce hdrhistogram-go's Min, Max, Mean and
// ValueAtQuantile, so that they equal what litebench computes from the same
// histogram.

const zlib = require('zlib');
const hdr = require('hdr-histogram-js');

const LOWEST = 1;
const HIGHEST = 600e9; // 10 minutes in nanoseconds

const layouts = {};

// Layout is the counts layout of a histogram with sigfigs significant
// figures over [LOWEST, HIGHEST].
class Layout {
  constructor(sigfigs) {
    const largest = 2 * Math.pow(10, sigfigs);
    const subBucketCountMagnitude = Math.ceil(Math.log2(largest));
    this.sigfigs = sigfigs;
    this.halfMag = Math.max(subBucketCountMagnitude, 1) - 1;
    this.subBucketCount = Math.pow(2, this.halfMag + 1);
    this.half = this.subBucketCount / 2;
    this.mask = this.subBucketCount - 1;
    const probe = this.library();
    this.length = probe.countsArrayLength;
    if (probe.subBucketHalfCountMagnitude !== this.halfMag || probe.unitMagnitude !== 0) {
      throw new Error('hdr-histogram-js lays counts out differently than expected');
    }
  }

  static of(sigfigs) {
    return layouts[sigfigs] || (layouts[sigfigs] = new Layout(sigfigs));
  }

  // library returns an empty hdr-histogram-js histogram of this layout.
  library() {
    return hdr.build({
      lowestDiscernibleValue: LOWEST,
      highestTrackableValue: HIGHEST,
      numberOfSignificantValueDigits: this.sigfigs,
      bitBucketSize: 64,
      autoResize: false,
    });
  }

  // bucket is hdrhistogram's bucket index of v (a whole number ≥ 1).
  bucket(v) {
    let bits;
    if (v < 4294967296) {
      bits = 32 - Math.clz32(v | this.mask);
    } else {
      bits = 64 - Math.clz32(Math.floor(v / 4294967296));
    }
    return bits - (this.halfMag + 1);
  }

  // index is v's position in the counts.
  index(v) {
    const b = this.bucket(v);
    const sub = v < 4294967296 ? v >>> b : Math.floor(v / Math.pow(2, b));
    return ((b + 1) << this.halfMag) + sub - this.half;
  }

  valueFromIndex(idx) {
    let b = (idx >> this.halfMag) - 1;
    let sub = (idx & (this.half - 1)) + this.half;
    if (b < 0) {
      sub -= this.half;
      b = 0;
    }
    return sub * Math.pow(2, b);
  }

  // The equivalent-value ranges, as hdrhistogram-go computes them.
  lowestEquivalent(v) {
    const b = this.bucket(Math.max(v, 1));
    const sub = Math.floor(v / Math.pow(2, b));
    return sub * Math.pow(2, b);
  }

  sizeOfRange(v) {
    const b = this.bucket(Math.max(v, 1));
    const sub = Math.floor(v / Math.pow(2, b));
    return Math.pow(2, sub >= this.subBucketCount ? b + 1 : b);
  }

  highestEquivalent(v) {
    return this.lowestEquivalent(v) + this.sizeOfRange(v) - 1;
  }

  medianEquivalent(v) {
    return this.lowestEquivalent(v) + Math.floor(this.sizeOfRange(v) / 2);
  }
}

// clamp makes a duration in nanoseconds a value the histograms hold.
function clamp(ns) {
  const v = Math.round(ns);
  return v < LOWEST ? LOWEST : v > HIGHEST ? HIGHEST : v;
}

// Hist is a histogram: counts in a Layout, and the total.
class Hist {
  constructor(sigfigs = 3, counts = null) {
    this.layout = Layout.of(sigfigs);
    this.counts = counts || new Float64Array(this.layout.length);
    this.total = 0;
  }

  // record adds one value (nanoseconds, clamped into range).
  record(ns) {
    this.counts[this.layout.index(clamp(ns))]++;
    this.total++;
  }

  reset() {
    this.counts.fill(0);
    this.total = 0;
  }

  // addCounts adds a counts array of the same layout.
  addCounts(counts) {
    const c = this.counts;
    let n = 0;
    for (let i = 0; i < counts.length; i++) {
      const x = counts[i];
      if (x !== 0) {
        c[i] += x;
        n += x;
      }
    }
    this.total += n;
  }

  add(other) {
    this.addCounts(other.counts);
  }

  // encode returns the V2 compressed base64 form, or "" when empty: the
  // bytes hdr-histogram-js's encodeIntoCompressedBase64 writes for the same
  // counts (test/hist.test.js), written here from the counts as they are
  // (the library would first re-record every count into a histogram of its
  // own), compressed by zlib and turned to base64 natively. The interval
  // reports call it every second on the main thread.
  encode() {
    if (this.total === 0) {
      return '';
    }
    const c = this.counts;
    let end = c.length;
    while (end > 0 && c[end - 1] === 0) {
      end--;
    }
    // The header (big-endian, as the library writes it), then per index a
    // ZigZag LEB128 count, a run of zeros as its negated length.
    const buf = Buffer.allocUnsafe(40 + 9 * end);
    buf.writeInt32BE(V2_COOKIE, 0);
    buf.writeInt32BE(1, 8); // normalizing index offset, as the library writes it
    buf.writeInt32BE(this.layout.sigfigs, 12);
    writeInt64BE(buf, LOWEST, 16);
    writeInt64BE(buf, HIGHEST, 24);
    writeInt64BE(buf, 1, 32); // integer to double conversion ratio
    let at = 40;
    for (let i = 0; i < end;) {
      const n = c[i++];
      if (n === 0) {
        let zeros = 1;
        while (i < end && c[i] === 0) {
          zeros++;
          i++;
        }
        at = zigzag(buf, at, zeros > 1 ? -zeros : 0);
      } else {
        at = zigzag(buf, at, n);
      }
    }
    buf.writeInt32BE(at - 40, 4);
    const packed = zlib.deflateSync(buf.subarray(0, at));
    const out = Buffer.allocUnsafe(8 + packed.length);
    out.writeInt32BE(V2_COMPRESSED_COOKIE, 0);
    out.writeInt32BE(packed.length, 4);
    packed.copy(out, 8);
    return out.toString('base64');
  }

  // decode reads an encoded histogram of this layout ("" is empty).
  static decode(s, sigfigs = 3) {
    const out = new Hist(sigfigs);
    if (!s) {
      return out;
    }
    const h = hdr.decodeFromCompressedBase64(s, 64);
    if (h.numberOfSignificantValueDigits !== sigfigs || h.countsArrayLength > out.counts.length) {
      throw new Error(`histogram of ${h.numberOfSignificantValueDigits} significant figures, not ${sigfigs}`);
    }
    for (let i = 0; i < h.countsArrayLength; i++) {
      const x = h.getCountAtIndex(i);
      if (x) {
        out.counts[i] = x;
        out.total += x;
      }
    }
    return out;
  }

  // The statistics of hdrhistogram-go, in nanoseconds.
  min() {
    for (let i = 0; i < this.counts.length; i++) {
      if (this.counts[i] !== 0) {
        const L = this.layout;
        return L.lowestEquivalent(L.highestEquivalent(L.valueFromIndex(i)));
      }
    }
    return 0;
  }

  max() {
    let m = 0;
    for (let i = 0; i < this.counts.length; i++) {
      if (this.counts[i] !== 0) {
        m = this.layout.highestEquivalent(this.layout.valueFromIndex(i));
      }
    }
    return this.layout.highestEquivalent(m);
  }

  mean() {
    if (this.total === 0) {
      return 0;
    }
    let mean = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const c = this.counts[i];
      if (c !== 0) {
        mean += (c * this.layout.medianEquivalent(this.layout.valueFromIndex(i))) / this.total;
      }
    }
    return mean;
  }

  valueAtPercentile(p) {
    if (this.total === 0) {
      return 0;
    }
    p = Math.min(Math.max(p, 0), 100);
    let rank = (p / 100) * this.total + 0.5;
    if (!(rank >= 1)) {
      rank = 1;
    } else if (rank >= this.total) {
      rank = this.total;
    } else {
      rank = Math.trunc(rank);
    }
    let sum = 0;
    let idx = 0;
    for (; idx < this.counts.length; idx++) {
      sum += this.counts[idx];
      if (sum >= rank) {
        break;
      }
    }
    const v = this.layout.valueFromIndex(Math.min(idx, this.counts.length - 1));
    return p === 0 ? this.layout.lowestEquivalent(v) : this.layout.highestEquivalent(v);
  }

  // summary is the distribution in microseconds, as internal/metrics'
  // Summarise reports it: min, mean, max and valueAtPercentile's figures,
  // found in one pass over the counts (the final event's histograms are
  // summarised once, on cold code: a pass per figure took tens of
  // milliseconds there).
  summary() {
    const d = { count: this.total, min: 0, mean: 0, max: 0 };
    if (this.total === 0) {
      return d;
    }
    const L = this.layout;
    const c = this.counts;
    const n = c.length;
    // Each percentile's rank, as valueAtPercentile takes it; ranks grow
    // with the percentiles.
    const ranks = PERCENTILES.map(([, p]) => {
      const r = (p / 100) * this.total + 0.5;
      return !(r >= 1) ? 1 : r >= this.total ? this.total : Math.trunc(r);
    });
    const at = new Array(ranks.length).fill(n - 1);
    let first = -1;
    let last = -1;
    let mean = 0;
    let sum = 0;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const x = c[i];
      if (x === 0) {
        continue;
      }
      if (first < 0) {
        first = i;
      }
      last = i;
      mean += (x * L.medianEquivalent(L.valueFromIndex(i))) / this.total;
      sum += x;
      while (k < ranks.length && sum >= ranks[k]) {
        at[k++] = i;
      }
    }
    const us = (v) => round3(v / 1e3);
    d.min = us(L.lowestEquivalent(L.highestEquivalent(L.valueFromIndex(first))));
    d.mean = round3(mean / 1e3);
    d.max = us(L.highestEquivalent(L.highestEquivalent(L.valueFromIndex(last))));
    PERCENTILES.forEach(([name], j) => {
      d[name] = us(L.highestEquivalent(L.valueFromIndex(at[j])));
    });
    return d;
  }
}

// The V2 encoding's cookies, with the word-size bits the library sets.
const V2_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;

function writeInt64BE(buf, v, at) {
  buf.writeInt32BE(Math.floor(v / 4294967296), at);
  buf.writeUInt32BE(v % 4294967296, at + 4);
}

// zigzag writes v (a whole number, |v| < 2^53) as a ZigZag LEB128 word of
// at most 9 bytes at buf[at] and returns the position after it.
function zigzag(buf, at, v) {
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  for (let k = 0; k < 8 && u >= 128; k++) {
    buf[at++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  buf[at++] = u;
  return at;
}

const PERCENTILES = [
  ['p50', 50],
  ['p75', 75],
  ['p90', 90],
  ['p95', 95],
  ['p99', 99],
  ['p999', 99.9],
  ['p9999', 99.99],
];

function round3(f) {
  return Math.round(f * 1000) / 1000;
}

module.exports = { Hist, Layout, clamp, round3, LOWEST, HIGHEST, PERCENTILES };
