package litebench.worker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * litebench's settings (internal/settings and internal/engine/sqlite): their
 * defaults, their canonical forms, and SQLite's pragmas rendered in the order
 * the Go code renders them. A value that does not canonicalise is a
 * {@link BadJob} naming the setting and the fix.
 */
final class Settings {
  /** A job the worker refuses: one line naming the problem and the fix. */
  static final class BadJob extends Exception {
    BadJob(String msg) {
      super(msg);
    }
  }

  /** A canonicaliser: returns the canonical value or throws with the reason. */
  interface Canon {
    String apply(String v) throws BadJob;
  }

  private static final class Spec {
    final String key;
    final String def;
    final Canon canon;

    Spec(String key, String def, Canon canon) {
      this.key = key;
      this.def = def;
      this.canon = canon;
    }
  }

  private static final Map<String, Spec> SPECS = new LinkedHashMap<>();

  private static void spec(String key, String def, Canon canon) {
    SPECS.put(key, new Spec(key, def, canon));
  }

  static {
    spec("journal", "default", oneOf("default", "delete", "truncate", "persist", "memory", "wal", "off"));
    spec("sync", "default", Settings::syncCanon);
    spec("busy-timeout", "5000", intRange(0, (1L << 31) - 1));
    spec("cache-size", "default", optInt(-(1L << 40), 1L << 40));
    spec("mmap-size", "default", optInt(0, 1L << 50));
    spec("temp-store", "default", oneOf("default", "file", "memory"));
    spec("locking-mode", "default", oneOf("default", "normal", "exclusive"));
    spec("page-size", "default", Settings::pageSizeCanon);
    spec("shared-cache", "false", Settings::boolCanon);
    spec("in-memory", "false", Settings::boolCanon);
    spec("pool", "0", intRange(0, 1L << 20));
    spec("conn-per-op", "false", Settings::boolCanon);
    spec("prepared", "true", Settings::boolCanon);
    spec("batch", "1000", intRange(1, 1L << 30));
    spec("rows-per-stmt", "1", intRange(1, 1L << 20));
    spec("tx", "deferred", oneOf("deferred", "immediate"));
    spec("write-mutex", "false", Settings::boolCanon);
    spec("writer", "pool", oneOf("pool", "single"));
    spec("busy-retry", "none", Settings::busyRetryCanon);
    spec("placement", "in-process", oneOf("in-process", "process"));
  }

  private final Map<String, String> v = new LinkedHashMap<>();

  /** Settings with every default applied. */
  Settings() {
    for (Spec s : SPECS.values()) {
      v.put(s.key, s.def);
    }
  }

  static boolean known(String key) {
    return SPECS.containsKey(key);
  }

  /** Validates and stores a value. */
  void set(String key, String value) throws BadJob {
    Spec s = SPECS.get(key);
    if (s == null) {
      throw new BadJob("unknown setting " + Text.quote(key) + " (see 'litebench list settings')");
    }
    try {
      v.put(key, s.canon.apply(value.strip()));
    } catch (BadJob e) {
      throw new BadJob("--" + key + " " + Text.quote(value) + ": " + e.getMessage());
    }
  }

  String get(String key) {
    return v.get(key);
  }

  int integer(String key) {
    try {
      return Integer.parseInt(v.get(key));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  boolean bool(String key) {
    return "true".equals(v.get(key));
  }

  Map<String, String> map() {
    return new LinkedHashMap<>(v);
  }

  /** Busy retries: 0 none, -1 until the work succeeds or the run ends. */
  int busyRetries() {
    String r = v.get("busy-retry");
    if ("none".equals(r)) {
      return 0;
    }
    if ("until".equals(r)) {
      return -1;
    }
    return Integer.parseInt(r);
  }

  private static String orEmpty(String s) {
    return "default".equals(s) ? "" : s;
  }

  /** The journal mode asked for, "" for the driver's. */
  String journal() {
    return orEmpty(v.get("journal"));
  }

  /**
   * The statements run on every new connection, in the Go code's order
   * (page_size before the journal mode).
   */
  List<String> pragmas() {
    List<String> p = new ArrayList<>();
    String[][] order = {
      {"page_size", "page-size"},
      {"busy_timeout", "busy-timeout"},
      {"locking_mode", "locking-mode"},
      {"journal_mode", "journal"},
      {"synchronous", "sync"},
      {"cache_size", "cache-size"},
      {"mmap_size", "mmap-size"},
      {"temp_store", "temp-store"},
    };
    for (String[] o : order) {
      String val = orEmpty(v.get(o[1]));
      if (!val.isEmpty()) {
        p.add("PRAGMA " + o[0] + " = " + val);
      }
    }
    return p;
  }

  // Canonicalisers.

  static Canon oneOf(String... vals) {
    return s -> {
      String l = s.toLowerCase(Locale.ROOT);
      for (String x : vals) {
        if (x.equals(l)) {
          return x;
        }
      }
      throw new BadJob("want one of " + String.join(", ", vals));
    };
  }

  static String boolCanon(String s) throws BadJob {
    switch (s.toLowerCase(Locale.ROOT)) {
      case "1":
      case "true":
      case "yes":
      case "on":
      case "y":
        return "true";
      case "0":
      case "false":
      case "no":
      case "off":
      case "n":
        return "false";
      default:
        throw new BadJob("want true or false");
    }
  }

  static Canon intRange(long lo, long hi) {
    return s -> {
      long n = parseSize(s);
      if (n < lo || n > hi) {
        if (lo == 1) {
          throw new BadJob("must be at least 1");
        }
        throw new BadJob("must be between " + lo + " and " + hi);
      }
      return Long.toString(n);
    };
  }

  static Canon optInt(long lo, long hi) {
    Canon r = intRange(lo, hi);
    return s -> "default".equals(s.toLowerCase(Locale.ROOT)) ? "default" : r.apply(s);
  }

  static String busyRetryCanon(String s) throws BadJob {
    String l = s.toLowerCase(Locale.ROOT);
    switch (l) {
      case "none":
      case "0":
        return "none";
      case "until":
      case "forever":
      case "timeout":
        return "until";
      default:
        try {
          int n = Integer.parseInt(l);
          if (n >= 0 && !l.startsWith("+")) {
            return Integer.toString(n);
          }
        } catch (NumberFormatException e) {
          // fall through
        }
        throw new BadJob("want none, a retry count, or until");
    }
  }

  static String syncCanon(String s) throws BadJob {
    switch (s.toLowerCase(Locale.ROOT)) {
      case "0":
      case "off":
        return "off";
      case "1":
      case "normal":
        return "normal";
      case "2":
      case "full":
        return "full";
      case "3":
      case "extra":
        return "extra";
      case "default":
        return "default";
      default:
        throw new BadJob("want default, off, normal, full or extra (or 0-3)");
    }
  }

  static String pageSizeCanon(String s) throws BadJob {
    if ("default".equals(s.toLowerCase(Locale.ROOT))) {
      return "default";
    }
    long n = parseSize(s);
    if (n < 512 || n > 65536 || (n & (n - 1)) != 0) {
      throw new BadJob("want a power of two from 512 to 65536");
    }
    return Long.toString(n);
  }

  /** A whole number with an optional k/m/g (×1000) or kb/kib… (×1024) suffix. */
  static long parseSize(String s) throws BadJob {
    String l = s.strip().toLowerCase(Locale.ROOT).replace("_", "");
    long mult = 1;
    String[][] sufs = {
      {"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"}, {"kb", "1024"}, {"mb", "1048576"},
      {"gb", "1073741824"}, {"k", "1000"}, {"m", "1000000"}, {"g", "1000000000"}
    };
    for (String[] suf : sufs) {
      if (l.endsWith(suf[0])) {
        l = l.substring(0, l.length() - suf[0].length());
        mult = Long.parseLong(suf[1]);
        break;
      }
    }
    try {
      return Text.parseInt64(l) * mult;
    } catch (NumberFormatException e) {
      throw new BadJob("want a whole number");
    }
  }
}
