'use strict';
// Workload programs (docs/workload-program.md): a workload file or pgbench
// scripts compiled by litebench into plain data. This module sets one up
// (tables, rows, init SQL, :scale, the checks' values before), runs its
// transactions (Runner: one worker's variables, sequence and statements,
// the executor the closed and open loops of lib/ops.js drive) and does what
// follows the run (row counts, the checks). The Go reference is
// internal/spec (load.go, exec.go, tableops.go, run.go).

const { now } = require('./clock');
const db = require('./db');
const gen = require('./gen');
const u = require('./u64');
const exprs = require('./exprs');
const S = require('./shared');
const { ProgTable } = require('./ptable');
const { Writer } = require('./session');
const { Missing, errorKind } = require('./ops');

const STREAM_OPS = 0x726174;
const { EvalError, evaluate, KEY_KINDS } = exprs;

// Program is a program read for a job, with its tables.
class Program {
  constructor(p) {
    this.p = p;
    this.name = p.name || '';
    this.seed = gen.seedOf(p.seed);
    this.seed1 = gen.seedPlus(this.seed, 1);
    this.tables = (p.tables || []).map((t) => new ProgTable(t, this.seed));
    this.stmts = p.statements || [];
    this.txns = p.transactions || [];
    this.ops = p.ops || [];
    this.of = this.ops.map((_, k) => (p.of && p.of[k]) || '');
    this.checks = p.checks || [];
    this.load = p.load || null;
    this.insert = p.insert || null;
    for (const t of this.txns) {
      for (const st of t.steps || []) {
        if (st.part === undefined) {
          st.part = -1;
        }
      }
    }
  }

  // figure names a per-table figure: plain for a program of one table.
  figure(name, t) {
    return this.tables.length === 1 ? name : `${name}.${t.name}`;
  }

  // chooser is the mix's choice of operation seq's transaction.
  chooser() {
    const mix = this.load.mix || [];
    let total = 0;
    for (const m of mix) {
      total += m.weight || 0;
    }
    const thr = [];
    let acc = 0;
    for (const m of mix) {
      acc += m.weight || 0;
      thr.push(acc * (10000 / total));
    }
    const txns = mix.map((m) => m.txn || 0);
    const seed = this.seed;
    return (seq) => {
      u.draw(seed.h, seed.l, 0, STREAM_OPS, u.hiOf(seq), u.loOf(seq));
      const x = u.mod(u.R.h, u.R.l, 10000);
      for (let k = 0; k < thr.length; k++) {
        if (x < thr[k]) {
          return txns[k];
        }
      }
      return txns[txns.length - 1];
    };
  }

  // attach gives the tables the run's shared claims.
  attach(v, executors) {
    this.tables.forEach((t, k) => {
      t.claims = S.tableClaims(v, k, executors);
    });
  }

  // initClaims starts the claims of a run: the rows loaded exist.
  initClaims(v, executors) {
    this.tables.forEach((t, k) => {
      const c = S.tableClaims(v, k, executors);
      c.init(this.insert && this.insert.table === k ? 0 : t.rows, executors);
    });
  }

  // setup creates and loads the tables, runs the init SQL, derives :scale
  // and reads the unchanged checks' values, on connection c; preload(t,
  // rows) loads a table, figure(name, unit, better, value) reports.
  setup(c, preload, figure) {
    for (const t of this.tables) {
      for (const q of t.create) {
        try {
          c.db.exec(q);
        } catch (e) {
          throw new Error(`create ${t.name}: ${e.message}`);
        }
      }
    }
    this.tables.forEach((t, k) => {
      if (t.rows > 0 && !(this.insert && this.insert.table === k)) {
        try {
          preload(t, t.rows);
        } catch (e) {
          throw new Error(`loading ${t.rows} rows of ${t.name}: ${e.message}`);
        }
      }
    });
    for (const q of this.p.init || []) {
      try {
        c.db.exec(q);
      } catch (e) {
        throw new Error(`init SQL: ${e.message}: ${firstLine(q)}`);
      }
    }
    if (!this.insert) {
      for (const t of this.tables) {
        figure(this.figure('table_rows_before', t), 'rows', '', t.rows);
      }
    }
    let scale = 1;
    if (this.p.scale >= 0) {
      const exists = c.db
        .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pgbench_branches'")
        .pluck()
        .get();
      if (exists === 1) {
        const n = c.db.prepare('SELECT count(*) FROM pgbench_branches').pluck().get();
        if (n > 0) {
          scale = n;
        }
      }
    }
    const before = {};
    for (const ch of this.checks) {
      if (ch.expect === 'unchanged') {
        try {
          before[ch.name] = readCheck(c, ch).got;
        } catch (e) {
          throw new Error(`check ${JSON.stringify(ch.name)} before the run: ${e.message}`);
        }
      }
    }
    return { scale, before };
  }

  // post reports the tables' rows after the run and runs the checks; it
  // returns the checks' failures joined, or null. before holds the
  // unchanged checks' values.
  post(c, figure, notes, before, stopped) {
    for (const t of this.tables) {
      const n = t.claims.next();
      if (n > t.rows && !this.insert) {
        figure(this.figure('rows_inserted', t), 'rows', '', n - t.rows);
      }
    }
    if (stopped) {
      return null;
    }
    if (!this.insert) {
      for (const t of this.tables) {
        try {
          const n = c.db.prepare(`SELECT count(*) FROM ${t.name}`).pluck().get();
          figure(this.figure('table_rows_after', t), 'rows', '', n);
        } catch {
          // not counted
        }
      }
    }
    const failed = [];
    for (const ch of this.checks) {
      let r;
      try {
        r = readCheck(c, ch);
      } catch (e) {
        return `check ${JSON.stringify(ch.name)}: ${e.message}`;
      }
      let { got } = r;
      let want = ch.want || '';
      let ok = false;
      switch (ch.expect) {
        case 'empty':
          ok = !r.found;
          want = 'no row';
          if (r.found) {
            got = 'a row';
          }
          break;
        case 'unchanged':
          ok = got === before[ch.name];
          want = `${before[ch.name]} (unchanged)`;
          break;
        default: {
          const op = ch.expect === 'eq' ? '=' : ch.cmp || '=';
          if (!r.found) {
            got = 'no row';
          } else {
            ok = compareText(got, op, ch.want || '');
          }
          if (op !== '=') {
            want = `${op} ${ch.want || ''}`;
          }
        }
      }
      const q = JSON.stringify(ch.name);
      if (ok) {
        notes.push(`check ${q} passed: ${got}`);
        continue;
      }
      const msg = `check ${q} failed: got ${got}, want ${want} (${ch.at || ''})`;
      notes.push(msg);
      failed.push(msg);
    }
    return failed.length ? failed.join('; ') : null;
  }
}

function firstLine(q) {
  return q.trim().split('\n')[0];
}

// textOf is a column's value as Go's database/sql renders it as text.
function textOf(v) {
  switch (typeof v) {
    case 'number':
      return exprs.goFloat(v);
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
  }
  if (Buffer.isBuffer(v)) {
    return v.toString('utf8');
  }
  return String(v);
}

// configure sets a statement to read integers as BigInts and rows as
// arrays.
function configure(st) {
  st.safeIntegers(true);
  if (st.reader) {
    st.raw(true);
  }
  return st;
}

// readCheck reads a check's first column of its first row as text (NULL
// as "").
function readCheck(c, ch) {
  const st = configure(c.db.prepare(ch.sql));
  if (!st.reader) {
    st.run();
    return { got: '', found: false };
  }
  const row = st.get();
  if (row === undefined) {
    return { got: '', found: false };
  }
  return { got: row[0] === null ? '' : textOf(row[0]), found: true };
}

// compareText compares a result with a wanted value: as numbers when both
// are, else as text.
function compareText(got, op, want) {
  const g = exprs.parseFloatText(got.trim());
  const x = exprs.parseFloatText(want.trim());
  let c;
  if (g !== null && x !== null) {
    c = g < x ? -1 : g > x ? 1 : 0;
  } else {
    switch (op) {
      case '=':
        return got === want;
      case '!=':
      case '<>':
        return got !== want;
    }
    c = got < want ? -1 : got > want ? 1 : 0;
  }
  return exprs.cmp(op, c);
}

// Transaction states of a Runner.
const NO_TX = 0;
const WRITE_TX = 1;
const READ_TX = 2;

// Runner is one worker of a program: its variables and sequence, its
// connection and statements. It is the executor lib/ops.js's loops drive:
// choose(seq), prep(op), run(op) (retries; throws a failure), retries
// (after a failure), endWrite(), recording (whether parts are recorded).
class Runner {
  constructor(T, prog, slot, executors, scale) {
    this.T = T;
    this.prog = prog;
    this.slot = slot;
    this.executors = executors;
    prog.attach(T.v, executors);
    this.sess = T.sess;
    this.c = T.sess.pool();
    this.writer = new Writer(T.sess);
    this.ctx = exprs.workerCtx(prog.p, prog.seed, prog.tables, slot, scale);
    this.rng = this.ctx.rng;
    this.choose = prog.chooser();
    this.retries = 0;
    this.tableRetries = 0;
    this.recording = false;
    this.rec = null;
    this.cur = NO_TX;
    this.explicit = T.plan.settings.tx === 'immediate';
    this.prepared = T.plan.settings.prepared === 'true';
    this.cache = new Map();
    this.readBegin = this.c.db.prepare('BEGIN');
    this.argBufs = prog.stmts.map((s) => new Array((s.binds || []).length));
    // Every statement prepared before the run starts, as the Go worker
    // prepares them: one that does not prepare fails the run here.
    this.ops = [];
    for (const t of prog.txns) {
      for (const st of t.steps || []) {
        if (st.kind === 'table' || st.kind === 'native') {
          st.op.$k = this.ops.length;
          this.ops.push(this.opState(st.op));
        }
      }
    }
    this.stmts = prog.stmts.map((s) => this.prepare(s.sql, s.at));
  }

  opState(op) {
    const t = this.prog.tables[op.table || 0];
    if (!t) {
      throw new Error(`program: no table ${op.table}`);
    }
    const kind = KEY_KINDS[op.keys || 'uniform'];
    return {
      op,
      t,
      kind,
      zipf: kind === 0 ? null : t.zipf(op.theta || 0),
      st: this.prepare(op.sql, `table ${t.name}`),
      idx: new Array(Math.max(op.batch || 1, 1)).fill(0),
      row: new Array(t.columns.length),
    };
  }

  // prepare returns q prepared (once, or null to prepare it at each run
  // when statements are ad hoc).
  prepare(q, at) {
    let st = this.cache.get(q);
    if (st === undefined) {
      try {
        st = configure(this.c.db.prepare(q));
      } catch (e) {
        throw new Error(`${at}: does not prepare: ${e.message}`);
      }
      this.cache.set(q, st);
    }
    return this.prepared ? st : null;
  }

  stmt(st, q) {
    return st !== null ? st : configure(this.c.db.prepare(q));
  }

  prep() {}

  endWrite() {}

  failed() {
    return this.retries;
  }

  // run runs transaction op once, again after busy as busy-retry allows;
  // it returns the retries.
  run(op) {
    const t = this.prog.txns[op];
    const rng = this.rng;
    this.rec = this.recording ? this.T.rec : null;
    for (let retries = 0; ; retries++) {
      const sh = rng.h;
      const sl = rng.l;
      this.tableRetries = 0;
      let err;
      try {
        this.steps(t.steps || []);
        this.retries = retries + this.tableRetries;
        return this.retries;
      } catch (e) {
        err = e;
      }
      this.retries = retries + this.tableRetries;
      if (err instanceof EvalError || err instanceof Missing) {
        throw err;
      }
      const kind = db.classify(err);
      if (db.fatal(kind)) {
        throw new Error(`${t.name}: ${err && err.message}`);
      }
      if (err.tableOp || !this.sess.again(err, retries) || this.T.stopped()) {
        throw err;
      }
      rng.h = sh;
      rng.l = sl;
    }
  }

  steps(steps) {
    const ctx = this.ctx;
    for (let k = 0; k < steps.length; k++) {
      const st = steps[k];
      try {
        switch (st.kind) {
          case 'set':
            ctx.assign(st.var || 0, evaluate(st.expr, ctx));
            break;
          case 'sleep':
            this.sleep(st);
            break;
          case 'table':
            this.table(this.ops[st.op.$k]);
            break;
          case 'native':
            this.native(this.ops[st.op.$k]);
            break;
          default:
            this.sqlStep(st);
        }
      } catch (e) {
        if (this.cur !== NO_TX) {
          this.abort();
        }
        throw e;
      }
    }
  }

  sleep(st) {
    const n = exprs.toInt(evaluate(st.expr, this.ctx), st);
    if (n > 0n) {
      const ms = (Number(n) * (st.unit_ns || 1)) / 1e6;
      const end = now() + ms * 1e6;
      const ctl = this.T.v.ctl;
      for (let left = ms; left > 0 && !this.T.stopped(); left = (end - now()) / 1e6) {
        Atomics.wait(ctl, S.STOP, 0, left);
      }
    }
  }

  abort() {
    const cur = this.cur;
    this.cur = NO_TX;
    if (cur === WRITE_TX) {
      this.writer.rollback();
    } else if (this.c.db.inTransaction) {
      try {
        this.c.rollbackStmt.run();
      } catch {
        // the step's error is the one reported
      }
    }
  }

  sqlStep(st) {
    const part = st.part;
    const rec = this.rec;
    if (part < 0 || rec === null) {
      this.sqlOnce(st);
      return;
    }
    const t0 = now();
    try {
      this.sqlOnce(st);
    } catch (e) {
      rec.error(part, errorKind(e));
      throw e;
    }
    rec.observe(part, 1, now() - t0);
  }

  sqlOnce(st) {
    switch (st.kind) {
      case 'begin':
        if (st.read) {
          this.readBegin.run();
          this.cur = READ_TX;
        } else {
          this.writer.begin(this.c);
          this.cur = WRITE_TX;
        }
        return;
      case 'commit':
      case 'rollback': {
        const cur = this.cur;
        this.cur = NO_TX;
        if (cur === WRITE_TX) {
          if (st.kind === 'commit') {
            this.writer.commit();
          } else {
            this.writer.rollback();
          }
        } else if (st.kind === 'commit') {
          try {
            this.c.commitStmt.run();
          } catch (e) {
            if (this.c.db.inTransaction) {
              this.c.rollbackStmt.run();
            }
            throw e;
          }
        } else {
          this.c.rollbackStmt.run();
        }
        return;
      }
      case 'sql':
        return this.sql(st.stmt || 0);
    }
    throw new Error(`${st.at}: unknown step ${JSON.stringify(st.kind)}`);
  }

  // sql runs statement k: binds its variables, steps every row and sets
  // into's variables from the first.
  sql(k) {
    const s = this.prog.stmts[k];
    const ctx = this.ctx;
    const binds = s.binds || [];
    const args = this.argBufs[k];
    for (let i = 0; i < binds.length; i++) {
      const slot = binds[i];
      if (!ctx.set[slot]) {
        throw new EvalError(`${s.at}: variable :${this.prog.p.vars[slot].name} is not set`);
      }
      const v = ctx.vars[slot];
      args[i] = typeof v === 'boolean' ? (v ? 1n : 0n) : v;
    }
    const st = this.stmt(this.stmts[k], s.sql);
    const lock = this.cur === NO_TX && !s.read;
    if (lock) {
      this.writer.lock();
    }
    let rows = null;
    try {
      if (st.reader) {
        rows = st.all(args);
      } else {
        st.run(args);
      }
    } finally {
      if (lock) {
        this.writer.unlock();
      }
    }
    const into = s.into;
    if (into && into.length > 0) {
      if (rows === null || rows.length === 0) {
        throw new Missing(`${s.at}: the query returned no row`);
      }
      const row = rows[0];
      for (let i = 0; i < into.length; i++) {
        const v = row[i];
        ctx.assign(into[i], v === null || v === undefined ? null : exprs.textValue(textOf(v)));
      }
    }
  }

  table(s) {
    if (s.op.op === 'read') {
      const t = s.t;
      const i = this.rng.pick(s.kind, s.zipf, t.visible());
      const key = t.keyValue(i);
      if (this.stmt(s.st, s.op.sql).get(key) === undefined) {
        throw new Missing(`row not found: ${t.name} ${t.keyCol} = ${key}`);
      }
      return;
    }
    const idx = s.idx;
    const t = s.t;
    if (s.op.op === 'insert') {
      const first = t.claims.claim(this.slot, idx.length);
      try {
        for (let k = 0; k < idx.length; k++) {
          idx[k] = first + k;
        }
        this.write(s);
      } finally {
        t.claims.release(this.slot, this.executors);
      }
      return;
    }
    let span = t.visible();
    if (s.op.op === 'upsert') {
      span += Math.floor(span / 10); // some upserts insert
    }
    for (let k = 0; k < idx.length; k++) {
      idx[k] = this.rng.pick(s.kind, s.zipf, span);
    }
    this.write(s);
  }

  // write writes the rows of s.idx, retried per busy-retry (the same
  // rows); a failure is the table operation's, not re-run with the
  // transaction.
  write(s) {
    for (let retries = 0; ; retries++) {
      try {
        this.writeOnce(s);
      } catch (e) {
        if (!this.sess.again(e, retries) || this.T.stopped()) {
          this.tableRetries += retries;
          e.tableOp = true;
          throw e;
        }
        continue;
      }
      this.tableRetries += retries;
      if (this.T.ack !== null) {
        this.T.ack(s.idx[0], s.idx.length);
      }
      return;
    }
  }

  writeOnce(s) {
    const idx = s.idx;
    const st = this.stmt(s.st, s.op.sql);
    if (this.cur !== NO_TX) {
      for (let k = 0; k < idx.length; k++) {
        this.execWrite(s, st, idx[k]);
      }
      return;
    }
    const w = this.writer;
    if (idx.length === 1 && !this.explicit) {
      w.lock();
      try {
        this.execWrite(s, st, idx[0]);
      } finally {
        w.unlock();
      }
      return;
    }
    w.begin(this.c);
    try {
      for (let k = 0; k < idx.length; k++) {
        this.execWrite(s, st, idx[k]);
      }
    } catch (e) {
      w.rollback();
      throw e;
    }
    w.commit();
  }

  // execWrite writes row i: its values (for an update, those of row i
  // under seed + 1, keyed by row i's key).
  execWrite(s, st, i) {
    const op = s.op;
    const t = s.t;
    const prog = this.prog;
    const update = op.op === 'update';
    const row = t.row(update ? prog.seed1 : prog.seed, i, s.row);
    let args;
    if (op.bind) {
      args = op.bind.map((k) => (k < 0 ? t.keyValue(i) : row[k]));
    } else if (update) {
      args = t.update.map((k) => row[k]);
      args.push(t.keyValue(i));
    } else {
      args = row;
    }
    st.run(args);
  }

  native(s) {
    const op = s.op;
    const t = s.t;
    const st = this.stmt(s.st, op.sql);
    if (op.op === 'scan_verify') {
      let n = 0;
      for (const r of st.iterate()) {
        if (!gen.checkBench(r[1], r[2])) {
          throw new Error(
            `${t.name} ${t.keyCol} ${r[0]}: hash mismatch: stored hash ${r[2]} is not the SHA-256 of rand ${r[1]}`,
          );
        }
        n++;
      }
      if (n < t.visible()) {
        throw new Error(`scan_verify read ${n} rows of ${t.name}, want at least ${t.visible()}`);
      }
      return;
    }
    const depth = Number(op.depth || 0);
    const page = Number(op.page || 0);
    const rows =
      op.op === 'paginate_offset' ? st.all(BigInt(page), BigInt(depth)) : st.all(t.keyValue(depth - 1), BigInt(page));
    const first = rows.length > 0 ? rows[0][0] : -1n;
    const want = t.keyValue(depth);
    if (first !== want || rows.length !== page) {
      throw new Error(
        `${op.op}: the page starts at ${t.keyCol} ${first} with ${rows.length} rows, want ${want} with ${page}`,
      );
    }
  }
}

module.exports = { Program, Runner, textOf, compareText };
