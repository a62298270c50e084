'use strict';
// What the threads of one run share, in SharedArrayBuffers: control flags,
// the measured phase, the closed loop's count quota, the keys inserts claim,
// the write mutex, the open loop's ticket ring and each thread's live
// interval counters. Nothing here is locked per operation: a thread touches
// shared memory with a few atomic loads and stores, and blocks only where
// the Go worker would (the write mutex, an open loop's empty queue).

const { Layout } = require('./hist');

// Int32 control words.
const GO = 0; // 1 once the measured part may start
const STOP = 1; // 0 running, 1 cancelled, 2 stopped by a fatal error
const PHASE = 2; // 0 warm-up, 1 a thread is starting the measure, 2 measured
const RUNNING = 3; // threads still running their load
const WMUTEX = 4; // the write mutex (0 free, 1 held, 2 held with waiters)
const IDLE = 5; // open loop: executors waiting for a ticket
const QCLOSED = 6; // open loop: no more tickets will be published
const PUB = 7; // open loop: tickets published (wraps)
const CLAIMED = 8; // open loop: tickets taken by executors (wraps)
const CTL_WORDS = 16;

// Float64 times (nanoseconds on lib/clock's scale) and per-thread counts.
const T0 = 0; // the run's start
const START = 1; // the measured start
const DEADLINE = 2; // the end of the measured window (0: none)
const CANCEL_AT = 3; // when the run was cancelled
const CPU0 = 4; // the process's CPU time at the measured start (clock.cpu)
const DONE = 8; // doneAt(t): rows or operations thread t has done

// doneAt is thread t's done counter: one 64-byte line each, so that
// threads counting do not share a cache line.
function doneAt(t) {
  return DONE + 8 * t;
}

// The open loop's ticket ring: more slots than tickets may wait (QUEUE, as
// the Go worker's channel), and a slot is rewritten only once read.
const RING = 2048;
const QUEUE = 1024;

// create allocates the run's shared memory for up to threads threads.
function create(threads, executors, tables = 0) {
  return {
    tables: new SharedArrayBuffer(8 * Math.max(tables, 1) * (3 + executors)),
    ctl: new SharedArrayBuffer(4 * CTL_WORDS),
    times: new SharedArrayBuffer(8 * (doneAt(threads) + 1)),
    // left (count quota), next and visible (claimed keys), then one slot
    // per executor (the insert it has in flight).
    big: new SharedArrayBuffer(8 * (3 + executors)),
    ring: new SharedArrayBuffer(16 * RING),
    ringState: new SharedArrayBuffer(4 * RING),
  };
}

// view wraps shared memory for a thread.
function view(sab) {
  return {
    ctl: new Int32Array(sab.ctl),
    times: new Float64Array(sab.times),
    big: new BigInt64Array(sab.big),
    tables: new BigInt64Array(sab.tables),
    ring: new Float64Array(sab.ring),
    ringState: new Int32Array(sab.ringState),
  };
}

// Claims hands out the row indexes of inserts and tracks which rows are
// committed: each executor publishes its insert in flight in a slot of its
// own, and reads pick rows below the oldest insert still in flight
// (internal/workload's claims).
const IDLE_SLOT = (1n << 63n) - 1n;

class Claims {
  // big holds the claims from index base on (the built-in workloads' at 0,
  // a program's tables' one after the other: tableClaims).
  constructor(big, base = 0) {
    this.b = big;
    this.n = base + 1; // the next row to claim
    this.v = base + 2; // the rows visible
    this.s = base + 3; // the executors' slots
  }
  init(rows, executors) {
    Atomics.store(this.b, this.n, BigInt(rows));
    Atomics.store(this.b, this.v, BigInt(rows));
    for (let i = 0; i < executors; i++) {
      Atomics.store(this.b, this.s + i, IDLE_SLOT);
    }
  }
  next() {
    return Number(Atomics.load(this.b, this.n));
  }
  visible() {
    return Number(Atomics.load(this.b, this.v));
  }
  // claim reserves n new rows for slot's insert and returns the first.
  claim(slot, n) {
    Atomics.store(this.b, this.s + slot, Atomics.load(this.b, this.n));
    const first = Atomics.add(this.b, this.n, BigInt(n));
    Atomics.store(this.b, this.s + slot, first);
    return Number(first);
  }
  // release ends slot's insert and moves the visible bound up to the oldest
  // insert still in flight.
  release(slot, executors) {
    Atomics.store(this.b, this.s + slot, IDLE_SLOT);
    let lo = Atomics.load(this.b, this.n);
    for (let i = 0; i < executors; i++) {
      const s = Atomics.load(this.b, this.s + i);
      if (s < lo) {
        lo = s;
      }
    }
    for (let v = Atomics.load(this.b, this.v); lo > v; v = Atomics.load(this.b, this.v)) {
      if (Atomics.compareExchange(this.b, this.v, v, lo) === v) {
        break;
      }
    }
  }
}

// tableClaims is the claims of a program's table k (v.tables, laid out by
// create for executors).
function tableClaims(v, k, executors) {
  return new Claims(v.tables, k * (3 + executors));
}

// Quota hands out the operations of a counted closed-loop run in blocks
// (loadgen's quota): about a millisecond of a worker's operations at a time,
// at most 64, shrinking as the count runs out.
class Quota {
  constructor(big, workers) {
    this.b = big;
    this.workers = BigInt(workers);
  }
  init(count) {
    Atomics.store(this.b, 0, BigInt(count));
  }
  // claim takes a block for a worker whose last operation took last ns (0
  // if none); 0 when none are left.
  claim(last) {
    let n = 1n;
    if (last > 0) {
      n = BigInt(Math.max(1, Math.min(64, Math.trunc(1e6 / last))));
    }
    for (;;) {
      const left = Atomics.load(this.b, 0);
      if (left <= 0n) {
        return 0;
      }
      let k = left / (4n * this.workers);
      if (n < k) {
        k = n;
      }
      if (k < 1n) {
        k = 1n;
      }
      if (Atomics.compareExchange(this.b, 0, left, left - k) === left) {
        return Number(k);
      }
    }
  }
}

// Mutex is the write mutex: a futex-style lock on one control word.
class Mutex {
  constructor(ctl) {
    this.c = ctl;
  }
  lock() {
    const c = this.c;
    let s = Atomics.compareExchange(c, WMUTEX, 0, 1);
    if (s === 0) {
      return;
    }
    do {
      if (s === 2 || Atomics.compareExchange(c, WMUTEX, 1, 2) !== 0) {
        Atomics.wait(c, WMUTEX, 2, 100);
      }
      s = Atomics.compareExchange(c, WMUTEX, 0, 2);
    } while (s !== 0);
  }
  unlock() {
    if (Atomics.sub(this.c, WMUTEX, 1) !== 1) {
      Atomics.store(this.c, WMUTEX, 0);
      Atomics.notify(this.c, WMUTEX, 1);
    }
  }
}

// Live is one thread's interval source in shared memory: per op kind that
// feeds the intervals, an error count and the histogram of the latency the
// intervals report, in the run histogram's layout (3 significant figures).
// That histogram is the thread's own run histogram of the op (lib/
// recorder.js: the service time in a closed loop, the response time in an
// open one), so recording an operation writes nothing more for the
// intervals. The main thread reads the counts every interval and reports
// what they gained since it last read them (take), folded into the
// intervals' 2 significant figures, whose buckets are unions of the run
// histogram's; the successes are the samples gained (every live operation
// is recorded with a count of 1), so an interval's count and its histogram
// agree. Nothing is locked: one thread writes each count and the main
// thread only reads. The language promises no more for plain reads of a
// Float64Array in shared memory, but V8 on x64 and arm64 reads and writes
// an aligned 8-byte value whole, and a count read a moment early shows up
// in the next interval; once the threads are done, a take sees every
// count, so the intervals add up to the run's. The main thread scans every
// count of every live thread's op kinds each interval (31,745 a kind, some
// 90 µs per thread with two kinds) and keeps a copy of those it has seen:
// with a hundred executors, about 18 ms a report and 50 MB.
class Live {
  constructor(sab, ops) {
    this.ops = ops;
    this.run = Layout.of(3);
    this.stride = this.run.length + 1;
    this.data = new Float64Array(sab);
    // The main thread's: what the last take read, per op kind (made when
    // the kind is first seen).
    this.seen = new Array(ops).fill(null);
    this.seenErr = new Float64Array(ops);
  }
  static alloc(ops) {
    return new SharedArrayBuffer(8 * ops * (Layout.of(3).length + 1));
  }
  // fold maps each index of the run layout to the interval layout's index
  // of the same values (made once, for every Live).
  static fold() {
    if (!Live.folded) {
      const run = Layout.of(3);
      const iv = Layout.of(2);
      Live.folded = new Int32Array(run.length);
      for (let i = 0; i < run.length; i++) {
        Live.folded[i] = iv.index(run.valueFromIndex(i));
      }
    }
    return Live.folded;
  }
  // counts is op's histogram counts, for the thread's Hist to record into.
  counts(op) {
    const b = op * this.stride + 1;
    return this.data.subarray(b, b + this.run.length);
  }
  error(op) {
    this.data[op * this.stride]++;
  }
  // take adds what each op gained since the last take to out[op] = {n,
  // err, hist} (hist: 2 significant figures).
  take(out) {
    const d = this.data;
    const fold = Live.fold();
    const len = this.run.length;
    for (let op = 0; op < this.ops; op++) {
      const b = op * this.stride;
      const o = out[op];
      const err = d[b];
      o.err += err - this.seenErr[op];
      this.seenErr[op] = err;
      let seen = this.seen[op];
      const hc = o.hist.counts;
      let n = 0;
      for (let i = 0; i < len; i++) {
        const c = d[b + 1 + i];
        if (c === 0) {
          continue;
        }
        if (seen === null) {
          seen = this.seen[op] = new Float64Array(len);
        }
        const gained = c - seen[i];
        if (gained !== 0) {
          seen[i] = c;
          hc[fold[i]] += gained;
          n += gained;
        }
      }
      o.hist.total += n;
      o.n += n;
    }
  }
}

module.exports = {
  GO,
  STOP,
  PHASE,
  RUNNING,
  WMUTEX,
  IDLE,
  QCLOSED,
  PUB,
  CLAIMED,
  T0,
  START,
  DEADLINE,
  CANCEL_AT,
  CPU0,
  DONE,
  doneAt,
  RING,
  QUEUE,
  create,
  view,
  Claims,
  tableClaims,
  Quota,
  Mutex,
  Live,
};
