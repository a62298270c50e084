import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.SplittableRandom;

/**
 * The plain loop the Java worker's point reads are compared with. It loads
 * ROWS bench rows as the worker's set-up does (100-row INSERTs in
 * 10,000-row transactions, WAL, synchronous=OFF), then, on one connection
 * from HikariCP with one prepared SELECT by primary key, reads rows by ids
 * drawn uniformly: WARMUP seconds unmeasured (the JIT's), then SECONDS
 * measured. Prints reads/s.
 *
 * Usage: java -cp litebench-worker.jar:DIR PlainRead DB ROWS [SECONDS [WARMUP]]
 */
public final class PlainRead {
  public static void main(String[] args) throws Exception {
    String path = args[0];
    int rows = Integer.parseInt(args[1]);
    double secs = args.length > 2 ? Double.parseDouble(args[2]) : 10;
    double warm = args.length > 3 ? Double.parseDouble(args[3]) : 0;
    byte[] data = PlainInsert.rows(rows);
    try (HikariDataSource ds = PlainInsert.pool(path); Connection c = ds.getConnection()) {
      load(c, data, rows);
      try (PreparedStatement ps = c.prepareStatement("SELECT ID,rand,hash FROM bench WHERE ID = ?")) {
        SplittableRandom rnd = new SplittableRandom(1);
        long warmEnd = System.nanoTime() + (long) (warm * 1e9);
        while (System.nanoTime() < warmEnd) {
          ps.setLong(1, rnd.nextLong(rows));
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
          }
        }
        long n = 0;
        long found = 0;
        long t0 = System.nanoTime();
        long end = t0 + (long) (secs * 1e9);
        long now = t0;
        while (now < end) {
          ps.setLong(1, rnd.nextLong(rows));
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              rs.getLong(1);
              rs.getString(2);
              rs.getString(3);
              found++;
            }
          }
          n++;
          now = System.nanoTime();
        }
        if (found != n) {
          throw new IllegalStateException(found + " of " + n + " reads found their row");
        }
        System.out.printf("%.0f%n", n / ((now - t0) / 1e9));
      }
    }
  }

  static void load(Connection c, byte[] data, int rows) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)");
    }
    StringBuilder q = new StringBuilder("INSERT INTO bench(ID,rand,hash) VALUES ");
    for (int r = 0; r < 100; r++) {
      q.append(r > 0 ? ",(?,?,?)" : "(?,?,?)");
    }
    try (PreparedStatement ps = c.prepareStatement(q.toString())) {
      c.setAutoCommit(false);
      for (int i = 0; i < rows; ) {
        int k = Math.min(100, rows - i);
        PreparedStatement st = k == 100 ? ps : c.prepareStatement(q.substring(0, q.length() - 8 * (100 - k)));
        for (int r = 0; r < k; r++, i++) {
          st.setLong(3 * r + 1, i);
          st.setString(3 * r + 2, new String(data, i * PlainInsert.WIDTH, 16, StandardCharsets.ISO_8859_1));
          st.setString(3 * r + 3, new String(data, i * PlainInsert.WIDTH + 16, 64, StandardCharsets.ISO_8859_1));
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
