'use strict';
// The worker protocol (docs/worker-protocol.md) on standard input and
// output. The main thread speaks the protocol, reads cancel at any time,
// samples the threads' live counters every interval and assembles the
// final event; the statements run on worker threads (lib/thread.js), one
// better-sqlite3 connection each, so that nothing here waits for SQLite.

const path = require('path');
const readline = require('readline');
const { Worker } = require('worker_threads');
const clock = require('./clock');
const S = require('./shared');
const { resolve, JobError, TARGET } = require('./settings');
const { merge } = require('./recorder');
const { Hist } = require('./hist');
const { Zipf } = require('./gen');
const { INSERT_OPS } = require('./insert');
const { RW_OPS } = require('./ops');
const { Program } = require('./program');

const PROTOCOL = 1;
const CAPS = ['closed_loop', 'open_loop', 'intervals', 'acks', 'digest', 'in_memory', 'program'];
const THREAD = path.join(__dirname, 'thread.js');

const pkg = require('../package.json');
const driverVersion = require('better-sqlite3/package.json').version;

function version() {
  return `${pkg.version} (better-sqlite3 ${driverVersion})`;
}

function oneLine(err) {
  return String((err && err.message) || err)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

// BIG_INT finds, outside strings, integers too long to be sure a Number
// holds them.
const BIG_INT = /("(?:[^"\\]|\\.)*")|(?<![\d.eE+-])(-?\d{16,})(?![\d.eE])/g;

// exactInts quotes the integers of a message that a Number cannot hold
// exactly (a program's generator bounds may reach ±2^63), so that they
// reach BigInt as written.
function exactInts(text) {
  if (!/\d{16}/.test(text)) {
    return text;
  }
  return text.replace(BIG_INT, (m, str, num) =>
    str !== undefined || Number.isSafeInteger(Number(num)) ? m : `"${num}"`,
  );
}

class Controller {
  constructor(input, output) {
    this.out = output;
    this.queue = [];
    this.busy = false;
    this.eof = false; // input gone: cancel, answer what is pending, exit
    this.closing = false;
    this.job = null;
    this.plan = null;
    this.run = null; // the run in progress
    this.setupDone = null;
    this.base = process.hrtime.bigint();
    clock.calibrate(this.base);
    this.primary = null;
    this.cancelled = false;
    const rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
    rl.on('line', (line) => this.line(line));
    // The end of the input means cancel and close, once every message
    // before it has been taken up (as the Go worker reads its input).
    rl.on('close', () => {
      this.eof = true;
      if (this.queue.length === 0) {
        this.cancel();
      }
      this.pump();
    });
    // A signal stops what is in progress as a cancel does, and the worker
    // exits once it has answered the pending request.
    for (const sig of ['SIGINT', 'SIGTERM']) {
      process.on(sig, () => {
        this.eof = true;
        this.queue.length = 0;
        this.cancel();
        this.pump();
      });
    }
  }

  send(ev) {
    this.out.write(JSON.stringify(ev) + '\n');
  }

  fail(msg) {
    this.send({ t: 'error', error: oneLine(msg) });
    this.exit(1);
  }

  // broken ends a conversation whose input cannot be read: the error, then
  // what is in progress is cancelled and answered, and the worker exits.
  broken(msg) {
    this.send({ t: 'error', error: oneLine(msg) });
    process.exitCode = 1;
    this.eof = true;
    this.queue.length = 0;
    this.cancel();
    this.pump();
  }

  line(text) {
    if (this.eof || text.trim() === '') {
      return;
    }
    let ev;
    try {
      ev = JSON.parse(exactInts(text));
    } catch (e) {
      return this.broken(`worker protocol: bad message ${JSON.stringify(text.slice(0, 80))}: ${e.message}`);
    }
    if (!ev || typeof ev.t !== 'string' || ev.t === '') {
      return this.broken(`worker protocol: message without "t": ${JSON.stringify(text.slice(0, 80))}`);
    }
    if (ev.t === 'cancel') {
      return this.cancel();
    }
    this.queue.push(ev);
    this.pump();
  }

  async pump() {
    if (this.busy) {
      return;
    }
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.exiting) {
        const ev = this.queue.shift();
        if (this.queue.length === 0 && this.eof) {
          this.cancel();
        }
        await this.handle(ev);
      }
      if (this.eof || this.closing) {
        this.exit(process.exitCode || 0);
      }
    } finally {
      this.busy = false;
    }
  }

  async handle(ev) {
    switch (ev.t) {
      case 'hello':
        if (ev.protocol !== PROTOCOL) {
          return this.fail(`worker protocol ${ev.protocol} asked, this worker speaks ${PROTOCOL}`);
        }
        return this.send({
          t: 'hello',
          protocol: PROTOCOL,
          lang: `node ${process.versions.node}`,
          version: version(),
          caps: CAPS,
          driver: 'better-sqlite3',
          driver_version: driverVersion,
        });
      case 'setup':
        return this.setup(ev.job);
      case 'run':
        return this.runJob();
      case 'close':
        this.closing = true;
        this.queue.length = 0;
        return;
    }
    return this.fail(`unexpected message ${JSON.stringify(ev.t)}`);
  }

  exit(code) {
    if (this.exiting) {
      return;
    }
    this.exiting = true;
    const done = () => process.exit(code);
    if (this.primary && !this.primaryExited) {
      const p = this.primary;
      this.primary = null;
      p.postMessage({ cmd: 'close' });
      const timer = setTimeout(() => p.terminate().then(done, done), 2000);
      p.once('exit', () => {
        clearTimeout(timer);
        done();
      });
      return;
    }
    this.out.write('', done);
  }

  // cancel stops what is in progress as soon as it can; the pending request
  // is still answered.
  cancel() {
    this.cancelled = true;
    if (!this.shared) {
      return;
    }
    const { ctl, times } = this.shared.v;
    if (Atomics.compareExchange(ctl, S.STOP, 0, 1) === 0) {
      times[S.CANCEL_AT] = clock.now();
    }
    for (const i of [S.STOP, S.PUB, S.GO, S.RUNNING]) {
      Atomics.notify(ctl, i);
    }
    if (this.run && this.run.starting) {
      release(this.shared.v);
    }
  }

  async setup(job) {
    if (!job) {
      return this.fail('setup without a job');
    }
    if (this.job) {
      return this.fail('worker: setup twice');
    }
    let plan;
    try {
      plan = resolve(job);
    } catch (e) {
      return this.fail(e instanceof JobError ? e.message : `job: ${oneLine(e)}`);
    }
    this.job = job;
    this.plan = plan;
    const w = plan.w;
    const open = w.rate > 0;
    // Threads that may run: the workers, or the executors and the
    // dispatcher.
    this.maxThreads = open ? w.maxInflight + 1 : Math.max(plan.threads, 1);
    const prog = (this.prog = plan.program ? new Program(plan.program) : null);
    const ops = plan.kind === 'ops';
    this.opsNames = plan.kind === 'insert' ? INSERT_OPS : plan.kind === 'scan' ? ['scan'] : prog ? prog.ops : RW_OPS;
    // Op kinds in the intervals (a program's transactions, not their
    // statements) and each one's transaction in the final event.
    this.liveOps = ops ? (prog ? prog.txns.length : 2) : 0;
    this.opsOf = prog ? prog.of : null;
    this.executors = open ? w.maxInflight : Math.max(plan.threads, 1);
    const sab = S.create(this.maxThreads, this.executors, prog ? prog.tables.length : 0);
    // The zipfian's O(rows) sum, computed once for every thread.
    this.zetan = w.keys && w.keys !== 'uniform' ? new Zipf(Math.max(w.rows, 1), w.theta).zetan : undefined;
    this.shared = { sab, v: S.view(sab) };
    if (this.cancelled) {
      this.cancel();
    }
    this.lives = [];
    this.primary = this.spawn(0, 'primary');
    this.primary.once('exit', () => {
      this.primaryExited = true;
    });
    this.primary.postMessage({ cmd: 'setup' });
    const ev = await new Promise((res) => {
      this.primary.once('message', res);
      this.primary.once('error', (e) => res({ t: 'error', error: oneLine(e) }));
    });
    if (ev.t === 'error') {
      return this.fail(ev.error);
    }
    this.setupFigures = ev.figures;
    this.scale = ev.scale;
    this.setupNotes = ev.setup_notes;
    const done = {
      t: 'setup_done',
      client: TARGET,
      engine: 'sqlite',
      engine_version: ev.engine_version,
      compile_options: ev.compile_options,
      journal_mode: ev.journal_mode,
      setup_ms: ev.setup_ms,
    };
    if (ev.notes && ev.notes.length) {
      done.notes = ev.notes;
    }
    if (ev.digest) {
      done.digest = ev.digest;
    }
    this.setupDone = done;
    this.send(done);
  }

  // spawn starts thread index in role; threads that run operations get
  // live interval counters when the job asks for intervals.
  spawn(index, role) {
    let live = null;
    if (this.liveOps > 0 && role !== 'dispatch' && this.job.interval_ns > 0) {
      live = S.Live.alloc(this.liveOps);
      this.lives.push(new S.Live(live, this.liveOps));
      S.Live.fold(); // made once, here (thread 0's is spawned at set-up), not in a take
    }
    return new Worker(THREAD, {
      workerData: {
        job: this.job,
        index,
        role,
        sab: this.shared.sab,
        live,
        base: this.base,
        zetan: this.zetan,
        scale: this.scale,
      },
      stdout: false,
      stderr: false,
    });
  }

  async runJob() {
    if (!this.setupDone) {
      return this.fail('worker: run before setup');
    }
    if (this.ran) {
      return this.fail('worker: run twice');
    }
    this.ran = true;
    const fin = await new Run(this).done;
    this.send(fin);
  }
}

// release lets threads still waiting to start go, once the run is
// stopped: they see the stop and end at once, having measured nothing.
function release(v) {
  if (Atomics.load(v.ctl, S.GO) === 0) {
    if (v.times[S.T0] === 0) {
      v.times[S.T0] = clock.now();
    }
    Atomics.store(v.ctl, S.GO, 1);
    Atomics.notify(v.ctl, S.GO);
  }
}

// Run is one measured part: it starts the threads, releases them at once,
// samples intervals, relays acks and spawns open-loop executors, and
// assembles the final event from every thread's result.
class Run {
  constructor(c) {
    this.c = c;
    this.plan = c.plan;
    this.job = c.job;
    this.w = c.plan.w;
    this.v = c.shared.v;
    this.results = new Map();
    this.threads = new Map();
    this.fatal = null;
    this.ready = new Set();
    this.starting = true;
    c.run = this;
    this.done = new Promise((res) => {
      this.resolve = res;
    });
    this.start();
  }

  start() {
    const { ctl } = this.v;
    const w = this.w;
    const open = w.rate > 0;
    const claims = new S.Claims(this.v.big);
    claims.init(w.rows || 0, open ? w.maxInflight : Math.max(this.plan.threads, 1));
    new S.Quota(this.v.big, Math.max(this.plan.threads, 1)).init(w.count || 0);
    if (this.c.prog) {
      this.c.prog.initClaims(this.v, this.c.executors);
    }
    this.attach(0, this.c.primary);
    const initial = [];
    if (this.plan.kind === 'insert') {
      for (let i = 1; i < w.workers; i++) {
        initial.push([i, 'insert']);
      }
    } else if (this.plan.kind !== 'scan') {
      if (open) {
        initial.push([w.maxInflight, 'dispatch']);
      } else {
        for (let i = 1; i < this.plan.threads; i++) {
          initial.push([i, 'closed']);
        }
      }
    }
    Atomics.store(ctl, S.RUNNING, 1 + initial.length);
    this.expectReady = 1 + initial.length;
    for (const [i, role] of initial) {
      this.attach(i, this.c.spawn(i, role));
    }
    this.c.primary.postMessage({ cmd: 'run' });
  }

  attach(index, worker) {
    this.threads.set(index, worker);
    worker.removeAllListeners('message');
    worker.on('message', (m) => this.message(index, m));
    worker.on('error', (e) => {
      this.setFatal(`thread ${index}: ${oneLine(e)}`);
    });
    worker.on('exit', () => {
      if (!this.results.has(index)) {
        this.setFatal(this.fatal || `thread ${index} ended without a result`);
        Atomics.sub(this.v.ctl, S.RUNNING, 1);
        Atomics.notify(this.v.ctl, S.RUNNING);
        this.results.set(index, { recs: [], opened: 0, stats: {} });
        this.check();
      }
    });
  }

  setFatal(msg) {
    if (!this.fatal) {
      this.fatal = msg;
    }
    const { ctl } = this.v;
    Atomics.compareExchange(ctl, S.STOP, 0, 2);
    for (const i of [S.STOP, S.PUB, S.GO, S.RUNNING]) {
      Atomics.notify(ctl, i);
    }
    release(this.v);
  }

  message(index, m) {
    switch (m.t) {
      case 'ready':
        this.ready.add(index);
        if (this.ready.size === this.expectReady && Atomics.load(this.v.ctl, S.GO) === 0) {
          this.go();
        }
        return;
      case 'ack':
        this.c.send({ t: 'ack', seqs: m.seqs, rows: m.rows });
        return;
      case 'spawn':
        this.attach(m.index, this.c.spawn(m.index, 'exec'));
        return;
      case 'fatal':
        this.setFatal(m.error);
        return;
      case 'result':
        this.results.set(index, m);
        this.check();
    }
  }

  // go starts the measured part: every thread is ready.
  go() {
    const { ctl, times } = this.v;
    const w = this.w;
    const t0 = clock.now();
    times[S.T0] = t0;
    const ops = this.plan.kind === 'ops';
    if (!ops || !(w.warmup > 0)) {
      times[S.CPU0] = clock.cpu(); // process_cpu's start: the measured start
      times[S.START] = t0;
      times[S.DEADLINE] = ops && !(w.rate > 0) && w.duration > 0 ? t0 + w.duration : 0;
      Atomics.store(ctl, S.PHASE, 2);
    }
    if (w.rate > 0) {
      Atomics.store(ctl, S.IDLE, 1);
    }
    this.starting = false;
    Atomics.store(ctl, S.GO, 1);
    Atomics.notify(ctl, S.GO);
    this.startIntervals();
  }

  startIntervals() {
    const every = this.job.interval_ns || 0;
    if (!(every > 0)) {
      return;
    }
    this.every = every;
    this.last = 0;
    this.timer = setInterval(() => this.tick(clock.now()), Math.max(every / 1e6, 1));
  }

  // tick emits an interval from the live counters, once the measured part
  // has started; the last one (last: t is then its end) only if it is a
  // tenth of an interval long or counted something.
  tick(t, last = false) {
    const c = this.c;
    const { ctl, times } = this.v;
    // Nothing is recorded before the measured start, so a tick before it
    // takes nothing: a take then could read, and drop, counts recorded
    // just after the start.
    if (Atomics.load(ctl, S.PHASE) !== 2) {
      return; // warm-up
    }
    const start = times[S.START];
    if (t < start) {
      return;
    }
    const samples = c.opsNames.slice(0, c.liveOps).map(() => ({ n: 0, err: 0, hist: new Hist(2) }));
    for (const live of c.lives) {
      live.take(samples);
    }
    if (!last) {
      t = clock.now(); // the interval ends after the take: what it took ended before
    }
    const from = this.last > start ? this.last : start;
    if (last && t - from <= this.every / 10 && samples.every((x) => x.n === 0 && x.err === 0)) {
      return;
    }
    this.last = t;
    const ev = { t: 'interval', at_s: (t - start) / 1e9, span_s: (t - from) / 1e9 };
    const done = this.doneSoFar();
    if (done) {
      ev.done = done;
    }
    const ops = [];
    samples.forEach((s, i) => {
      if (s.n === 0 && s.err === 0) {
        return;
      }
      const op = { name: c.opsNames[i], n: s.n };
      if (s.err) {
        op.err = s.err;
      }
      const h = s.hist.encode();
      if (h) {
        op.hist = h;
      }
      ops.push(op);
    });
    if (ops.length) {
      ev.ops = ops;
    }
    c.send(ev);
  }

  stopIntervals() {
    if (!this.timer) {
      return;
    }
    clearInterval(this.timer);
    this.timer = null;
    // A last, partial interval, so that the intervals add up to the run's
    // counts (every thread is done: the take sees all) and short runs have
    // a series too. It ends at the measured end, not after the work that
    // follows it (counts, VACUUM, the digest), unless an interval was
    // already reported past that end.
    const now = clock.now();
    const r = this.results.get(0);
    const end = r && r.post && r.post.end;
    this.tick(end > this.last ? Math.min(end, now) : now, true);
  }

  doneSoFar() {
    const { times } = this.v;
    let n = 0;
    for (let i = 0; i < this.c.maxThreads; i++) {
      n += times[S.doneAt(i)];
    }
    return n;
  }

  check() {
    for (const i of this.threads.keys()) {
      if (!this.results.has(i)) {
        return;
      }
    }
    if (!this.results.has(0)) {
      return;
    }
    this.stopIntervals();
    this.resolve(this.final());
  }

  final() {
    const c = this.c;
    const w = this.w;
    const results = [...this.results.values()];
    const p = this.results.get(0).post || { figures: [], notes: [], start: 0, end: 0 };
    const fin = { t: 'final', status: 'ok' };
    const excluded = p.excluded || 0;
    const start = p.start || 0;
    const end = p.end || start;
    fin.elapsed_s = Math.max(end - start - excluded, 0) / 1e9;
    const done = this.doneSoFar();
    if (done) {
      fin.done = done;
    }
    fin.final_ops = merge(
      c.opsNames,
      results.flatMap((r) => r.recs || []),
      c.opsOf,
    );
    const metrics = [...(c.setupFigures || []), ...(p.figures || [])];
    if (w.rate > 0) {
      const lag = new Hist(2);
      let issued = 0;
      let dropped = 0;
      let executors = 0;
      for (const r of results) {
        const s = r.stats || {};
        if (s.lag) {
          lag.addCounts(s.lag);
        }
        dropped += s.dropped || 0;
        if (s.issued !== undefined) {
          issued = s.issued;
          executors = s.spawned;
        }
      }
      if (lag.total > 0) {
        metrics.push({ name: 'sched_lag_p99', unit: 'µs', value: lag.valueAtPercentile(99) / 1e3 });
      }
      const el = (end - start) / 1e9;
      if (el > 0) {
        metrics.push({ name: 'issued_rate', unit: 'ops/s', value: (issued - dropped) / el });
      }
      metrics.push({ name: 'executors', unit: 'executors', value: executors });
    }
    if (p.rowsInserted) {
      metrics.push({ name: 'rows_inserted', unit: 'rows', value: p.rowsInserted });
    }
    if (p.rowsAfter !== undefined) {
      metrics.push({ name: 'table_rows_after', unit: 'rows', value: p.rowsAfter });
    }
    if (excluded > 0) {
      metrics.push({ name: 'generate', unit: 's', value: excluded / 1e9 });
    }
    if (metrics.length) {
      fin.metrics = metrics;
    }
    const notes = [...(c.setupNotes || []), ...(p.notes || [])];
    if (notes.length) {
      fin.notes = notes;
    }
    const opened = results.reduce((n, r) => n + (r.opened || 0), 0);
    if (opened) {
      fin.connections_opened = opened;
    }
    if (this.fatal) {
      fin.status = 'failed';
      fin.error = this.fatal;
    } else if (Atomics.load(this.v.ctl, S.STOP) !== 0 || c.cancelled) {
      fin.status = 'interrupted';
    } else if (p.digest) {
      fin.digest = p.digest;
    }
    return fin;
  }
}

function main() {
  process.stdout.on('error', () => process.exit(1));
  new Controller(process.stdin, process.stdout);
}

module.exports = { main, Controller, version, exactInts, CAPS, PROTOCOL };
