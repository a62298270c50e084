'use strict';
// Connections and what is asked of them outside the measured part: opening
// with the settings' pragmas, the error classes, the content digest, what
// SQLite runs, and the ownership rule for the bench database.

const fs = require('fs');
const crypto = require('crypto');
const Database = require('better-sqlite3');
const { BENCH_OBJECTS } = require('./schemas');

// APP_ID stamps a bench database (PRAGMA application_id): litebench's mark.
const APP_ID = 0x4c420002;

// open opens a connection to the job's database and runs the pragmas.
function open(plan, path) {
  const memory = plan.settings['in-memory'] === 'true';
  const db = new Database(memory ? ':memory:' : path, { timeout: Number(plan.settings['busy-timeout']) });
  try {
    for (const p of plan.pragmas) {
      db.prepare(p).run();
    }
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

// Error classes, as internal/engine names them. busy and locked are
// retried under --busy-retry; conn and other end a run.
function classify(err) {
  const code = err && typeof err.code === 'string' ? err.code : '';
  if (!code.startsWith('SQLITE_')) {
    return 'other';
  }
  if (code.startsWith('SQLITE_BUSY')) {
    return 'busy';
  }
  if (code.startsWith('SQLITE_LOCKED')) {
    return 'locked';
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return 'constraint';
  }
  if (code.startsWith('SQLITE_INTERRUPT')) {
    return 'interrupted';
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return 'conn';
  }
  return 'other';
}

const retryable = (cls) => cls === 'busy' || cls === 'locked';
const fatal = (cls) => cls === 'conn' || cls === 'other';

function quoteIdent(s) {
  return '"' + s.replace(/"/g, '""') + '"';
}

// digest is the content digest of the protocol: for every table not named
// sqlite_*, in name order, "table NAME\n" and its rows' quote()d values
// joined by commas, one line per row, sorted bytewise.
function digest(db) {
  const h = crypto.createHash('sha256');
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .pluck()
    .all();
  for (const t of tables) {
    const cols = db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(t);
    h.update('table ' + t + '\n');
    if (cols.length === 0) {
      continue;
    }
    const q =
      'SELECT ' + cols.map((c) => `quote(${quoteIdent(c)})`).join("||','||") + ' FROM ' + quoteIdent(t) + ' ORDER BY 1';
    for (const line of db.prepare(q).pluck().iterate()) {
      h.update(line);
      h.update('\n');
    }
  }
  return 'sha256:' + h.digest('hex');
}

// fingerprint reads back what SQLite runs on db.
function fingerprint(db, plan) {
  const fp = {
    version: db.prepare('select sqlite_version()').pluck().get(),
    compileOptions: db.prepare('PRAGMA compile_options').pluck().all(),
    journalMode: String(db.prepare('PRAGMA journal_mode').pluck().get()).toLowerCase(),
    notes: [],
  };
  const want = plan.settings.journal;
  if (want !== 'default' && fp.journalMode !== want && plan.settings['in-memory'] !== 'true') {
    fp.notes.push(`asked for journal_mode ${want}, SQLite runs ${fp.journalMode}`);
  }
  return fp;
}

// checkPath applies litebench's ownership rule to the bench database before
// it is created or reused: a new path beside no journal, or a regular,
// non-empty SQLite file stamped as a bench database that holds only the
// workloads' tables. It writes nothing.
function checkPath(path) {
  const lstat = (p) => {
    try {
      return fs.lstatSync(p);
    } catch (e) {
      if (e.code === 'ENOENT') {
        return null;
      }
      throw e;
    }
  };
  const fixNew = 'name a new file, or remove it yourself';
  const st = lstat(path);
  if (!st) {
    for (const suf of ['-wal', '-shm', '-journal']) {
      if (lstat(path + suf)) {
        throw new Error(
          `${path + suf} exists but ${path} does not (a journal of another database?): litebench will not create a database beside it: remove it yourself or name another file`,
        );
      }
    }
    return false;
  }
  if (!st.isFile()) {
    throw new Error(`${path} is not a regular file, not a bench database litebench created: ${fixNew}`);
  }
  if (st.size === 0) {
    throw new Error(`${path} is an empty file, not a bench database litebench created: ${fixNew}`);
  }
  const head = Buffer.alloc(100);
  const fd = fs.openSync(path, 'r');
  let n;
  try {
    n = fs.readSync(fd, head, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (n < 100 || head.toString('latin1', 0, 16) !== 'SQLite format 3\0') {
    throw new Error(`${path} is not a SQLite database: ${fixNew}`);
  }
  const appID = head.readUInt32BE(68);
  if (appID !== APP_ID) {
    throw new Error(
      `${path} is a SQLite database litebench did not create (application_id 0x${appID.toString(16)}): ${fixNew}`,
    );
  }
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    for (const o of db.prepare('SELECT type, name FROM sqlite_master').all()) {
      const name = o.name.toLowerCase();
      if (name.startsWith('sqlite_') && (o.type === 'table' || o.type === 'index')) {
        continue;
      }
      if ((o.type !== 'table' && o.type !== 'index') || !BENCH_OBJECTS.has(name)) {
        throw new Error(
          `${path} holds ${o.type} ${JSON.stringify(o.name)} that litebench did not create: litebench leaves it alone: name a new file, or remove it yourself`,
        );
      }
    }
  } finally {
    db.close();
  }
  return true;
}

module.exports = { open, classify, retryable, fatal, digest, fingerprint, checkPath, APP_ID, Database };
