package litebench.worker;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteException;
import org.sqlite.jdbc4.JDBC4Connection;

/**
 * The client: sqlite-jdbc connections, each opened with the run's pragmas,
 * behind a HikariCP pool, and the application-side policy litebench applies
 * the same way for every client (internal/target/session.go): the pool size, a
 * connection per operation, a single writer connection, a write mutex,
 * prepared statements (prepared once per connection and reused) and busy
 * retries.
 */
final class Db {
  private Db() {}

  /** How the run is stopped: a cancel or a fatal error elsewhere. */
  static final class Stop {
    private volatile boolean stopped;
    private volatile long at;

    void stop() {
      if (!stopped) {
        at = System.nanoTime();
        stopped = true;
      }
    }

    boolean stopped() {
      return stopped;
    }

    /** When stop was first called (nanoTime). */
    long at() {
      return at;
    }
  }

  /** Work abandoned because the run was stopped. */
  static final class Cancelled extends SQLException {
    Cancelled() {
      super("interrupted: the run was stopped");
    }
  }

  /** The kind of a failed statement (internal/engine's classes). */
  enum ErrClass {
    BUSY("busy"),
    LOCKED("locked"),
    CONSTRAINT("constraint"),
    CONN("connection"),
    INTERRUPTED("interrupted"),
    OTHER("other");

    final String kind;

    ErrClass(String kind) {
      this.kind = kind;
    }

    boolean retryable() {
      return this == BUSY || this == LOCKED;
    }

    /** Whether the error makes a run's numbers meaningless (the others are counted). */
    boolean fatal() {
      return this == CONN || this == OTHER;
    }
  }

  /** SQLite's result code (primary or extended) as an error class. */
  static ErrClass ofCode(int code) {
    switch (code & 0xff) {
      case 5:
        return ErrClass.BUSY;
      case 6:
        return ErrClass.LOCKED;
      case 9:
        return ErrClass.INTERRUPTED;
      case 14:
        return ErrClass.CONN;
      case 19:
        return ErrClass.CONSTRAINT;
      default:
        return ErrClass.OTHER;
    }
  }

  static ErrClass classify(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof Cancelled) {
        return ErrClass.INTERRUPTED;
      }
      if (t instanceof SQLiteException) {
        return ofCode(((SQLiteException) t).getResultCode().code);
      }
    }
    return ErrClass.OTHER;
  }

  /** A one-line description of an error. */
  static String message(Throwable e) {
    String m = e.getMessage();
    if (m == null) {
      m = e.getClass().getSimpleName();
    }
    return m.replace('\n', ' ');
  }

  /** A sqlite-jdbc connection that keeps its prepared statements for reuse. */
  static final class LbConnection extends JDBC4Connection {
    private PreparedStatement[] cache = new PreparedStatement[8];
    private final Set<LbConnection> open;

    LbConnection(String url, String fileName, Properties props, Set<LbConnection> open) throws SQLException {
      super(url, fileName, props);
      this.open = open;
    }

    @Override
    public void close() throws SQLException {
      open.remove(this);
      super.close();
    }

    /**
     * Closes this connection's copy of st, if it has one: after the threads
     * that ran st are done with it (sqlite-jdbc serialises the close with
     * whatever the connection's holder runs meanwhile).
     */
    void drop(Stmt st) {
      PreparedStatement[] cache = this.cache;
      if (st.id < cache.length && cache[st.id] != null) {
        try {
          cache[st.id].close();
        } catch (SQLException | RuntimeException e) {
          // gone with the connection
        }
        cache[st.id] = null;
      }
    }

    /**
     * st prepared on this connection: once and kept when st is prepared, else
     * afresh (close it). Only the thread holding the connection calls it.
     */
    PreparedStatement statement(Stmt st) throws SQLException {
      if (!st.prepared) {
        return prepareStatement(st.sql);
      }
      if (st.id >= cache.length) {
        cache = Arrays.copyOf(cache, Math.max(cache.length * 2, st.id + 1));
      }
      PreparedStatement ps = cache[st.id];
      if (ps == null) {
        ps = prepareStatement(st.sql);
        cache[st.id] = ps;
      }
      return ps;
    }
  }

  /**
   * Opens sqlite-jdbc connections to one database and runs the pragmas on
   * each, in order, before anyone uses it; counts them.
   */
  static final class Source implements DataSource {
    final String uri;
    final Properties props;
    final List<String> init;
    final AtomicLong opened = new AtomicLong();
    /** The connections open now, for closing a statement on each. */
    final Set<LbConnection> open = ConcurrentHashMap.newKeySet();

    Source(String uri, boolean immediate, List<String> init) {
      this.uri = uri;
      SQLiteConfig cfg = new SQLiteConfig();
      cfg.setTransactionMode(immediate ? SQLiteConfig.TransactionMode.IMMEDIATE : SQLiteConfig.TransactionMode.DEFERRED);
      this.props = cfg.toProperties();
      this.init = init;
    }

    @Override
    public LbConnection getConnection() throws SQLException {
      LbConnection c = new LbConnection("jdbc:sqlite:" + uri, uri, props, open);
      for (String q : init) {
        try (Statement st = c.createStatement()) {
          if (st.execute(q)) {
            try (ResultSet rs = st.getResultSet()) {
              while (rs.next()) {
                // step the pragma to completion
              }
            }
          }
        } catch (SQLException e) {
          c.close();
          throw new SQLException(q + ": " + message(e), e.getSQLState(), e.getErrorCode(), e);
        }
      }
      opened.incrementAndGet();
      open.add(c);
      return c;
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 5; // how long HikariCP waits for its connection adder when it shuts down
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }

  /** How long one wait for a pooled connection lasts before the run's stop is looked at. */
  private static final long BORROW_WAIT_MS = 500;

  private static final AtomicInteger POOLS = new AtomicInteger();

  /** A HikariCP pool over a Source. */
  static final class Pool {
    final HikariDataSource ds;
    final HikariPool hp;
    final boolean perOp;
    final Stop stop;

    /** max is Hikari's maximumPoolSize; perOp closes every connection after one use. */
    Pool(Source src, int max, boolean perOp, Stop stop) {
      HikariConfig c = new HikariConfig();
      c.setDataSource(src);
      c.setPoolName("litebench-" + POOLS.incrementAndGet());
      c.setMaximumPoolSize(max);
      // Connections are opened when needed and kept for the run, as a
      // database/sql pool does: no minimum to keep filled, no retirement.
      c.setMinimumIdle(0);
      c.setIdleTimeout(0);
      c.setMaxLifetime(0);
      c.setKeepaliveTime(0);
      c.setInitializationFailTimeout(-1);
      c.setAutoCommit(true);
      this.ds = new HikariDataSource(c);
      this.hp = (HikariPool) ds.getHikariPoolMXBean();
      this.perOp = perOp;
      this.stop = stop;
    }

    /** A pooled connection; waits for one as long as the run goes on. */
    Connection borrow() throws SQLException {
      for (; ; ) {
        try {
          return hp.getConnection(BORROW_WAIT_MS);
        } catch (SQLTransientConnectionException e) {
          if (e.getCause() != null) {
            throw new SQLException("opening a connection: " + message(e.getCause()), e.getCause());
          }
          if (stop.stopped()) {
            throw new Cancelled();
          }
        }
      }
    }

    /** Gives c back to the pool (with conn-per-op: closes it). */
    void release(Connection c) {
      if (perOp) {
        ds.evictConnection(c);
        return;
      }
      try {
        c.close();
      } catch (SQLException e) {
        // the pool has evicted it
      }
    }

    void close() {
      ds.close();
    }
  }

  /** Binds a statement's parameters. */
  interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  static final Binder NO_ARGS = ps -> {};

  /**
   * Binds the values of a row's columns cols, from parameter at on: column c
   * is text (strs[base+c]) when text[c], else an integer (ints[base+c]).
   */
  static void bindValues(PreparedStatement ps, int at, boolean[] text, int[] cols, long[] ints, String[] strs, int base)
      throws SQLException {
    for (int c : cols) {
      if (text[c]) {
        ps.setString(at++, strs[base + c]);
      } else {
        ps.setLong(at++, ints[base + c]);
      }
    }
  }

  /** Receives each row of a query. */
  interface Rows {
    void row(ResultSet rs) throws Exception;
  }

  /** The application side of a run (internal/target: Policy). */
  static final class Policy {
    final int maxOpen;
    final boolean connPerOp;
    final boolean immediate;
    final boolean prepared;
    final boolean singleWriter;
    final boolean writeMutex;
    final int retries;

    Policy(int maxOpen, boolean connPerOp, boolean immediate, boolean prepared, boolean singleWriter, boolean writeMutex, int retries) {
      this.maxOpen = maxOpen;
      this.connPerOp = connPerOp;
      this.immediate = immediate;
      this.prepared = prepared;
      this.singleWriter = singleWriter;
      this.writeMutex = writeMutex;
      this.retries = retries;
    }

    static Policy of(Settings s) {
      return new Policy(s.integer("pool"), s.bool("conn-per-op"), "immediate".equals(s.get("tx")), s.bool("prepared"),
          "single".equals(s.get("writer")), s.bool("write-mutex"), s.busyRetries());
    }
  }

  /** A statement of a session: prepared once per connection, or ad hoc every time. */
  static final class Stmt {
    private static final AtomicInteger IDS = new AtomicInteger();
    final String sql;
    final int id = IDS.getAndIncrement();
    final Pool pool;
    final Source src;
    final boolean prepared;

    Stmt(String sql, Pool pool, Source src, boolean prepared) {
      this.sql = sql;
      this.pool = pool;
      this.src = src;
      this.prepared = prepared;
    }

    /** Releases the statement on every connection that prepared it. */
    void close() {
      for (LbConnection c : src.open) {
        c.drop(this);
      }
    }

    void exec(Binder b) throws SQLException {
      Connection c = pool.borrow();
      try {
        PreparedStatement ps = c.unwrap(LbConnection.class).statement(this);
        try {
          b.bind(ps);
          ps.executeUpdate();
        } finally {
          if (!prepared) {
            ps.close();
          }
        }
      } finally {
        pool.release(c);
      }
    }

    void query(Binder b, Rows rows) throws Exception {
      run(b, rows, false);
    }

    /** Runs any statement, handing the rows it returns, if any, to rows. */
    void execute(Binder b, Rows rows) throws Exception {
      run(b, rows, true);
    }

    private void run(Binder b, Rows rows, boolean any) throws Exception {
      Connection c = pool.borrow();
      try {
        PreparedStatement ps = c.unwrap(LbConnection.class).statement(this);
        try {
          b.bind(ps);
          each(ps, rows, any);
        } finally {
          if (!prepared) {
            ps.close();
          }
        }
      } finally {
        pool.release(c);
      }
    }
  }

  /**
   * Runs a bound statement and hands each row to rows: a query, or (any)
   * whatever statement, returning rows or not (sqlite-jdbc refuses an
   * update that returns rows, and a query that returns none).
   */
  static void each(PreparedStatement ps, Rows rows, boolean any) throws Exception {
    if (any) {
      if (ps.execute()) {
        try (ResultSet rs = ps.getResultSet()) {
          while (rs.next()) {
            rows.row(rs);
          }
        }
      }
      return;
    }
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.row(rs);
      }
    }
  }

  /** What a session opens its pools with. */
  static final class Target {
    final String uri;
    final List<String> pragmas;
    final int unlimited;
    final Stop stop;

    /** unlimited is the pool size that stands for pool 0 (no limit). */
    Target(String uri, List<String> pragmas, int unlimited, Stop stop) {
      this.uri = uri;
      this.pragmas = pragmas;
      this.unlimited = unlimited;
      this.stop = stop;
    }
  }

  /** A workload's view of the database: the pools and the policy. */
  static final class Session {
    final Target t;
    final Policy p;
    final Source src;
    final Pool reads;
    private final Shared shared;

    private static final class Shared {
      volatile Pool writer;
      volatile Source writerSrc;
      final ReentrantLock wmu = new ReentrantLock();
    }

    Session(Target t, Policy p) {
      this.t = t;
      this.p = p;
      this.src = new Source(t.uri, p.immediate, t.pragmas);
      this.reads = new Pool(src, p.maxOpen > 0 ? p.maxOpen : t.unlimited, p.connPerOp, t.stop);
      this.shared = new Shared();
    }

    private Session(Session s, Policy p) {
      this.t = s.t;
      this.p = p;
      this.src = s.src;
      this.reads = s.reads;
      this.shared = s.shared;
    }

    /**
     * The session for loading data before the measured part: prepared,
     * retried until done, on the pool, without single writer or mutex.
     */
    Session setup() {
      return new Session(this, new Policy(p.maxOpen, p.connPerOp, p.immediate, true, false, false, -1));
    }

    /** Connections the pools have opened. */
    long opened() {
      Source w = shared.writerSrc;
      return src.opened.get() + (w == null ? 0 : w.opened.get());
    }

    void close() {
      Pool w = shared.writer;
      if (w != null) {
        w.close();
      }
      reads.close();
    }

    /** The pool writes go to: the single writer's (opened the first time) or the shared one. */
    Pool writes() {
      if (!p.singleWriter) {
        return reads;
      }
      Pool w = shared.writer;
      if (w != null) {
        return w;
      }
      synchronized (shared) {
        if (shared.writer == null) {
          Source ws = new Source(t.uri, p.immediate, t.pragmas);
          shared.writerSrc = ws;
          shared.writer = new Pool(ws, 1, false, t.stop);
        }
        return shared.writer;
      }
    }

    boolean again(Throwable err, int retries) {
      return classify(err).retryable() && (p.retries < 0 || retries < p.retries);
    }

    /** Readies sql for the read or the write side (prepared on one connection now, when prepared). */
    Stmt prepare(String sql, boolean write) throws SQLException {
      Pool pool = write ? writes() : reads;
      Stmt st = new Stmt(sql, pool, pool == reads ? src : shared.writerSrc, p.prepared);
      if (p.prepared) {
        Connection c = pool.borrow();
        try {
          c.unwrap(LbConnection.class).statement(st);
        } finally {
          pool.release(c);
        }
      }
      return st;
    }

    /** Runs sql once on the pool (set-up statements). */
    void exec(String sql) throws SQLException {
      Connection c = reads.borrow();
      try (Statement st = c.createStatement()) {
        if (st.execute(sql)) {
          try (ResultSet rs = st.getResultSet()) {
            while (rs.next()) {
              // step to completion
            }
          }
        }
      } finally {
        reads.release(c);
      }
    }

    /** Runs a query once on the pool and hands every row to rows. */
    void query(String sql, Binder b, Rows rows) throws Exception {
      Connection c = reads.borrow();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        b.bind(ps);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.row(rs);
          }
        }
      } finally {
        reads.release(c);
      }
    }

    /** The first column of every row of sql. */
    List<String> strings(String sql) throws Exception {
      List<String> out = new java.util.ArrayList<>();
      query(sql, NO_ARGS, rs -> out.add(rs.getString(1)));
      return out;
    }

    long count(String sql) throws Exception {
      long[] n = {0};
      query(sql, NO_ARGS, rs -> n[0] = rs.getLong(1));
      return n[0];
    }

    Writer writer() {
      return new Writer(this, false);
    }

    /** A Writer for transactions that only read: on the read pool, outside the write mutex. */
    Writer reader() {
      return new Writer(this, true);
    }
  }

  /**
   * One worker's writes under the session's policy: on the writer's pool,
   * behind the write mutex when there is one (held from begin to commit or
   * rollback, or for one autocommit statement). A transaction is
   * sqlite-jdbc's: setAutoCommit(false) begins it (BEGIN or BEGIN IMMEDIATE,
   * the connection's transaction mode), setAutoCommit(true) commits it.
   */
  static final class Writer {
    private final Session s;
    private final boolean read;
    private Pool txPool;
    private Connection tx;
    private LbConnection raw;
    private boolean locked;

    Writer(Session s, boolean read) {
      this.s = s;
      this.read = read;
    }

    private void lock() {
      if (s.p.writeMutex && !locked && !read) {
        s.shared.wmu.lock();
        locked = true;
      }
    }

    private void unlock() {
      if (locked) {
        locked = false;
        s.shared.wmu.unlock();
      }
    }

    void begin() throws SQLException {
      if (tx != null) {
        throw new SQLException("a transaction is already open");
      }
      lock();
      Pool pool = null;
      Connection c = null;
      try {
        pool = read ? s.reads : s.writes();
        c = pool.borrow();
        LbConnection r = c.unwrap(LbConnection.class);
        try {
          r.setAutoCommit(false);
        } catch (SQLException e) {
          // BEGIN failed (busy): no transaction is open.
          r.getConnectionConfig().setAutoCommit(true);
          throw e;
        }
        txPool = pool;
        tx = c;
        raw = r;
      } catch (SQLException | RuntimeException e) {
        if (c != null) {
          pool.release(c);
        }
        unlock();
        throw e;
      }
    }

    /** Runs st with b: in the open transaction, or on its own. */
    void exec(Stmt st, Binder b) throws SQLException {
      try {
        run(st, b, null, false);
      } catch (SQLException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new SQLException(message(e), e); // only rows throw others
      }
    }

    /** Runs query st with b, handing every row to rows: in the open transaction, or on its own. */
    void query(Stmt st, Binder b, Rows rows) throws Exception {
      run(st, b, rows, false);
    }

    /** Runs any statement st with b, handing the rows it returns, if any, to rows. */
    void execute(Stmt st, Binder b, Rows rows) throws Exception {
      run(st, b, rows, true);
    }

    /** Runs st: a query (any: whatever statement) when rows is given, else an update. */
    private void run(Stmt st, Binder b, Rows rows, boolean any) throws Exception {
      if (tx == null) {
        lock();
        try {
          if (rows == null) {
            st.exec(b);
          } else {
            st.run(b, rows, any);
          }
        } finally {
          unlock();
        }
        return;
      }
      PreparedStatement ps = raw.statement(st);
      try {
        b.bind(ps);
        if (rows == null) {
          ps.executeUpdate();
        } else {
          each(ps, rows, any);
        }
      } finally {
        if (!st.prepared) {
          ps.close();
        }
      }
    }

    void commit() throws SQLException {
      end(true);
    }

    void rollback() {
      try {
        end(false);
      } catch (SQLException e) {
        // the transaction is gone either way
      }
    }

    private void end(boolean commit) throws SQLException {
      if (tx == null) {
        throw new SQLException("no transaction is open");
      }
      try {
        if (commit) {
          try {
            raw.setAutoCommit(true);
          } catch (SQLException e) {
            // SQLite may leave the transaction open after a failed COMMIT
            // (busy): roll it back, as database/sql's drivers do.
            quietRollback(raw);
            throw e;
          }
        } else {
          quietRollback(raw);
        }
      } finally {
        raw.getConnectionConfig().setAutoCommit(true);
        txPool.release(tx);
        tx = null;
        raw = null;
        txPool = null;
        unlock();
      }
    }

    private static void quietRollback(LbConnection r) {
      try {
        r.getDatabase().exec("rollback;", false);
      } catch (SQLException e) {
        // no transaction was open
      }
    }
  }
}
