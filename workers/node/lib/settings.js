'use strict';
// A job's settings and parameters, read as litebench's Go worker reads them
// (internal/settings, internal/engine/sqlite/settings.go, the workloads'
// parameters): the same defaults, canonical forms and messages. Settings and
// parameters left out take their defaults. resolve() also refuses what this
// client cannot honour, with one line naming the setting and why.

const { SCHEMAS, MAX_VARIABLES } = require('./schemas');

class JobError extends Error {}

function fail(msg) {
  throw new JobError(msg);
}

// parseSize reads a count with an optional k/m/g suffix (powers of 1024 for
// kb/mb/gb/kib/…, powers of 1000 for plain k/m/g), as settings.ParseCount.
function parseCount(v) {
  let l = String(v).trim().toLowerCase().replace(/_/g, '');
  let mult = 1n;
  for (const [s, m] of [
    ['kib', 1n << 10n],
    ['mib', 1n << 20n],
    ['gib', 1n << 30n],
    ['kb', 1n << 10n],
    ['mb', 1n << 20n],
    ['gb', 1n << 30n],
    ['k', 1000n],
    ['m', 1000000n],
    ['g', 1000000000n],
  ]) {
    if (l.endsWith(s)) {
      l = l.slice(0, -s.length);
      mult = m;
      break;
    }
  }
  if (!/^[+-]?\d+$/.test(l)) {
    return null;
  }
  const n = BigInt(l);
  if (n < -(1n << 63n) || n >= 1n << 63n) {
    return null;
  }
  return BigInt.asIntN(64, n * mult);
}

const bool = (v) => {
  switch (v.toLowerCase()) {
    case '1':
    case 'true':
    case 'yes':
    case 'on':
    case 'y':
      return 'true';
    case '0':
    case 'false':
    case 'no':
    case 'off':
    case 'n':
      return 'false';
  }
  throw new Error('want true or false');
};

const oneOf =
  (...vals) =>
  (v) => {
    const l = v.toLowerCase();
    if (vals.includes(l)) {
      return l;
    }
    throw new Error('want one of ' + vals.join(', '));
  };

const intRange = (lo, hi) => (v) => {
  const n = parseCount(v);
  if (n === null) {
    throw new Error('want a whole number');
  }
  if (n < lo || n > hi) {
    throw new Error(lo === 1n ? 'must be at least 1' : `must be between ${lo} and ${hi}`);
  }
  return n.toString();
};

const optInt = (lo, hi) => {
  const r = intRange(lo, hi);
  return (v) => (v.toLowerCase() === 'default' ? 'default' : r(v));
};

function syncCanon(v) {
  const m = {
    0: 'off',
    off: 'off',
    1: 'normal',
    normal: 'normal',
    2: 'full',
    full: 'full',
    3: 'extra',
    extra: 'extra',
    default: 'default',
  };
  const c = m[v.toLowerCase()];
  if (!c) {
    throw new Error('want default, off, normal, full or extra (or 0-3)');
  }
  return c;
}

function pageSizeCanon(v) {
  if (v.toLowerCase() === 'default') {
    return 'default';
  }
  const n = parseCount(v);
  if (n === null) {
    throw new Error('want a whole number');
  }
  if (n < 512n || n > 65536n || (n & (n - 1n)) !== 0n) {
    throw new Error('want a power of two from 512 to 65536');
  }
  return n.toString();
}

function busyRetryCanon(v) {
  const l = v.toLowerCase();
  if (l === 'none' || l === '0') {
    return 'none';
  }
  if (l === 'until' || l === 'forever' || l === 'timeout') {
    return 'until';
  }
  if (/^\+?\d+$/.test(l) && Number(l) <= 2147483647) {
    return String(Number(l));
  }
  throw new Error('want none, a retry count, or until');
}

// SPECS: every setting, SQLite's then the application's, with default and
// canonicaliser.
const SPECS = {
  journal: ['default', oneOf('default', 'delete', 'truncate', 'persist', 'memory', 'wal', 'off')],
  sync: ['default', syncCanon],
  'busy-timeout': ['5000', intRange(0n, (1n << 31n) - 1n)],
  'cache-size': ['default', optInt(-(1n << 40n), 1n << 40n)],
  'mmap-size': ['default', optInt(0n, 1n << 50n)],
  'temp-store': ['default', oneOf('default', 'file', 'memory')],
  'locking-mode': ['default', oneOf('default', 'normal', 'exclusive')],
  'page-size': ['default', pageSizeCanon],
  'shared-cache': ['false', bool],
  'in-memory': ['false', bool],
  pool: ['0', intRange(0n, 1n << 20n)],
  'conn-per-op': ['false', bool],
  prepared: ['true', bool],
  batch: ['1000', intRange(1n, 1n << 30n)],
  'rows-per-stmt': ['1', intRange(1n, 1n << 20n)],
  tx: ['deferred', oneOf('deferred', 'immediate')],
  'write-mutex': ['false', bool],
  writer: ['pool', oneOf('pool', 'single')],
  'busy-retry': ['none', busyRetryCanon],
  placement: ['in-process', oneOf('in-process', 'process')],
};

// pragmas returns the statements run on every new connection, in the order
// internal/engine/sqlite's Pragmas renders them.
function pragmas(s) {
  const out = [];
  const add = (name, v) => {
    if (v !== 'default') {
      out.push(`PRAGMA ${name} = ${v}`);
    }
  };
  add('page_size', s['page-size']);
  add('busy_timeout', s['busy-timeout']);
  add('locking_mode', s['locking-mode']);
  add('journal_mode', s.journal);
  add('synchronous', s.sync);
  add('cache_size', s['cache-size']);
  add('mmap_size', s['mmap-size']);
  add('temp_store', s['temp-store']);
  return out;
}

const LOAD_PARAMS = [
  ['rows', '10000'],
  ['schema', 'bench'],
  ['keys', 'uniform'],
  ['zipf-theta', '0.99'],
  ['duration', '10s'],
  ['count', '0'],
  ['warmup', '0s'],
  ['rate', '0'],
  ['arrivals', 'uniform'],
  ['max-inflight', '100'],
  ['seed', '1'],
];

// WORKLOADS: each workload's parameters with their defaults, and the
// settings defaults it replaces.
const WORKLOADS = {
  insert: {
    params: [
      ['rows', '100000'],
      ['schema', 'bench'],
      ['workers', '1'],
      ['seed', '1'],
      ['vacuum', 'false'],
    ],
  },
  scan: {
    params: [
      ['rows', '1000000'],
      ['seed', '1'],
    ],
  },
  read: { params: [['workers', '1'], ...LOAD_PARAMS], settings: { batch: '1' } },
  write: { params: [['workers', '1'], ['write-kind', 'insert'], ...LOAD_PARAMS], settings: { batch: '1' } },
  mixed: {
    params: [['readers', '1'], ['writers', '1'], ['write-ratio', '10'], ['write-kind', 'insert'], ...LOAD_PARAMS],
    settings: { batch: '1' },
  },
};

function pInt(p, name, lo) {
  const n = parseCount(p[name]);
  if (n === null || n < BigInt(lo) || n > BigInt(Number.MAX_SAFE_INTEGER)) {
    fail(`--${name} ${JSON.stringify(p[name])}: want a whole number of at least ${lo}`);
  }
  return Number(n);
}

function pSeed(p) {
  const v = p.seed;
  if (!/^\d+$/.test(v) || BigInt(v) >= 1n << 64n) {
    fail(`--seed ${JSON.stringify(v)}: want a non-negative whole number`);
  }
  return v;
}

function pFloat(p, name, lo, hi) {
  const v = p[name];
  const f = parseGoFloat(v);
  if (Number.isNaN(f) || f < lo || f > hi) {
    fail(`--${name} ${JSON.stringify(v)}: want a number from ${lo} to ${hi}`);
  }
  return f;
}

function parseGoFloat(v) {
  const t = String(v).trim() === String(v) ? String(v) : '';
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) && !/^[+-]?(inf|infinity)$/i.test(t)) {
    return NaN;
  }
  return Number(t.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity'));
}

const UNITS = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

// parseDuration reads a Go duration ("10s", "1m30s", "500ms") in
// nanoseconds, or NaN.
function parseDuration(v) {
  let s = String(v);
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') {
    return 0;
  }
  if (s === '') {
    return NaN;
  }
  let total = 0;
  const re = /^(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)/;
  while (s.length > 0) {
    const m = re.exec(s);
    if (!m || m[1] === '' || m[1] === '.') {
      return NaN;
    }
    total += Number(m[1]) * UNITS[m[2]];
    s = s.slice(m[0].length);
  }
  return sign * Math.round(total);
}

function pDuration(p, name) {
  const d = parseDuration(p[name]);
  if (Number.isNaN(d) || d < 0) {
    fail(`--${name} ${JSON.stringify(p[name])}: want a duration such as 500ms, 10s or 2m`);
  }
  return d;
}

function pSchema(p) {
  const sc = SCHEMAS[p.schema];
  if (!sc) {
    fail(`--schema ${JSON.stringify(p.schema)}: unknown schema (known: ${Object.keys(SCHEMAS).sort().join(', ')})`);
  }
  return sc;
}

function pBool(p, name) {
  try {
    return bool(p[name]) === 'true';
  } catch {
    return fail(`--${name} ${JSON.stringify(p[name])}: want true or false`);
  }
}

// TARGET is the target this worker serves.
const TARGET = 'node-better-sqlite3';

// resolve checks a job and returns its plan: the workload's typed parameters,
// the settings (canonical strings, defaults filled in) and what the run
// needs. It throws a JobError naming the problem.
function resolve(job) {
  if (!job || typeof job !== 'object') {
    fail('setup without a job');
  }
  const program = job.program || null;
  const spec = program ? { params: [] } : WORKLOADS[job.workload];
  if (!spec) {
    fail(
      `workload ${JSON.stringify(job.workload)}: the ${TARGET} worker runs ${Object.keys(WORKLOADS).join(', ')}; run it on a Go target`,
    );
  }
  if (job.target && job.target !== TARGET) {
    fail(`target ${JSON.stringify(job.target)}: this worker serves ${TARGET}`);
  }
  const s = {};
  for (const [k, [def]] of Object.entries(SPECS)) {
    s[k] = def;
  }
  Object.assign(s, spec.settings || {});
  for (const [k, v] of Object.entries(job.settings || {})) {
    const sp = SPECS[k];
    if (!sp) {
      fail(`job: unknown setting ${JSON.stringify(k)} (see 'litebench list settings')`);
    }
    try {
      s[k] = sp[1](String(v).trim());
    } catch (e) {
      fail(`job: --${k} ${JSON.stringify(v)}: ${e.message}`);
    }
  }
  const p = {};
  for (const [k, def] of spec.params) {
    p[k] = def;
  }
  for (const [k, v] of Object.entries(program ? {} : job.params || {})) {
    if (!(k in p)) {
      fail(`job: workload ${job.workload} has no parameter ${JSON.stringify(k)}`);
    }
    p[k] = String(v);
  }
  if (s['in-memory'] === 'true' && s.journal === 'wal') {
    fail(
      '--journal wal needs a file: an in-memory database (--in-memory / mode=memory) cannot use WAL; drop one of them',
    );
  }
  const plan = { workload: job.workload, kind: 'ops', program, params: p, settings: s, pragmas: pragmas(s) };
  if (program) {
    resolveProgram(plan, program, s);
    refuse(plan, s, job);
    return plan;
  }
  const w = (plan.w = { seed: pSeed(p) });
  switch (job.workload) {
    case 'insert': {
      w.schema = pSchema(p);
      w.rows = pInt(p, 'rows', 1);
      w.workers = pInt(p, 'workers', 1);
      checkRowsPerStmt(w.schema, Number(s['rows-per-stmt']));
      w.vacuum = pBool(p, 'vacuum');
      plan.kind = 'insert';
      plan.threads = w.workers;
      plan.writers = w.workers;
      break;
    }
    case 'scan':
      w.rows = pInt(p, 'rows', 1);
      w.schema = SCHEMAS.bench;
      plan.kind = 'scan';
      plan.threads = 1;
      plan.writers = 0;
      break;
    default:
      resolveOps(plan, job.workload, p, s);
  }
  refuse(plan, s, job);
  return plan;
}

// resolveProgram reads a workload program's load (docs/workload-program.md):
// its tables are built where they are used (lib/program.js).
function resolveProgram(plan, p, s) {
  if (p.version !== 1) {
    fail(`program version ${p.version}: this worker runs version 1 (docs/workload-program.md)`);
  }
  if (!/^\d+$/.test(String(p.seed)) || BigInt(p.seed) >= 1n << 64n) {
    fail(`program seed ${JSON.stringify(p.seed)}: want a non-negative whole number`);
  }
  const w = (plan.w = { seed: String(p.seed), rows: 0, keys: 'uniform' });
  const tables = p.tables || [];
  if (p.insert) {
    const t = tables[p.insert.table || 0];
    if (!t) {
      fail(`program ${p.name}: insert names no table`);
    }
    plan.kind = 'insert';
    w.rows = Number(p.insert.rows || 0);
    w.workers = Math.max(Number(p.insert.workers || 1), 1);
    w.vacuum = Boolean(p.insert.vacuum);
    w.table = p.insert.table || 0;
    checkRowsPerStmt({ name: t.name, columns: t.columns || [] }, Number(s['rows-per-stmt']));
    plan.threads = w.workers;
    plan.writers = w.workers;
    return;
  }
  const L = p.load;
  if (!L) {
    fail(`program ${p.name}: neither load nor insert`);
  }
  if (s['conn-per-op'] === 'true') {
    fail(
      '--conn-per-op true: the node-better-sqlite3 worker runs workload files on one connection per worker; use --conn-per-op false',
    );
  }
  if (s.writer === 'single') {
    fail(
      '--writer single: the node-better-sqlite3 worker runs workload files on one connection per worker, which reads and writes; use --writer pool',
    );
  }
  w.count = Number(L.count || 0);
  w.duration = w.count > 0 ? 0 : Number(L.duration_ns || 0);
  w.warmup = Number(L.warmup_ns || 0);
  w.rate = Number(L.rate || 0);
  w.poisson = L.arrivals === 'poisson';
  w.maxInflight = Math.max(Number(L.max_inflight || 1), 1);
  w.roles = L.roles && L.roles.length ? L.roles : [-1];
  w.ratio = 0;
  w.readers = w.rate > 0 ? 0 : w.roles.length;
  w.writers = 0;
  if (w.count === 0 && !(w.duration > 0)) {
    fail(`program ${p.name}: neither a count nor a duration`);
  }
  plan.threads = w.rate > 0 ? w.maxInflight : w.roles.length;
  plan.writers = plan.threads;
}

function checkRowsPerStmt(sc, rps) {
  const n = rps * sc.columns.length;
  if (n > MAX_VARIABLES) {
    fail(
      `--rows-per-stmt ${rps} × ${sc.columns.length} columns of ${sc.name} = ${n} bound variables, past SQLite's limit of ${MAX_VARIABLES}; use --rows-per-stmt ${Math.floor(MAX_VARIABLES / sc.columns.length)} or less`,
    );
  }
}

function resolveOps(plan, name, p, s) {
  const w = plan.w;
  w.name = name;
  w.batch = Number(s.batch);
  w.schema = pSchema(p);
  w.rows = pInt(p, 'rows', 0);
  w.keys = p.keys;
  w.theta = parseGoFloat(p['zipf-theta']);
  if (Number.isNaN(w.theta)) {
    fail(`--zipf-theta ${JSON.stringify(p['zipf-theta'])}: want a number between 0 and 1`);
  }
  if (!['uniform', 'zipfian', 'latest'].includes(w.keys)) {
    fail(`--keys ${JSON.stringify(w.keys)}: want uniform, zipfian or latest`);
  }
  if (!(w.theta > 0 && w.theta < 1)) {
    fail(`--zipf-theta ${w.theta}: want a number between 0 and 1 (exclusive; YCSB uses 0.99)`);
  }
  w.kind = p['write-kind'] || 'insert';
  if (!['insert', 'update', 'upsert'].includes(w.kind)) {
    fail(`--write-kind ${JSON.stringify(w.kind)}: want insert, update or upsert`);
  }
  w.duration = pDuration(p, 'duration');
  w.warmup = pDuration(p, 'warmup');
  w.count = pInt(p, 'count', 0);
  if (w.count > 0) {
    w.duration = 0;
  } else if (w.duration <= 0) {
    fail(`--duration ${p.duration}: want a positive duration, or set --count`);
  }
  w.rate = pFloat(p, 'rate', 0, 1e9);
  if (p.arrivals !== 'uniform' && p.arrivals !== 'poisson') {
    fail(`--arrivals ${JSON.stringify(p.arrivals)}: want uniform or poisson`);
  }
  w.poisson = p.arrivals === 'poisson';
  w.maxInflight = pInt(p, 'max-inflight', 1);
  w.readers = 0;
  w.writers = 0;
  w.ratio = 0;
  switch (name) {
    case 'read':
      w.readers = pInt(p, 'workers', 1);
      break;
    case 'write':
      w.writers = pInt(p, 'workers', 1);
      w.ratio = 100;
      break;
    case 'mixed':
      w.readers = pInt(p, 'readers', 0);
      w.writers = pInt(p, 'writers', 0);
      w.ratio = pFloat(p, 'write-ratio', 0, 100);
      if (w.rate === 0 && w.readers + w.writers === 0) {
        fail('--readers 0 --writers 0: nothing to run; give at least one reader or writer');
      }
  }
  if ((w.readers > 0 || w.kind !== 'insert') && w.rows === 0 && (name !== 'write' || w.kind !== 'insert')) {
    fail('--rows 0: reads and updates need rows to pick from; load some with --rows N');
  }
  if (w.rate > 0) {
    plan.threads = w.maxInflight;
    plan.writers = w.ratio > 0 ? w.maxInflight : 0;
  } else {
    plan.threads = w.readers + w.writers;
    plan.writers = w.writers;
  }
}

// refuse rejects the settings better-sqlite3 cannot honour in this job. A
// better-sqlite3 connection belongs to the thread that opened it: every
// worker thread has its own, and none can be lent to another thread.
function refuse(plan, s, job) {
  const n = plan.threads;
  const pool = Number(s.pool);
  const rate = plan.w.rate > 0;
  const who = rate ? `--max-inflight ${n}` : plan.workload === 'mixed' ? `${n} readers and writers` : `--workers ${n}`;
  if (s['shared-cache'] === 'true') {
    fail(
      '--shared-cache true: better-sqlite3 builds SQLite with SQLITE_OMIT_SHARED_CACHE, so no connection can open a shared cache; use --shared-cache false',
    );
  }
  if (pool > 0 && pool < n) {
    fail(
      `--pool ${pool} with ${who}: better-sqlite3 connections are synchronous and cannot move between threads, so each of the ${n} worker threads holds one of its own; use --pool 0 or --pool ${n} or more (or fewer workers)`,
    );
  }
  if (s.writer === 'single' && plan.writers > 1) {
    fail(
      `--writer single with ${plan.writers} writing threads: better-sqlite3 cannot share the one writer connection between threads; use --writer pool, or one writer (${rate ? '--max-inflight 1' : plan.workload === 'mixed' ? '--writers 1' : '--workers 1'})`,
    );
  }
  if (s['in-memory'] === 'true') {
    const conns = n + (s.writer === 'single' && plan.writers > 0 ? 1 : 0);
    if (s['conn-per-op'] === 'true') {
      fail(
        '--in-memory with --conn-per-op true: without a shared cache (better-sqlite3 omits it) every new connection opens an empty database; use a file or --conn-per-op false',
      );
    }
    if (conns > 1) {
      fail(
        `--in-memory with ${conns} connections: better-sqlite3 omits SQLite's shared cache, so an in-memory database is private to one connection; use a file, or one connection (${rate ? '--max-inflight 1' : 'one worker'}, --writer pool)`,
      );
    }
  }
  if (job.attach && s['in-memory'] === 'true') {
    fail('attach with --in-memory: an in-memory database exists only in the process that made it');
  }
}

module.exports = { resolve, JobError, parseCount, parseDuration, pragmas, SPECS, WORKLOADS, TARGET };
