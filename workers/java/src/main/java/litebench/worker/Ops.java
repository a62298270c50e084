package litebench.worker;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * read, write and mixed (internal/workload/ops.go): point reads by primary
 * key and single-row (or --batch-row) inserts, updates or upserts, in closed
 * loop (--workers, --readers/--writers) or open loop (--rate).
 */
final class Ops implements Workloads.Workload {
  static final String[] OPS = {"read", "write"};
  static final int OP_READ = 0;
  static final int OP_WRITE = 1;

  final String name;
  final Schema schema;
  final long rows;
  final String keys;
  final double theta;
  final String kind;
  int readers;
  int writers;
  double ratio;
  final LoadGen.Config cfg;
  final long seed;
  final int batch;
  final Gen.Zipf zipf;

  private Ops(String name, Schema schema, long rows, String keys, double theta, String kind, LoadGen.Config cfg, long seed,
      int batch, Gen.Zipf zipf) {
    this.name = name;
    this.schema = schema;
    this.rows = rows;
    this.keys = keys;
    this.theta = theta;
    this.kind = kind;
    this.cfg = cfg;
    this.seed = seed;
    this.batch = batch;
    this.zipf = zipf;
  }

  static void checkKeys(String kind, double theta) throws Settings.BadJob {
    if (!Gen.KEYS_UNIFORM.equals(kind) && !Gen.KEYS_ZIPFIAN.equals(kind) && !Gen.KEYS_LATEST.equals(kind)) {
      throw new Settings.BadJob("--keys " + Text.quote(kind) + ": want uniform, zipfian or latest");
    }
    if (!(theta > 0 && theta < 1)) {
      throw new Settings.BadJob("--zipf-theta " + Text.goFloat(theta)
          + ": want a number between 0 and 1 (exclusive; YCSB uses 0.99)");
    }
  }

  static Workloads.Workload create(String name, Map<String, String> p, Settings s) throws Settings.BadJob {
    int batch = s.integer("batch");
    Schema sc = Workloads.pSchema(p);
    long rows = Workloads.pInt(p, "rows", 0);
    long seed = Workloads.pSeed(p);
    String keys = p.get("keys");
    double theta = Workloads.parseFloat(p.get("zipf-theta"));
    if (Double.isNaN(theta) && !p.get("zipf-theta").toLowerCase(java.util.Locale.ROOT).endsWith("nan")) {
      throw new Settings.BadJob("--zipf-theta " + Text.quote(p.get("zipf-theta")) + ": want a number between 0 and 1");
    }
    checkKeys(keys, theta);
    String kind = p.get("write-kind");
    if (kind == null || kind.isEmpty()) {
      kind = "insert";
    }
    if (!kind.equals("insert") && !kind.equals("update") && !kind.equals("upsert")) {
      throw new Settings.BadJob("--write-kind " + Text.quote(kind) + ": want insert, update or upsert");
    }
    LoadGen.Config c = loadConfig(p, seed);
    int readers = 0;
    int writers = 0;
    double ratio = 0;
    switch (name) {
      case "read":
        readers = Workloads.pThreads(p, "workers", 1);
        break;
      case "write":
        writers = Workloads.pThreads(p, "workers", 1);
        ratio = 100;
        break;
      default:
        readers = Workloads.pThreads(p, "readers", 0);
        writers = Workloads.pThreads(p, "writers", 0);
        ratio = Workloads.pFloat(p, "write-ratio", 0, 100);
        if (c.rate == 0 && readers + writers == 0) {
          throw new Settings.BadJob("--readers 0 --writers 0: nothing to run; give at least one reader or writer");
        }
    }
    if ((readers > 0 || !kind.equals("insert")) && rows == 0 && (!name.equals("write") || !kind.equals("insert"))) {
      throw new Settings.BadJob("--rows 0: reads and updates need rows to pick from; load some with --rows N");
    }
    Gen.Zipf zipf = Gen.KEYS_UNIFORM.equals(keys) ? null : new Gen.Zipf(Math.max(rows, 1), theta);
    Ops w = new Ops(name, sc, rows, keys, theta, kind, c, seed, batch, zipf);
    w.readers = readers;
    w.writers = writers;
    w.ratio = ratio;
    if (c.rate > 0) {
      final double rt = ratio;
      c.choose = seq -> Gen.writeOp(seed, seq, rt) ? OP_WRITE : OP_READ;
    } else {
      int[] roles = new int[readers + writers];
      for (int i = 0; i < roles.length; i++) {
        roles[i] = i < readers ? OP_READ : OP_WRITE;
      }
      c.roles = roles;
    }
    return w;
  }

  /** The load-model parameters every operation workload shares. */
  static LoadGen.Config loadConfig(Map<String, String> p, long seed) throws Settings.BadJob {
    LoadGen.Config c = new LoadGen.Config();
    c.ops = OPS;
    c.seed = seed;
    c.duration = Workloads.pDuration(p, "duration");
    c.warmup = Workloads.pDuration(p, "warmup");
    c.count = Workloads.pInt(p, "count", 0);
    if (c.count > 0) {
      c.duration = 0;
    } else if (c.duration <= 0) {
      throw new Settings.BadJob("--duration " + p.get("duration") + ": want a positive duration, or set --count");
    }
    c.rate = Workloads.pFloat(p, "rate", 0, 1e9);
    String arr = p.get("arrivals");
    if (!"uniform".equals(arr) && !"poisson".equals(arr)) {
      throw new Settings.BadJob("--arrivals " + Text.quote(arr) + ": want uniform or poisson");
    }
    c.poisson = "poisson".equals(arr);
    c.maxInflight = Workloads.pThreads(p, "max-inflight", 1);
    return c;
  }

  /** How many threads the run may have at once. */
  int concurrency() {
    return cfg.rate > 0 ? cfg.maxInflight : readers + writers;
  }

  @Override
  public String[] ops() {
    return OPS;
  }

  @Override
  public void setup(Env env) throws Exception {
    Insert.createSchema(env.session, schema);
    try {
      Scan.preload(env, schema, seed, rows);
    } catch (Exception e) {
      throw new Exception("loading " + rows + " rows: " + Db.message(e), e);
    }
    env.figure("table_rows_before", "rows", "", rows);
  }

  private String writeSQL() {
    switch (kind) {
      case "update":
        return schema.update();
      case "upsert":
        return schema.upsert();
      default:
        return schema.insert(1);
    }
  }

  /** What the executors of one run share; nothing in it is locked per operation. */
  static final class Shared {
    Ops w;
    Db.Session sess;
    Claims keys;
    Db.Stmt read;
    Db.Stmt write;
    Env.Ack ack;
  }

  @Override
  public void run(Env env) throws Exception {
    Db.Session sess = env.session;
    LoadGen.Config c = cfg;
    Shared sh = new Shared();
    sh.w = this;
    sh.sess = sess;
    sh.keys = new Claims(rows, c.rate > 0 ? c.maxInflight : c.roles.length);
    sh.read = sess.prepare(schema.select(), false);
    if (writers > 0 || ratio > 0) {
      sh.write = sess.prepare(writeSQL(), true);
    }
    sh.ack = env.ack;
    c.classify = err -> err instanceof Missing ? "missing" : Db.classify(err).kind;
    c.newExecutor = i -> new Exec(sh, i);
    Exception[] err = {null};
    try {
      runLoad(env, c, OPS, err);
    } finally {
      sh.read.close();
      if (sh.write != null) {
        sh.write.close();
      }
    }
    long n = sh.keys.next.get();
    if (n > rows) {
      env.figure("rows_inserted", "rows", "", n - rows);
    }
    // The table's row count after the run, as seed 004 prints it (not measured).
    try {
      env.figure("table_rows_after", "rows", "", sess.count("SELECT count(*) FROM " + schema.name));
    } catch (Exception e) {
      // leave it out
    }
    if (err[0] != null) {
      throw err[0];
    }
  }

  /**
   * Runs the load engine for a workload (internal/workload: RunLoad): its
   * recorders feed the interval events, the measured start and end are
   * env's, and a run at a rate adds its figures. err[0] gets what ended the
   * run early (a cancel or a fatal error).
   */
  static LoadGen.Stats runLoad(Env env, LoadGen.Config c, String[] ops, Exception[] err) {
    c.stop = env.stop;
    c.done = env.done;
    c.newRecorder = () -> env.newLiveRecorder(ops);
    c.onMeasure = env::markStart;
    if (c.warmup > 0) {
      env.markStart(Env.UNSET); // the engine marks the end of the warm-up
    }
    LoadGen.Stats st;
    try {
      st = LoadGen.run(c);
    } catch (LoadGen.Stopped e) {
      st = e.stats;
      err[0] = new Db.Cancelled();
    } catch (LoadGen.Failed e) {
      st = e.stats;
      err[0] = new Exception(e.getMessage(), e.getCause());
    }
    env.markEnd(st.end);
    if (c.rate > 0) {
      env.figure("wanted_rate", "ops/s", "", c.rate);
      if (st.lag != null && st.lag.getTotalCount() > 0) {
        env.figure("sched_lag_p99", "µs", "", Hist.valueAtQuantile(st.lag, 99) / 1e3);
      }
      double el = (st.end - st.start) / 1e9;
      if (el > 0) {
        env.figure("issued_rate", "ops/s", "", st.issued / el);
      }
      env.figure("executors", "executors", "", st.executors);
    }
    return st;
  }

  /** A read that found no row where one was expected. */
  static final class Missing extends Exception {
    Missing(String msg) {
      super("row not found: " + msg);
    }
  }

  /**
   * The row indexes of inserts, claimed without a lock: each writer claims
   * its rows with one atomic add and publishes its insert in flight in a slot
   * of its own; reads pick rows below the oldest insert still in flight.
   */
  static final class Claims {
    static final long IDLE = Long.MAX_VALUE;
    private static final int STRIDE = 16; // a slot per 128 bytes
    final AtomicLong next;
    final AtomicLong visible;
    private final AtomicLongArray slots;
    private final int n;

    Claims(long rows, int executors) {
      next = new AtomicLong(rows);
      visible = new AtomicLong(rows);
      n = Math.max(executors, 1);
      slots = new AtomicLongArray(n * STRIDE);
      for (int i = 0; i < n; i++) {
        slots.set(i * STRIDE, IDLE);
      }
    }

    int size() {
      return n;
    }

    long claim(int slot, int k) {
      // Publish a lower bound of the claim before making it.
      slots.set(slot * STRIDE, next.get());
      long first = next.addAndGet(k) - k;
      slots.set(slot * STRIDE, first);
      return first;
    }

    void release(int slot) {
      slots.set(slot * STRIDE, IDLE);
      long lo = next.get();
      for (int i = 0; i < n; i++) {
        lo = Math.min(lo, slots.get(i * STRIDE));
      }
      for (long v = visible.get(); lo > v && !visible.compareAndSet(v, lo); v = visible.get()) {
        // retry
      }
    }
  }

  private static final int BIND_KEY = 0;
  private static final int BIND_ROW = 1;
  private static final int BIND_UPDATE = 2;

  /** One worker's reads and writes. */
  static final class Exec extends LoadGen.Executor implements Db.Binder, Db.Rows {
    private final Shared sh;
    private final Ops w;
    private final Schema sc;
    private final int slot;
    private final Gen.KeyGen keys;
    private final Columns.RowGen gen;
    private final long[] ints;
    private final String[] strs;
    private final long[] idx;
    private final Db.Writer writer;
    private final boolean[] text;
    private boolean found;
    private int mode;
    private long keyInt;
    private String keyStr;
    // Read results, kept as a client would.
    private final long[] gotInts;
    private final String[] gotStrs;

    Exec(Shared sh, int i) throws Exception {
      if (i >= sh.keys.size()) {
        throw new Exception("executor " + i + " past the " + sh.keys.size() + " planned");
      }
      this.sh = sh;
      this.w = sh.w;
      this.sc = w.schema;
      this.slot = i;
      this.keys = new Gen.KeyGen(w.keys, w.zipf, w.seed, i);
      this.gen = sc.gen.rowGen();
      this.ints = new long[sc.width()];
      this.strs = new String[sc.width()];
      this.gotInts = new long[sc.width()];
      this.gotStrs = new String[sc.width()];
      this.idx = new long[Math.max(w.batch, 1)];
      this.writer = sh.sess.writer();
      this.text = sc.gen.text;
    }

    @Override
    int run(int op) {
      if (op == OP_READ) {
        try {
          read();
        } catch (Throwable e) {
          error = e;
        }
        return 0;
      }
      return write();
    }

    /** Sets the key of row i (under seed) to bind. */
    private void key(long i) {
      if (sc.intKey()) {
        keyInt = gen.intValue(0, w.seed, i);
      } else {
        keyStr = gen.text(0, w.seed, i);
      }
    }

    private void bindKey(PreparedStatement ps, int at) throws SQLException {
      if (sc.intKey()) {
        ps.setLong(at, keyInt);
      } else {
        ps.setString(at, keyStr);
      }
    }

    private void read() throws Exception {
      long i = keys.next(sh.keys.visible.get());
      key(i);
      mode = BIND_KEY;
      found = false;
      try {
        sh.read.query(this, this);
      } catch (SQLException e) {
        throw classify(e);
      }
      if (!found) {
        throw new Missing(sc.name + " " + sc.keyCol + " = " + (sc.intKey() ? Long.toString(keyInt) : keyStr));
      }
    }

    @Override
    public void row(ResultSet rs) throws SQLException {
      found = true;
      for (int c = 0; c < text.length; c++) {
        if (text[c]) {
          gotStrs[c] = rs.getString(c + 1);
        } else {
          gotInts[c] = rs.getLong(c + 1);
        }
      }
    }

    /** Passes expected errors on to be counted; anything else ends the run. */
    private Exception classify(Exception e) {
      if (Db.classify(e).fatal()) {
        return new LoadGen.Fatal(e);
      }
      return e;
    }

    /** One write: --batch rows in one transaction (or one autocommit statement), retried per --busy-retry. */
    private int write() {
      boolean insert = w.kind.equals("insert");
      // The rows are chosen once, so a retry writes the same rows.
      if (insert) {
        long first = sh.keys.claim(slot, idx.length);
        for (int k = 0; k < idx.length; k++) {
          idx[k] = first + k;
        }
      } else {
        long span = sh.keys.visible.get();
        if (w.kind.equals("upsert")) {
          span += span / 10; // some upserts insert
        }
        for (int k = 0; k < idx.length; k++) {
          idx[k] = keys.next(span);
        }
      }
      try {
        for (int retries = 0; ; retries++) {
          try {
            writeOnce();
            if (sh.ack != null) {
              sh.ack.ack(idx[0], idx.length);
            }
            return retries;
          } catch (Exception e) {
            if (!sh.sess.again(e, retries)) {
              error = classify(e);
              return retries;
            }
          }
        }
      } finally {
        if (insert) {
          sh.keys.release(slot);
        }
      }
    }

    private void writeOnce() throws SQLException {
      if (idx.length == 1) {
        execWrite(idx[0]);
        return;
      }
      writer.begin();
      for (long i : idx) {
        try {
          execWrite(i);
        } catch (SQLException e) {
          writer.rollback();
          throw e;
        }
      }
      writer.commit();
    }

    /** Writes row i: its values (for an update, those of row i under seed+1, keyed by row i's key). */
    private void execWrite(long i) throws SQLException {
      if (w.kind.equals("update")) {
        gen.row(w.seed + 1, i, ints, strs, 0);
        key(i);
        mode = BIND_UPDATE;
      } else {
        gen.row(w.seed, i, ints, strs, 0);
        mode = BIND_ROW;
      }
      writer.exec(sh.write, this);
    }

    @Override
    public void bind(PreparedStatement ps) throws SQLException {
      switch (mode) {
        case BIND_KEY:
          bindKey(ps, 1);
          return;
        case BIND_ROW:
          Db.bindValues(ps, 1, text, sc.allIdx, ints, strs, 0);
          return;
        default:
          Db.bindValues(ps, 1, text, sc.updIdx, ints, strs, 0);
          bindKey(ps, 1 + sc.updIdx.length);
      }
    }
  }
}
