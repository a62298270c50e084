package litebench.worker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;

/**
 * scan (internal/workload/read.go): read every bench row, re-hash rand and
 * compare with hash, as seed 000's reader does; reports the time until the
 * query returned, until the first row, and per row.
 */
final class Scan implements Workloads.Workload {
  static final String[] OPS = {"scan"};

  final long rows;
  final long seed;

  private Scan(long rows, long seed) {
    this.rows = rows;
    this.seed = seed;
  }

  static Workloads.Workload create(Map<String, String> p, Settings s) throws Settings.BadJob {
    long rows = Workloads.pInt(p, "rows", 1);
    long seed = Workloads.pSeed(p);
    return new Scan(rows, seed);
  }

  @Override
  public String[] ops() {
    return OPS;
  }

  @Override
  public void setup(Env env) throws Exception {
    ensureBench(env, rows, seed);
  }

  /** Makes sure the bench table holds exactly rows [0, rows); a table that does is reused. */
  static void ensureBench(Env env, long rows, long seed) throws Exception {
    Schema sc = Schema.ALL.get("bench");
    Db.Session s = env.session;
    if (s.count(sc.tableExists()) == 1) {
      long n = s.count("SELECT count(*) FROM " + sc.name);
      if (n == rows) {
        env.note("reused the " + n + " bench rows already in the database");
        return;
      }
      env.note("the " + sc.name + " table held " + n + " rows, not " + rows + ": it was dropped and loaded again");
      s.exec("DROP TABLE " + sc.name);
    }
    Insert.createSchema(s, sc);
    preload(env, sc, seed, rows);
  }

  /** Inserts rows [0, rows) of sc as set-up: prepared, retried until done, recorded nowhere. */
  static void preload(Env env, Schema sc, long seed, long rows) throws Exception {
    if (rows == 0) {
      return;
    }
    Env load = new Env(env.session, env.settings, false, env.stop);
    Insert.load(load, env.session.setup(),
        new Insert.Spec(sc, seed, 0, rows, 1, 10000, Math.min(100, Workloads.MAX_VARIABLES / sc.width())));
  }

  @Override
  public void run(Env env) throws Exception {
    Recorder rec = env.newRecorder(OPS);
    Db.Pool pool = env.session.reads;
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    byte[] want = new byte[64];
    long start = System.nanoTime();
    long returned = 0;
    long first = 0;
    long n = 0;
    long end;
    Connection c = pool.borrow();
    try (PreparedStatement ps = c.prepareStatement("SELECT ID, rand, hash FROM bench")) {
      try (ResultSet rs = ps.executeQuery()) {
        returned = System.nanoTime();
        while (rs.next()) {
          if (n == 0) {
            first = System.nanoTime();
          }
          long id = rs.getLong(1);
          String rand = rs.getString(2);
          String hash = rs.getString(3);
          if (!checkBench(sha, want, rand, hash)) {
            throw new Exception("row ID " + id + ": hash mismatch: stored hash " + hash
                + " is not the SHA-256 of rand " + rand);
          }
          n++;
          if ((n & 0xffff) == 0) {
            env.done.addAndGet(0x10000);
            if (env.stop.stopped()) {
              throw new Db.Cancelled();
            }
          }
        }
      }
    } finally {
      end = System.nanoTime();
      env.done.set(n);
      pool.release(c);
    }
    rec.observeN(0, n, end - start);
    env.figure("query_returned", "µs", "lower", (returned - start) / 1e3);
    if (n > 0) {
      env.figure("first_row", "µs", "lower", (first - start) / 1e3);
      env.figure("per_row", "µs", "lower", (end - start) / 1e3 / n);
    }
    if (n != rows && !env.attached) {
      throw new Exception("scan read " + n + " rows, want " + rows);
    }
  }

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** Whether hash is the lowercase hex SHA-256 of the bytes rand encodes in hex. */
  static boolean checkBench(MessageDigest sha, byte[] want, String rand, String hash) {
    if (rand == null || hash == null || rand.length() % 2 != 0 || hash.length() != 64) {
      return false;
    }
    int len = rand.length() / 2;
    sha.reset();
    for (int k = 0; k < len; k++) {
      int hi = Character.digit(rand.charAt(2 * k), 16);
      int lo = Character.digit(rand.charAt(2 * k + 1), 16);
      if (hi < 0 || lo < 0) {
        return false;
      }
      sha.update((byte) (hi << 4 | lo));
    }
    byte[] sum = sha.digest();
    for (int k = 0; k < 32; k++) {
      want[2 * k] = HEX[(sum[k] >> 4) & 15];
      want[2 * k + 1] = HEX[sum[k] & 15];
    }
    for (int k = 0; k < 64; k++) {
      if (hash.charAt(k) != want[k]) {
        return false;
      }
    }
    return true;
  }
}
