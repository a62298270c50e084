import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
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
 * bench table (ID, 8 random bytes in hex, their SHA-256 in hex). The rows are
 * generated before the clock starts, as compact bytes (the loop makes each
 * row's two strings). Prints rows/s.
 *
 * Usage: java -cp litebench-worker.jar:DIR PlainInsert DB [ROWS]
 */
public final class PlainInsert {
  static final int WIDTH = 16 + 64;

  /** ROWS rows of rand (16 hex characters) and hash (64), back to back. */
  static byte[] rows(int rows) throws Exception {
    byte[] all = new byte[rows * WIDTH];
    SplittableRandom rnd = new SplittableRandom(1);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    HexFormat hex = HexFormat.of();
    byte[] b = new byte[8];
    for (int i = 0; i < rows; i++) {
      rnd.nextBytes(b);
      String r = hex.formatHex(b) + hex.formatHex(sha.digest(b));
      System.arraycopy(r.getBytes(StandardCharsets.US_ASCII), 0, all, i * WIDTH, WIDTH);
    }
    return all;
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
    byte[] data = rows(rows);
    try (HikariDataSource ds = pool(path); Connection c = ds.getConnection()) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)");
      }
      long t0 = System.nanoTime();
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)")) {
        c.setAutoCommit(false);
        for (int i = 0; i < rows; i++) {
          ps.setLong(1, i);
          ps.setString(2, new String(data, i * WIDTH, 16, StandardCharsets.ISO_8859_1));
          ps.setString(3, new String(data, i * WIDTH + 16, 64, StandardCharsets.ISO_8859_1));
          ps.executeUpdate();
          if ((i + 1) % 1000 == 0 || i == rows - 1) {
            c.commit();
          }
        }
        c.setAutoCommit(true);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf("%.0f%n", rows / s);
    }
  }
}
