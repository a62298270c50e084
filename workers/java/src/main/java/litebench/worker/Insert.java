package litebench.worker;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The insert workload and the loader every workload uses to fill its table
 * (internal/workload/insert.go): rows [from, to) split among worker threads,
 * --batch rows per transaction, --rows-per-stmt rows per INSERT, busy
 * batches retried per --busy-retry, other expected errors counted.
 */
final class Insert implements Workloads.Workload {
  static final String[] OPS = {"insert", "begin", "commit"};
  static final int OP_INSERT = 0;
  static final int OP_BEGIN = 1;
  static final int OP_COMMIT = 2;

  final Schema schema;
  final long rows;
  final int workers;
  final long seed;
  final boolean vacuum;
  /** Every transaction is begun, even one of a single statement (a program run with a BEGIN mode). */
  boolean explicit;

  private Insert(Schema schema, long rows, int workers, long seed, boolean vacuum) {
    this.schema = schema;
    this.rows = rows;
    this.workers = workers;
    this.seed = seed;
    this.vacuum = vacuum;
  }

  /** The insert workload of a table: rows rows under seed by workers threads, then VACUUM if asked. */
  static Insert of(Schema schema, long rows, int workers, long seed, boolean vacuum) {
    return new Insert(schema, rows, workers, seed, vacuum);
  }

  static Workloads.Workload create(Map<String, String> p, Settings s) throws Settings.BadJob {
    Schema sc = Workloads.pSchema(p);
    long rows = Workloads.pInt(p, "rows", 1);
    int workers = Workloads.pThreads(p, "workers", 1);
    long seed = Workloads.pSeed(p);
    Workloads.checkRowsPerStmt(sc, s.integer("rows-per-stmt"));
    boolean vac = Workloads.pBool(p, "vacuum");
    Insert ins = new Insert(sc, rows, workers, seed, vac);
    ins.explicit = "immediate".equals(s.get("tx"));
    return ins;
  }

  @Override
  public String[] ops() {
    return OPS;
  }

  @Override
  public void setup(Env env) throws Exception {
    createSchema(env.session, schema);
  }

  static void createSchema(Db.Session sess, Schema sc) throws SQLException {
    for (String q : sc.create()) {
      try {
        sess.exec(q);
      } catch (SQLException e) {
        throw new SQLException("create " + sc.name + ": " + Db.message(e), e);
      }
    }
  }

  @Override
  public void run(Env env) throws Exception {
    Spec ls = new Spec(schema, seed, 0, rows, workers, env.settings.integer("batch"), env.settings.integer("rows-per-stmt"));
    ls.explicit = explicit;
    try {
      load(env, env.session, ls);
    } finally {
      env.markEnd(System.nanoTime());
    }
    if (vacuum) {
      long t = System.nanoTime();
      try {
        env.session.exec("VACUUM");
      } catch (SQLException e) {
        throw new SQLException("vacuum: " + Db.message(e), e);
      }
      env.figure("vacuum", "s", "lower", (System.nanoTime() - t) / 1e9);
    }
  }

  /** What load inserts and how. */
  static final class Spec {
    final Schema schema;
    final long seed;
    final long from;
    final long to;
    final int workers;
    final int batch;
    final int rowsPerStmt;
    /** Begin every transaction, even one of a single statement (a BEGIN mode was asked for). */
    boolean explicit;

    Spec(Schema schema, long seed, long from, long to, int workers, int batch, int rowsPerStmt) {
      this.schema = schema;
      this.seed = seed;
      this.from = from;
      this.to = to;
      this.workers = Math.max(workers, 1);
      this.rowsPerStmt = Math.max(rowsPerStmt, 1);
      // A transaction holds at least one whole statement.
      this.batch = Math.max(batch, this.rowsPerStmt);
    }
  }

  /** A failure that ends the run (not an expected, counted error). */
  static final class Failure extends Exception {
    Failure(String msg, Throwable cause) {
      super(msg, cause);
    }
  }

  /**
   * Inserts rows [from, to) with ls.workers threads through sess, recording
   * into fresh recorders of env. Throws the first error that makes the run
   * meaningless; busy, locked and constraint errors are counted instead.
   */
  static void load(Env env, Db.Session sess, Spec ls) throws Exception {
    long total = ls.to - ls.from;
    int n = ls.workers;
    Throwable[] errs = new Throwable[n];
    long[] excluded = new long[n];
    Recorder[] recs = new Recorder[n];
    for (int i = 0; i < n; i++) {
      recs[i] = env.newRecorder(OPS);
    }
    Db.Stop failed = new Db.Stop();
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      final int w = i;
      final long from = ls.from + total * w / n;
      final long to = ls.from + total * (w + 1) / n;
      threads[i] = new Thread(() -> {
        Inserter ins = new Inserter(env, sess, ls, recs[w], failed);
        try {
          ins.run(from, to);
        } catch (Throwable e) {
          errs[w] = e;
          if (!(e instanceof Db.Cancelled)) {
            failed.stop(); // one failed worker ends the run
          }
        } finally {
          excluded[w] = ins.excluded;
        }
      }, "insert-" + w);
      threads[i].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (n == 1) {
      env.excluded += excluded[0];
    }
    for (Throwable e : errs) {
      if (e != null && !(e instanceof Db.Cancelled)) {
        throw e instanceof Exception ? (Exception) e : new Exception(e);
      }
    }
    for (Throwable e : errs) {
      if (e != null) {
        throw (Exception) e;
      }
    }
  }

  /** One loader thread. */
  static final class Inserter implements Db.Binder {
    private final Env env;
    private final Db.Session sess;
    private final Db.Writer w;
    private final Spec ls;
    private final Recorder rec;
    private final Db.Stop failed;
    private final Map<Integer, Db.Stmt> stmts = new HashMap<>();
    private int hotK;
    private Db.Stmt hot;
    private RowSource src;
    private int bindRows;
    /** Nanoseconds spent generating rows inline, outside the measure. */
    long excluded;

    Inserter(Env env, Db.Session sess, Spec ls, Recorder rec, Db.Stop failed) {
      this.env = env;
      this.sess = sess;
      this.w = sess.writer();
      this.ls = ls;
      this.rec = rec;
      this.failed = failed;
    }

    private boolean stopped() {
      return env.stop.stopped() || failed.stopped();
    }

    /** The statement inserting k rows, prepared (or not, per the policy) the first time. */
    private Db.Stmt stmt(int k) throws SQLException {
      if (k == hotK && hot != null) {
        return hot;
      }
      Db.Stmt st = stmts.get(k);
      if (st == null) {
        st = sess.prepare(ls.schema.insert(k), true);
        stmts.put(k, st);
      }
      hotK = k;
      hot = st;
      return st;
    }

    void run(long from, long to) throws Exception {
      // One worker: generate inline and leave that time out of the
      // measurement. Several: generate ahead on another thread.
      src = ls.workers == 1 ? RowSource.inline(ls.schema, ls.seed, to) : RowSource.ahead(ls.schema, ls.seed, from, to);
      try {
        long batch = ls.batch;
        for (long start = from; start < to; start += batch) {
          if (stopped()) {
            throw new Db.Cancelled();
          }
          int n = (int) Math.min(batch, to - start);
          for (int attempt = 0; ; attempt++) {
            try {
              tx(start, n);
              env.done.addAndGet(n);
              if (env.ack != null) {
                env.ack.ack(start, n);
              }
              break;
            } catch (SQLException e) {
              if (stopped()) {
                throw new Db.Cancelled();
              }
              if (sess.again(e, attempt)) {
                rec.retry(OP_INSERT, 1);
                continue;
              }
              Db.ErrClass c = Db.classify(e);
              rec.error(OP_INSERT, c.kind);
              if (c.fatal()) {
                throw new Failure("insert rows " + start + "-" + (start + n - 1) + ": " + Db.message(e), e);
              }
              break; // the batch is lost and counted; the run goes on
            }
          }
        }
      } finally {
        excluded = src.generated();
        src.close();
        for (Db.Stmt st : stmts.values()) {
          st.close();
        }
      }
    }

    /** Inserts rows [start, start+n) in one transaction (or one autocommit statement). */
    private void tx(long start, int n) throws SQLException {
      int rps = ls.rowsPerStmt;
      long prev = System.nanoTime();
      if (n <= rps && !ls.explicit) {
        exec(start, n);
        rec.observeN(OP_INSERT, n, System.nanoTime() - prev);
        return;
      }
      // Prepare before BEGIN: with --pool 1 the transaction holds the only
      // connection, and preparing on the pool would wait for it.
      if (n % rps > 0) {
        stmt(n % rps);
      }
      stmt(rps);
      w.begin();
      long now = System.nanoTime();
      rec.observe(OP_BEGIN, now - prev);
      prev = now;
      for (int off = 0; off < n; off += rps) {
        int k = Math.min(rps, n - off);
        try {
          exec(start + off, k);
        } catch (SQLException e) {
          w.rollback();
          throw e;
        }
        now = System.nanoTime();
        rec.observeN(OP_INSERT, k, now - prev);
        prev = now;
      }
      w.commit();
      rec.observe(OP_COMMIT, System.nanoTime() - prev);
    }

    /** Inserts rows [i, i+k) in one statement, in the open transaction if there is one. */
    private void exec(long i, int k) throws SQLException {
      Db.Stmt st = stmt(k);
      src.rows(i, k);
      bindRows = k;
      w.exec(st, this);
    }

    @Override
    public void bind(PreparedStatement ps) throws SQLException {
      Schema sc = ls.schema;
      int width = sc.width();
      for (int r = 0; r < bindRows; r++) {
        Db.bindValues(ps, 1 + r * width, sc.gen.text, sc.allIdx, src.ints, src.strs, (src.off + r) * width);
      }
    }
  }

  /** Rows a loader has generated: a view of rows [i, i+n) after rows(i, n). */
  static final class RowSource {
    static final int CHUNK = 1024;

    private static final class Chunk {
      long start;
      int n;
      long[] ints;
      String[] strs;

      Chunk(int rows, int width) {
        ints = new long[rows * width];
        strs = new String[rows * width];
      }
    }

    private final Schema sc;
    private final long seed;
    private final long end;
    private final int width;
    private final boolean inline;
    private final Columns.RowGen gen;
    private long generated;
    private Chunk cur;
    private Chunk scratch;
    private BlockingQueue<Chunk> ch;
    private BlockingQueue<Chunk> free;
    private Thread producer;
    private volatile boolean closed;
    private static final Chunk EOF = new Chunk(0, 0);

    /** The view: row r of the requested range is at (off + r) · width in ints and strs. */
    long[] ints;
    String[] strs;
    int off;

    private RowSource(Schema sc, long seed, long end, boolean inline) {
      this.sc = sc;
      this.seed = seed;
      this.end = end;
      this.width = sc.width();
      this.inline = inline;
      this.gen = sc.gen.rowGen();
    }

    /** Generates on the caller's thread, a chunk at a time, timing it. */
    static RowSource inline(Schema sc, long seed, long end) {
      return new RowSource(sc, seed, end, true);
    }

    /** Generates rows [from, to) ahead on a thread of its own. */
    static RowSource ahead(Schema sc, long seed, long from, long to) {
      RowSource s = new RowSource(sc, seed, to, false);
      s.ch = new ArrayBlockingQueue<>(4);
      s.free = new ArrayBlockingQueue<>(6);
      for (int k = 0; k < 6; k++) {
        s.free.add(new Chunk(CHUNK, s.width));
      }
      Columns.RowGen g = sc.gen.rowGen();
      s.producer = new Thread(() -> s.produce(g, from, to), "rows");
      s.producer.setDaemon(true);
      s.producer.start();
      return s;
    }

    private void produce(Columns.RowGen g, long from, long to) {
      try {
        for (long i = from; i < to; ) {
          Chunk c = null;
          while (c == null) {
            if (closed) {
              return;
            }
            c = free.poll(100, TimeUnit.MILLISECONDS);
          }
          int n = (int) Math.min(CHUNK, to - i);
          c.start = i;
          c.n = n;
          for (int r = 0; r < n; r++) {
            g.row(seed, i + r, c.ints, c.strs, r * width);
          }
          while (!ch.offer(c, 100, TimeUnit.MILLISECONDS)) {
            if (closed) {
              return;
            }
          }
          i += n;
        }
        while (!ch.offer(EOF, 100, TimeUnit.MILLISECONDS)) {
          if (closed) {
            return;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Nanoseconds an inline source has spent generating. */
    long generated() {
      return generated;
    }

    void close() {
      closed = true;
    }

    private void fill(long i, int n) {
      long t = System.nanoTime();
      int rows = (int) Math.max(n, Math.min(CHUNK, end - i));
      if (cur == null || cur.ints.length < rows * width) {
        cur = new Chunk(rows, width);
      }
      cur.start = i;
      cur.n = rows;
      for (int r = 0; r < rows; r++) {
        gen.row(seed, i + r, cur.ints, cur.strs, r * width);
      }
      generated += System.nanoTime() - t;
    }

    private Chunk next() {
      if (cur != null) {
        free.offer(cur);
        cur = null;
      }
      try {
        Chunk c;
        do {
          c = ch.poll(100, TimeUnit.MILLISECONDS);
        } while (c == null && producer.isAlive());
        if (c == null || c == EOF) {
          ch.offer(EOF);
          return null;
        }
        cur = c;
        return c;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    private void view(Chunk c, long i) {
      ints = c.ints;
      strs = c.strs;
      off = (int) (i - c.start);
    }

    /** Makes rows [i, i+n) the view. */
    void rows(long i, int n) {
      if (inline) {
        if (cur == null || i < cur.start || i + n > cur.start + cur.n) {
          fill(i, n);
        }
        view(cur, i);
        return;
      }
      // Sequential access: move the pipeline forward to the chunk holding i.
      while (cur == null || i >= cur.start + cur.n) {
        if (next() == null) {
          break;
        }
      }
      Chunk c = cur;
      if (c != null && i >= c.start && i + n <= c.start + c.n) {
        view(c, i);
        return;
      }
      if (scratch == null || scratch.ints.length < n * width) {
        scratch = new Chunk(n, width);
      }
      int k = 0;
      // Straddling chunks: copy the tail of this one and the head of the next.
      while (c != null && k < n && i + k >= c.start) {
        long lo = i + k;
        if (lo >= c.start + c.n) {
          c = next();
          continue;
        }
        int take = (int) Math.min(n - k, c.start + c.n - lo);
        int from = (int) (lo - c.start) * width;
        System.arraycopy(c.ints, from, scratch.ints, k * width, take * width);
        System.arraycopy(c.strs, from, scratch.strs, k * width, take * width);
        k += take;
      }
      // Out of order (a retry) or past the stream: generate inline.
      for (; k < n; k++) {
        gen.row(seed, i + k, scratch.ints, scratch.strs, k * width);
      }
      scratch.start = i;
      scratch.n = n;
      view(scratch, i);
    }
  }
}
