'use strict';
// One thread's view of the database under the application-side settings
// (internal/target's Session and Writer, for a client whose connections
// belong to the thread that opened them): the thread's own connection,
// statements prepared once per connection or ad hoc, a dedicated writer
// connection under --writer single, a fresh connection per operation under
// --conn-per-op, the write mutex, BEGIN's mode and the busy-retry policy.

const db = require('./db');

// Conn is one connection and the statements prepared on it.
class Conn {
  constructor(plan, path, stats) {
    this.db = db.open(plan, path);
    stats.opened++;
    this.prepared = plan.settings.prepared === 'true';
    this.cache = new Map();
    const begin = plan.settings.tx === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN';
    this.beginStmt = this.db.prepare(begin);
    this.commitStmt = this.db.prepare('COMMIT');
    this.rollbackStmt = this.db.prepare('ROLLBACK');
  }

  // stmt returns q prepared once (prepared statements) or anew (ad hoc).
  stmt(q) {
    if (!this.prepared) {
      return this.db.prepare(q);
    }
    let s = this.cache.get(q);
    if (s === undefined) {
      s = this.db.prepare(q);
      this.cache.set(q, s);
    }
    return s;
  }

  close() {
    if (this.db.open) {
      this.db.close();
    }
  }
}

class Session {
  constructor(plan, path, mutex) {
    this.plan = plan;
    this.path = path;
    this.stats = { opened: 0 };
    this.perOp = plan.settings['conn-per-op'] === 'true';
    this.single = plan.settings.writer === 'single';
    this.mutex = plan.settings['write-mutex'] === 'true' ? mutex : null;
    const r = plan.settings['busy-retry'];
    this.retries = r === 'none' ? 0 : r === 'until' ? -1 : Number(r);
    this.conn = null; // the thread's pool connection
    this.wconn = null; // the single writer's connection
  }

  // setupView is the session for loading data before the measured part:
  // the thread's connection, busy writes retried until they succeed, no
  // single writer, write mutex or connection per operation.
  setupView() {
    const v = Object.create(Session.prototype);
    Object.assign(v, this, { perOp: false, single: false, mutex: null, retries: -1 });
    v.conn = this.pool();
    return v;
  }

  // pool returns the thread's connection, opened the first time.
  pool() {
    if (this.conn === null) {
      this.conn = new Conn(this.plan, this.path, this.stats);
    }
    return this.conn;
  }

  // acquire returns the connection a read (write false) or a write runs on;
  // hand it back with release.
  acquire(write) {
    if (write && this.single) {
      if (this.wconn === null) {
        this.wconn = new Conn(this.plan, this.path, this.stats);
      }
      return this.wconn;
    }
    if (this.perOp) {
      return new Conn(this.plan, this.path, this.stats);
    }
    return this.pool();
  }

  release(c) {
    if (c !== this.conn && c !== this.wconn) {
      c.close();
    }
  }

  // persistent says whether acquire always returns the same connection for
  // this side, so that statements may be looked up once.
  persistent(write) {
    return (write && this.single) || !this.perOp;
  }

  // again says whether work that failed with err after retries retries is
  // tried again.
  again(err, retries) {
    const c = db.classify(err);
    return db.retryable(c) && (this.retries < 0 || retries < this.retries);
  }

  close() {
    for (const c of [this.conn, this.wconn]) {
      if (c) {
        c.close();
      }
    }
  }
}

// Writer issues one thread's writes on a connection under the write mutex
// (held from BEGIN to COMMIT or ROLLBACK, or for one autocommit statement).
class Writer {
  constructor(sess) {
    this.sess = sess;
    this.mutex = sess.mutex;
    this.locked = false;
    this.c = null;
  }

  lock() {
    if (this.mutex && !this.locked) {
      this.mutex.lock();
      this.locked = true;
    }
  }

  unlock() {
    if (this.locked) {
      this.locked = false;
      this.mutex.unlock();
    }
  }

  begin(c) {
    this.lock();
    try {
      c.beginStmt.run();
    } catch (e) {
      this.unlock();
      throw e;
    }
    this.c = c;
  }

  commit() {
    const c = this.c;
    this.c = null;
    try {
      c.commitStmt.run();
    } catch (e) {
      // A COMMIT that failed (busy) leaves the transaction open: abandon
      // it, as database/sql does with a transaction whose commit failed.
      if (c.db.inTransaction) {
        try {
          c.rollbackStmt.run();
        } catch {
          // the error reported is the commit's
        }
      }
      throw e;
    } finally {
      this.unlock();
    }
  }

  rollback() {
    const c = this.c;
    this.c = null;
    try {
      if (c.db.inTransaction) {
        c.rollbackStmt.run();
      }
    } catch {
      // the statement's error is the one reported
    } finally {
      this.unlock();
    }
  }
}

module.exports = { Conn, Session, Writer };
