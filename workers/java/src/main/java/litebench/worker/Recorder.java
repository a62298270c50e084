package litebench.worker;

import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import java.util.List;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * One worker thread's observations per op kind (internal/metrics): counts,
 * errors by kind, retries, late and overrun operations, the service-time
 * histogram and, in open loop, the response-time one. Recording takes no lock
 * and allocates nothing after an op kind's first value. A live recorder also
 * keeps per-interval figures that the interval sampler swaps out through a
 * WriterReaderPhaser, so the worker never waits.
 */
final class Recorder {
  static final String[] ERROR_KINDS = {"busy", "locked", "constraint", "interrupted", "missing", "mismatch", "other"};

  static int errKind(String name) {
    for (int k = 0; k < ERROR_KINDS.length; k++) {
      if (ERROR_KINDS[k].equals(name)) {
        return k;
      }
    }
    return ERROR_KINDS.length - 1;
  }

  final String[] ops;
  final Histogram[] service;
  final Histogram[] response;
  final long[] count;
  final long[][] errs;
  final long[] retries;
  final long[] late;
  final long[] overrun;
  private Live live;

  Recorder(String[] ops) {
    this.ops = ops;
    int n = ops.length;
    service = new Histogram[n];
    response = new Histogram[n];
    count = new long[n];
    errs = new long[n][ERROR_KINDS.length];
    retries = new long[n];
    late = new long[n];
    overrun = new long[n];
  }

  /** Makes the recorder feed the time series; call before it is used. */
  Recorder live() {
    live = new Live(ops.length);
    return this;
  }

  boolean isLive() {
    return live != null;
  }

  private Histogram svc(int op) {
    Histogram h = service[op];
    if (h == null) {
      h = Hist.full();
      service[op] = h;
    }
    return h;
  }

  void observe(int op, long ns) {
    observeN(op, 1, ns);
  }

  /** n operations that together took ns: one sample, n in the count. */
  void observeN(int op, long n, long ns) {
    if (live != null) {
      live.observe(op, n, ns);
    }
    count[op] += n;
    svc(op).recordValue(Hist.clamp(ns));
  }

  /** An open-loop operation: service from its start, response from its schedule. */
  void observeScheduled(int op, long service, long resp, boolean isLate) {
    if (live != null) {
      live.observe(op, 1, resp);
    }
    count[op]++;
    svc(op).recordValue(Hist.clamp(service));
    Histogram r = response[op];
    if (r == null) {
      r = Hist.full();
      response[op] = r;
    }
    r.recordValue(Hist.clamp(resp));
    if (isLate) {
      late[op]++;
    }
  }

  /** An operation still running when the window closed: in the latency, not the count. */
  void observeOverrun(int op, long ns) {
    overrun[op]++;
    svc(op).recordValue(Hist.clamp(ns));
  }

  void error(int op, String kind) {
    if (live != null) {
      live.error(op);
    }
    errs[op][errKind(kind)]++;
  }

  void retry(int op, int n) {
    retries[op] += n;
  }

  /** What a live recorder saw of one op kind since the last sample. */
  static final class Interval {
    long count;
    long errs;
    Histogram hist;
  }

  private static final class Live {
    final WriterReaderPhaser ph = new WriterReaderPhaser();
    volatile Interval[] active;
    Interval[] spare;

    Live(int n) {
      active = fresh(n);
      spare = fresh(n);
    }

    static Interval[] fresh(int n) {
      Interval[] a = new Interval[n];
      for (int k = 0; k < n; k++) {
        a[k] = new Interval();
      }
      return a;
    }

    void observe(int op, long n, long ns) {
      long at = ph.writerCriticalSectionEnter();
      try {
        Interval iv = active[op];
        if (iv.hist == null) {
          iv.hist = Hist.interval();
        }
        iv.count += n;
        iv.hist.recordValue(Hist.clamp(ns));
      } finally {
        ph.writerCriticalSectionExit(at);
      }
    }

    void error(int op) {
      long at = ph.writerCriticalSectionEnter();
      try {
        active[op].errs++;
      } finally {
        ph.writerCriticalSectionExit(at);
      }
    }

    /** Swaps the buffers and adds the one swapped out to out. */
    synchronized void take(Interval[] out) {
      ph.readerLock();
      try {
        Interval[] old = active;
        active = spare;
        ph.flipPhase();
        for (int k = 0; k < old.length; k++) {
          Interval iv = old[k];
          out[k].count += iv.count;
          out[k].errs += iv.errs;
          if (iv.hist != null && iv.hist.getTotalCount() > 0) {
            out[k].hist.add(iv.hist);
            iv.hist.reset();
          }
          iv.count = 0;
          iv.errs = 0;
        }
        spare = old;
      } finally {
        ph.readerUnlock();
      }
    }
  }

  /** Merges what the live recorders saw since the last call, one Interval per op kind. */
  static Interval[] takeInterval(int nops, List<Recorder> recs) {
    Interval[] out = new Interval[nops];
    for (int k = 0; k < nops; k++) {
      out[k] = new Interval();
      out[k].hist = Hist.interval();
    }
    for (Recorder r : recs) {
      if (r.live != null) {
        r.live.take(out);
      }
    }
    return out;
  }

  /**
   * The final figures of every op kind that saw anything, merged over
   * recorders, as the protocol's final_ops.
   */
  static JsonArray finalOps(String[] ops, List<Recorder> recs, IntFunction<String> partOf) {
    JsonArray out = new JsonArray();
    for (int k = 0; k < ops.length; k++) {
      long cnt = 0;
      long retr = 0;
      long lt = 0;
      long over = 0;
      long[] errs = new long[ERROR_KINDS.length];
      boolean seen = false;
      Histogram svc = Hist.full();
      Histogram resp = null;
      for (Recorder r : recs) {
        cnt += r.count[k];
        retr += r.retries[k];
        lt += r.late[k];
        over += r.overrun[k];
        for (int e = 0; e < errs.length; e++) {
          if (r.errs[k][e] > 0) {
            errs[e] += r.errs[k][e];
            seen = true;
          }
        }
        if (r.service[k] != null) {
          seen = true;
          svc.add(r.service[k]);
        }
        if (r.response[k] != null) {
          if (resp == null) {
            resp = Hist.full();
          }
          resp.add(r.response[k]);
        }
      }
      if (!seen && cnt == 0) {
        continue;
      }
      JsonObject o = new JsonObject().add("name", ops[k]);
      String of = partOf.apply(k);
      if (!of.isEmpty()) {
        o.add("of", of);
      }
      o.add("count", cnt);
      JsonObject e = new JsonObject();
      for (int x = 0; x < errs.length; x++) {
        if (errs[x] > 0) {
          e.add(ERROR_KINDS[x], errs[x]);
        }
      }
      if (!e.isEmpty()) {
        o.add("errors", e);
      }
      if (retr > 0) {
        o.add("retries", retr);
      }
      if (lt > 0) {
        o.add("late", lt);
      }
      if (over > 0) {
        o.add("overrun", over);
      }
      o.add("service", Hist.summary(svc));
      String hs = Hist.encode(svc);
      if (!hs.isEmpty()) {
        o.add("hist", hs);
      }
      if (resp != null) {
        o.add("response", Hist.summary(resp));
        String rs = Hist.encode(resp);
        if (!rs.isEmpty()) {
          o.add("resp_hist", rs);
        }
      }
      out.add(o);
    }
    return out;
  }
}
