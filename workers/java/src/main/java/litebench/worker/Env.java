package litebench.worker;

import com.eclipsesource.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** What a workload gets from the worker (internal/workload: Env). Times are System.nanoTime(). */
final class Env {
  /** A time not set. */
  static final long UNSET = Long.MIN_VALUE;

  /** Receives the first row index (or key) and row count of each committed write transaction. */
  interface Ack {
    void ack(long first, long n);
  }

  final Db.Session session;
  final Settings settings;
  final boolean attached;
  final Db.Stop stop;
  /** Rows written or read so far, or operations; the interval events report it. */
  final AtomicLong done = new AtomicLong();
  final List<Recorder> recorders = new CopyOnWriteArrayList<>();
  final List<JsonObject> figures = new ArrayList<>();
  final List<String> notes = new ArrayList<>();
  /** The end of the measured interval, when the workload sets it. */
  volatile long end = UNSET;
  /** Time inside the measured interval that is not the workload's (rows generated inline). */
  long excluded;
  /** The measured start, after a warm-up. */
  volatile long start = UNSET;
  /** The process's CPU time and the clock at the measured start and at its end: process_cpu. */
  private volatile long cpu0;
  private volatile long cpu0At = UNSET;
  private volatile long cpu1;
  private volatile long cpu1At = UNSET;
  Ack ack;
  /** Whether interval events are sent, so live recorders are needed. */
  boolean intervals;

  Env(Db.Session session, Settings settings, boolean attached, Db.Stop stop) {
    this.session = session;
    this.settings = settings;
    this.attached = attached;
    this.stop = stop;
  }

  /** Marks the measured start (UNSET: not yet, a warm-up runs first) and reads the process's CPU time there. */
  void markStart(long t) {
    start = t;
    if (t != UNSET) {
      cpu0 = cpuNanos();
      cpu0At = System.nanoTime();
    }
  }

  /** Marks the measured end, once every thread of it is done, and reads the process's CPU time there. */
  void markEnd(long t) {
    end = t;
    cpu1 = cpuNanos();
    cpu1At = System.nanoTime();
  }

  /**
   * The CPU the whole process used over the measured part, every thread's (the JVM's own among them), in cores,
   * as the Go worker reports process_cpu; NaN for a workload that marks no end or a warm-up that never ended.
   */
  double processCpu() {
    long a = cpu0At;
    long b = cpu1At;
    if (a == UNSET || b == UNSET || b <= a || start == UNSET) {
      return Double.NaN;
    }
    return (double) (cpu1 - cpu0) / (b - a);
  }

  /** The process's CPU time so far, user and system, in nanoseconds. */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  Recorder newRecorder(String[] ops) {
    Recorder r = new Recorder(ops);
    recorders.add(r);
    return r;
  }

  /** A recorder that also feeds the interval events (when the job asks for them). */
  Recorder newLiveRecorder(String[] ops) {
    Recorder r = intervals ? new Recorder(ops).live() : new Recorder(ops);
    recorders.add(r);
    return r;
  }

  /** A workload-specific figure: name, unit, value and which way is better ("" for none). */
  synchronized void figure(String name, String unit, String better, double value) {
    JsonObject f = new JsonObject().add("name", name).add("unit", unit).add("value", value);
    if (!better.isEmpty()) {
      f.add("better", better);
    }
    figures.add(f);
  }

  synchronized void note(String line) {
    notes.add(line);
  }
}
