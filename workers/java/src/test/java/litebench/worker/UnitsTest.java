package litebench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.eclipsesource.json.JsonObject;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Settings, parameters, Go's spellings and the histogram summaries. */
class UnitsTest {
  @Test
  void pragmasInTheGoOrder() throws Exception {
    Settings s = new Settings();
    assertEquals(List.of("PRAGMA busy_timeout = 5000"), s.pragmas());
    s.set("journal", "WAL");
    s.set("sync", "0");
    s.set("page-size", "8kb");
    s.set("temp-store", "memory");
    s.set("cache-size", "-64000");
    s.set("mmap-size", "1mb");
    s.set("locking-mode", "exclusive");
    s.set("busy-timeout", "0");
    assertEquals(List.of("PRAGMA page_size = 8192", "PRAGMA busy_timeout = 0", "PRAGMA locking_mode = exclusive",
        "PRAGMA journal_mode = wal", "PRAGMA synchronous = off", "PRAGMA cache_size = -64000",
        "PRAGMA mmap_size = 1048576", "PRAGMA temp_store = memory"), s.pragmas());
  }

  @Test
  void settingErrors() {
    Settings s = new Settings();
    assertEquals("--page-size \"1000\": want a power of two from 512 to 65536",
        assertThrows(Settings.BadJob.class, () -> s.set("page-size", "1000")).getMessage());
    assertEquals("--batch \"0\": must be at least 1", assertThrows(Settings.BadJob.class, () -> s.set("batch", "0")).getMessage());
    assertEquals("--pool \"x\": want a whole number", assertThrows(Settings.BadJob.class, () -> s.set("pool", "x")).getMessage());
    assertEquals("--busy-retry \"-2\": want none, a retry count, or until",
        assertThrows(Settings.BadJob.class, () -> s.set("busy-retry", "-2")).getMessage());
    assertEquals("unknown setting \"colour\" (see 'litebench list settings')",
        assertThrows(Settings.BadJob.class, () -> s.set("colour", "red")).getMessage());
  }

  @Test
  void resolveFillsDefaultsAndRefuses() throws Exception {
    Worker.Job j = new Worker.Job();
    j.workload = "read";
    j.params = Map.of("rows", "10k");
    Workloads.Workload w = Worker.resolve(j);
    assertTrue(w instanceof Ops);
    assertEquals("1", j.settings.get("batch"));
    assertEquals("10s", j.params.get("duration"));
    Worker.Job bad = new Worker.Job();
    bad.workload = "mixed";
    bad.params = Map.of("readers", "0", "writers", "0");
    assertEquals("--readers 0 --writers 0: nothing to run; give at least one reader or writer",
        assertThrows(Settings.BadJob.class, () -> Worker.resolve(bad)).getMessage());
    Worker.Job other = new Worker.Job();
    other.workload = "insert";
    other.target = "mattn";
    assertTrue(assertThrows(Settings.BadJob.class, () -> Worker.resolve(other)).getMessage().contains("not this worker's"));
  }

  @Test
  void decimals() {
    for (long v : new long[] {0, 7, -1, 10, -123, 4294967303L, Long.MAX_VALUE, Long.MIN_VALUE}) {
      Columns.Bytes b = new Columns.Bytes();
      b.add((byte) 'x');
      b.addLong(v);
      assertEquals("x" + v, b.string(0));
    }
  }

  @Test
  void durations() {
    assertEquals(10_000_000_000L, Text.parseDuration("10s"));
    assertEquals(90_000_000_000L, Text.parseDuration("1m30s"));
    assertEquals(1_500_000L, Text.parseDuration("1.5ms"));
    assertEquals(300_000L, Text.parseDuration("300µs"));
    assertEquals(0L, Text.parseDuration("0"));
    assertEquals(-2_000_000_000L, Text.parseDuration("-2s"));
    assertThrows(IllegalArgumentException.class, () -> Text.parseDuration("10"));
    assertThrows(IllegalArgumentException.class, () -> Text.parseDuration("soon"));
  }

  @Test
  void goFloats() {
    assertEquals("0", Text.goFloat(0));
    assertEquals("100", Text.goFloat(100));
    assertEquals("1e+09", Text.goFloat(1e9));
    assertEquals("0.99", Text.goFloat(0.99));
    assertEquals("1.5", Text.goFloat(1.5));
    assertEquals("1.234567e+06", Text.goFloat(1234567));
  }

  @Test
  void summaryAsHdrhistogramGo() {
    Histogram h = Hist.full();
    for (long v = 1; v <= 1000; v++) {
      h.recordValue(v * 1000); // 1 µs … 1 ms
    }
    JsonObject s = Hist.summary(h);
    assertEquals(1000, s.get("count").asDouble());
    assertEquals(1.0, s.get("min").asDouble());
    // p50: rank 500.5 → 500 (truncated), the bucket of 500 µs reported at its highest value.
    assertEquals(Hist.round3(h.highestEquivalentValue(500_000) / 1e3), s.get("p50").asDouble());
    assertEquals(Hist.round3(h.highestEquivalentValue(1_000_000) / 1e3), s.get("max").asDouble());
    assertEquals(Hist.round3(h.highestEquivalentValue(999_000) / 1e3), s.get("p999").asDouble());
    assertEquals(1, Hist.percentileRank(0.01, 1000));
    assertEquals(1000, Hist.percentileRank(99.99, 1000));
    assertEquals(0.5, Hist.round3(0.0005 * 1000)); // halves away from zero
    assertEquals(0.001, Hist.round3(0.0005));
  }

  @Test
  void encodingRoundTrips() throws Exception {
    Histogram h = Hist.interval();
    h.recordValue(12345);
    h.recordValue(Hist.HIGHEST);
    String s = Hist.encode(h);
    Histogram back = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(s)), 0);
    assertEquals(h, back);
    assertEquals("", Hist.encode(Hist.full()));
    assertEquals(Hist.HIGHEST, Hist.clamp(Long.MAX_VALUE));
    assertEquals(1, Hist.clamp(-5));
  }

  @Test
  void liveIntervalsAddUp() {
    Recorder r = new Recorder(Ops.OPS).live();
    for (int i = 0; i < 100; i++) {
      r.observe(0, 1000 + i);
    }
    r.error(1, "busy");
    Recorder.Interval[] iv = Recorder.takeInterval(2, List.of(r));
    assertEquals(100, iv[0].count);
    assertEquals(100, iv[0].hist.getTotalCount());
    assertEquals(1, iv[1].errs);
    iv = Recorder.takeInterval(2, List.of(r));
    assertEquals(0, iv[0].count);
    assertEquals(100, r.count[0]);
  }
}
