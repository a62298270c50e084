import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.lang.management.ManagementFactory;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The plain loop the Java worker's insert is compared with: sqlite-jdbc
 * behind HikariCP, WAL and synchronous=OFF through sqlite-jdbc's own config,
 * one connection, one prepared INSERT, 1000-row transactions
 * (setAutoCommit(false) … commit()), one row per statement, into seed 000's
 * bench table (ID, 8 random bytes in hex, their SHA-256 in hex). Each batch's
 * rows are generated just before the batch and that time is left out, as the
 * worker generates its rows as it goes and leaves that time out (so both
 * sides compile their generators while measured). Prints rows per second of
 * wall time and per second of the process's CPU time (user and system, every
 * thread: the JIT's and the collector's too), over the same part.
 *
 * Usage: java -cp litebench-worker.jar:DIR PlainInsert DB [ROWS]
 */
public final class PlainInsert {
  static final int BATCH = 1000;

  /** Makes bench rows: rand (8 random bytes in hex) and hash (their SHA-256 in hex). */
  static final class Rows {
    private final SplittableRandom rnd = new SplittableRandom(1);
    private final MessageDigest sha;
    private final HexFormat hex = HexFormat.of();
    private final byte[] b = new byte[8];

    Rows() throws Exception {
      sha = MessageDigest.getInstance("SHA-256");
    }

    /** The next n rows' rand and hash, into out[2r] and out[2r+1]. */
    void next(String[] out, int n) {
      for (int r = 0; r < n; r++) {
        rnd.nextBytes(b);
        out[2 * r] = hex.formatHex(b);
        out[2 * r + 1] = hex.formatHex(sha.digest(b));
      }
    }
  }

  /** The CPU time of this process so far (every thread), in nanoseconds. */
  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  static HikariDataSource pool(String path) {
    SQLiteConfig cfg = new SQLiteConfig();
    cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
    cfg.setSynchronous(SQLiteConfig.SynchronousMode.OFF);
    SQLiteDataSource sds = new SQLiteDataSource(cfg);
    sds.setUrl("jdbc:sqlite:" + path);
    HikariConfig hc = new HikariConfig();
    hc.setDataSource(sds);
    hc.setMaximumPoolSize(1);
    return new HikariDataSource(hc);
  }

  public static void main(String[] args) throws Exception {
    String path = args[0];
    int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Rows gen = new Rows();
    try (HikariDataSource ds = pool(path); Connection c = ds.getConnection()) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)");
      }
      long t0 = System.nanoTime();
      long c0 = cpuNanos();
      long generating = 0;
      String[] batch = new String[2 * BATCH];
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)")) {
        c.setAutoCommit(false);
        for (int i = 0; i < rows; i += BATCH) {
          int n = Math.min(BATCH, rows - i);
          // Each batch's rows are generated just before it and that time
          // is left out, as the worker leaves its generation out.
          long g = System.nanoTime();
          gen.next(batch, n);
          generating += System.nanoTime() - g;
          for (int r = 0; r < n; r++) {
            ps.setLong(1, i + r);
            ps.setString(2, batch[2 * r]);
            ps.setString(3, batch[2 * r + 1]);
            ps.executeUpdate();
          }
          c.commit();
        }
        c.setAutoCommit(true);
      }
      long wall = System.nanoTime() - t0;
      double s = (wall - generating) / 1e9;
      // The inserting share of the CPU time: as much of it as of the wall
      // time (generation's wall time is no measure of its CPU time on a busy
      // machine, and the worker reports generation as wall time only).
      double cpu = (cpuNanos() - c0) / 1e9 * (wall - generating) / wall;
      System.out.printf("%.0f %.0f%n", rows / s, rows / cpu);
    }
  }
}
