package litebench.worker;

import com.eclipsesource.json.JsonObject;
import java.util.List;

/**
 * The functions of workload programs' expressions (docs/workload-files.md
 * §6–§7, internal/spec/funcs.go): arguments must not be NULL unless said;
 * random functions, text functions, key() and choice() draw from the
 * worker's sequence.
 */
final class Funcs {
  private Funcs() {}

  static final int MAX_TEXT = 1 << 20;

  /** A function call: its name, arguments and, for key() and rows(), its table. */
  abstract static class Call extends Expr.Node {
    final String fn;
    final Expr.Node[] a;

    Call(String at, String fn, Expr.Node[] a) {
      super(at);
      this.fn = fn;
      this.a = a;
    }

    Object arg(Expr.Ctx x, int i) {
      Object v = a[i].eval(x);
      if (v == null) {
        throw fail(fn + "(): argument " + (i + 1) + " is NULL");
      }
      return v;
    }

    long intArg(Expr.Ctx x, int i) {
      return Expr.toInt(arg(x, i), this);
    }

    double floatArg(Expr.Ctx x, int i) {
      return Expr.toFloat(arg(x, i), this);
    }

    /** The bounds lb ≤ ub of a random function. */
    long[] bounds(Expr.Ctx x) {
      long lb = intArg(x, 0);
      long ub = intArg(x, 1);
      if (ub < lb) {
        throw fail(fn + "(" + lb + ", " + ub + "): empty range; the upper bound must not be below the lower");
      }
      return new long[] {lb, ub};
    }

    int length(Expr.Ctx x, int i) {
      long l = intArg(x, i);
      if (l < 0 || l > MAX_TEXT) {
        throw fail(fn + "(): length " + l + ": want 0 to " + MAX_TEXT);
      }
      return (int) l;
    }
  }

  interface Body {
    Object eval(Call c, Expr.Ctx x);
  }

  private static Call of(String at, String fn, Expr.Node[] a, Body body) {
    return new Call(at, fn, a) {
      @Override
      Object eval(Expr.Ctx x) {
        return body.eval(this, x);
      }
    };
  }

  static Expr.Node call(JsonObject e, String at, Expr.Node[] a, List<Program.Table> tables) {
    String fn = e.getString("fn", "");
    int min = 0;
    Body b;
    switch (fn) {
      case "abs":
        min = 1;
        b = (c, x) -> {
          Object v = Expr.toNumber(c.arg(x, 0), c);
          if (v instanceof Double) {
            return Math.abs((Double) v);
          }
          long i = (Long) v;
          if (i == Long.MIN_VALUE) {
            throw c.fail("bigint out of range");
          }
          return Math.abs(i);
        };
        break;
      case "double":
        min = 1;
        b = (c, x) -> c.floatArg(x, 0);
        break;
      case "int":
        min = 1;
        b = (c, x) -> c.intArg(x, 0);
        break;
      case "exp":
        min = 1;
        b = (c, x) -> Gen.exp(c.floatArg(x, 0));
        break;
      case "ln":
        min = 1;
        b = (c, x) -> Gen.log(c.floatArg(x, 0));
        break;
      case "sqrt":
        min = 1;
        b = (c, x) -> Math.sqrt(c.floatArg(x, 0));
        break;
      case "pow":
      case "power":
        min = 2;
        b = (c, x) -> {
          double p = c.floatArg(x, 0);
          return Gen.pow(p, c.floatArg(x, 1));
        };
        break;
      case "pi":
        b = (c, x) -> Math.PI;
        break;
      case "greatest":
        b = (c, x) -> extreme(c, x, 1);
        break;
      case "least":
        b = (c, x) -> extreme(c, x, -1);
        break;
      case "mod":
        min = 2;
        b = (c, x) -> {
          long p = c.intArg(x, 0);
          long q = c.intArg(x, 1);
          if (q == 0) {
            throw c.fail("division by zero");
          }
          return q == -1 ? 0L : p % q;
        };
        break;
      case "hash":
      case "hash_murmur2":
        min = 2;
        b = (c, x) -> {
          long v = c.intArg(x, 0);
          return murmur2(v, c.intArg(x, 1));
        };
        break;
      case "hash_fnv1a":
        min = 2;
        b = (c, x) -> {
          long v = c.intArg(x, 0);
          return fnv1a(v, c.intArg(x, 1));
        };
        break;
      case "random":
        min = 2;
        b = (c, x) -> {
          long[] r = c.bounds(x);
          return inRange(r[0], r[1], x.uniform());
        };
        break;
      case "random_exponential":
        min = 3;
        b = Funcs::exponential;
        break;
      case "random_gaussian":
        min = 3;
        b = Funcs::gaussian;
        break;
      case "random_zipfian":
        min = 3;
        b = Funcs::zipfian;
        break;
      case "hex":
        min = 1;
        b = (c, x) -> {
          int n = c.length(x, 0);
          return n == 0 ? "" : gen(new Columns.Hex("", n, 0), x);
        };
        break;
      case "letters":
        min = 1;
        b = (c, x) -> gen(new Columns.Letters("", c.length(x, 0), 0), x);
        break;
      case "text":
        min = 2;
        b = (c, x) -> {
          int lo = c.length(x, 0);
          int hi = c.length(x, 1);
          if (hi < lo) {
            throw c.fail("text(" + lo + ", " + hi + "): the maximum is below the minimum");
          }
          return gen(new Columns.Text("", lo, hi, 0), x);
        };
        break;
      case "uuid4":
        b = (c, x) -> gen(new Columns.UUID4("", 0), x);
        break;
      case "choice":
        min = 1;
        b = (c, x) -> c.a[(int) Long.remainderUnsigned(x.rng.next(), c.a.length)].eval(x);
        break;
      case "rows":
      case "key":
        int k = e.getInt("table", 0);
        if (k < 0 || k >= tables.size()) {
          throw new IllegalArgumentException("program: " + fn + "(): no table " + k);
        }
        Program.Table t = tables.get(k);
        if (fn.equals("rows")) {
          b = (c, x) -> t.claims.visible.get();
        } else {
          int kind = Gen.keyKind(e.getString("dist", Gen.KEYS_UNIFORM));
          Gen.Zipf z = kind == Gen.KIND_UNIFORM ? null : t.zipf(e.getDouble("theta", 0));
          b = (c, x) -> t.key(Gen.pickKey(kind, z, x.rng, t.claims.visible.get()));
        }
        break;
      default:
        throw new IllegalArgumentException("program: unknown function " + fn + "()");
    }
    if (a.length < min) {
      throw new IllegalArgumentException("program: " + fn + "() at " + at + " takes at least " + min + " arguments");
    }
    return of(at, fn, a, b);
  }

  /** A text generator's value for seed next(), row 0. */
  private static String gen(Columns.Col g, Expr.Ctx x) {
    Columns.Bytes dst = new Columns.Bytes();
    g.append(dst, x.rng.next(), 0);
    return dst.string(0);
  }

  private static Object extreme(Call c, Expr.Ctx x, int sign) {
    Object best = null;
    boolean isFloat = false;
    for (Expr.Node n : c.a) {
      Object v = n.eval(x);
      if (v == null) {
        continue;
      }
      v = Expr.toNumber(v, c);
      isFloat = isFloat || v instanceof Double;
      if (best == null || compareNum(v, best) * sign > 0) {
        best = v;
      }
    }
    if (isFloat && best instanceof Long) {
      best = (double) (Long) best;
    }
    return best;
  }

  private static int compareNum(Object a, Object b) {
    if (a instanceof Long && b instanceof Long) {
      return Long.compare((Long) a, (Long) b);
    }
    double af = a instanceof Long ? (double) (Long) a : (Double) a;
    double bf = b instanceof Long ? (double) (Long) b : (Double) b;
    return Expr.compare(af, bf);
  }

  static long fnv1a(long v, long seed) {
    long r = 0xcbf29ce484222325L ^ seed;
    for (int k = 0; k < 8; k++) {
      r ^= v & 0xff;
      v >>= 8;
      r *= 0x100000001b3L;
    }
    return r;
  }

  static long murmur2(long v, long seed) {
    final long m = 0xc6a4a7935bd1e995L;
    long r = seed ^ 0x35253c9ade8f4ca8L;
    long k = v * m;
    k ^= k >>> 47;
    k *= m;
    r ^= k;
    r *= m;
    r ^= r >>> 47;
    r *= m;
    r ^= r >>> 47;
    return r;
  }

  /** lb + trunc(span × r), capped at ub (span = ub − lb + 1, up to 2^64). */
  static long inRange(long lb, long ub, double r) {
    long d = ub - lb;
    double span = d == -1 ? 18446744073709551616.0 : Expr.unsignedToDouble(d + 1);
    long off = Expr.doubleToUnsigned(span * r);
    if (Long.compareUnsigned(off, d) > 0) {
      off = d;
    }
    return lb + off;
  }

  private static Object exponential(Call c, Expr.Ctx x) {
    long[] r = c.bounds(x);
    double p = c.floatArg(x, 2);
    if (!(p > 0)) {
      throw c.fail("random_exponential(): parameter " + Expr.goFloat(p) + " must be greater than 0");
    }
    double cut = Gen.exp(-p);
    double uniform = 1 - x.uniform();
    double v = -Gen.log(cut + (1 - cut) * uniform) / p;
    return inRange(r[0], r[1], v);
  }

  private static double normal(Expr.Ctx x) {
    for (; ; ) {
      double v1 = 2 * x.uniform() - 1;
      double v2 = 2 * x.uniform() - 1;
      double s = v1 * v1 + v2 * v2;
      if (s > 0 && s < 1) {
        return v1 * Math.sqrt(-2 * Gen.log(s) / s);
      }
    }
  }

  private static Object gaussian(Call c, Expr.Ctx x) {
    long[] r = c.bounds(x);
    double p = c.floatArg(x, 2);
    if (!(p >= 2)) {
      throw c.fail("random_gaussian(): parameter " + Expr.goFloat(p) + " must be at least 2");
    }
    double z;
    do {
      z = normal(x);
    } while (!(z >= -p && z < p));
    return inRange(r[0], r[1], (z + p) / (p * 2));
  }

  private static Object zipfian(Call c, Expr.Ctx x) {
    long[] r = c.bounds(x);
    double s = c.floatArg(x, 2);
    if (!(s >= 1.001 && s <= 1000)) {
      throw c.fail("random_zipfian(): parameter " + Expr.goFloat(s) + " must be from 1.001 to 1000");
    }
    long lb = r[0];
    long ub = r[1];
    if (ub == lb) {
      return lb;
    }
    double n = Expr.unsignedToDouble(ub - lb + 1);
    double b = Gen.pow(2, s - 1);
    for (; ; ) {
      double u = x.uniform();
      double v = x.uniform();
      double xx = Math.floor(Gen.pow(u, -1 / (s - 1)));
      double t = Gen.pow(1 + 1 / xx, s - 1);
      if (((v * xx) * (t - 1)) / (b - 1) <= t / b && xx <= n) {
        return lb - 1 + (long) xx;
      }
    }
  }
}
