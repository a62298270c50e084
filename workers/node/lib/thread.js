'use strict';
// A worker thread of a run. better-sqlite3 is synchronous and its
// connections belong to the thread that opened them, so every thread that
// runs statements has its own. Thread 0 sets the job up (its connection is
// the set-up connection), then runs as the run's first worker and, once
// every other thread has finished, does what follows the measured part
// (VACUUM, counts, the digest). Other threads run one closed-loop or insert
// worker each, an open-loop executor, or the open loop's dispatcher.

const { parentPort, workerData } = require('worker_threads');
const clock = require('./clock');
const { now, cpu } = clock;
const db = require('./db');
const gen = require('./gen');
const S = require('./shared');
const { resolve } = require('./settings');
const { SCHEMAS } = require('./schemas');
const { Session } = require('./session');
const { Recorder, transferables } = require('./recorder');
const { Inserter, INSERT_OPS } = require('./insert');
const ops = require('./ops');
const { Program, Runner } = require('./program');

const { job, index, role } = workerData;
clock.calibrate(workerData.base);
const plan = resolve(job);
const w = plan.w;
const v = S.view(workerData.sab);
// A workload program's tables and transactions; its set-up's results
// (:scale, the unchanged checks' values) come from thread 0.
const prog = plan.program ? new Program(plan.program) : null;
if (prog && prog.insert) {
  w.schema = prog.tables[w.table];
}
let progSetup = { scale: workerData.scale || 1, before: {} };

const T = {
  plan,
  job,
  index,
  v,
  sess: null,
  rec: null,
  claims: new S.Claims(v.big),
  quota: null,
  zipf: null,
  ack: null,
  post: (m, transfer) => parentPort.postMessage(m, transfer),
  stopped: () => Atomics.load(v.ctl, S.STOP) !== 0,
  fatal: (err) => {
    Atomics.compareExchange(v.ctl, S.STOP, 0, 2);
    Atomics.notify(v.ctl, S.STOP);
    Atomics.notify(v.ctl, S.PUB);
    parentPort.postMessage({ t: 'fatal', error: oneLine(err) });
  },
};

function oneLine(err) {
  return String((err && err.message) || err)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

const figures = [];
const notes = [];
function figure(name, unit, better, value) {
  const f = { name, unit, value };
  if (better) {
    f.better = better;
  }
  figures.push(f);
}

function openSession() {
  T.sess = new Session(plan, job.path, new S.Mutex(v.ctl));
  if (job.acks) {
    T.ack = (first, n) => parentPort.postMessage({ t: 'ack', seqs: [first], rows: [n] });
  }
  if (w.keys && w.keys !== 'uniform') {
    T.zipf = new gen.Zipf(Math.max(w.rows, 1), w.theta, workerData.zetan);
  }
}

// preload inserts rows [0, rows) of sc as set-up: prepared, busy writes
// retried until done, nothing recorded.
function preload(sc, rows) {
  if (rows === 0) {
    return;
  }
  const ins = new Inserter({
    schema: sc,
    seed: gen.seedOf(w.seed),
    batch: 10000,
    rps: Math.min(100, Math.floor(32766 / sc.columns.length)),
    prepared: true,
    rec: null,
    sess: T.sess.setupView(),
    write: false,
    stopped: T.stopped,
    done: () => {},
    ack: null,
  });
  const err = ins.load(0, rows);
  if (err) {
    throw err;
  }
  if (T.stopped()) {
    throw new Error('interrupted');
  }
}

function createSchema(c, sc) {
  for (const q of sc.create) {
    try {
      c.db.prepare(q).run();
    } catch (e) {
      throw new Error(`create ${sc.name}: ${e.message}`);
    }
  }
}

// ensureBench makes the bench table hold exactly rows [0, rows).
function ensureBench(c, rows) {
  const sc = SCHEMAS.bench;
  const exists = c.db.prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='bench'").pluck().get();
  if (exists === 1) {
    const n = c.db.prepare('SELECT count(*) FROM bench').pluck().get();
    if (n === rows) {
      notes.push(`reused the ${n} bench rows already in the database`);
      return;
    }
    notes.push(`the bench table held ${n} rows, not ${rows}: it was dropped and loaded again`);
    c.db.prepare('DROP TABLE bench').run();
  }
  createSchema(c, sc);
  preload(sc, rows);
}

// setup is thread 0's set-up of the job: open, stamp, read back what SQLite
// runs, create and load, digest.
function setup() {
  const t0 = now();
  const memory = plan.settings['in-memory'] === 'true';
  if (!memory) {
    db.checkPath(job.path);
  }
  openSession();
  const c = T.sess.pool();
  if (!job.attach && !memory) {
    c.db.prepare(`PRAGMA application_id = ${db.APP_ID | 0}`).run();
  }
  const fp = db.fingerprint(c.db, plan);
  if (!job.attach && prog) {
    progSetup = prog.setup(c, preload, figure);
  } else if (!job.attach) {
    switch (job.workload) {
      case 'insert':
        createSchema(c, w.schema);
        break;
      case 'scan':
        ensureBench(c, w.rows);
        break;
      default:
        createSchema(c, w.schema);
        try {
          preload(w.schema, w.rows);
        } catch (e) {
          throw new Error(`loading ${w.rows} rows: ${e.message}`);
        }
        figure('table_rows_before', 'rows', '', w.rows);
    }
  }
  const ev = {
    t: 'setup_done',
    engine_version: fp.version,
    compile_options: fp.compileOptions,
    journal_mode: fp.journalMode,
    notes: fp.notes,
  };
  if (job.digest) {
    ev.digest = db.digest(c.db);
  }
  ev.setup_ms = Math.trunc((now() - t0) / 1000) / 1000;
  ev.scale = progSetup.scale;
  ev.figures = figures.splice(0);
  ev.setup_notes = notes.splice(0);
  parentPort.postMessage(ev);
}

// waitGo blocks until the main thread starts the measured part.
function waitGo() {
  parentPort.postMessage({ t: 'ready', index });
  while (Atomics.load(v.ctl, S.GO) === 0) {
    Atomics.wait(v.ctl, S.GO, 0, 1000);
  }
}

// insertRange is worker index's share of the rows.
function insertRange() {
  const from = Math.floor((w.rows * index) / w.workers);
  const to = Math.floor((w.rows * (index + 1)) / w.workers);
  return [from, to];
}

function runInsert() {
  T.rec = new Recorder(INSERT_OPS);
  const doneAt = S.doneAt(index);
  let done = 0;
  const ins = new Inserter({
    schema: w.schema,
    seed: gen.seedOf(w.seed),
    batch: Number(plan.settings.batch),
    rps: Number(plan.settings['rows-per-stmt']),
    prepared: plan.settings.prepared === 'true',
    rec: T.rec,
    sess: T.sess,
    write: true,
    stopped: T.stopped,
    done: (n) => {
      done += n;
      v.times[doneAt] = done;
    },
    ack: T.ack,
  });
  const [from, to] = insertRange();
  // Statements are prepared before the start, as the Go worker's are
  // before its first transaction.
  if (T.sess.persistent(true) && ins.prepared) {
    ins.conn = T.sess.acquire(true);
    ins.stmt(ins.rps);
    ins.conn = null;
  }
  waitGo();
  const err = ins.load(from, to);
  if (err) {
    T.fatal(err);
  }
  return { generated: ins.src ? ins.src.generated : 0 };
}

function runScan() {
  T.rec = new Recorder(['scan']);
  const c = T.sess.pool();
  const st = c.db.prepare('SELECT ID, rand, hash FROM bench');
  waitGo();
  const start = now();
  const it = st.iterate();
  const returned = now();
  let first = 0;
  let n = 0;
  let bad = null;
  for (const row of it) {
    if (n === 0) {
      first = now();
    }
    if (!gen.checkBench(row.rand, row.hash)) {
      bad = row;
      break;
    }
    n++;
    if ((n & 0xffff) === 0) {
      v.times[S.doneAt(0)] = n;
      if (T.stopped()) {
        break;
      }
    }
  }
  const end = now();
  v.times[S.doneAt(0)] = n;
  if (bad) {
    T.fatal(`row ID ${bad.ID}: hash mismatch: stored hash ${bad.hash} is not the SHA-256 of rand ${bad.rand}`);
    return { start, end };
  }
  if (T.stopped()) {
    return { start, end };
  }
  T.rec.observe(0, n, end - start);
  figure('query_returned', 'µs', 'lower', (returned - start) / 1e3);
  if (n > 0) {
    figure('first_row', 'µs', 'lower', (first - start) / 1e3);
    figure('per_row', 'µs', 'lower', (end - start) / 1e3 / n);
  }
  if (n !== w.rows && !job.attach) {
    T.fatal(`scan read ${n} rows, want ${w.rows}`);
  }
  return { start, end };
}

// executors is how many executors the run's claims are planned for.
function executors() {
  return w.rate > 0 ? w.maxInflight : w.readers + w.writers;
}

// recorder is this thread's recorder of the operation workloads: the
// built-ins' read and write, or a program's transactions and the
// statements with results of their own (only the transactions live).
function recorder(open) {
  const live = workerData.live ? new S.Live(workerData.live, prog ? prog.txns.length : 2) : null;
  return new Recorder(prog ? prog.ops : ops.RW_OPS, live, open);
}

function runClosed() {
  T.rec = recorder(false);
  T.quota = new S.Quota(v.big, w.readers + w.writers);
  if (prog) {
    const ex = new Runner(T, prog, index, executors(), progSetup.scale);
    waitGo();
    return ops.closedLoop(T, ex, w.roles[index]);
  }
  const role = index < w.readers ? ops.OP_READ : ops.OP_WRITE;
  const ex = new ops.Executor(T, index, executors(), role === ops.OP_READ, role === ops.OP_WRITE);
  waitGo();
  return ops.closedLoop(T, ex, role);
}

function runExecutor(started) {
  T.rec = recorder(true);
  const ex = prog
    ? new Runner(T, prog, index, executors(), progSetup.scale)
    : new ops.Executor(T, index, executors(), w.ratio < 100, w.ratio > 0);
  if (!started) {
    waitGo();
  }
  return ops.openExecutor(T, ex);
}

// finish posts what this thread measured and leaves the run.
function finish(stats, extra = {}) {
  const recs = T.rec ? [T.rec.export()] : [];
  const msg = {
    t: 'result',
    index,
    recs,
    opened: T.sess ? T.sess.stats.opened : 0,
    stats,
    ...extra,
  };
  parentPort.postMessage(msg, transferables(recs));
}

function leave() {
  Atomics.sub(v.ctl, S.RUNNING, 1);
  Atomics.notify(v.ctl, S.RUNNING);
}

// waitOthers blocks thread 0 until every other thread has finished.
function waitOthers() {
  for (let r = Atomics.load(v.ctl, S.RUNNING); r > 1; r = Atomics.load(v.ctl, S.RUNNING)) {
    Atomics.wait(v.ctl, S.RUNNING, r, 100);
  }
}

// post is thread 0's work after the measured part: the measured interval's
// bounds, what follows it (VACUUM, the row count) and the digest.
function post(stats) {
  const out = {};
  const c = T.sess.pool();
  const ctl = v.ctl;
  const stop = Atomics.load(ctl, S.STOP);
  let start;
  let end = now();
  const cpu1 = cpu();
  if (Atomics.load(ctl, S.PHASE) === 2 && end > v.times[S.START]) {
    // The process's CPU over the measured part, every thread's, in cores,
    // as the Go worker reports it: from the measured start (the end of a
    // warm-up, where CPU0 was read) to now, every thread done.
    figure('process_cpu', 'cores', '', (cpu1 - v.times[S.CPU0]) / (end - v.times[S.START]));
  }
  switch (plan.kind) {
    case 'insert':
      start = v.times[S.T0];
      if (w.workers === 1) {
        out.excluded = stats.generated || 0; // rows generated inline
      }
      if (w.vacuum && stop === 0) {
        const t = now();
        try {
          c.db.prepare('VACUUM').run();
          figure('vacuum', 's', 'lower', (now() - t) / 1e9);
        } catch (e) {
          T.fatal(`vacuum: ${e.message}`);
        }
      }
      break;
    case 'scan':
      start = stats.start === undefined ? end : stats.start;
      end = stats.end === undefined ? end : stats.end;
      break;
    default: {
      // Operations that ended after a cancel are not counted: the
      // measured part ends at the cancel.
      if (stop === 1 && v.times[S.CANCEL_AT] > 0 && v.times[S.CANCEL_AT] < end) {
        end = v.times[S.CANCEL_AT];
      }
      // A warm-up that outlasted the run (interrupted) measured nothing.
      start = Atomics.load(ctl, S.PHASE) === 2 ? v.times[S.START] : end;
      const deadline = v.times[S.DEADLINE];
      if (!(w.rate > 0) && deadline > 0 && end > deadline) {
        end = deadline; // the window; later completions are overruns
      }
      if (w.rate > 0) {
        figure('wanted_rate', 'ops/s', '', w.rate);
      }
      if (prog) {
        break;
      }
      const next = T.claims.next();
      if (next > w.rows) {
        out.rowsInserted = next - w.rows;
      }
      try {
        out.rowsAfter = c.db.prepare(`SELECT count(*) FROM ${w.schema.name}`).pluck().get();
      } catch {
        // not counted
      }
    }
  }
  if (prog) {
    prog.attach(v, executors());
    const failed = prog.post(c, figure, notes, progSetup.before, Atomics.load(ctl, S.STOP) !== 0);
    if (failed) {
      T.fatal(failed);
    }
  }
  if (job.digest && Atomics.load(ctl, S.STOP) === 0) {
    try {
      out.digest = db.digest(c.db);
    } catch (e) {
      T.fatal(`digest after run: ${e.message}`);
    }
  }
  out.start = start;
  out.end = end;
  out.figures = figures.splice(0);
  out.notes = notes.splice(0);
  return out;
}

function runPrimary() {
  let stats;
  switch (plan.kind) {
    case 'insert':
      stats = runInsert();
      break;
    case 'scan':
      stats = runScan();
      break;
    default:
      stats = w.rate > 0 ? runExecutor(false) : runClosed();
  }
  waitOthers();
  const p = post(stats);
  finish(stats, { post: p });
  T.sess.close();
  leave();
}

function runOther() {
  openSession();
  let stats;
  try {
    switch (role) {
      case 'insert':
        stats = runInsert();
        break;
      case 'closed':
        stats = runClosed();
        break;
      case 'exec':
        stats = runExecutor(true);
        break;
      case 'dispatch':
        waitGo();
        stats = ops.dispatch(T);
        break;
    }
  } catch (e) {
    T.fatal(e);
    if (role !== 'exec' && Atomics.load(v.ctl, S.GO) === 0) {
      parentPort.postMessage({ t: 'ready', index, failed: true });
    }
  }
  finish(stats || {});
  if (T.sess) {
    T.sess.close();
  }
  leave();
}

if (role === 'primary') {
  parentPort.on('message', (m) => {
    if (m.cmd === 'setup') {
      try {
        setup();
      } catch (e) {
        parentPort.postMessage({ t: 'error', error: oneLine(e) });
      }
    } else if (m.cmd === 'close') {
      parentPort.removeAllListeners('message');
      if (T.sess) {
        T.sess.close();
      }
    } else if (m.cmd === 'run') {
      parentPort.removeAllListeners('message');
      try {
        runPrimary();
      } catch (e) {
        T.fatal(e);
        if (Atomics.load(v.ctl, S.GO) === 0) {
          parentPort.postMessage({ t: 'ready', index, failed: true });
        }
        waitOthers();
        finish({}, { post: { figures: [], notes: [] } });
        leave();
      }
    }
  });
} else {
  runOther();
}
