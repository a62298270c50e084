package litebench.worker;

/**
 * litebench's deterministic numbers (docs/data-generation.md §2, §5–§8): the
 * splitmix64 mixer and its draws, the zipfian of the key distributions, the op
 * chooser, the arrival gaps, and the exp/log/log1p/pow the spec builds from
 * IEEE operations only. Java never fuses a multiply and an add, and every
 * long operation wraps, as the spec asks.
 */
final class Gen {
  private Gen() {}

  static final long GAMMA = 0x9E3779B97F4A7C15L;
  static final long M1 = 0xBF58476D1CE4E5B9L;
  static final long M2 = 0x94D049BB133111EBL;

  static final long STREAM_UUID_LOW = 0xA5A5A5A5L;
  static final long STREAM_WORDS = 0x5bd1e995L;
  static final long STREAM_KEYS = 0x6b6579L;
  static final long STREAM_OPS = 0x726174L;
  static final long STREAM_SCATTER = 0x7a697066L;

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * M1;
    z = (z ^ (z >>> 27)) * M2;
    return z ^ (z >>> 31);
  }

  /** The first output of splitmix64 started in state x. */
  static long splitMix64(long x) {
    return mix(x + GAMMA);
  }

  /** Value index of stream stream under seed. */
  static long draw(long seed, long stream, long index) {
    return mix((seed ^ stream) * GAMMA + index * M1 + M2);
  }

  /** The top 53 bits of x over 2^53: a double in [0, 1). */
  static double unit(long x) {
    return (double) (x >>> 11) / 9007199254740992.0;
  }

  /** splitmix64 as a sequence. */
  static final class SplitMix {
    long state;

    SplitMix(long state) {
      this.state = state;
    }

    long next() {
      state += GAMMA;
      return mix(state);
    }
  }

  // Key distributions (§5).

  static final String KEYS_UNIFORM = "uniform";
  static final String KEYS_ZIPFIAN = "zipfian";
  static final String KEYS_LATEST = "latest";

  /** Above this many items zeta expands instead of summing (docs/data-generation.md §5). */
  static final long ZETA_EXACT_MAX = 1L << 20;

  /**
   * Σ 1/k^theta for k = 1 … n: summed up to ZETA_EXACT_MAX, above it the first nine terms plus
   * the Euler–Maclaurin expansion to the B6 term.
   */
  static double zeta(long n, double theta) {
    double zn = 0;
    if (n <= ZETA_EXACT_MAX) {
      for (long i = 1; i <= n; i++) {
        zn += 1 / pow((double) i, theta);
      }
      return zn;
    }
    for (long i = 1; i < 10; i++) {
      zn += 1 / pow((double) i, theta);
    }
    double a = 10, b = (double) n;
    double c1 = theta;
    double c3 = c1 * (theta + 1) * (theta + 2);
    double c5 = c3 * (theta + 3) * (theta + 4);
    double integral = (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta);
    double ends = (1 / pow(a, theta) + 1 / pow(b, theta)) / 2;
    double d1 = (c1 / pow(a, theta + 1) - c1 / pow(b, theta + 1)) / 12;
    double d3 = (c3 / pow(a, theta + 3) - c3 / pow(b, theta + 3)) / 720;
    double d5 = (c5 / pow(a, theta + 5) - c5 / pow(b, theta + 5)) / 30240;
    return zn + ((((integral + ends) + d1) - d3) + d5);
  }

  /** Gray et al.'s zipfian over n ranks, read-only once built. */
  static final class Zipf {
    final long n;
    final double zetan;
    final double half;
    final double alpha;
    final double eta;

    Zipf(long n, double theta) {
      n = Math.max(n, 1);
      double zn = zeta(n, theta);
      this.n = n;
      this.zetan = zn;
      this.half = 1 + pow(0.5, theta);
      this.alpha = 1 / (1 - theta);
      this.eta = (1 - pow(2 / (double) n, 1 - theta)) / (1 - half / zn);
    }

    long rank(double u) {
      double uz = u * zetan;
      if (uz < 1) {
        return 0;
      }
      if (uz < half) {
        return Math.min(1, n - 1);
      }
      double f = (double) n * pow(eta * u - eta + 1, alpha);
      if (!(f >= 0)) {
        return 0;
      }
      return Math.min((long) Math.min(f, (double) n), n - 1);
    }
  }

  /** Where rank r lands among n rows. */
  static long scatter(long rank, long n) {
    return Long.remainderUnsigned(draw(0, STREAM_SCATTER, rank), n);
  }

  static final int KIND_UNIFORM = 0;
  static final int KIND_ZIPFIAN = 1;
  static final int KIND_LATEST = 2;

  /** The kind number of a key distribution's name (uniform for any other). */
  static int keyKind(String kind) {
    return KEYS_ZIPFIAN.equals(kind) ? KIND_ZIPFIAN : KEYS_LATEST.equals(kind) ? KIND_LATEST : KIND_UNIFORM;
  }

  /** A row index in [0, n) drawn from rnd (§5); 0 without drawing when n ≤ 1. */
  static long pickKey(int kind, Zipf zipf, SplitMix rnd, long n) {
    if (n <= 1) {
      return 0;
    }
    double u = unit(rnd.next());
    switch (kind) {
      case KIND_ZIPFIAN:
        return scatter(zipf.rank(u), n);
      case KIND_LATEST:
        return Math.max(n - 1 - zipf.rank(u), 0);
      default:
        return (long) (u * (double) n);
    }
  }

  /** One worker's key sequence. */
  static final class KeyGen {
    private final int kind;
    private final Zipf zipf;
    private final SplitMix rnd;

    KeyGen(String kind, Zipf zipf, long seed, int worker) {
      this.kind = keyKind(kind);
      this.zipf = zipf;
      this.rnd = new SplitMix(draw(seed, STREAM_KEYS, (long) worker + 1));
    }

    /** A row index in [0, n); 0 without drawing when n ≤ 1. */
    long next(long n) {
      return pickKey(kind, zipf, rnd, n);
    }
  }

  /** Whether open-loop operation seq writes, for writePercent percent of writes (§6). */
  static boolean writeOp(long seed, long seq, double writePercent) {
    return (double) Long.remainderUnsigned(draw(seed, STREAM_OPS, seq), 10000) < writePercent * 100;
  }

  /** The uniform number that spaces open-loop operation seq from the one before (§7). */
  static double arrivalU(long seed, long seq) {
    return unit(splitMix64(seed ^ seq));
  }

  /** A Poisson process's gap in nanoseconds at rate per second, for u in [0, 1). */
  static long poissonGap(double rate, double u) {
    return (long) (-log1p(-u) * (1e9 / rate));
  }

  // §8: exp, log, log1p and pow from IEEE operations only.

  private static final double LN2HI = Double.longBitsToDouble(0x3fe62e42fee00000L);
  private static final double LN2LO = Double.longBitsToDouble(0x3dea39ef35793c76L);
  private static final double LG1 = Double.longBitsToDouble(0x3fe5555555555593L);
  private static final double LG2 = Double.longBitsToDouble(0x3fd999999997fa04L);
  private static final double LG3 = Double.longBitsToDouble(0x3fd2492494229359L);
  private static final double LG4 = Double.longBitsToDouble(0x3fcc71c51d8e78afL);
  private static final double LG5 = Double.longBitsToDouble(0x3fc7466496cb03deL);
  private static final double LG6 = Double.longBitsToDouble(0x3fc39a09d078c69fL);
  private static final double LG7 = Double.longBitsToDouble(0x3fc2f112df3e5244L);
  private static final double LOG2E = Double.longBitsToDouble(0x3ff71547652b82feL);
  private static final double OVERFLOW = Double.longBitsToDouble(0x40862e42fefa39efL);
  private static final double UNDERFLOW = Double.longBitsToDouble(0xc0874910d52d3051L);
  private static final double P1 = Double.longBitsToDouble(0x3fc5555555555555L);
  private static final double P2 = Double.longBitsToDouble(0xbf66c16c16bebd93L);
  private static final double P3 = Double.longBitsToDouble(0x3f11566aaf25de2cL);
  private static final double P4 = Double.longBitsToDouble(0xbebbbd41c5d26bf1L);
  private static final double P5 = Double.longBitsToDouble(0x3e66376972bea4d0L);
  private static final double SQRT2_2 = Double.longBitsToDouble(0x3fe6a09e667f3bcdL);
  private static final double SQRT2M1 = Double.longBitsToDouble(0x3fda827999fcef32L);
  private static final double SQRT2HALFM1 = Double.longBitsToDouble(0xbfd2bec333018867L);
  private static final double TWO_THIRDS = Double.longBitsToDouble(0x3fe5555555555555L);

  private static final int SHIFT = 52;
  private static final int MASK = 0x7ff;
  private static final int BIAS = 1023;
  private static final double SMALLEST_NORMAL = Double.longBitsToDouble(0x0010000000000000L);

  /** The exponent of frexp(x): x = m·2^e with 0.5 ≤ |m| < 1 (0 for 0, ±∞, NaN). */
  static int frexpExp(double x) {
    if (x == 0 || Double.isInfinite(x) || Double.isNaN(x)) {
      return 0;
    }
    int exp = 0;
    if (Math.abs(x) < SMALLEST_NORMAL) {
      x *= (double) (1L << 52);
      exp = -52;
    }
    long bits = Double.doubleToRawLongBits(x);
    return exp + (int) ((bits >>> SHIFT) & MASK) - BIAS + 1;
  }

  /** The mantissa of frexp(x). */
  static double frexpFrac(double x) {
    if (x == 0 || Double.isInfinite(x) || Double.isNaN(x)) {
      return x;
    }
    if (Math.abs(x) < SMALLEST_NORMAL) {
      x *= (double) (1L << 52);
    }
    long bits = Double.doubleToRawLongBits(x);
    bits &= ~((long) MASK << SHIFT);
    bits |= (long) (-1 + BIAS) << SHIFT;
    return Double.longBitsToDouble(bits);
  }

  /** frac·2^exp rounded once, as Go's math.Ldexp. */
  static double ldexp(double frac, long exp) {
    if (frac == 0 || Double.isInfinite(frac) || Double.isNaN(frac)) {
      return frac;
    }
    // normalize
    if (Math.abs(frac) < SMALLEST_NORMAL) {
      frac *= (double) (1L << 52);
      exp -= 52;
    }
    long x = Double.doubleToRawLongBits(frac);
    exp += ((x >>> SHIFT) & MASK) - BIAS;
    if (exp < -1075) {
      return Math.copySign(0.0, frac);
    }
    if (exp > 1023) {
      return frac < 0 ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    double m = 1;
    if (exp < -1022) {
      exp += 53;
      m = 1.0 / (double) (1L << 53);
    }
    x &= ~((long) MASK << SHIFT);
    x |= (exp + BIAS) << SHIFT;
    return m * Double.longBitsToDouble(x);
  }

  static double exp(double x) {
    final double nearZero = 1.0 / (1 << 28);
    if (Double.isNaN(x)) {
      return x;
    }
    if (x > OVERFLOW) {
      return Double.POSITIVE_INFINITY;
    }
    if (x < UNDERFLOW) {
      return 0;
    }
    if (-nearZero < x && x < nearZero) {
      return 1 + x;
    }
    int k = 0;
    if (x < 0) {
      k = (int) (LOG2E * x - 0.5);
    } else if (x > 0) {
      k = (int) (LOG2E * x + 0.5);
    }
    double hi = x - (double) k * LN2HI;
    double lo = (double) k * LN2LO;
    double r = hi - lo;
    double t = r * r;
    double c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    double y = 1 - ((lo - (r * c) / (2 - c)) - hi);
    return ldexp(y, k);
  }

  static double log(double x) {
    if (Double.isNaN(x) || x == Double.POSITIVE_INFINITY) {
      return x;
    }
    if (x < 0) {
      return Double.NaN;
    }
    if (x == 0) {
      return Double.NEGATIVE_INFINITY;
    }
    double f1 = frexpFrac(x);
    int ki = frexpExp(x);
    if (f1 < SQRT2_2) {
      f1 *= 2;
      ki--;
    }
    double f = f1 - 1;
    double k = (double) ki;
    double s = f / (2 + f);
    double s2 = s * s;
    double s4 = s2 * s2;
    double t1 = s2 * (LG1 + s4 * (LG3 + s4 * (LG5 + s4 * LG7)));
    double t2 = s4 * (LG2 + s4 * (LG4 + s4 * LG6));
    double r = t1 + t2;
    double hfsq = 0.5 * f * f;
    return k * LN2HI - ((hfsq - (s * (hfsq + r) + k * LN2LO)) - f);
  }

  static double log1p(double x) {
    final double small = 1.0 / (1 << 29);
    final double tiny = 1.0 / (double) (1L << 54);
    final double two53 = (double) (1L << 53);
    if (x < -1 || Double.isNaN(x)) {
      return Double.NaN;
    }
    if (x == -1) {
      return Double.NEGATIVE_INFINITY;
    }
    if (x == Double.POSITIVE_INFINITY) {
      return Double.POSITIVE_INFINITY;
    }
    double absx = Math.abs(x);
    double f = 0;
    long iu = 0;
    int k = 1;
    if (absx < SQRT2M1) {
      if (absx < small) {
        if (absx < tiny) {
          return x;
        }
        return x - x * x * 0.5;
      }
      if (x > SQRT2HALFM1) {
        k = 0;
        f = x;
        iu = 1;
      }
    }
    double c = 0;
    if (k != 0) {
      double u;
      if (absx < two53) {
        u = 1.0 + x;
        iu = Double.doubleToRawLongBits(u);
        k = (int) ((iu >>> 52) - 1023);
        if (k > 0) {
          c = 1.0 - (u - x);
        } else {
          c = x - (u - 1.0);
        }
        c /= u;
      } else {
        u = x;
        iu = Double.doubleToRawLongBits(u);
        k = (int) ((iu >>> 52) - 1023);
        c = 0;
      }
      iu &= 0x000fffffffffffffL;
      if (iu < 0x0006a09e667f3bcdL) {
        u = Double.longBitsToDouble(iu | 0x3ff0000000000000L);
      } else {
        k++;
        u = Double.longBitsToDouble(iu | 0x3fe0000000000000L);
        iu = (0x0010000000000000L - iu) >>> 2;
      }
      f = u - 1.0;
    }
    double hfsq = 0.5 * f * f;
    double fk = (double) k;
    if (iu == 0) {
      if (f == 0) {
        if (k == 0) {
          return 0;
        }
        c += fk * LN2LO;
        return fk * LN2HI + c;
      }
      double r = hfsq * (1.0 - TWO_THIRDS * f);
      if (k == 0) {
        return f - r;
      }
      return fk * LN2HI - ((r - (fk * LN2LO + c)) - f);
    }
    double s = f / (2.0 + f);
    double z = s * s;
    double r = z * (LG1 + z * (LG2 + z * (LG3 + z * (LG4 + z * (LG5 + z * (LG6 + z * LG7))))));
    if (k == 0) {
      return f - (hfsq - s * (hfsq + r));
    }
    return fk * LN2HI - ((hfsq - (s * (hfsq + r) + (fk * LN2LO + c))) - f);
  }

  private static double trunc(double x) {
    return x < 0 ? Math.ceil(x) : Math.floor(x);
  }

  /** x**y for finite x and y. */
  static double pow(double x, double y) {
    if (y == 0 || x == 1) {
      return 1;
    }
    if (y == 1) {
      return x;
    }
    if (Double.isNaN(x) || Double.isNaN(y) || Double.isInfinite(x) || Double.isInfinite(y)) {
      return Double.NaN;
    }
    if (x == 0) {
      return y < 0 ? Double.POSITIVE_INFINITY : 0;
    }
    if (y == 0.5) {
      return Math.sqrt(x);
    }
    if (y == -0.5) {
      return 1 / Math.sqrt(x);
    }
    double yi = trunc(Math.abs(y));
    double yf = Math.abs(y) - yi;
    if (yf != 0 && x < 0) {
      return Double.NaN;
    }
    if (yi >= 9.223372036854775808E18) {
      if (x == -1) {
        return 1;
      }
      if ((Math.abs(x) < 1) == (y > 0)) {
        return 0;
      }
      return Double.POSITIVE_INFINITY;
    }
    double a1 = 1.0;
    long ae = 0;
    if (yf != 0) {
      if (yf > 0.5) {
        yf--;
        yi++;
      }
      a1 = exp(yf * log(x));
    }
    double x1 = frexpFrac(x);
    long xe = frexpExp(x);
    for (long i = (long) yi; i != 0; i >>= 1) {
      if (xe < -(1 << 12) || (1 << 12) < xe) {
        ae += xe;
        break;
      }
      if ((i & 1) == 1) {
        a1 *= x1;
        ae += xe;
      }
      x1 *= x1;
      xe <<= 1;
      if (x1 < .5) {
        x1 += x1;
        xe--;
      }
    }
    if (y < 0) {
      a1 = 1 / a1;
      ae = -ae;
    }
    return ldexp(a1, ae);
  }
}
