package litebench.worker;

import com.eclipsesource.json.JsonObject;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Latency histograms in nanoseconds (1 ns to 10 minutes; 3 significant
 * figures for a whole run, 2 for an interval), their wire form (HdrHistogram's
 * V2 compressed encoding in base64) and their summaries in microseconds,
 * computed the way hdrhistogram-go computes them (internal/metrics), so that a
 * reader decoding the histogram finds the same figures.
 */
final class Hist {
  private Hist() {}

  static final long LOWEST = 1;
  static final long HIGHEST = 600_000_000_000L;

  static Histogram full() {
    return new Histogram(LOWEST, HIGHEST, 3);
  }

  static Histogram interval() {
    return new Histogram(LOWEST, HIGHEST, 2);
  }

  /** v clamped into the histograms' range, as the Go recorder clamps. */
  static long clamp(long v) {
    return v < LOWEST ? LOWEST : v > HIGHEST ? HIGHEST : v;
  }

  /** The V2 compressed base64 form; "" for null or an empty histogram. */
  static String encode(Histogram h) {
    if (h == null || h.getTotalCount() == 0) {
      return "";
    }
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), n));
  }

  static final double[] PERCENTILES = {50, 75, 90, 95, 99, 99.9, 99.99};
  static final String[] PERCENTILE_KEYS = {"p50", "p75", "p90", "p95", "p99", "p999", "p9999"};

  /** Go's math.Round(f*1000)/1000 for f ≥ 0. */
  static double round3(double f) {
    double x = f * 1000;
    double r = Math.floor(x);
    if (x - r >= 0.5) {
      r += 1;
    }
    return r / 1000;
  }

  private static double us(long ns) {
    return round3((double) ns / 1e3);
  }

  /** hdrhistogram-go's rank of a percentile among total values. */
  static long percentileRank(double percentile, long total) {
    if (percentile > 100) {
      percentile = 100;
    }
    double rank = (percentile / 100) * (double) total + 0.5;
    if (!(rank >= 1)) {
      return 1;
    }
    if (rank >= (double) total) {
      return total;
    }
    return (long) rank;
  }

  /** hdrhistogram-go's ValueAtQuantile(q) for q > 0. */
  static long valueAtQuantile(Histogram h, double q) {
    long total = h.getTotalCount();
    if (total == 0) {
      return 0;
    }
    long rank = percentileRank(q, total);
    long run = 0;
    for (HistogramIterationValue v : h.recordedValues()) {
      run += v.getCountAtValueIteratedTo();
      if (run >= rank) {
        return h.highestEquivalentValue(v.getValueIteratedTo());
      }
    }
    return 0;
  }

  /** The summary in microseconds: count, min, mean, max, p50 … p9999. */
  static JsonObject summary(Histogram h) {
    JsonObject o = new JsonObject();
    long total = h == null ? 0 : h.getTotalCount();
    if (total == 0) {
      o.add("count", 0).add("min", 0).add("mean", 0).add("max", 0);
      return o;
    }
    long min = -1;
    long max = 0;
    double mean = 0;
    long[] ranks = new long[PERCENTILES.length];
    long[] at = new long[PERCENTILES.length];
    for (int k = 0; k < ranks.length; k++) {
      ranks[k] = percentileRank(PERCENTILES[k], total);
    }
    long run = 0;
    int next = 0;
    for (HistogramIterationValue v : h.recordedValues()) {
      long c = v.getCountAtValueIteratedTo();
      long val = v.getValueIteratedTo();
      if (min < 0) {
        min = h.lowestEquivalentValue(val);
      }
      max = h.highestEquivalentValue(val);
      mean += (double) c * (double) h.medianEquivalentValue(val) / (double) total;
      run += c;
      while (next < ranks.length && run >= ranks[next]) {
        at[next++] = h.highestEquivalentValue(val);
      }
    }
    o.add("count", (double) total).add("min", us(min)).add("mean", round3(mean / 1e3)).add("max", us(max));
    for (int k = 0; k < at.length; k++) {
      o.add(PERCENTILE_KEYS[k], us(at[k]));
    }
    return o;
  }
}
