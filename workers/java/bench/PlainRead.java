import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.SplittableRandom;

/**
 * The plain loop the Java worker's point reads are compared with. It loads
 * ROWS bench rows as the worker's set-up does (100-row INSERTs in
 * 10,000-row transactions, WAL, synchronous=OFF), then, on one connection
 * from HikariCP with one prepared SELECT by primary key, reads rows by ids
 * drawn uniformly, each result to its end: WARMUP seconds unmeasured (the
 * JIT's), then SECONDS measured. Prints reads per second of wall time and per second of the
 * process's CPU time over the measured part.
 *
 * Usage: java -cp litebench-worker.jar:DIR PlainRead DB ROWS [SECONDS [WARMUP]]
 */
public final class PlainRead {
  /** The last row read, kept as a client would. */
  static long id;

  static String rand;
  static String hash;

  /**
   * Reads row key: binds it, runs the query and reads every row of the
   * result to its end, each column, as the worker reads them. Whether the
   * row was there.
   */
  static boolean read(PreparedStatement ps, long key) throws SQLException {
    ps.setLong(1, key);
    boolean found = false;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        id = rs.getLong(1);
        rand = rs.getString(2);
        hash = rs.getString(3);
        found = true;
      }
    }
    return found;
  }

  public static void main(String[] args) throws Exception {
    String path = args[0];
    int rows = Integer.parseInt(args[1]);
    double secs = args.length > 2 ? Double.parseDouble(args[2]) : 10;
    double warm = args.length > 3 ? Double.parseDouble(args[3]) : 0;
    try (HikariDataSource ds = PlainInsert.pool(path); Connection c = ds.getConnection()) {
      load(c, rows);
      try (PreparedStatement ps = c.prepareStatement("SELECT ID,rand,hash FROM bench WHERE ID = ?")) {
        SplittableRandom rnd = new SplittableRandom(1);
        // The warm-up runs the same reads, so the measured part runs
        // compiled code, as the worker's does after its warm-up.
        long warmEnd = System.nanoTime() + (long) (warm * 1e9);
        while (System.nanoTime() < warmEnd) {
          read(ps, rnd.nextLong(rows));
        }
        long n = 0;
        long found = 0;
        long t0 = System.nanoTime();
        long c0 = PlainInsert.cpuNanos();
        long end = t0 + (long) (secs * 1e9);
        long now = t0;
        while (now < end) {
          if (read(ps, rnd.nextLong(rows))) {
            found++;
          }
          n++;
          now = System.nanoTime();
        }
        if (found != n) {
          throw new IllegalStateException(found + " of " + n + " reads found their row");
        }
        double cpu = (PlainInsert.cpuNanos() - c0) / 1e9;
        System.out.printf("%.0f %.0f%n", n / ((now - t0) / 1e9), n / cpu);
      }
    }
  }

  static void load(Connection c, int rows) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)");
    }
    StringBuilder q = new StringBuilder("INSERT INTO bench(ID,rand,hash) VALUES ");
    for (int r = 0; r < 100; r++) {
      q.append(r > 0 ? ",(?,?,?)" : "(?,?,?)");
    }
    PlainInsert.Rows gen = new PlainInsert.Rows();
    String[] vals = new String[200];
    try (PreparedStatement ps = c.prepareStatement(q.toString())) {
      c.setAutoCommit(false);
      for (int i = 0; i < rows; ) {
        int k = Math.min(100, rows - i);
        PreparedStatement st = k == 100 ? ps : c.prepareStatement(q.substring(0, q.length() - 8 * (100 - k)));
        gen.next(vals, k);
        for (int r = 0; r < k; r++, i++) {
          st.setLong(3 * r + 1, i);
          st.setString(3 * r + 2, vals[2 * r]);
          st.setString(3 * r + 3, vals[2 * r + 1]);
        }
        st.executeUpdate();
        if (st != ps) {
          st.close();
        }
        if (i % 10000 == 0 || i == rows) {
          c.commit();
        }
      }
      c.setAutoCommit(true);
    }
  }
}
