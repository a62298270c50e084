package litebench.worker;

import java.math.BigDecimal;

/** Go's spellings where the worker's messages and parameters must match the Go worker's. */
final class Text {
  private Text() {}

  /** A string quoted as Go's %q quotes plain text. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          b.append("\\\"");
          break;
        case '\\':
          b.append("\\\\");
          break;
        case '\n':
          b.append("\\n");
          break;
        case '\t':
          b.append("\\t");
          break;
        case '\r':
          b.append("\\r");
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
      }
    }
    return b.append('"').toString();
  }

  /** A decimal int64 with an optional sign, as strconv.ParseInt(s, 10, 64). */
  static long parseInt64(String s) {
    return Long.parseLong(s);
  }

  /** A float64 as Go's %v prints it. */
  static String goFloat(double x) {
    if (Double.isNaN(x)) {
      return "NaN";
    }
    if (Double.isInfinite(x)) {
      return x > 0 ? "+Inf" : "-Inf";
    }
    if (x == 0) {
      return "0";
    }
    BigDecimal bd = new BigDecimal(Double.toString(x)).stripTrailingZeros();
    String digits = bd.unscaledValue().abs().toString();
    int exp = digits.length() - 1 - bd.scale();
    if (exp >= -4 && exp < 6) {
      return bd.toPlainString();
    }
    StringBuilder b = new StringBuilder();
    if (x < 0) {
      b.append('-');
    }
    b.append(digits.charAt(0));
    if (digits.length() > 1) {
      b.append('.').append(digits, 1, digits.length());
    }
    b.append('e').append(exp < 0 ? '-' : '+');
    int a = Math.abs(exp);
    if (a < 10) {
      b.append('0');
    }
    return b.append(a).toString();
  }

  /**
   * Go's time.ParseDuration: a sequence of decimal numbers with units (ns, us,
   * µs, ms, s, m, h), such as 300ms or 1m30s, in nanoseconds.
   */
  static long parseDuration(String s) {
    String orig = s;
    boolean neg = false;
    if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      neg = s.charAt(0) == '-';
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return 0;
    }
    if (s.isEmpty()) {
      throw new IllegalArgumentException("invalid duration " + quote(orig));
    }
    long d = 0; // as unsigned
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (!(c == '.' || ('0' <= c && c <= '9'))) {
        throw new IllegalArgumentException("invalid duration " + quote(orig));
      }
      long v = 0;
      int start = i;
      while (i < n && Character.isDigit(s.charAt(i)) && s.charAt(i) < 128) {
        if (Long.compareUnsigned(v, Long.MIN_VALUE / 10) > 0) {
          throw new IllegalArgumentException("invalid duration " + quote(orig));
        }
        v = v * 10 + (s.charAt(i) - '0');
        if (Long.compareUnsigned(v, Long.MIN_VALUE) > 0) {
          throw new IllegalArgumentException("invalid duration " + quote(orig));
        }
        i++;
      }
      boolean pre = i != start;
      long f = 0;
      double scale = 1;
      boolean post = false;
      if (i < n && s.charAt(i) == '.') {
        i++;
        int fs = i;
        boolean overflow = false;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
          if (!overflow) {
            if (f > Long.MAX_VALUE / 10) {
              overflow = true;
            } else {
              long y = f * 10 + (s.charAt(i) - '0');
              if (y < 0) {
                overflow = true;
              } else {
                f = y;
                scale *= 10;
              }
            }
          }
          i++;
        }
        post = i != fs;
      }
      if (!pre && !post) {
        throw new IllegalArgumentException("invalid duration " + quote(orig));
      }
      int us = i;
      while (i < n && s.charAt(i) != '.' && !(s.charAt(i) >= '0' && s.charAt(i) <= '9')) {
        i++;
      }
      if (i == us) {
        throw new IllegalArgumentException("missing unit in duration " + quote(orig));
      }
      long unit;
      switch (s.substring(us, i)) {
        case "ns":
          unit = 1;
          break;
        case "us":
        case "\u00b5s":
        case "\u03bcs":
          unit = 1000;
          break;
        case "ms":
          unit = 1_000_000;
          break;
        case "s":
          unit = 1_000_000_000;
          break;
        case "m":
          unit = 60_000_000_000L;
          break;
        case "h":
          unit = 3_600_000_000_000L;
          break;
        default:
          throw new IllegalArgumentException("unknown unit in duration " + quote(orig));
      }
      if (Long.compareUnsigned(v, Long.divideUnsigned(Long.MIN_VALUE, unit)) > 0) {
        throw new IllegalArgumentException("invalid duration " + quote(orig));
      }
      v *= unit;
      if (f > 0) {
        v += (long) ((double) f * ((double) unit / scale));
        if (Long.compareUnsigned(v, Long.MIN_VALUE) > 0) {
          throw new IllegalArgumentException("invalid duration " + quote(orig));
        }
      }
      d += v;
      if (Long.compareUnsigned(d, Long.MIN_VALUE) > 0) {
        throw new IllegalArgumentException("invalid duration " + quote(orig));
      }
    }
    if (neg) {
      return -d;
    }
    if (d < 0) {
      throw new IllegalArgumentException("invalid duration " + quote(orig));
    }
    return d;
  }
}
