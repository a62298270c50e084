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

// Live is one thread's interval counters in shared memory: two buffers, per
// op kind a success count, an error count and a 2-significant-figure
// histogram. The thread records into the active one; the main thread swaps
// them (a WriterReaderPhaser in two words: the thread marks itself busy
// around each record, the reader waits for that mark to clear after a swap),
// reads the one swapped out and clears it.
const LIVE_ACTIVE = 0;
const LIVE_BUSY = 1;

class Live {
  constructor(sab, ops) {
    this.layout = Layout.of(2);
    this.ops = ops;
    this.stride = this.layout.length + 2;
    this.meta = new Int32Array(sab, 0, 2);
    this.data = new Float64Array(sab, 8);
    // What note() holds until publish(): the same slots as one buffer, in
    // this thread's memory, and the slots it holds something in.
    this.pend = new Float64Array(ops * this.stride);
    this.held = new Int32Array(ops * this.stride);
    this.nheld = 0;
  }
  static alloc(ops) {
    const L = Layout.of(2);
    return new SharedArrayBuffer(8 + 8 * 2 * ops * (L.length + 2));
  }
  base(buf, op) {
    return (buf * this.ops + op) * this.stride;
  }
  // observe adds n successes of op and one latency (interval index idx) to
  // the active buffer at once.
  observe(op, n, idx) {
    this.note(op, n, idx);
    this.publish();
  }
  // note holds n successes of op and one latency for the next publish: a
  // loop that publishes every millisecond and when it ends pays the mark
  // around a publish (a sequentially consistent store, a fence, which a
  // point read of a few microseconds feels) once per publish, not per
  // operation.
  note(op, n, idx) {
    const b = op * this.stride;
    const p = this.pend;
    if (p[b] === 0) {
      this.held[this.nheld++] = b;
    }
    p[b] += n;
    const j = b + 2 + idx;
    if (p[j] === 0) {
      this.held[this.nheld++] = j;
    }
    p[j]++;
  }
  // publish adds what note() holds to the active buffer.
  publish() {
    const k = this.nheld;
    if (k === 0) {
      return;
    }
    const m = this.meta;
    const p = this.pend;
    const h = this.held;
    Atomics.store(m, LIVE_BUSY, 1);
    const base = this.base(Atomics.load(m, LIVE_ACTIVE), 0);
    for (let i = 0; i < k; i++) {
      const j = h[i];
      this.data[base + j] += p[j];
      p[j] = 0;
    }
    Atomics.store(m, LIVE_BUSY, 0);
    this.nheld = 0;
  }
  error(op) {
    const m = this.meta;
    Atomics.store(m, LIVE_BUSY, 1);
    this.data[this.base(Atomics.load(m, LIVE_ACTIVE), op) + 1]++;
    Atomics.store(m, LIVE_BUSY, 0);
  }
  // take swaps the buffers (main thread) and adds what the one swapped out
  // held to out[op] = {n, err, hist}.
  take(out) {
    const m = this.meta;
    const old = Atomics.load(m, LIVE_ACTIVE);
    Atomics.store(m, LIVE_ACTIVE, 1 - old);
    for (let spins = 0; Atomics.load(m, LIVE_BUSY) !== 0; spins++) {
      if (spins > 1000) {
        Atomics.wait(m, LIVE_BUSY, 1, 0.05);
      }
    }
    for (let op = 0; op < this.ops; op++) {
      const b = this.base(old, op);
      const o = out[op];
      o.n += this.data[b];
      o.err += this.data[b + 1];
      const counts = this.data.subarray(b + 2, b + this.stride);
      o.hist.addCounts(counts);
      this.data.fill(0, b, b + this.stride);
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
