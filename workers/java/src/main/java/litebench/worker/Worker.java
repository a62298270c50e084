package litebench.worker;

import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs one job (internal/worker: Local): set-up (open the database with the
 * settings, stamp it, read back what SQLite runs, set the workload up, digest
 * it), then the measured run with interval events, acks and the final event.
 */
final class Worker {
  static final String TARGET = "java-sqlite-jdbc";

  /** Sends protocol events. */
  interface Out {
    void send(JsonObject ev);
  }

  final Db.Stop stop;
  private Job job;
  private Workloads.Workload wl;
  private Db.Session sess;
  private Connection keep;
  private Env env;

  Worker(Db.Stop stop) {
    this.stop = stop;
  }

  /** A job as the controller sends it. */
  static final class Job {
    String runId = "";
    String workload = "";
    Map<String, String> params = new LinkedHashMap<>();
    Map<String, String> settings = new LinkedHashMap<>();
    String target = "";
    String path = "";
    long intervalNs;
    boolean acks;
    boolean attach;
    boolean digest;
    /** A workload program (docs/workload-program.md), or null for a built-in workload. */
    JsonObject program;
    Settings s;

    static Job of(JsonObject o) {
      Job j = new Job();
      j.runId = str(o, "run_id");
      j.workload = str(o, "workload");
      j.target = str(o, "target");
      j.path = str(o, "path");
      j.params = strings(o.get("params"));
      j.settings = strings(o.get("settings"));
      JsonValue iv = o.get("interval_ns");
      j.intervalNs = iv != null && iv.isNumber() ? iv.asLong() : 0;
      j.acks = bool(o, "acks");
      j.attach = bool(o, "attach");
      j.digest = bool(o, "digest");
      JsonValue pv = o.get("program");
      j.program = pv != null && pv.isObject() ? pv.asObject() : null;
      return j;
    }

    private static String str(JsonObject o, String k) {
      JsonValue v = o.get(k);
      return v != null && v.isString() ? v.asString() : "";
    }

    private static boolean bool(JsonObject o, String k) {
      JsonValue v = o.get(k);
      return v != null && v.isBoolean() && v.asBoolean();
    }

    private static Map<String, String> strings(JsonValue v) {
      Map<String, String> m = new LinkedHashMap<>();
      if (v != null && v.isObject()) {
        for (JsonObject.Member x : v.asObject()) {
          m.put(x.getName(), x.getValue().isString() ? x.getValue().asString() : x.getValue().toString());
        }
      }
      return m;
    }
  }

  /** Builds the job's workload with its parameters and settings, defaults filled in. */
  static Workloads.Workload resolve(Job j) throws Settings.BadJob {
    Workloads.Spec spec = j.program != null ? null : Workloads.get(j.workload);
    Settings s = new Settings();
    if (spec != null) {
      for (Map.Entry<String, String> e : spec.settingDefaults.entrySet()) {
        s.set(e.getKey(), e.getValue());
      }
    }
    for (Map.Entry<String, String> e : j.settings.entrySet()) {
      if (!Settings.known(e.getKey())) {
        throw new Settings.BadJob("job: unknown setting " + Text.quote(e.getKey()) + " (see 'litebench list settings')");
      }
      try {
        s.set(e.getKey(), e.getValue());
      } catch (Settings.BadJob x) {
        throw new Settings.BadJob("job: " + x.getMessage());
      }
    }
    if (!j.target.isEmpty() && !j.target.equals(TARGET)) {
      throw new Settings.BadJob("target " + Text.quote(j.target) + " is not this worker's: it runs " + TARGET);
    }
    if (spec == null) {
      // A workload program: its parameters are resolved into it already.
      Workloads.Workload w = Program.create(j.program, s);
      j.settings = s.map();
      j.s = s;
      return w;
    }
    Map<String, String> p = new LinkedHashMap<>(spec.params);
    for (Map.Entry<String, String> e : j.params.entrySet()) {
      if (!p.containsKey(e.getKey())) {
        throw new Settings.BadJob("job: workload " + j.workload + " has no parameter " + Text.quote(e.getKey()));
      }
      p.put(e.getKey(), e.getValue());
    }
    Workloads.Workload w = spec.factory.create(p, s);
    j.params = p;
    j.settings = s.map();
    j.s = s;
    return w;
  }

  /** How many threads the job may run at once. */
  private static int concurrency(Workloads.Workload w, Job j) {
    if (w instanceof Ops) {
      return ((Ops) w).concurrency();
    }
    if (w instanceof Insert) {
      return ((Insert) w).workers;
    }
    if (w instanceof Program) {
      return ((Program) w).concurrency();
    }
    return 1;
  }

  JsonObject setup(Job j) throws Exception {
    if (job != null) {
      throw new Settings.BadJob("worker: setup twice");
    }
    Workloads.Workload w = resolve(j);
    Settings s = j.s;
    boolean memory = s.bool("in-memory");
    if (!memory) {
      if (j.path.isEmpty()) {
        throw new Settings.BadJob("job: no path: name the bench database");
      }
      Own.check(j.path, j.attach);
    }
    long t0 = System.nanoTime();
    String name = memory ? "litebench-" + j.runId : j.path;
    String uri = "file:" + Own.escape(name);
    if (memory) {
      uri += "?mode=memory&cache=shared";
    } else if (s.bool("shared-cache")) {
      uri += "?cache=shared";
    }
    int unlimited = Math.max(1024, concurrency(w, j) + 2);
    Db.Target t = new Db.Target(uri, s.pragmas(), unlimited, stop);
    Db.Session sess;
    try {
      sess = new Db.Session(t, Db.Policy.of(s));
      if (memory) {
        // Hold one connection for the run so the in-memory database lives.
        keep = sess.src.getConnection();
      } else {
        sess.reads.release(sess.reads.borrow());
      }
    } catch (SQLException e) {
      throw new Exception("open " + name + " with " + TARGET + ": " + Db.message(e), e);
    }
    this.job = j;
    this.wl = w;
    this.sess = sess;
    this.env = new Env(sess, s, j.attach, stop);
    if (!j.attach && !memory) {
      try {
        sess.exec("PRAGMA application_id = " + Own.BENCH_APP_ID);
      } catch (SQLException e) {
        throw new Exception("mark " + name + ": " + Db.message(e), e);
      }
    }
    JsonObject ev = new JsonObject().add("t", "setup_done").add("client", TARGET).add("engine", "sqlite");
    List<String> v = sess.strings("select sqlite_version()");
    ev.add("engine_version", v.isEmpty() ? "" : v.get(0));
    JsonArray opts = new JsonArray();
    for (String o : sess.strings("PRAGMA compile_options")) {
      opts.add(o);
    }
    ev.add("compile_options", opts);
    List<String> jm = sess.strings("PRAGMA journal_mode");
    List<String> notes = new ArrayList<>();
    if (!jm.isEmpty()) {
      String got = jm.get(0).toLowerCase(Locale.ROOT);
      ev.add("journal_mode", got);
      String want = s.journal();
      if (!want.isEmpty() && !got.equals(want) && !memory) {
        notes.add("asked for journal_mode " + want + ", SQLite runs " + got);
      }
    }
    if (!j.attach) {
      try {
        w.setup(env);
      } catch (Exception e) {
        throw new Exception("setup: " + Db.message(e), e);
      }
    }
    if (j.digest) {
      try {
        ev.add("digest", digest(sess));
      } catch (Exception e) {
        throw new Exception("digest after setup: " + Db.message(e), e);
      }
    }
    ev.add("setup_ms", ((System.nanoTime() - t0) / 1000) / 1e3);
    if (!notes.isEmpty()) {
      ev.add("notes", array(notes));
    }
    env.done.set(0);
    return ev;
  }

  private static JsonArray array(List<String> xs) {
    JsonArray a = new JsonArray();
    for (String x : xs) {
      a.add(x);
    }
    return a;
  }

  /** Runs the job set up before and returns the final event; out gets intervals and acks. */
  JsonObject run(Out out) throws Exception {
    if (job == null) {
      throw new Settings.BadJob("worker: run before setup");
    }
    Job j = job;
    if (j.acks) {
      env.ack = (first, n) -> out.send(new JsonObject().add("t", "ack").add("seqs", new JsonArray().add(first))
          .add("rows", new JsonArray().add(n)));
    }
    env.intervals = j.intervalNs > 0;
    long start = System.nanoTime();
    env.markStart(start);
    Ticker ticker = j.intervalNs > 0 ? new Ticker(j.intervalNs, out) : null;
    if (ticker != null) {
      ticker.start();
    }
    Exception runErr = null;
    try {
      wl.run(env);
    } catch (Exception e) {
      runErr = e;
    }
    long end = env.end != Env.UNSET ? env.end : System.nanoTime();
    if (ticker != null) {
      ticker.finish();
    }
    if (env.start != Env.UNSET) {
      start = env.start;
    }
    JsonObject fin = new JsonObject().add("t", "final").add("status", "ok");
    fin.add("elapsed_s", (end - start - env.excluded) / 1e9);
    fin.add("done", env.done.get());
    fin.add("final_ops", Recorder.finalOps(wl.ops(), env.recorders, wl::partOf));
    JsonArray metrics = new JsonArray();
    for (JsonObject f : env.figures) {
      metrics.add(f);
    }
    double cores = env.processCpu();
    if (!Double.isNaN(cores)) {
      metrics.add(new JsonObject().add("name", "process_cpu").add("unit", "cores").add("value", cores));
    }
    if (env.excluded > 0) {
      metrics.add(new JsonObject().add("name", "generate").add("unit", "s").add("value", env.excluded / 1e9));
    }
    if (!metrics.isEmpty()) {
      fin.add("metrics", metrics);
    }
    if (!env.notes.isEmpty()) {
      fin.add("notes", array(env.notes));
    }
    fin.add("connections_opened", sess.opened());
    if (runErr == null && !stop.stopped() && j.digest) {
      try {
        fin.add("digest", digest(sess));
      } catch (Exception e) {
        runErr = new Exception("digest after run: " + Db.message(e), e);
      }
    }
    if (runErr != null && interrupted(runErr) || runErr == null && stop.stopped()) {
      fin.set("status", "interrupted");
    } else if (runErr != null) {
      fin.set("status", "failed");
      fin.add("error", Db.message(runErr));
    }
    return fin;
  }

  private static boolean interrupted(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof Db.Cancelled) {
        return true;
      }
    }
    return false;
  }

  /** Emits an interval event every period from the live recorders, once the measured part has started. */
  private final class Ticker extends Thread {
    private final long every;
    private final Out out;
    private volatile boolean done;
    private long last = Env.UNSET;

    Ticker(long every, Out out) {
      super("intervals");
      setDaemon(true);
      this.every = every;
      this.out = out;
    }

    /**
     * Sends what the live recorders saw since the last tick. The time is read
     * after the recorders were swapped, so an interval never ends before the
     * operations it holds (live recorders hold measured operations only).
     * The last tick, when the run has ended, is sent if it holds operations
     * or if it spans a tenth of a period, so that short runs have a series
     * too and the intervals add up to the final counts.
     */
    private void tick(boolean end) {
      String[] ops = wl.ops();
      Recorder.Interval[] iv = Recorder.takeInterval(ops.length, env.recorders);
      long now = System.nanoTime();
      long st = env.start;
      if (st == Env.UNSET || now - st < 0) {
        return; // warm-up
      }
      boolean any = false;
      for (int k = 0; k < iv.length; k++) {
        any = any || (iv[k].count > 0 || iv[k].errs > 0) && wl.partOf(k).isEmpty();
      }
      if (end && !any && last != Env.UNSET && now - last <= every / 10) {
        return;
      }
      long from = st;
      if (last != Env.UNSET && last - st > 0) {
        from = last;
      }
      last = now;
      JsonObject ev = new JsonObject().add("t", "interval").add("at_s", (now - st) / 1e9).add("span_s", (now - from) / 1e9)
          .add("done", env.done.get());
      JsonArray a = new JsonArray();
      for (int k = 0; k < iv.length; k++) {
        if (iv[k].count == 0 && iv[k].errs == 0 || !wl.partOf(k).isEmpty()) {
          continue;
        }
        JsonObject o = new JsonObject().add("name", ops[k]).add("n", iv[k].count);
        if (iv[k].errs > 0) {
          o.add("err", iv[k].errs);
        }
        String h = Hist.encode(iv[k].hist);
        if (!h.isEmpty()) {
          o.add("hist", h);
        }
        a.add(o);
      }
      if (!a.isEmpty()) {
        ev.add("ops", a);
      }
      out.send(ev);
    }

    @Override
    public void run() {
      long next = System.nanoTime() + every;
      while (!done) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          synchronized (this) {
            if (done) {
              break;
            }
            try {
              wait(Math.max(1, wait / 1_000_000), (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
              break;
            }
          }
          continue;
        }
        tick(false);
        next += every;
        long now = System.nanoTime();
        if (next - now < 0) {
          next = now + every - Math.floorMod(now - next, every); // skip missed ticks, as a ticker does
        }
      }
      tick(true);
    }

    void finish() {
      synchronized (this) {
        done = true;
        notifyAll();
      }
      boolean joined = false;
      while (!joined) {
        try {
          join();
          joined = true;
        } catch (InterruptedException e) {
          // wait on
        }
      }
    }
  }

  /** Closes the job's database. */
  void close() {
    if (sess != null) {
      sess.close();
      sess = null;
    }
    if (keep != null) {
      try {
        keep.close();
      } catch (SQLException e) {
        // closing anyway
      }
      keep = null;
    }
  }

  /**
   * The content digest (docs/worker-protocol.md): SHA-256 over, for every
   * table not named sqlite_* in name order, "table NAME\n" and then one line
   * per row, the quote() of its columns joined by commas, lines sorted.
   */
  static String digest(Db.Session s) throws Exception {
    List<String> tables = s.strings(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    MessageDigest h = MessageDigest.getInstance("SHA-256");
    for (String t : tables) {
      List<String> cols = new ArrayList<>();
      s.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", ps -> ps.setString(1, t),
          rs -> cols.add("quote(" + quoteIdent(rs.getString(1)) + ")"));
      h.update(("table " + t + "\n").getBytes(StandardCharsets.UTF_8));
      if (cols.isEmpty()) {
        continue;
      }
      String q = "SELECT " + String.join("||','||", cols) + " FROM " + quoteIdent(t) + " ORDER BY 1";
      s.query(q, Db.NO_ARGS, rs -> {
        byte[] line = rs.getBytes(1);
        if (line != null) {
          h.update(line);
        }
        h.update((byte) '\n');
      });
    }
    return "sha256:" + HexFormat.of().formatHex(h.digest());
  }

  private static String quoteIdent(String s) {
    return "\"" + s.replace("\"", "\"\"") + "\"";
  }
}
