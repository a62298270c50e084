package litebench.worker;

import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.util.List;
import java.util.Locale;

/**
 * The expressions of workload programs (docs/workload-program.md): a JSON
 * tree compiled once into nodes. Values are null (NULL), Boolean, Long,
 * Double and String; functions draw from the worker's splitmix64 sequence
 * exactly as the Go reference (internal/spec's eval.go and funcs.go).
 */
final class Expr {
  private Expr() {}

  /** An expression that cannot be evaluated: it stops the run. */
  static final class EvalError extends RuntimeException {
    EvalError(String at, String msg) {
      super(at + ": " + msg);
    }
  }

  /** One worker's variables and random sequence, and the run's tables. */
  static final class Ctx {
    final Object[] vars;
    final boolean[] set;
    final Gen.SplitMix rng;
    final List<Program.Table> tables;

    Ctx(int nvars, long state, List<Program.Table> tables) {
      this.vars = new Object[nvars];
      this.set = new boolean[nvars];
      this.rng = new Gen.SplitMix(state);
      this.tables = tables;
    }

    void assign(int slot, Object v) {
      vars[slot] = v;
      set[slot] = true;
    }

    double uniform() {
      return Gen.unit(rng.next());
    }
  }

  /** A compiled expression. */
  abstract static class Node {
    final String at;

    Node(String at) {
      this.at = at;
    }

    abstract Object eval(Ctx x);

    EvalError fail(String msg) {
      return new EvalError(at, msg);
    }
  }

  // Values.

  /** v as pgbench writes it (messages). */
  static String show(Object v) {
    if (v == null) {
      return "NULL";
    }
    if (v instanceof Double) {
      return goFloat((Double) v);
    }
    return v.toString();
  }

  /** A double as Go's strconv.FormatFloat(f, 'g', -1, 64). */
  static String goFloat(double f) {
    if (f == 0 && 1 / f < 0) {
      return "-0";
    }
    return Text.goFloat(f);
  }

  /** s as an integer when it is one written plainly (no +, no leading zero, no -0), else null. */
  static Long canonInt(String s) {
    int n = s.length();
    boolean neg = n > 0 && s.charAt(0) == '-';
    int from = neg ? 1 : 0;
    int digits = n - from;
    if (digits == 0 || digits > 19 || (s.charAt(from) == '0' && (digits > 1 || neg))) {
      return null;
    }
    long u = 0;
    for (int k = from; k < n; k++) {
      char c = s.charAt(k);
      if (c < '0' || c > '9') {
        return null;
      }
      u = u * 10 + (c - '0');
    }
    // 19 digits fit in an unsigned 64-bit number.
    if (neg) {
      return Long.compareUnsigned(u, Long.MIN_VALUE) <= 0 ? -u : null;
    }
    return Long.compareUnsigned(u, Long.MIN_VALUE) < 0 ? u : null;
  }

  /** Text as a statement's result sets a variable: an integer written plainly is an integer. */
  static Object textValue(String s) {
    Long n = canonInt(s);
    return n != null ? (Object) n : s;
  }

  static boolean toBool(Object v, Node n) {
    if (v instanceof Boolean) {
      return (Boolean) v;
    }
    if (v instanceof Long) {
      return (Long) v != 0;
    }
    if (v instanceof Double) {
      return (Double) v != 0;
    }
    if (v instanceof String) {
      switch (((String) v).toLowerCase(Locale.ROOT)) {
        case "true":
        case "t":
        case "yes":
        case "on":
        case "1":
          return true;
        case "false":
        case "f":
        case "no":
        case "off":
        case "0":
          return false;
        default:
          break;
      }
    }
    throw n.fail(Text.quote(show(v)) + " is not a boolean");
  }

  /** A Long or a Double out of v (text is parsed). */
  static Object toNumber(Object v, Node n) {
    if (v instanceof Long || v instanceof Double) {
      return v;
    }
    if (v instanceof Boolean) {
      throw n.fail("a boolean is not a number");
    }
    if (v instanceof String) {
      String s = ((String) v).strip();
      Long i = canonInt(s);
      if (i != null) {
        return i;
      }
      double f = Workloads.parseFloat(s);
      String l = s.toLowerCase(Locale.ROOT);
      boolean special = l.matches("[+-]?(inf|infinity|nan)");
      if ((Double.isNaN(f) || Double.isInfinite(f)) && !special) {
        throw n.fail(Text.quote(s) + " is not a number");
      }
      return f;
    }
    throw n.fail("NULL is not a number");
  }

  static long toInt(Object v, Node n) {
    Object x = toNumber(v, n);
    if (x instanceof Double) {
      double f = (Double) x;
      if (Double.isNaN(f) || f < -9.2233720368547758e18 || f >= 9.2233720368547758e18) {
        throw n.fail(goFloat(f) + " is out of range for an integer");
      }
      return (long) f;
    }
    return (Long) x;
  }

  static double toFloat(Object v, Node n) {
    Object x = toNumber(v, n);
    return x instanceof Long ? (double) (Long) x : (Double) x;
  }

  static int compare(double a, double b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  static boolean cmp(String op, int c) {
    switch (op) {
      case "=":
        return c == 0;
      case "<>":
      case "!=":
        return c != 0;
      case "<":
        return c < 0;
      case "<=":
        return c <= 0;
      case ">":
        return c > 0;
      default:
        return c >= 0;
    }
  }

  /** x as Go's float64(uint64(x)). */
  static double unsignedToDouble(long x) {
    if (x >= 0) {
      return (double) x;
    }
    return (double) ((x >>> 1) | (x & 1)) * 2.0;
  }

  /** f as Go's uint64(f) for f in [0, 2^64). */
  static long doubleToUnsigned(double f) {
    if (f >= 9.223372036854775808E18) {
      return (long) (f - 9.223372036854775808E18) ^ Long.MIN_VALUE;
    }
    return (long) f;
  }

  // Compiling.

  /** Compiles e; tables are the program's (for key() and rows()). */
  static Node compile(JsonObject e, List<Program.Table> tables) {
    String op = e.getString("op", "");
    String at = e.getString("at", "");
    JsonValue av = e.get("a");
    JsonArray aj = av != null && av.isArray() ? av.asArray() : new JsonArray();
    Node[] a = new Node[aj.size()];
    if (!op.equals("call") || !(e.getString("fn", "").equals("key") || e.getString("fn", "").equals("rows"))) {
      for (int k = 0; k < a.length; k++) {
        a[k] = compile(aj.get(k).asObject(), tables);
      }
    }
    switch (op) {
      case "int":
        return lit(at, Long.parseLong(e.getString("v", "0")));
      case "float":
        return lit(at, e.getDouble("f", 0));
      case "bool":
        return lit(at, e.getBoolean("b", false));
      case "text":
        return lit(at, e.getString("s", ""));
      case "null":
        return lit(at, null);
      case "var":
        return new Var(at, e.getInt("slot", 0), e.getString("name", ""));
      case "unary":
        need(a, 1, e);
        return new Unary(at, e.getString("fn", ""), a[0]);
      case "binary":
        need(a, 2, e);
        String fn = e.getString("fn", "");
        if (fn.equals("and") || fn.equals("or")) {
          return new Logic(at, fn.equals("and"), a[0], a[1]);
        }
        return new Binary(at, fn, a[0], a[1]);
      case "is":
        need(a, 1, e);
        return new Is(at, e.getString("fn", ""), e.getBoolean("not", false), a[0]);
      case "case":
        JsonValue ev = e.get("else");
        Node els = ev != null && ev.isObject() ? compile(ev.asObject(), tables) : null;
        return new Case(at, a, els);
      case "call":
        return Funcs.call(e, at, a, tables);
      default:
        throw new IllegalArgumentException("program: unknown expression " + Text.quote(op));
    }
  }

  private static void need(Node[] a, int n, JsonObject e) {
    if (a.length < n) {
      throw new IllegalArgumentException("program: expression " + e + " wants " + n + " operands");
    }
  }

  static Node lit(String at, Object v) {
    return new Node(at) {
      @Override
      Object eval(Ctx x) {
        return v;
      }
    };
  }

  static final class Var extends Node {
    final int slot;
    final String name;

    Var(String at, int slot, String name) {
      super(at);
      this.slot = slot;
      this.name = name;
    }

    @Override
    Object eval(Ctx x) {
      if (!x.set[slot]) {
        throw fail("variable :" + name + " is not set");
      }
      return x.vars[slot];
    }
  }

  static final class Unary extends Node {
    final String op;
    final Node a;

    Unary(String at, String op, Node a) {
      super(at);
      this.op = op;
      this.a = a;
    }

    @Override
    Object eval(Ctx x) {
      Object v = a.eval(x);
      if (v == null) {
        return null;
      }
      switch (op) {
        case "not":
          return !toBool(v, this);
        case "~":
          return ~toInt(v, this);
        default:
          Object n = toNumber(v, this);
          if (n instanceof Double) {
            return -(Double) n;
          }
          long i = (Long) n;
          if (i == Long.MIN_VALUE) {
            throw fail("bigint out of range");
          }
          return -i;
      }
    }
  }

  static final class Logic extends Node {
    final boolean and;
    final Node a;
    final Node b;

    Logic(String at, boolean and, Node a, Node b) {
      super(at);
      this.and = and;
      this.a = a;
      this.b = b;
    }

    @Override
    Object eval(Ctx x) {
      Object av = a.eval(x);
      if (av != null) {
        boolean ab = toBool(av, this);
        if (ab != and) {
          return ab;
        }
      }
      Object bv = b.eval(x);
      if (bv == null) {
        return null;
      }
      boolean bb = toBool(bv, this);
      if (av == null) {
        return bb != and ? (Object) bb : null;
      }
      return bb;
    }
  }

  static final class Binary extends Node {
    final String op;
    final Node a;
    final Node b;

    Binary(String at, String op, Node a, Node b) {
      super(at);
      this.op = op;
      this.a = a;
      this.b = b;
    }

    @Override
    Object eval(Ctx x) {
      Object av = a.eval(x);
      Object bv = b.eval(x);
      if (av == null || bv == null) {
        return null;
      }
      switch (op) {
        case "|":
          return toInt(av, this) | toInt(bv, this);
        case "#":
          return toInt(av, this) ^ toInt(bv, this);
        case "&":
          return toInt(av, this) & toInt(bv, this);
        case "<<": {
          long ai = toInt(av, this);
          return ai << (toInt(bv, this) & 63);
        }
        case ">>": {
          long ai = toInt(av, this);
          return ai >> (toInt(bv, this) & 63);
        }
        default:
          break;
      }
      Object an = toNumber(av, this);
      Object bn = toNumber(bv, this);
      if (an instanceof Long && bn instanceof Long) {
        return ints((Long) an, (Long) bn);
      }
      double af = an instanceof Long ? (double) (Long) an : (Double) an;
      double bf = bn instanceof Long ? (double) (Long) bn : (Double) bn;
      switch (op) {
        case "+":
          return af + bf;
        case "-":
          return af - bf;
        case "*":
          return af * bf;
        case "/":
          return af / bf;
        case "%":
          throw fail("% wants integers");
        default:
          return cmp(op, compare(af, bf));
      }
    }

    private Object ints(long a, long b) {
      try {
        switch (op) {
          case "+":
            return Math.addExact(a, b);
          case "-":
            return Math.subtractExact(a, b);
          case "*":
            return Math.multiplyExact(a, b);
          default:
            break;
        }
      } catch (ArithmeticException e) {
        throw fail("bigint out of range");
      }
      switch (op) {
        case "/":
        case "%":
          if (b == 0) {
            throw fail("division by zero");
          }
          if (b == -1) {
            if (op.equals("%")) {
              return 0L;
            }
            if (a == Long.MIN_VALUE) {
              throw fail("bigint out of range");
            }
            return -a;
          }
          return op.equals("/") ? a / b : a % b;
        default:
          return cmp(op, Long.compare(a, b));
      }
    }
  }

  static final class Is extends Node {
    final String what;
    final boolean not;
    final Node a;

    Is(String at, String what, boolean not, Node a) {
      super(at);
      this.what = what;
      this.not = not;
      this.a = a;
    }

    @Override
    Object eval(Ctx x) {
      Object v = a.eval(x);
      boolean r;
      if (what.equals("null")) {
        r = v == null;
      } else {
        r = v != null && toBool(v, this) == what.equals("true");
      }
      return r != not;
    }
  }

  static final class Case extends Node {
    final Node[] a;
    final Node els;

    Case(String at, Node[] a, Node els) {
      super(at);
      this.a = a;
      this.els = els;
    }

    @Override
    Object eval(Ctx x) {
      for (int k = 0; k + 1 < a.length; k += 2) {
        Object c = a[k].eval(x);
        if (c == null) {
          continue;
        }
        if (toBool(c, this)) {
          return a[k + 1].eval(x);
        }
      }
      return els != null ? els.eval(x) : null;
    }
  }
}
