package litebench.worker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * litebench's rule about the bench database (internal/own), checked again by
 * the worker before it opens a path a controller handed it: a path that does
 * not exist may be created; an existing one is used only if it is a regular
 * file that litebench made (a SQLite database with the bench application id
 * holding only the tables litebench creates), not open in another process.
 * Anything else is refused with one line naming the file and what to do.
 */
final class Own {
  private Own() {}

  static final int BENCH_APP_ID = 0x4c420002;
  static final int STORE_APP_ID = 0x4c420001;
  static final String[] COMPANIONS = {"-wal", "-shm", "-journal"};
  private static final String WHAT = "a bench database litebench created";
  private static final String FIX_NEW = "name a new file";

  private static BasicFileAttributes lstat(Path p) throws IOException {
    try {
      return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static String describe(Path p, BasicFileAttributes a) {
    if (a.isSymbolicLink()) {
      String to;
      try {
        to = Files.readSymbolicLink(p).toString();
      } catch (IOException e) {
        to = "?";
      }
      return (Files.exists(p) ? "a symbolic link (to " : "a dangling symbolic link (to ") + to + ")";
    }
    if (a.isDirectory()) {
      return "a directory";
    }
    return "not a regular file";
  }

  private static Settings.BadJob notRegular(Path p, BasicFileAttributes a, String what) {
    String fix = a.isSymbolicLink() ? "name a new file, or the file itself if litebench made it" : FIX_NEW;
    return new Settings.BadJob(p + " is " + describe(p, a) + ", not " + what + "; " + fix);
  }

  /**
   * Checks path before the worker creates or reuses it: false when it does
   * not exist, true when it exists and is litebench's; a BadJob otherwise.
   * shared: another litebench process owns it (attach), so it may be open.
   */
  static boolean check(String path, boolean shared) throws Settings.BadJob, IOException {
    Path p = Paths.get(path);
    BasicFileAttributes a = lstat(p);
    if (a == null) {
      for (String suf : COMPANIONS) {
        if (lstat(Paths.get(path + suf)) != null) {
          throw new Settings.BadJob(path + suf + " exists but " + path + " does not (a journal of another database?); "
              + "litebench will not create a database beside it: remove it yourself or name another file");
        }
      }
      return false;
    }
    if (!a.isRegularFile()) {
      throw notRegular(p, a, WHAT);
    }
    if (a.size() == 0) {
      throw new Settings.BadJob(path + " is an empty file, not " + WHAT + "; " + FIX_NEW);
    }
    for (String suf : COMPANIONS) {
      Path c = Paths.get(path + suf);
      BasicFileAttributes ca = lstat(c);
      if (ca != null && !ca.isRegularFile()) {
        throw notRegular(c, ca, "a SQLite journal");
      }
    }
    int appId = appId(p);
    if (appId != BENCH_APP_ID) {
      if (appId == STORE_APP_ID) {
        throw new Settings.BadJob(path + " is a litebench results store, not a bench database; " + FIX_NEW);
      }
      throw new Settings.BadJob(path + " is a SQLite database litebench did not create (application_id 0x"
          + Integer.toHexString(appId) + "); " + FIX_NEW);
    }
    if (!shared) {
      if (locked(Paths.get(path + "-shm"), 120, 9) || locked(p, 0x40000000L, 512)) {
        throw new Settings.BadJob(path + " is open in another process; name a new file, or wait until that process closes it");
      }
      hotJournal(path);
    }
    String foreign = foreign(path);
    if (foreign != null) {
      throw new Settings.BadJob(path + " holds " + foreign + " that litebench did not create; "
          + "litebench leaves it alone: name a new file, or remove it yourself");
    }
    return true;
  }

  /** The application id in the database header; refuses a file that is not a SQLite database. */
  private static int appId(Path p) throws Settings.BadJob, IOException {
    byte[] h = new byte[100];
    int n;
    try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
      n = in.readNBytes(h, 0, h.length);
    }
    byte[] magic = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
    for (int k = 0; k < magic.length; k++) {
      if (n < 100 || h[k] != magic[k]) {
        throw new Settings.BadJob(p + " is not a SQLite database; " + FIX_NEW);
      }
    }
    return ByteBuffer.wrap(h, 68, 4).getInt();
  }

  /** Whether another process holds a lock SQLite would take on bytes [start, start+n) of f. */
  private static boolean locked(Path f, long start, long n) throws IOException {
    BasicFileAttributes a = lstat(f);
    if (a == null || !a.isRegularFile()) {
      return false;
    }
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      FileLock l = ch.tryLock(start, n, false);
      if (l == null) {
        return true;
      }
      l.release();
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** Refuses a database whose rollback journal holds an unfinished transaction. */
  private static void hotJournal(String path) throws Settings.BadJob, IOException {
    Path j = Paths.get(path + "-journal");
    if (lstat(j) == null) {
      return;
    }
    byte[] b = new byte[8];
    int n;
    try (InputStream in = Files.newInputStream(j, LinkOption.NOFOLLOW_LINKS)) {
      n = in.readNBytes(b, 0, 8);
    }
    byte[] magic = {(byte) 0xd9, (byte) 0xd5, 0x05, (byte) 0xf9, 0x20, (byte) 0xa1, 0x63, (byte) 0xd7};
    if (n == 8 && java.util.Arrays.equals(b, magic)) {
      throw new Settings.BadJob(path + "-journal holds an unfinished transaction on " + path + "; open " + path
          + " once with sqlite3 to roll it back, or remove both yourself");
    }
  }

  /**
   * The first schema object that litebench does not create, as `table "x"`,
   * read through SQLite opened immutable (no lock, nothing created).
   */
  private static String foreign(String path) throws Settings.BadJob {
    String uri = "file:" + escape(path) + "?immutable=1&mode=ro";
    try (Connection c = new org.sqlite.jdbc4.JDBC4Connection("jdbc:sqlite:" + uri, uri, new Properties());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT type, name FROM sqlite_master ORDER BY rowid")) {
      while (rs.next()) {
        String type = rs.getString(1);
        String name = rs.getString(2);
        boolean tableOrIndex = "table".equals(type) || "index".equals(type);
        if (tableOrIndex && name.toLowerCase(java.util.Locale.ROOT).startsWith("sqlite_")) {
          continue;
        }
        if (tableOrIndex && Schema.isBenchObject(name)) {
          continue;
        }
        return type + " " + Text.quote(name);
      }
      return null;
    } catch (SQLException e) {
      throw new Settings.BadJob(path + " looks like a SQLite database but cannot be read (" + Db.message(e) + "); " + FIX_NEW);
    }
  }

  /** A path in a SQLite URI filename: '?', '#' and '%' escaped. */
  static String escape(String p) {
    StringBuilder b = new StringBuilder(p.length());
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '?' || c == '#' || c == '%') {
        b.append(String.format("%%%02X", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
