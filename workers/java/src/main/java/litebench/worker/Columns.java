package litebench.worker;

import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The column generators of docs/data-generation.md §3 and a table of them:
 * every value is a pure function of (seed, row index). A {@link Table} is
 * immutable and shared; a {@link Table.RowGen} holds one thread's scratch
 * buffers and its SHA-256.
 */
final class Columns {
  private Columns() {}

  /** A growable byte buffer that text generators append to. */
  static final class Bytes {
    byte[] b = new byte[256];
    int len;

    void reset() {
      len = 0;
    }

    void ensure(int extra) {
      if (len + extra > b.length) {
        b = Arrays.copyOf(b, Math.max(b.length * 2, len + extra));
      }
    }

    void add(byte c) {
      ensure(1);
      b[len++] = c;
    }

    void add(byte[] s) {
      ensure(s.length);
      System.arraycopy(s, 0, b, len, s.length);
      len += s.length;
    }

    /** Appends v in decimal, with a '-' when negative. */
    void addLong(long v) {
      ensure(20);
      if (v == Long.MIN_VALUE) {
        add("-9223372036854775808".getBytes(StandardCharsets.US_ASCII));
        return;
      }
      if (v < 0) {
        b[len++] = '-';
        v = -v;
      }
      int n = 1;
      for (long x = v; x >= 10; x /= 10) {
        n++;
      }
      for (int k = n - 1; k >= 0; k--) {
        b[len + k] = (byte) ('0' + v % 10);
        v /= 10;
      }
      len += n;
    }

    String string(int from) {
      return new String(b, from, len - from, StandardCharsets.UTF_8);
    }
  }

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** Appends bytes from…from+n-1 of w (least significant first) in hex. */
  static void appendHexLE(Bytes dst, long w, int from, int n) {
    dst.ensure(2 * n);
    for (int k = from; k < from + n; k++) {
      int c = (int) (w >>> (8 * k)) & 0xff;
      dst.b[dst.len++] = HEX[c >>> 4];
      dst.b[dst.len++] = HEX[c & 15];
    }
  }

  static void appendHex(Bytes dst, byte[] src, int off, int n) {
    dst.ensure(2 * n);
    for (int k = 0; k < n; k++) {
      int c = src[off + k] & 0xff;
      dst.b[dst.len++] = HEX[c >>> 4];
      dst.b[dst.len++] = HEX[c & 15];
    }
  }

  /** A column and its generator. */
  abstract static class Col {
    final String name;

    Col(String name) {
      this.name = name;
    }

    abstract String kind();

    boolean isText() {
      return false;
    }

    /** Most bytes a text value takes (0 for an integer column). */
    int maxLen() {
      return 0;
    }

    long intValue(long seed, long i) {
      throw new IllegalStateException("column " + name + " is not an integer");
    }

    void append(Bytes dst, long seed, long i) {
      throw new IllegalStateException("column " + name + " is not text");
    }
  }

  static final class Seq extends Col {
    final long start;

    Seq(String name, long start) {
      super(name);
      this.start = start;
    }

    @Override
    String kind() {
      return "seq";
    }

    @Override
    long intValue(long seed, long i) {
      return start + i;
    }
  }

  static final class UniformInt extends Col {
    final long lo;
    final long hi;
    final long stream;

    UniformInt(String name, long lo, long hi, long stream) {
      super(name);
      this.lo = lo;
      this.hi = hi;
      this.stream = stream;
    }

    @Override
    String kind() {
      return "uniform_int";
    }

    @Override
    long intValue(long seed, long i) {
      long m = Gen.draw(seed, stream, i);
      long span = hi - lo + 1;
      if (span == 0) {
        return lo + m;
      }
      return lo + Long.remainderUnsigned(m, span);
    }
  }

  /**
   * A zipfian rank of n scattered over [0, n) (zipf_int), or a recent row,
   * max(n − 1 − rank, 0) (latest_int).
   */
  static final class ZipfInt extends Col {
    final long n;
    final long stream;
    final Gen.Zipf zipf;
    final boolean latest;

    ZipfInt(String name, long n, double theta, long stream, boolean latest) {
      super(name);
      this.n = n;
      this.stream = stream;
      this.zipf = new Gen.Zipf(n, theta);
      this.latest = latest;
    }

    @Override
    String kind() {
      return latest ? "latest_int" : "zipf_int";
    }

    @Override
    long intValue(long seed, long i) {
      long r = zipf.rank(Gen.unit(Gen.draw(seed, stream, i)));
      return latest ? Math.max(n - 1 - r, 0) : Gen.scatter(r, n);
    }
  }

  static final class ConstInt extends Col {
    final long value;

    ConstInt(String name, long value) {
      super(name);
      this.value = value;
    }

    @Override
    String kind() {
      return "const_int";
    }

    @Override
    long intValue(long seed, long i) {
      return value;
    }
  }

  /** start + i·step, as Unix milliseconds (rounded down) or RFC 3339 text in UTC. */
  static final class Timestamp extends Col {
    final long startNs;
    final long stepNs;
    final boolean text;

    Timestamp(String name, long startNs, long stepNs, boolean rfc3339) {
      super(name);
      this.startNs = startNs;
      this.stepNs = stepNs;
      this.text = rfc3339;
    }

    @Override
    String kind() {
      return "timestamp";
    }

    @Override
    boolean isText() {
      return text;
    }

    @Override
    int maxLen() {
      return text ? 30 : 0;
    }

    @Override
    long intValue(long seed, long i) {
      long ns = startNs + i * stepNs;
      long ms = ns / 1_000_000;
      if (ns % 1_000_000 < 0) {
        ms--;
      }
      return ms;
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      long ns = startNs + i * stepNs;
      long secs = Math.floorDiv(ns, 1_000_000_000L);
      int frac = (int) Math.floorMod(ns, 1_000_000_000L);
      long days = Math.floorDiv(secs, 86400);
      int sod = Math.floorMod(secs, 86400);
      // Civil date from days since 1970-01-01 (proleptic Gregorian).
      long z = days + 719468;
      long era = Math.floorDiv(z, 146097);
      long doe = z - era * 146097;
      long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
      long y = yoe + era * 400;
      long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
      long mp = (5 * doy + 2) / 153;
      long d = doy - (153 * mp + 2) / 5 + 1;
      long m = mp < 10 ? mp + 3 : mp - 9;
      if (m <= 2) {
        y++;
      }
      dst.ensure(30);
      digits(dst, y, 4);
      dst.add((byte) '-');
      digits(dst, m, 2);
      dst.add((byte) '-');
      digits(dst, d, 2);
      dst.add((byte) 'T');
      digits(dst, sod / 3600, 2);
      dst.add((byte) ':');
      digits(dst, sod / 60 % 60, 2);
      dst.add((byte) ':');
      digits(dst, sod % 60, 2);
      if (frac != 0) {
        int n = 9;
        while (frac % 10 == 0) {
          frac /= 10;
          n--;
        }
        dst.add((byte) '.');
        digits(dst, frac, n);
      }
      dst.add((byte) 'Z');
    }

    private static void digits(Bytes dst, long v, int width) {
      dst.ensure(width);
      for (int k = width - 1; k >= 0; k--) {
        dst.b[dst.len + k] = (byte) ('0' + v % 10);
        v /= 10;
      }
      dst.len += width;
    }
  }

  static final class Hex extends Col {
    final int bytes;
    final long stream;

    Hex(String name, int bytes, long stream) {
      super(name);
      this.bytes = bytes;
      this.stream = stream;
    }

    @Override
    String kind() {
      return "hex";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return 2 * bytes;
    }

    /** Writes the raw bytes into raw (at least bytes long). */
    void raw(byte[] raw, long seed, long i) {
      long h = Gen.draw(seed, stream, i);
      int n = 0;
      for (int j = 0; 8 * j < bytes; j++) {
        long w = j == 0 ? h : Gen.draw(h, 0, j);
        for (int k = 0; k < Math.min(8, bytes - 8 * j); k++) {
          raw[n++] = (byte) (w >>> (8 * k));
        }
      }
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      long h = Gen.draw(seed, stream, i);
      for (int j = 0; 8 * j < bytes; j++) {
        appendHexLE(dst, j == 0 ? h : Gen.draw(h, 0, j), 0, Math.min(8, bytes - 8 * j));
      }
    }
  }

  static final class Letters extends Col {
    final int len;
    final long stream;

    Letters(String name, int len, long stream) {
      super(name);
      this.len = len;
      this.stream = stream;
    }

    @Override
    String kind() {
      return "letters";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return len;
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      long m = Gen.draw(seed, stream, i);
      dst.ensure(len);
      for (int k = 0; k < len; k++) {
        if (k % 12 == 0 && k > 0) {
          m = Gen.draw(m, 0, k);
        }
        dst.b[dst.len++] = (byte) ('A' + Long.remainderUnsigned(m, 26));
        m = Long.divideUnsigned(m, 26);
      }
    }
  }

  /** The 67 words of text, index 0 first. */
  static final byte[][] WORDS;

  static {
    String w =
        "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"
            + " incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud"
            + " exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute"
            + " irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur"
            + " excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt"
            + " mollit anim id est laborum sqlite page journal wal checkpoint";
    String[] ws = w.split(" ");
    WORDS = new byte[ws.length][];
    for (int k = 0; k < ws.length; k++) {
      WORDS[k] = ws[k].getBytes(StandardCharsets.US_ASCII);
    }
  }

  static final class Text extends Col {
    final int min;
    final int max;
    final long stream;

    Text(String name, int min, int max, long stream) {
      super(name);
      this.min = min;
      this.max = max;
      this.stream = stream;
    }

    @Override
    String kind() {
      return "text";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return max;
    }

    int length(long seed, long i) {
      if (max <= min) {
        return min;
      }
      long m = Gen.draw(seed, stream, i);
      return min + (int) ((m >>> 40) % (long) (max - min + 1));
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      appendWords(dst, seed ^ stream, i, length(seed, i));
    }
  }

  /** Appends n bytes of row i's words. */
  static void appendWords(Bytes dst, long seed, long i, int n) {
    dst.ensure(n);
    int left = n;
    for (long k = 0; left > 0; k++) {
      if (k > 0) {
        dst.b[dst.len++] = ' ';
        if (--left == 0) {
          break;
        }
      }
      byte[] w = WORDS[(int) Long.remainderUnsigned(Gen.draw(seed, Gen.STREAM_WORDS, (i << 20) | k), WORDS.length)];
      int take = Math.min(w.length, left);
      System.arraycopy(w, 0, dst.b, dst.len, take);
      dst.len += take;
      left -= take;
    }
  }

  static final class UUID4 extends Col {
    final long stream;

    UUID4(String name, long stream) {
      super(name);
      this.stream = stream;
    }

    @Override
    String kind() {
      return "uuid4";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return 36;
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      // The 16 bytes are a's then b's, each least significant first; byte 6
      // carries the version (4) and byte 8 the variant (10xx).
      long a = Gen.draw(seed, stream, i);
      long b = Gen.draw(seed, stream ^ Gen.STREAM_UUID_LOW, i);
      a = (a & ~(0xffL << 48)) | ((((a >>> 48) & 0x0f) | 0x40) << 48);
      b = (b & ~0xffL) | ((b & 0x3f) | 0x80);
      appendHexLE(dst, a, 0, 4);
      dst.add((byte) '-');
      appendHexLE(dst, a, 4, 2);
      dst.add((byte) '-');
      appendHexLE(dst, a, 6, 2);
      dst.add((byte) '-');
      appendHexLE(dst, b, 0, 2);
      dst.add((byte) '-');
      appendHexLE(dst, b, 2, 6);
    }
  }

  /** The SHA-256 of an earlier column (its text, decimal digits, or the bytes its hex encodes). */
  static final class Sha256Of extends Col {
    final String column;
    final boolean decodeHex;

    Sha256Of(String name, String column, boolean decodeHex) {
      super(name);
      this.column = column;
      this.decodeHex = decodeHex;
    }

    @Override
    String kind() {
      return "sha256_of";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return 64;
    }
  }

  static final class Choice extends Col {
    final byte[][] list;
    final int count;
    final byte[] sep;
    final long stream;

    Choice(String name, String[] list, int count, String sep, long stream) {
      super(name);
      this.list = new byte[list.length][];
      for (int k = 0; k < list.length; k++) {
        this.list[k] = list[k].getBytes(StandardCharsets.UTF_8);
      }
      this.count = count;
      this.sep = sep.getBytes(StandardCharsets.UTF_8);
      this.stream = stream;
    }

    @Override
    String kind() {
      return "choice";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      int n = 0;
      for (byte[] s : list) {
        n = Math.max(n, s.length);
      }
      int c = Math.max(count, 1);
      return c * n + (c - 1) * sep.length;
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      long m = Gen.draw(seed, stream, i);
      for (int j = 0; j < Math.max(count, 1); j++) {
        if (j > 0) {
          dst.add(sep);
        }
        dst.add(list[(int) Long.remainderUnsigned(m >>> (16 * j), list.length)]);
      }
    }
  }

  static final class Const extends Col {
    final byte[] value;

    Const(String name, String value) {
      super(name);
      this.value = value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    String kind() {
      return "const";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return value.length;
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      dst.add(value);
    }
  }

  static final class SeqText extends Col {
    final byte[] prefix;
    final long start;
    final byte[] suffix;

    SeqText(String name, String prefix, long start, String suffix) {
      super(name);
      this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
      this.start = start;
      this.suffix = suffix.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    String kind() {
      return "seq_text";
    }

    @Override
    boolean isText() {
      return true;
    }

    @Override
    int maxLen() {
      return prefix.length + 20 + suffix.length;
    }

    @Override
    void append(Bytes dst, long seed, long i) {
      dst.add(prefix);
      dst.addLong(start + i);
      dst.add(suffix);
    }
  }

  /**
   * A generator from its kind and arguments as internal/gen's
   * testdata/vectors.json and a workload program write them.
   */
  static Col fromJson(String name, String kind, JsonObject a) {
    JsonValue sv = a.get("stream");
    long stream = sv == null ? 0 : sv.isString() ? Long.parseUnsignedLong(sv.asString()) : sv.asLong();
    switch (kind) {
      case "seq":
        return new Seq(name, a.getLong("start", 0));
      case "uniform_int":
        return new UniformInt(name, a.getLong("lo", 0), a.getLong("hi", 0), stream);
      case "zipf_int":
      case "latest_int":
        return new ZipfInt(name, a.getLong("n", 0), a.getDouble("theta", 0), stream, kind.equals("latest_int"));
      case "const_int":
        return new ConstInt(name, a.getLong("value", 0));
      case "timestamp":
        Instant t = Instant.parse(a.getString("start", ""));
        long ns = t.getEpochSecond() * 1_000_000_000L + t.getNano();
        return new Timestamp(name, ns, a.getLong("step_ns", 0), "rfc3339nano".equals(a.getString("format", "")));
      case "hex":
        return new Hex(name, a.getInt("bytes", 0), stream);
      case "letters":
        return new Letters(name, a.getInt("len", 0), stream);
      case "text":
        return new Text(name, a.getInt("min", 0), a.getInt("max", 0), stream);
      case "uuid4":
        return new UUID4(name, stream);
      case "sha256_of":
        return new Sha256Of(name, a.getString("column", ""), a.getBoolean("decode_hex", false));
      case "choice":
        JsonValue lv = a.get("list");
        JsonArray list = lv != null && lv.isArray() ? lv.asArray() : new JsonArray();
        String[] xs = new String[list.size()];
        for (int k = 0; k < xs.length; k++) {
          xs[k] = list.get(k).asString();
        }
        return new Choice(name, xs, a.getInt("count", 0), a.getString("sep", ""), stream);
      case "const":
        return new Const(name, a.getString("value", ""));
      case "seq_text":
        return new SeqText(name, a.getString("prefix", ""), a.getLong("start", 0), a.getString("suffix", ""));
      default:
        throw new IllegalArgumentException("unknown generator " + litebench.worker.Text.quote(kind));
    }
  }

  /** A checked list of columns. */
  static final class Table {
    final Col[] cols;
    final boolean[] text;
    /** For a sha256_of column, its source column's position. */
    final int[] src;

    Table(Col... cols) {
      this.cols = cols;
      this.text = new boolean[cols.length];
      this.src = new int[cols.length];
      Map<String, Integer> pos = new HashMap<>();
      for (int k = 0; k < cols.length; k++) {
        Col c = cols[k];
        if (pos.containsKey(c.name)) {
          throw new IllegalArgumentException("column " + c.name + " appears twice");
        }
        text[k] = c.isText();
        if (c instanceof Sha256Of) {
          Sha256Of s = (Sha256Of) c;
          Integer at = pos.get(s.column);
          if (at == null || (s.decodeHex && !(cols[at] instanceof Hex))) {
            throw new IllegalArgumentException("column " + c.name + ": bad source " + s.column);
          }
          src[k] = at;
        }
        pos.put(c.name, k);
      }
    }

    int width() {
      return cols.length;
    }

    RowGen rowGen() {
      return new RowGen(this);
    }
  }

  /** One thread's generator of a table's rows. */
  static final class RowGen {
    final Table t;
    private final Bytes buf = new Bytes();
    private final Bytes tmp = new Bytes();
    private final Bytes alone = new Bytes();
    private final MessageDigest sha;
    private final byte[] raw = new byte[64];
    private final int[] start;
    private final int[] end;

    RowGen(Table t) {
      this.t = t;
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
      start = new int[t.cols.length];
      end = new int[t.cols.length];
    }

    /**
     * Generates row i: integer columns into ints[base+k], text columns into
     * strs[base+k].
     */
    void row(long seed, long i, long[] ints, String[] strs, int base) {
      buf.reset();
      Col[] cols = t.cols;
      for (int k = 0; k < cols.length; k++) {
        if (!t.text[k]) {
          ints[base + k] = cols[k].intValue(seed, i);
          continue;
        }
        start[k] = buf.len;
        appendText(k, buf, seed, i, true);
        end[k] = buf.len;
        strs[base + k] = new String(buf.b, start[k], end[k] - start[k], StandardCharsets.UTF_8);
      }
    }

    /** Row i's value of integer column k. */
    long intValue(int k, long seed, long i) {
      return t.cols[k].intValue(seed, i);
    }

    /** Row i's value of text column k, alone. */
    String text(int k, long seed, long i) {
      alone.reset();
      appendText(k, alone, seed, i, false);
      return alone.string(0);
    }

    private void appendText(int k, Bytes dst, long seed, long i, boolean inRow) {
      Col c = t.cols[k];
      if (!(c instanceof Sha256Of)) {
        c.append(dst, seed, i);
        return;
      }
      Sha256Of g = (Sha256Of) c;
      int s = t.src[k];
      sha.reset();
      if (g.decodeHex) {
        Hex h = (Hex) t.cols[s];
        byte[] r = h.bytes <= raw.length ? raw : new byte[h.bytes];
        h.raw(r, seed, i);
        sha.update(r, 0, h.bytes);
      } else if (!t.text[s]) {
        sha.update(Long.toString(t.cols[s].intValue(seed, i)).getBytes(StandardCharsets.US_ASCII));
      } else if (inRow) {
        sha.update(buf.b, start[s], end[s] - start[s]);
      } else {
        tmp.reset();
        appendText(s, tmp, seed, i, false);
        sha.update(tmp.b, 0, tmp.len);
      }
      byte[] sum = sha.digest();
      appendHex(dst, sum, 0, sum.length);
    }
  }
}
