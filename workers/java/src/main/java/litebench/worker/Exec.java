package litebench.worker;

import java.security.MessageDigest;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker of a workload program: its variables, random sequence and
 * connections; runs a transaction's steps (internal/spec: executor).
 */
final class Exec extends LoadGen.Executor implements Db.Binder, Db.Rows {
  /** What the workers of one run share; nothing in it is locked per operation. */
  static final class Shared {
    final Program p;
    final Db.Session sess;
    final Env env;

    Shared(Program p, Db.Session sess, Env env) {
      this.p = p;
      this.sess = sess;
      this.env = env;
    }
  }

  /** A row a step expected was not there: counted as missing. */
  static final class Missing extends Exception {
    Missing(String msg) {
      super(msg);
    }
  }

  /** A table operation's error, already retried as busy-retry allows. */
  static final class TableFailed extends Exception {
    final int retries;

    TableFailed(Exception cause, int retries) {
      super(Db.message(cause), cause);
      this.retries = retries;
    }
  }

  /** A native operation that found the data wrong: it stops the run. */
  static final class Wrong extends Exception {
    Wrong(String msg) {
      super(msg);
    }
  }

  private final Shared sh;
  private final Program p;
  private final Db.Session sess;
  private final int slot;
  final Expr.Ctx x;
  private final Db.Writer writer;
  private final Db.Writer reader;
  private Db.Writer cur;
  private final Object[] args;
  private int nargs;
  private int[] into;
  private boolean found;
  private final Columns.RowGen[] gens;
  private final long[][] ints;
  private final String[][] strs;
  private final long[][] idx;
  private MessageDigest sha;

  Exec(Shared sh, int i) throws Exception {
    this.sh = sh;
    this.p = sh.p;
    this.sess = sh.sess;
    this.slot = i;
    x = new Expr.Ctx(p.start.length, Gen.draw(p.seed, Gen.STREAM_KEYS, (long) i + 1), p.tables);
    for (int k = 0; k < p.start.length; k++) {
      if (p.startSet[k]) {
        x.assign(k, p.start[k]);
      }
    }
    x.assign(p.clientId, (long) i);
    if (p.scaleSlot >= 0) {
      x.assign(p.scaleSlot, p.scale);
    }
    writer = sess.writer();
    reader = sess.reader();
    int most = 2;
    for (Program.Stmt s : p.stmts) {
      most = Math.max(most, s.binds.length);
    }
    for (Program.TableOp op : p.tops) {
      most = Math.max(most, op.t.schema.width() + 1);
    }
    args = new Object[most];
    int n = p.tops.size();
    gens = new Columns.RowGen[n];
    ints = new long[n][];
    strs = new String[n][];
    idx = new long[n][];
    for (Program.TableOp op : p.tops) {
      if (op.writes()) {
        gens[op.idx] = op.t.schema.gen.rowGen();
        ints[op.idx] = new long[op.t.schema.width()];
        strs[op.idx] = new String[op.t.schema.width()];
        idx[op.idx] = new long[op.batch];
      }
    }
  }

  /** Runs transaction op; a busy or locked one again from its first step with the same random numbers. */
  @Override
  int run(int op) {
    Program.Step[] steps = p.txns[op];
    for (int retries = 0; ; retries++) {
      long saved = x.rng.state;
      tableRetries = 0;
      try {
        steps(steps);
        return retries + tableRetries;
      } catch (Expr.EvalError e) {
        error = new LoadGen.Fatal(e);
        return retries;
      } catch (Missing e) {
        error = e;
        return retries + tableRetries;
      } catch (Exception e) {
        if (Db.classify(e).fatal()) {
          error = new LoadGen.Fatal(e instanceof TableFailed ? e.getCause() : e);
          return retries;
        }
        if (e instanceof TableFailed || !sess.again(e, retries) || sh.env.stop.stopped()) {
          error = e instanceof TableFailed ? e.getCause() : e;
          return retries + tableRetries;
        }
        x.rng.state = saved;
      }
    }
  }

  private int tableRetries;

  private void steps(Program.Step[] steps) throws Exception {
    try {
      for (Program.Step st : steps) {
        step(st);
      }
    } catch (Exception | Error e) {
      if (cur != null) {
        cur.rollback();
        cur = null;
      }
      throw e;
    }
  }

  private void step(Program.Step st) throws Exception {
    switch (st.kind) {
      case Program.S_SET:
        x.assign(st.var, st.expr.eval(x));
        return;
      case Program.S_SLEEP:
        long n = Expr.toInt(st.expr.eval(x), st.expr);
        if (n > 0) {
          sleep(n * st.unitNs);
        }
        return;
      case Program.S_TABLE:
        try {
          if (st.op.kind == Program.OP_READ) {
            tableRead(st.op);
          } else {
            tableWrite(st.op);
          }
        } catch (Missing e) {
          throw e;
        } catch (Exception e) {
          throw e instanceof TableFailed ? e : new TableFailed(e, 0);
        }
        return;
      case Program.S_NATIVE:
        nativeOp(st.op);
        return;
      default:
        if (st.part < 0 || rec == null) {
          sqlOnce(st);
          return;
        }
        long t0 = System.nanoTime();
        try {
          sqlOnce(st);
        } catch (Exception e) {
          rec.error(st.part, e instanceof Missing ? "missing" : Db.classify(e).kind);
          throw e;
        }
        rec.observe(st.part, System.nanoTime() - t0);
    }
  }

  private void sleep(long ns) throws Db.Cancelled {
    long end = System.nanoTime() + ns;
    for (long left = ns; left > 0; left = end - System.nanoTime()) {
      if (sh.env.stop.stopped()) {
        throw new Db.Cancelled();
      }
      LockSupport.parkNanos(Math.min(left, 50_000_000));
    }
  }

  private void sqlOnce(Program.Step st) throws Exception {
    switch (st.kind) {
      case Program.S_BEGIN:
        Db.Writer w = st.read ? reader : writer;
        w.begin();
        cur = w;
        return;
      case Program.S_COMMIT:
      case Program.S_ROLLBACK:
        Db.Writer c = cur;
        cur = null;
        if (c == null) {
          throw new SQLException(st.at + ": no transaction is open");
        }
        if (st.kind == Program.S_COMMIT) {
          c.commit();
        } else {
          c.rollback();
        }
        return;
      default:
        break;
    }
    Program.Stmt s = p.stmts[st.stmt];
    bindVars(s);
    boolean wantsRow = s.into.length > 0;
    into = wantsRow ? s.into : null;
    found = false;
    // Any statement: sqlite-jdbc tells a query from an update by what it returns.
    if (cur != null) {
      cur.execute(cur == reader ? s.forRead : s.forWrite, this, this);
    } else if (s.read) {
      s.forRead.execute(this, this);
    } else {
      writer.execute(s.forWrite, this, this);
    }
    if (wantsRow && !found) {
      throw new Missing(s.at + ": the query returned no row");
    }
  }

  /** Sets the statement's arguments from its variables. */
  private void bindVars(Program.Stmt s) {
    nargs = s.binds.length;
    for (int k = 0; k < nargs; k++) {
      int sl = s.binds[k];
      if (!x.set[sl]) {
        throw new Expr.EvalError(s.at, "variable :" + p.varNames[sl] + " is not set");
      }
      Object v = x.vars[sl];
      args[k] = v instanceof Boolean ? (Object) ((Boolean) v ? 1L : 0L) : v;
    }
  }

  @Override
  public void bind(PreparedStatement ps) throws SQLException {
    for (int k = 0; k < nargs; k++) {
      bindValue(ps, k + 1, args[k]);
    }
  }

  static void bindValue(PreparedStatement ps, int at, Object v) throws SQLException {
    if (v == null) {
      ps.setNull(at, Types.NULL);
    } else if (v instanceof Long) {
      ps.setLong(at, (Long) v);
    } else if (v instanceof Double) {
      ps.setDouble(at, (Double) v);
    } else {
      ps.setString(at, v.toString());
    }
  }

  /** A query's first row into its variables (the others are stepped through). */
  @Override
  public void row(ResultSet rs) throws SQLException {
    if (found) {
      return;
    }
    found = true;
    if (into == null) {
      return;
    }
    for (int k = 0; k < into.length; k++) {
      String t = Program.textOf(rs.getObject(k + 1));
      x.assign(into[k], t == null ? null : Expr.textValue(t));
    }
  }

  // Table operations.

  private void tableRead(Program.TableOp op) throws Exception {
    Program.Table t = op.t;
    long i = Gen.pickKey(op.keys, op.zipf, x.rng, t.claims.visible.get());
    Object key = t.key(i);
    nargs = 1;
    args[0] = key;
    into = null;
    found = false;
    op.prep.query(this, this);
    if (!found) {
      throw new Missing("row not found: " + t.name + " " + t.schema.keyCol + " = " + key);
    }
  }

  /** One write: batch rows in one transaction (or one autocommit statement), retried per busy-retry. */
  private void tableWrite(Program.TableOp op) throws Exception {
    Program.Table t = op.t;
    Ops.Claims c = t.claims;
    long[] rows = idx[op.idx];
    boolean insert = op.kind == Program.OP_INSERT;
    // The rows are chosen once, so a retry writes the same rows.
    if (insert) {
      long first = c.claim(slot, rows.length);
      for (int k = 0; k < rows.length; k++) {
        rows[k] = first + k;
      }
    } else {
      long span = c.visible.get();
      if (op.kind == Program.OP_UPSERT) {
        span += span / 10; // some upserts insert
      }
      for (int k = 0; k < rows.length; k++) {
        rows[k] = Gen.pickKey(op.keys, op.zipf, x.rng, span);
      }
    }
    try {
      for (int retries = 0; ; retries++) {
        try {
          writeOnce(op, rows);
          tableRetries += retries;
          if (sh.env.ack != null) {
            sh.env.ack.ack(rows[0], rows.length);
          }
          return;
        } catch (SQLException e) {
          if (!sess.again(e, retries) || sh.env.stop.stopped()) {
            tableRetries += retries;
            throw new TableFailed(e, retries);
          }
        }
      }
    } finally {
      if (insert) {
        c.release(slot);
      }
    }
  }

  private void writeOnce(Program.TableOp op, long[] rows) throws SQLException {
    if (rows.length == 1 && (!p.explicit || cur != null)) {
      execWrite(op, rows[0]);
      return;
    }
    writer.begin();
    for (long i : rows) {
      try {
        execWrite(op, i);
      } catch (SQLException | RuntimeException e) {
        writer.rollback();
        throw e;
      }
    }
    writer.commit();
  }

  /** Writes row i: its values (for an update, those of row i under seed + 1, keyed by row i's key). */
  private void execWrite(Program.TableOp op, long i) throws SQLException {
    Program.Table t = op.t;
    Schema sc = t.schema;
    long[] in = ints[op.idx];
    String[] st = strs[op.idx];
    gens[op.idx].row(op.kind == Program.OP_UPDATE ? t.seed + 1 : t.seed, i, in, st, 0);
    int n = 0;
    if (op.bind != null) {
      for (int k : op.bind) {
        args[n++] = k < 0 ? t.key(i) : value(sc, in, st, k);
      }
    } else if (op.kind == Program.OP_UPDATE) {
      for (int k : sc.updIdx) {
        args[n++] = value(sc, in, st, k);
      }
      args[n++] = t.key(i);
    } else {
      for (int k = 0; k < sc.width(); k++) {
        args[n++] = value(sc, in, st, k);
      }
    }
    nargs = n;
    writer.exec(op.prep, this);
  }

  private static Object value(Schema sc, long[] in, String[] st, int k) {
    return sc.gen.text[k] ? (Object) st[k] : (Object) in[k];
  }

  // Native operations.

  private long got;
  private long first;

  private void nativeOp(Program.TableOp op) throws Exception {
    Program.Table t = op.t;
    Schema sc = t.schema;
    if (op.kind == Program.OP_SCAN_VERIFY) {
      if (sha == null) {
        sha = MessageDigest.getInstance("SHA-256");
      }
      byte[] want = new byte[64];
      long[] n = {0};
      op.prep.query(Db.NO_ARGS, rs -> {
        String key = rs.getString(1);
        String rand = rs.getString(2);
        String hash = rs.getString(3);
        if (!Scan.checkBench(sha, want, rand, hash)) {
          throw new Wrong(sc.name + " " + sc.keyCol + " " + key + ": hash mismatch: stored hash " + hash
              + " is not the SHA-256 of rand " + rand);
        }
        n[0]++;
      });
      long visible = t.claims.visible.get();
      if (n[0] < visible) {
        throw new Wrong("scan_verify read " + n[0] + " rows of " + sc.name + ", want at least " + visible);
      }
      return;
    }
    nargs = 2;
    if (op.kind == Program.OP_PAGINATE_OFFSET) {
      args[0] = op.page;
      args[1] = op.depth;
    } else {
      args[0] = sc.gen.cols[0].intValue(t.seed, op.depth - 1);
      args[1] = op.page;
    }
    got = 0;
    first = -1;
    op.prep.query(this, rs -> {
      if (first < 0) {
        first = rs.getLong(1);
      }
      got++;
    });
    long want = sc.gen.cols[0].intValue(t.seed, op.depth);
    if (first != want || got != op.page) {
      throw new Wrong(Program.OP_NAMES[op.kind] + ": the page starts at " + sc.keyCol + " " + first + " with " + got
          + " rows, want " + want + " with " + op.page);
    }
  }

  @Override
  void close() {
    if (cur != null) {
      cur.rollback();
      cur = null;
    }
  }
}
