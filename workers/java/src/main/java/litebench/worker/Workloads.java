package litebench.worker;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The workloads this worker runs (insert, scan, read, write, mixed), with the
 * Go workloads' parameters, defaults and checks (internal/workload), so that a
 * job is refused here exactly when the Go worker refuses it.
 */
final class Workloads {
  private Workloads() {}

  /** One kind of benchmark. */
  interface Workload {
    String[] ops();

    /** Creates the schema and loads data; not measured. */
    void setup(Env env) throws Exception;

    /** The measured part. */
    void run(Env env) throws Exception;

    /** The transaction op kind op is a statement of ("" for an op of its own). */
    default String partOf(int op) {
      return "";
    }
  }

  interface Factory {
    Workload create(Map<String, String> p, Settings s) throws Settings.BadJob;
  }

  static final class Spec {
    final String name;
    final Map<String, String> params;
    final Map<String, String> settingDefaults;
    final Factory factory;

    Spec(String name, Map<String, String> params, Map<String, String> settingDefaults, Factory factory) {
      this.name = name;
      this.params = params;
      this.settingDefaults = settingDefaults;
      this.factory = factory;
    }
  }

  static final Map<String, Spec> SPECS = new LinkedHashMap<>();

  private static Map<String, String> params(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  /** The parameters every operation workload shares. */
  private static final String[] LOAD_PARAMS = {
    "rows", "10000", "schema", "bench", "keys", "uniform", "zipf-theta", "0.99", "duration", "10s", "count", "0",
    "warmup", "0s", "rate", "0", "arrivals", "uniform", "max-inflight", "100", "seed", "1"
  };

  private static Map<String, String> withLoad(String... own) {
    Map<String, String> m = params(own);
    m.putAll(params(LOAD_PARAMS));
    return m;
  }

  static {
    SPECS.put("insert", new Spec("insert",
        params("rows", "100000", "schema", "bench", "workers", "1", "seed", "1", "vacuum", "false"), Map.of(),
        Insert::create));
    SPECS.put("scan", new Spec("scan", params("rows", "1000000", "seed", "1"), Map.of(), Scan::create));
    SPECS.put("read", new Spec("read", withLoad("workers", "1"), Map.of("batch", "1"),
        (p, s) -> Ops.create("read", p, s)));
    SPECS.put("write", new Spec("write", withLoad("workers", "1", "write-kind", "insert"), Map.of("batch", "1"),
        (p, s) -> Ops.create("write", p, s)));
    SPECS.put("mixed", new Spec("mixed",
        withLoad("readers", "1", "writers", "1", "write-ratio", "10", "write-kind", "insert"), Map.of("batch", "1"),
        (p, s) -> Ops.create("mixed", p, s)));
  }

  static Spec get(String name) throws Settings.BadJob {
    Spec s = SPECS.get(name);
    if (s == null) {
      throw new Settings.BadJob("workload " + Text.quote(name) + " is not supported by java-sqlite-jdbc (it runs: "
          + String.join(", ", List.copyOf(SPECS.keySet())) + ")");
    }
    return s;
  }

  // Parameter helpers shared by the workloads (the Go workloads' wording).

  static long pInt(Map<String, String> p, String name, long lo) throws Settings.BadJob {
    String v = p.get(name);
    long n;
    try {
      n = Settings.parseSize(v);
    } catch (Settings.BadJob e) {
      n = Long.MIN_VALUE;
    }
    if (n < lo) {
      throw new Settings.BadJob("--" + name + " " + Text.quote(v) + ": want a whole number of at least " + lo);
    }
    return n;
  }

  /** The most threads a parameter may ask for (each is a Java thread). */
  static final int MAX_THREADS = 1 << 16;

  /** A count of threads: pInt, and at most MAX_THREADS. */
  static int pThreads(Map<String, String> p, String name, long lo) throws Settings.BadJob {
    long n = pInt(p, name, lo);
    if (n > MAX_THREADS) {
      throw new Settings.BadJob("--" + name + " " + n + ": at most " + MAX_THREADS + " threads");
    }
    return (int) n;
  }

  static Schema pSchema(Map<String, String> p) throws Settings.BadJob {
    Schema s = Schema.ALL.get(p.get("schema"));
    if (s == null) {
      List<String> names = new java.util.ArrayList<>(Schema.ALL.keySet());
      java.util.Collections.sort(names);
      throw new Settings.BadJob("--schema " + Text.quote(p.get("schema")) + ": unknown schema (known: "
          + String.join(", ", names) + ")");
    }
    return s;
  }

  private static final Pattern UINT = Pattern.compile("[0-9]+");

  static long pSeed(Map<String, String> p) throws Settings.BadJob {
    String v = p.get("seed");
    try {
      if (UINT.matcher(v).matches()) {
        return Long.parseUnsignedLong(v);
      }
    } catch (NumberFormatException e) {
      // out of range
    }
    throw new Settings.BadJob("--seed " + Text.quote(v) + ": want a non-negative whole number");
  }

  private static final Pattern FLOAT =
      Pattern.compile("[+-]?(\\d+\\.?\\d*([eE][+-]?\\d+)?|\\.\\d+([eE][+-]?\\d+)?|(?i:inf|infinity|nan))");

  /** strconv.ParseFloat's decimal forms; NaN when v is not one. */
  static double parseFloat(String v) {
    if (v == null || !FLOAT.matcher(v).matches()) {
      return Double.NaN;
    }
    String l = v.toLowerCase(Locale.ROOT);
    if (l.endsWith("inf") || l.endsWith("infinity")) {
      return l.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    if (l.endsWith("nan")) {
      return Double.NaN;
    }
    return Double.parseDouble(v);
  }

  static double pFloat(Map<String, String> p, String name, double lo, double hi) throws Settings.BadJob {
    double f = parseFloat(p.get(name));
    if (Double.isNaN(f) || f < lo || f > hi) {
      throw new Settings.BadJob("--" + name + " " + Text.quote(p.get(name)) + ": want a number from "
          + Text.goFloat(lo) + " to " + Text.goFloat(hi));
    }
    return f;
  }

  static long pDuration(Map<String, String> p, String name) throws Settings.BadJob {
    try {
      long d = Text.parseDuration(p.get(name));
      if (d >= 0) {
        return d;
      }
    } catch (IllegalArgumentException e) {
      // below
    }
    throw new Settings.BadJob("--" + name + " " + Text.quote(p.get(name)) + ": want a duration such as 500ms, 10s or 2m");
  }

  static boolean pBool(Map<String, String> p, String name) throws Settings.BadJob {
    switch (p.get(name)) {
      case "1":
      case "t":
      case "T":
      case "TRUE":
      case "true":
      case "True":
        return true;
      case "0":
      case "f":
      case "F":
      case "FALSE":
      case "false":
      case "False":
        return false;
      default:
        throw new Settings.BadJob("--" + name + " " + Text.quote(p.get(name)) + ": want true or false");
    }
  }

  /** The bound-parameter limit rows per statement are checked against (SQLite's default since 3.32). */
  static final int MAX_VARIABLES = 32766;

  static void checkRowsPerStmt(Schema sc, int rps) throws Settings.BadJob {
    long n = (long) rps * sc.width();
    if (n > MAX_VARIABLES) {
      throw new Settings.BadJob("--rows-per-stmt " + rps + " × " + sc.width() + " columns of " + sc.name + " = " + n
          + " bound variables, past SQLite's limit of " + MAX_VARIABLES + "; use --rows-per-stmt "
          + (MAX_VARIABLES / sc.width()) + " or less");
    }
  }
}
