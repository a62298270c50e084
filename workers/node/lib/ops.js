'use strict';
// The operation workloads' measured part (read, write, mixed: internal/
// workload/ops.go driven as internal/loadgen drives it): an executor per
// thread that reads a row by key or writes --batch rows, the closed loop
// (each thread runs its role until the duration or count is reached) and
// the open loop (a dispatcher thread schedules operations at the rate; up
// to --max-inflight executor threads run them, each started when none is
// idle).

const { now, cpu } = require('./clock');
const db = require('./db');
const gen = require('./gen');
const { Writer } = require('./session');
const S = require('./shared');
const { Hist } = require('./hist');

const OP_READ = 0;
const OP_WRITE = 1;
const RW_OPS = ['read', 'write'];

// LATE_AFTER is how far behind schedule an open-loop operation may start
// before it counts as late.
const LATE_AFTER = 1e6;

// TALLY_EVERY bounds how long a thread's progress count may lag (ns).
const TALLY_EVERY = 10e6;

// MISSING is a read that found no row where one was expected.
class Missing extends Error {}

// call runs st with the values of args as positional parameters.
function call(st, a) {
  switch (a.length) {
    case 1:
      return st.run(a[0]);
    case 2:
      return st.run(a[0], a[1]);
    case 3:
      return st.run(a[0], a[1], a[2]);
    case 6:
      return st.run(a[0], a[1], a[2], a[3], a[4], a[5]);
  }
  return st.run(a);
}

class Executor {
  // canRead and canWrite say which op kinds this executor runs: it opens
  // and prepares only what they need.
  constructor(T, slot, executors, canRead, canWrite) {
    const w = T.plan.w;
    this.T = T;
    this.w = w;
    this.sc = w.schema;
    this.seed = gen.seedOf(w.seed);
    this.seed1 = gen.seedPlus(this.seed, 1);
    this.slot = slot;
    this.executors = executors;
    this.claims = T.claims;
    this.fixedVisible = w.writers === 0 && !(w.rate > 0 && w.ratio > 0) ? w.rows : -1;
    this.keys = new gen.KeyGen(w.keys, T.zipf, this.seed, slot);
    this.sess = T.sess;
    this.writer = new Writer(this.sess);
    this.readSQL = this.sc.selectSQL();
    this.writeSQL =
      w.kind === 'update' ? this.sc.updateSQL() : w.kind === 'upsert' ? this.sc.upsertSQL() : this.sc.insertSQL(1);
    this.batch = w.batch;
    this.idx = new Array(this.batch).fill(0);
    const ncols = this.sc.columns.length;
    this.rows = Array.from({ length: this.batch }, () => new Array(ncols));
    this.args = Array.from(
      { length: this.batch },
      () => new Array(w.kind === 'update' ? this.sc.update.length + 1 : ncols),
    );
    this.key = null;
    this.claimed = false;
    this.retries = 0;
    this.recording = false;
    // Statements looked up once when their connection is the same for
    // every operation.
    this.readStmt = null;
    this.writeStmt = null;
    const prepared = this.sess.plan.settings.prepared === 'true';
    if (canRead && prepared && this.sess.persistent(false)) {
      this.readStmt = this.sess.acquire(false).stmt(this.readSQL);
    }
    if (canWrite && prepared && this.sess.persistent(true)) {
      this.writeStmt = this.sess.acquire(true).stmt(this.writeSQL);
    }
  }

  visible() {
    return this.fixedVisible >= 0 ? this.fixedVisible : this.claims.visible();
  }

  prepRead() {
    const i = this.keys.next(this.visible());
    this.key = this.sc.key(this.seed, i);
  }

  // read runs the prepared read; it returns its retries (0).
  read() {
    let row;
    if (this.readStmt !== null) {
      row = this.readStmt.get(this.key); // the thread's own connection
    } else {
      const sess = this.sess;
      const c = sess.acquire(false);
      try {
        row = c.stmt(this.readSQL).get(this.key);
      } finally {
        sess.release(c);
      }
    }
    if (row === undefined) {
      throw new Missing(`row not found: ${this.sc.name} ${this.sc.keyCol} = ${this.key}`);
    }
    return 0;
  }

  // prepWrite chooses the rows of the next write and computes their
  // values (a retry writes the same rows).
  prepWrite() {
    const w = this.w;
    const sc = this.sc;
    const idx = this.idx;
    if (w.kind === 'insert') {
      const first = this.claims.claim(this.slot, idx.length);
      this.claimed = true;
      for (let k = 0; k < idx.length; k++) {
        idx[k] = first + k;
      }
    } else {
      let span = this.visible();
      if (w.kind === 'upsert') {
        span += Math.floor(span / 10); // some upserts insert
      }
      for (let k = 0; k < idx.length; k++) {
        idx[k] = this.keys.next(span);
      }
    }
    for (let k = 0; k < idx.length; k++) {
      const a = this.args[k];
      if (w.kind === 'update') {
        const row = sc.table.row(this.seed1, idx[k], this.rows[k]);
        const u = sc.updIdx;
        for (let j = 0; j < u.length; j++) {
          a[j] = row[u[j]];
        }
        a[u.length] = sc.key(this.seed, idx[k]);
      } else {
        sc.table.row(this.seed, idx[k], a);
      }
    }
  }

  // write runs the write, retried per --busy-retry; it returns the
  // retries, or throws the last error (this.retries holds its retries).
  write() {
    this.retries = 0;
    for (let retries = 0; ; retries++) {
      try {
        this.writeOnce();
      } catch (e) {
        if (!this.sess.again(e, retries)) {
          this.retries = retries;
          throw e;
        }
        continue;
      }
      if (this.T.ack !== null) {
        this.T.ack(this.idx[0], this.idx.length);
      }
      return retries;
    }
  }

  writeOnce() {
    const sess = this.sess;
    const c = sess.acquire(true);
    try {
      const w = this.writer;
      const st = this.writeStmt !== null ? this.writeStmt : c.stmt(this.writeSQL);
      if (this.batch === 1) {
        w.lock();
        try {
          call(st, this.args[0]);
        } finally {
          w.unlock();
        }
        return;
      }
      w.begin(c);
      try {
        for (let k = 0; k < this.batch; k++) {
          call(this.writeStmt !== null || k === 0 ? st : c.stmt(this.writeSQL), this.args[k]);
        }
      } catch (e) {
        w.rollback();
        throw e;
      }
      w.commit();
    } finally {
      sess.release(c);
    }
  }

  // endWrite hands back the rows an insert claimed.
  endWrite() {
    if (this.claimed) {
      this.claimed = false;
      this.claims.release(this.slot, this.executors);
    }
  }

  prep(op) {
    if (op === OP_READ) {
      this.prepRead();
    } else {
      this.prepWrite();
    }
  }

  // run runs op and returns its retries; it throws a failure.
  run(op) {
    return op === OP_READ ? this.read() : this.write();
  }

  // failed is the retries of op that just failed.
  failed(op) {
    return op === OP_WRITE ? this.retries : 0;
  }

  // choose is the op kind of open-loop operation seq.
  choose(seq) {
    return gen.writeOp(this.seed, seq, this.w.ratio) ? OP_WRITE : OP_READ;
  }
}

// errorKind names a failed operation's error kind; fatal ones end the run.
function errorKind(err) {
  return err instanceof Missing ? 'missing' : db.classify(err);
}

// begin starts the measured part at t, once for the run.
function begin(T, t) {
  const { ctl, times } = T.v;
  if (Atomics.compareExchange(ctl, S.PHASE, 0, 1) === 0) {
    times[S.START] = t;
    times[S.CPU0] = cpu(); // process_cpu: from the end of the warm-up
    const d = T.plan.w.duration;
    times[S.DEADLINE] = d > 0 && !(T.plan.w.rate > 0) ? t + d : 0;
    Atomics.store(ctl, S.PHASE, 2);
  }
  while (Atomics.load(ctl, S.PHASE) !== 2) {
    // another thread is between its two stores
  }
}

// closedLoop is closed-loop worker T.index running op kind role until the
// window closes, the count is reached or the run stops (loadgen's work);
// role -1 asks ex to choose each operation (seq = T.index × 2^40, +1, …,
// the warm-up's included).
function closedLoop(T, ex, role) {
  const { ctl, times } = T.v;
  const w = T.plan.w;
  const rec = T.rec;
  const doneAt = S.doneAt(T.index);
  let measuring = Atomics.load(ctl, S.PHASE) === 2;
  let deadline = measuring ? times[S.DEADLINE] : 0;
  const warmEnd = times[S.T0] + w.warmup;
  let own = 0;
  let took = 0;
  let issued = 0;
  let interrupted = 0;
  let done = 0;
  let seq = T.index * 2 ** 40;
  let t = now();
  let flushed = t;
  // The stop is looked at before the first operation and after each one
  // (below), which is also before the next.
  const go = Atomics.load(ctl, S.STOP) === 0;
  while (go) {
    if (!measuring) {
      if (Atomics.load(ctl, S.PHASE) !== 2 && t >= warmEnd) {
        begin(T, t);
      }
      if (Atomics.load(ctl, S.PHASE) === 2) {
        measuring = true;
        deadline = times[S.DEADLINE];
      }
    }
    if (measuring) {
      if (deadline > 0 && t >= deadline) {
        break;
      }
      if (w.count > 0) {
        if (own === 0) {
          own = T.quota.claim(took);
          if (own === 0) {
            break;
          }
        }
        own--;
      }
      issued++;
    }
    // The operation's time runs from the end of the one before, as the Go
    // worker's runs from the top of its loop: the checks above and the
    // key or row values are in it (one clock read per operation).
    const s = t;
    const op = role >= 0 ? role : ex.choose(seq++);
    let retries = 0;
    let err = null;
    ex.recording = measuring;
    try {
      ex.prep(op);
      retries = ex.run(op);
    } catch (e) {
      err = e;
      retries = ex.failed(op);
    }
    const e = now();
    ex.endWrite();
    took = e - s;
    t = e;
    // A plain read: Atomics.load is a call into the runtime in V8 (about
    // 15 ns, which a point read feels), while an aligned 32-bit read never
    // tears and sees the stop's Atomics.store an operation later at worst.
    if (ctl[S.STOP] !== 0) {
      if (measuring) {
        interrupted++; // ended after the stop: not counted
      }
      break;
    }
    if (err !== null) {
      const kind = errorKind(err);
      if (db.fatal(kind)) {
        T.fatal(err);
        break;
      }
      if (measuring) {
        rec.retry(op, retries);
        rec.error(op, kind);
      }
      continue;
    }
    if (!measuring) {
      continue;
    }
    if (retries !== 0) {
      rec.retry(op, retries);
    }
    if (deadline > 0 && e > deadline) {
      rec.observeOverrun(op, took); // in the latency, not the count
      continue;
    }
    rec.observe(op, 1, took);
    // Progress in batches, every 64 operations or 10 ms (loadgen's tally);
    // the count is exact once the loop ends.
    if ((++done & 63) === 0 || e - flushed >= TALLY_EVERY) {
      times[doneAt] = done;
      flushed = e;
    }
  }
  times[doneAt] = done;
  return { issued, interrupted };
}

// takeTicket claims the next open-loop ticket; null once the queue is
// closed and empty.
function takeTicket(ctl) {
  for (;;) {
    const c = Atomics.load(ctl, S.CLAIMED);
    const p = Atomics.load(ctl, S.PUB);
    if (c !== p) {
      if (Atomics.compareExchange(ctl, S.CLAIMED, c, (c + 1) | 0) === c) {
        return c;
      }
      continue;
    }
    if (Atomics.load(ctl, S.QCLOSED) === 1) {
      if (Atomics.load(ctl, S.PUB) === Atomics.load(ctl, S.CLAIMED)) {
        return null;
      }
      continue;
    }
    Atomics.wait(ctl, S.PUB, p, 50);
  }
}

// openExecutor runs tickets until the queue is closed and drained
// (loadgen's runOpen executors): response time from the scheduled start,
// service time from the actual start, late starts and scheduling lag.
function openExecutor(T, ex) {
  const { ctl, times, ring, ringState } = T.v;
  const w = T.plan.w;
  const rec = T.rec;
  const t0 = times[S.T0];
  const warm = w.warmup;
  const lag = new Hist(2);
  const doneAt = S.doneAt(T.index);
  let dropped = 0;
  let interrupted = 0;
  let done = 0;
  let flushed = 0;
  for (;;) {
    const k = takeTicket(ctl);
    if (k === null) {
      break;
    }
    const slot = k & (S.RING - 1);
    const seq = ring[2 * slot];
    const due = ring[2 * slot + 1];
    Atomics.store(ringState, slot, 0);
    const measured = due >= warm;
    if (Atomics.load(ctl, S.STOP) !== 0) {
      if (measured) {
        dropped++; // stopped: what is still queued is not started
      }
      continue;
    }
    Atomics.sub(ctl, S.IDLE, 1);
    const s = now();
    const late = s - t0 - due;
    const op = ex.choose(seq);
    ex.recording = measured;
    ex.prep(op);
    let retries = 0;
    let err = null;
    if (measured) {
      lag.record(Math.max(late, 1));
    }
    try {
      retries = ex.run(op);
    } catch (e) {
      err = e;
      retries = ex.failed(op);
    }
    const e = now();
    ex.endWrite();
    if (Atomics.load(ctl, S.STOP) !== 0) {
      if (measured) {
        interrupted++;
      }
    } else if (err !== null) {
      const kind = errorKind(err);
      if (db.fatal(kind)) {
        T.fatal(err);
      } else if (measured) {
        rec.retry(op, retries);
        rec.error(op, kind);
      }
    } else if (measured) {
      if (retries !== 0) {
        rec.retry(op, retries);
      }
      rec.observeScheduled(op, e - s, e - t0 - due, late > LATE_AFTER);
      if ((++done & 63) === 0 || e - flushed >= TALLY_EVERY) {
        times[doneAt] = done;
        flushed = e;
      }
    }
    Atomics.add(ctl, S.IDLE, 1);
  }
  times[doneAt] = done;
  return { dropped, interrupted, lag: lag.counts };
}

// Thresholds of the dispatcher's wait (loadgen.Wait).
const TIMER_GUARD = 2e6;
const SPIN_WINDOW = 150e3;

// dispatch schedules the open loop's operations and hands them to the
// executors, asking the main thread for another executor when none is
// idle (loadgen's runOpen dispatcher).
function dispatch(T) {
  const { ctl, times, ring, ringState } = T.v;
  const w = T.plan.w;
  const seed = gen.seedOf(w.seed);
  const t0 = times[S.T0];
  const warm = w.warmup;
  const end = warm + w.duration;
  let issued = 0;
  let spawned = 1; // executor 0 runs from the start
  let prev = 0;
  dispatching: for (let seq = 0; ; seq++) {
    const due = gen.schedule(w.poisson, w.rate, seq, prev, seed);
    prev = due;
    if (w.duration > 0 && due >= end) {
      break;
    }
    if (w.count > 0 && due >= warm && issued >= w.count) {
      break;
    }
    for (;;) {
      const rem = due - (now() - t0);
      if (rem <= 0) {
        break;
      }
      if (rem > TIMER_GUARD + SPIN_WINDOW + 1e6) {
        Atomics.wait(ctl, S.STOP, 0, (rem - TIMER_GUARD) / 1e6);
      } else if (rem > SPIN_WINDOW) {
        Atomics.wait(ctl, S.STOP, 0, (rem - SPIN_WINDOW) / 1e6);
      }
      if (Atomics.load(ctl, S.STOP) !== 0) {
        break dispatching;
      }
    }
    if (due >= warm) {
      if (Atomics.load(ctl, S.PHASE) !== 2) {
        begin(T, t0 + warm);
      }
      issued++;
    }
    if (Atomics.load(ctl, S.IDLE) <= 0 && spawned < w.maxInflight) {
      Atomics.add(ctl, S.IDLE, 1);
      Atomics.add(ctl, S.RUNNING, 1);
      T.post({ t: 'spawn', index: spawned });
      spawned++;
    }
    const slot = seq & (S.RING - 1);
    while (
      ((Atomics.load(ctl, S.PUB) - Atomics.load(ctl, S.CLAIMED)) | 0) >= S.QUEUE ||
      Atomics.load(ringState, slot) !== 0
    ) {
      if (Atomics.load(ctl, S.STOP) !== 0) {
        break dispatching;
      }
      Atomics.wait(ctl, S.STOP, 0, 0.05);
    }
    ring[2 * slot] = seq;
    ring[2 * slot + 1] = due;
    Atomics.store(ringState, slot, 1);
    Atomics.add(ctl, S.PUB, 1);
    Atomics.notify(ctl, S.PUB, 1);
  }
  Atomics.store(ctl, S.QCLOSED, 1);
  Atomics.notify(ctl, S.PUB);
  return { issued, spawned };
}

module.exports = {
  Executor,
  Missing,
  errorKind,
  closedLoop,
  openExecutor,
  dispatch,
  begin,
  RW_OPS,
  OP_READ,
  OP_WRITE,
};
