'use strict';
// Loading rows (internal/workload's Load and inserter): rows [from, to) of
// a schema, --batch rows per transaction (one autocommit statement when the
// batch is one statement), --rows-per-stmt rows per INSERT, busy batches
// retried per --busy-retry, other errors counted per batch. The rows are
// generated a chunk at a time before the clock of the statements that
// insert them starts; that time is left out of the measure.

const { now } = require('./clock');
const db = require('./db');
const { Writer } = require('./session');

// CHUNK_ROWS is small so that a chunk's values are still in the CPU's
// caches when their statements bind them: with 1,024-row chunks, reading
// each value's string as better-sqlite3 binds it missed the caches (about
// 170 ns a row more than with 64-row chunks in a perf profile of a 1M-row
// insert). A chunk's two clock readings are a few nanoseconds a row.
const CHUNK_ROWS = 64;

// Op kinds of insert.
const OP_INSERT = 0;
const OP_BEGIN = 1;
const OP_COMMIT = 2;
const INSERT_OPS = ['insert', 'begin', 'commit'];

// Source holds a chunk of generated rows: the values of rows [start,
// start+n), flat, column after column.
class Source {
  constructor(schema, seed, end) {
    this.schema = schema;
    this.seed = seed;
    this.end = end;
    this.ncols = schema.columns.length;
    this.start = 0;
    this.n = 0;
    this.vals = [];
    this.row = new Array(this.ncols);
    this.generated = 0; // nanoseconds spent generating
  }

  has(i, k) {
    return i >= this.start && i + k <= this.start + this.n;
  }

  // fill generates the chunk holding rows [i, i+k): at least k rows, a
  // chunk's worth when the range allows.
  fill(i, k) {
    const t = now();
    const rows = Math.max(k, Math.min(CHUNK_ROWS, this.end - i));
    const w = this.ncols;
    const vals = this.vals;
    if (vals.length < rows * w) {
      vals.length = rows * w;
    }
    const row = this.row;
    const table = this.schema.table;
    for (let r = 0; r < rows; r++) {
      table.row(this.seed, i + r, row);
      for (let c = 0; c < w; c++) {
        vals[r * w + c] = row[c];
      }
    }
    this.start = i;
    this.n = rows;
    this.generated += now() - t;
  }

  // offset is where row i's values start in vals.
  offset(i) {
    return (i - this.start) * this.ncols;
  }
}

// runner returns a function that runs statement st with the values of k
// rows at vals[o…]: positional arguments for one row (no array per call),
// an array for several.
function runner(ncols) {
  switch (ncols) {
    case 2:
      return (st, v, o, k) => (k === 1 ? st.run(v[o], v[o + 1]) : st.run(v.slice(o, o + 2 * k)));
    case 3:
      return (st, v, o, k) => (k === 1 ? st.run(v[o], v[o + 1], v[o + 2]) : st.run(v.slice(o, o + 3 * k)));
    case 6:
      return (st, v, o, k) =>
        k === 1 ? st.run(v[o], v[o + 1], v[o + 2], v[o + 3], v[o + 4], v[o + 5]) : st.run(v.slice(o, o + 6 * k));
  }
  return (st, v, o, k) => st.run(v.slice(o, o + ncols * k));
}

// Inserter loads one range on one thread. opts: schema, seed, batch, rps,
// prepared, rec (a Recorder, or null when not measured), sess (the Session,
// or its set-up view), write (acquire the writer's connection: the run's
// inserts) or not (set-up's), stopped() (cancellation, checked between
// transactions), done(n) after each committed transaction, ack(first, n)
// or null.
class Inserter {
  constructor(opts) {
    Object.assign(this, opts);
    this.rps = Math.max(1, this.rps);
    this.batch = Math.max(this.batch, this.rps);
    this.run1 = runner(this.schema.columns.length);
    this.writer = new Writer(this.sess);
    this.conn = null;
    this.stmts = new Map();
  }

  // stmt returns the statement inserting k rows on the current
  // connection: prepared once, or anew each time (ad hoc).
  stmt(k) {
    if (!this.prepared) {
      return this.conn.db.prepare(this.schema.insertSQL(k));
    }
    let st = this.stmts.get(k);
    if (st === undefined) {
      st = this.conn.db.prepare(this.schema.insertSQL(k));
      this.stmts.set(k, st);
    }
    return st;
  }

  // load inserts rows [from, to); it returns an error that ends the run (a
  // fatal one), or null. Busy, locked and constraint errors are counted.
  load(from, to) {
    const src = (this.src = new Source(this.schema, this.seed, to));
    const batch = this.batch;
    const persistent = this.sess.persistent(this.write);
    if (persistent) {
      this.conn = this.sess.acquire(this.write);
    }
    try {
      for (let start = from; start < to; start += batch) {
        if (this.stopped()) {
          return null;
        }
        const n = Math.min(batch, to - start);
        for (let attempt = 0; ; attempt++) {
          let err = null;
          if (!persistent) {
            this.conn = this.sess.acquire(this.write);
            this.stmts.clear();
          }
          try {
            this.tx(src, start, n);
          } catch (e) {
            err = e;
          } finally {
            if (!persistent) {
              this.sess.release(this.conn);
            }
          }
          if (err === null) {
            this.done(n);
            if (this.ack) {
              this.ack(start, n);
            }
            break;
          }
          if (this.stopped()) {
            return null;
          }
          if (this.sess.again(err, attempt)) {
            if (this.rec) {
              this.rec.retry(OP_INSERT);
            }
            continue;
          }
          const cls = db.classify(err);
          if (this.rec) {
            this.rec.error(OP_INSERT, cls);
          }
          if (db.fatal(cls)) {
            return new Error(`insert rows ${start}-${start + n - 1}: ${err.message}`);
          }
          break; // the batch is lost and counted; the run goes on
        }
      }
      return null;
    } finally {
      this.conn = null;
    }
  }

  // tx inserts rows [start, start+n) in one transaction, or in one
  // autocommit statement when they fit one.
  tx(src, start, n) {
    const rps = this.rps;
    const rec = this.rec;
    const w = this.writer;
    if (n <= rps) {
      if (!src.has(start, n)) {
        src.fill(start, n);
      }
      const st = this.stmt(n);
      w.lock();
      const prev = now();
      try {
        this.run1(st, src.vals, src.offset(start), n);
      } finally {
        w.unlock();
      }
      if (rec) {
        rec.observe(OP_INSERT, n, now() - prev);
      }
      return;
    }
    // Prepare before BEGIN, as the Go worker does.
    const tail = n % rps;
    const full = this.prepared ? this.stmt(rps) : null;
    const last = tail > 0 && this.prepared ? this.stmt(tail) : full;
    let prev = now();
    w.begin(this.conn);
    let t = now();
    if (rec) {
      rec.observe(OP_BEGIN, 1, t - prev);
    }
    prev = t;
    try {
      for (let off = 0; off < n; off += rps) {
        const k = Math.min(rps, n - off);
        const i = start + off;
        if (!src.has(i, k)) {
          src.fill(i, k);
          prev = now();
        }
        // Ad hoc (--prepared false): each statement prepared as it runs.
        const st = this.prepared ? (k === rps ? full : last) : this.stmt(k);
        this.run1(st, src.vals, src.offset(i), k);
        t = now();
        if (rec) {
          rec.observe(OP_INSERT, k, t - prev);
        }
        prev = t;
      }
    } catch (e) {
      w.rollback();
      throw e;
    }
    w.commit();
    if (rec) {
      rec.observe(OP_COMMIT, 1, now() - prev);
    }
  }
}

module.exports = { Inserter, Source, INSERT_OPS, CHUNK_ROWS };
