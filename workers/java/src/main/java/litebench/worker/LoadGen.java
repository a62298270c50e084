package litebench.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The load engine (internal/loadgen): closed loop (a fixed set of worker
 * threads, each starting its next operation when the last one ends) or open
 * loop (operations scheduled at a rate whatever the target does, run by up to
 * max-inflight executor threads started as they are needed; response time
 * from the scheduled start). Warm-up runs first, unrecorded.
 */
final class LoadGen {
  private LoadGen() {}

  /** A worker's operations. run returns the retries and leaves a failure in error. */
  abstract static class Executor {
    Throwable error;
    /** The recorder of the operation run is given (for results of its own parts). */
    Recorder rec;

    abstract int run(int op);

    void close() {}
  }

  /** An error that ends the run instead of being counted. */
  static final class Fatal extends Exception {
    Fatal(Throwable cause) {
      super(Db.message(cause), cause);
    }
  }

  /** A role that lets the chooser pick each operation's kind. */
  static final int ANY_OP = -1;

  interface Chooser {
    int choose(long seq);
  }

  interface ExecutorFactory {
    Executor create(int worker) throws Exception;
  }

  static final class Config {
    String[] ops;
    int[] roles = new int[0];
    double rate;
    boolean poisson;
    int maxInflight;
    Chooser choose;
    long duration;
    long warmup;
    long count;
    long seed;
    long lateAfter = 1_000_000;
    ExecutorFactory newExecutor;
    Function<Throwable, String> classify;
    Supplier<Recorder> newRecorder;
    LongConsumer onMeasure;
    AtomicLong done = new AtomicLong();
    Db.Stop stop = new Db.Stop();
  }

  static final class Stats {
    long start;
    long end;
    long issued;
    int executors;
    long interrupted;
    Histogram lag;
  }

  /** Thrown after a run that was stopped by a cancel; carries what was measured. */
  static final class Stopped extends Exception {
    final Stats stats;

    Stopped(Stats stats) {
      super("the run was stopped");
      this.stats = stats;
    }
  }

  /** Thrown after a run that a fatal error ended. */
  static final class Failed extends Exception {
    final Stats stats;

    Failed(Throwable cause, Stats stats) {
      super(Db.message(cause), cause);
      this.stats = stats;
    }
  }

  static Stats run(Config cfg) throws Stopped, Failed {
    if (cfg.duration <= 0 && cfg.count <= 0) {
      throw new IllegalArgumentException("loadgen: set a duration or a count");
    }
    if (cfg.rate > 0) {
      cfg.maxInflight = Math.max(cfg.maxInflight, 1);
      return new Run(cfg).open();
    }
    if (cfg.roles.length == 0) {
      throw new IllegalArgumentException("loadgen: no workers");
    }
    return new Run(cfg).closed();
  }

  /** What the threads of one run share. */
  private static final class Run {
    final Config cfg;
    final String[] ops;
    /** The caller's stop (cancel). */
    final Db.Stop parent;
    private volatile Throwable failure;
    private volatile boolean measured;
    private long warmEnd;
    private long start;
    private long deadline;
    final AtomicLong interrupted = new AtomicLong();

    Run(Config cfg) {
      this.cfg = cfg;
      this.ops = cfg.ops;
      this.parent = cfg.stop;
    }

    boolean stopped() {
      return parent.stopped() || failure != null;
    }

    synchronized void fail(Throwable e) {
      if (failure == null) {
        failure = e;
      }
    }

    synchronized void begin(long now) {
      if (measured) {
        return;
      }
      start = now;
      if (cfg.duration > 0) {
        deadline = now + cfg.duration;
      }
      cfg.done.set(0);
      if (cfg.onMeasure != null) {
        cfg.onMeasure.accept(now);
      }
      measured = true;
    }

    /** The end of the measured part for threads that stopped at stopAt: the cancel, if earlier. */
    long end(long stopAt) {
      if (parent.stopped() && parent.at() - stopAt < 0) {
        return parent.at();
      }
      return stopAt;
    }

    Stats finish(Stats st) throws Stopped, Failed {
      if (failure != null) {
        throw new Failed(failure, st);
      }
      if (parent.stopped()) {
        throw new Stopped(st);
      }
      return st;
    }

    /** Counts a finished operation's retries and error; whether it succeeded. */
    boolean record(Recorder rec, int op, int retries, Throwable err) {
      rec.retry(op, retries);
      if (err == null) {
        return true;
      }
      if (err instanceof Fatal) {
        fail(err.getCause());
        return false;
      }
      rec.error(op, cfg.classify != null ? cfg.classify.apply(err) : "other");
      return false;
    }

    Stats closed() throws Stopped, Failed {
      long t0 = System.nanoTime();
      warmEnd = t0 + cfg.warmup;
      if (cfg.warmup <= 0) {
        begin(t0);
      }
      Quota q = new Quota(cfg.count, cfg.roles.length);
      AtomicLong issued = new AtomicLong();
      Thread[] threads = new Thread[cfg.roles.length];
      for (int w = 0; w < threads.length; w++) {
        final int worker = w;
        final int role = cfg.roles[w];
        threads[w] = new Thread(() -> issued.addAndGet(work(worker, role, q)), "worker-" + w);
        threads[w].start();
      }
      join(threads);
      Stats st = new Stats();
      st.end = end(System.nanoTime());
      if (!measured) {
        begin(st.end); // the warm-up outlasted the run (interrupted)
      }
      if (cfg.duration > 0 && st.end - deadline > 0) {
        st.end = deadline; // the window; later completions are overruns
      }
      st.start = start;
      st.issued = issued.get();
      st.executors = threads.length;
      st.interrupted = interrupted.get();
      return finish(st);
    }

    /** Closed-loop worker w: runs operations of kind role until the run ends. */
    long work(int w, int role, Quota q) {
      Executor ex;
      try {
        ex = cfg.newExecutor.create(w);
      } catch (Exception e) {
        fail(new Exception("worker " + w + ": " + Db.message(e), e));
        return 0;
      }
      long issued = 0;
      boolean measuring = measured;
      Recorder rec = measuring ? cfg.newRecorder.get() : new Recorder(ops);
      Tally done = new Tally(cfg.done);
      long own = 0;
      long took = 0;
      long seq = (long) w << 40;
      try {
        while (!stopped()) {
          long start = System.nanoTime();
          if (!measuring) {
            if (!measured && start - warmEnd >= 0) {
              begin(start);
            }
            if (measured) {
              measuring = true;
              rec = cfg.newRecorder.get();
            }
          }
          if (measuring) {
            if (cfg.duration > 0 && start - deadline >= 0) {
              return issued;
            }
            if (cfg.count > 0) {
              if (own == 0) {
                own = q.claim(took);
                if (own == 0) {
                  return issued;
                }
              }
              own--;
            }
            issued++;
          }
          int op = role == ANY_OP ? cfg.choose.choose(seq) : role;
          seq++;
          ex.error = null;
          ex.rec = rec;
          int retries = ex.run(op);
          long end = System.nanoTime();
          took = end - start;
          if (stopped()) {
            if (measuring) {
              interrupted.incrementAndGet(); // ended after the stop: not counted
            }
            return issued;
          }
          if (!record(rec, op, retries, ex.error)) {
            continue;
          }
          if (measuring && cfg.duration > 0 && end - deadline > 0) {
            // Finished after the window closed: its latency counts, not its rate.
            rec.observeOverrun(op, took);
            continue;
          }
          rec.observe(op, took);
          if (measuring) {
            done.add(end);
          }
        }
        return issued;
      } finally {
        done.flush();
        ex.close();
      }
    }

    Stats open() throws Stopped, Failed {
      Ring ch = new Ring(1024);
      AtomicInteger idle = new AtomicInteger();
      AtomicLong dropped = new AtomicLong();
      Histogram lag = Hist.interval();
      List<Thread> threads = new ArrayList<>();
      long warm = cfg.warmup;
      long[] t0 = new long[1];
      int[] spawned = new int[1];
      Runnable spawn = () -> {
        final int w = spawned[0]++;
        idle.incrementAndGet();
        Thread t = new Thread(() -> execute(w, ch, idle, dropped, lag, t0[0], warm), "executor-" + w);
        threads.add(t);
        t.start();
      };
      t0[0] = System.nanoTime();
      spawn.run();
      if (warm <= 0) {
        begin(t0[0]);
      }
      long issued = 0;
      long prev = 0;
      long endOff = warm + cfg.duration;
      long[] slot = new long[2];
      dispatch:
      for (long seq = 0; ; seq++) {
        long due = schedule(seq, prev);
        prev = due;
        if (cfg.duration > 0 && due >= endOff) {
          break;
        }
        if (cfg.count > 0 && due >= warm && issued >= cfg.count) {
          break;
        }
        for (; ; ) {
          long now = System.nanoTime() - t0[0];
          long rem = due - now;
          if (rem <= 0) {
            break;
          }
          if (rem > TIMER_GUARD + SPIN_WINDOW + 1_000_000) {
            LockSupport.parkNanos(Math.min(rem - TIMER_GUARD, 50_000_000));
          } else if (rem > SPIN_WINDOW) {
            LockSupport.parkNanos(rem - SPIN_WINDOW);
          } else {
            Thread.yield();
          }
          if (stopped()) {
            break dispatch;
          }
        }
        if (stopped()) {
          break;
        }
        if (due >= warm) {
          if (!measured) {
            begin(t0[0] + warm);
          }
          issued++;
        }
        if (idle.get() <= 0 && spawned[0] < cfg.maxInflight) {
          spawn.run();
        }
        slot[0] = seq;
        slot[1] = due;
        if (!ch.put(slot, this)) {
          break;
        }
      }
      ch.close();
      join(threads.toArray(new Thread[0]));
      Stats st = new Stats();
      st.end = end(System.nanoTime());
      if (!measured) {
        begin(st.end);
      }
      st.start = start;
      st.issued = issued - dropped.get();
      st.executors = spawned[0];
      st.interrupted = interrupted.get();
      st.lag = lag;
      return finish(st);
    }

    private void execute(int w, Ring ch, AtomicInteger idle, AtomicLong dropped, Histogram lag, long t0, long warm) {
      Executor ex;
      try {
        ex = cfg.newExecutor.create(w);
      } catch (Exception e) {
        fail(new Exception("executor " + w + ": " + Db.message(e), e));
        long[] t = new long[2];
        while (ch.take(t)) {
          // keep the dispatcher from blocking
        }
        return;
      }
      Recorder warmRec = new Recorder(ops);
      Recorder rec = null;
      Histogram myLag = Hist.interval();
      Tally done = new Tally(cfg.done);
      long myDropped = 0;
      long[] t = new long[2];
      try {
        while (ch.take(t)) {
          long seq = t[0];
          long due = t[1];
          boolean measuredOp = due >= warm;
          if (stopped()) {
            if (measuredOp) {
              myDropped++; // stopped: what is still queued is not started
            }
            continue;
          }
          idle.decrementAndGet();
          long start = System.nanoTime();
          long late = (start - t0) - due;
          Recorder into = warmRec;
          if (measuredOp) {
            if (rec == null) {
              rec = cfg.newRecorder.get();
            }
            into = rec;
            myLag.recordValue(Hist.clamp(Math.max(late, 1)));
          }
          int op = cfg.choose.choose(seq);
          ex.error = null;
          ex.rec = into;
          int retries = ex.run(op);
          long end = System.nanoTime();
          if (stopped()) {
            if (measuredOp) {
              interrupted.incrementAndGet();
            }
          } else if (record(into, op, retries, ex.error)) {
            into.observeScheduled(op, end - start, (end - t0) - due, late > cfg.lateAfter);
            if (measuredOp) {
              done.add(end);
            }
          }
          idle.incrementAndGet();
        }
      } finally {
        done.flush();
        dropped.addAndGet(myDropped);
        synchronized (lag) {
          lag.add(myLag);
        }
        ex.close();
      }
    }

    /** Operation seq's offset from the start, given operation seq-1's. */
    long schedule(long seq, long prev) {
      if (seq == 0) {
        return 0;
      }
      if (!cfg.poisson) {
        return (long) ((double) seq * 1e9 / cfg.rate);
      }
      return prev + Gen.poissonGap(cfg.rate, Gen.arrivalU(cfg.seed, seq));
    }
  }

  static final long TIMER_GUARD = 2_000_000;
  static final long SPIN_WINDOW = 150_000;

  private static void join(Thread[] threads) {
    for (Thread t : threads) {
      boolean done = false;
      while (!done) {
        try {
          t.join();
          done = true;
        } catch (InterruptedException e) {
          // keep waiting: the threads end soon after a stop
        }
      }
    }
  }

  /** The operations of a counted closed-loop run, claimed a block at a time. */
  static final class Quota {
    final AtomicLong left;
    final long workers;

    Quota(long count, int workers) {
      this.left = new AtomicLong(count);
      this.workers = workers;
    }

    long claim(long last) {
      long n = 1;
      if (last > 0) {
        n = Math.max(1, Math.min(64, 1_000_000 / last));
      }
      for (; ; ) {
        long l = left.get();
        if (l <= 0) {
          return 0;
        }
        long k = Math.max(1, Math.min(n, l / (4 * workers)));
        if (left.compareAndSet(l, l - k)) {
          return k;
        }
      }
    }
  }

  /** Counts a worker's finished measured operations into the shared counter in batches. */
  static final class Tally {
    final AtomicLong to;
    long n;
    long last = System.nanoTime();

    Tally(AtomicLong to) {
      this.to = to;
    }

    void add(long now) {
      n++;
      if (n >= 256 || now - last >= 10_000_000) {
        to.addAndGet(n);
        n = 0;
        last = now;
      }
    }

    void flush() {
      to.addAndGet(n);
      n = 0;
    }
  }

  /** The tickets waiting for a free executor: a bounded queue of (seq, due). */
  static final class Ring {
    private final long[] seqs;
    private final long[] dues;
    private int head;
    private int size;
    private boolean closed;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();

    Ring(int cap) {
      seqs = new long[cap];
      dues = new long[cap];
    }

    /** Adds a ticket, waiting while full; false if the run stopped meanwhile. */
    boolean put(long[] t, Run r) {
      lock.lock();
      try {
        while (size == seqs.length) {
          if (r.stopped()) {
            return false;
          }
          try {
            notFull.await(10, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            return false;
          }
        }
        int at = (head + size) % seqs.length;
        seqs[at] = t[0];
        dues[at] = t[1];
        size++;
        notEmpty.signal();
        return true;
      } finally {
        lock.unlock();
      }
    }

    /** Takes a ticket into t, waiting while empty; false once closed and drained. */
    boolean take(long[] t) {
      lock.lock();
      try {
        while (size == 0) {
          if (closed) {
            return false;
          }
          notEmpty.awaitUninterruptibly();
        }
        t[0] = seqs[head];
        t[1] = dues[head];
        head = (head + 1) % seqs.length;
        size--;
        notFull.signal();
        return true;
      } finally {
        lock.unlock();
      }
    }

    void close() {
      lock.lock();
      try {
        closed = true;
        notEmpty.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
