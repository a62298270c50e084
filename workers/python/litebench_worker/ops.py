"""The operation workloads (read, write, mixed) and the load engine that drives
them: closed loop (a thread per worker, each starting its next operation when
the last one ends) or open loop (operations scheduled at a rate whatever the
database does, run by up to max-inflight executor threads), as litebench's Go
loadgen does."""

import queue
import threading
import time
from array import array
from itertools import count as counter
from time import perf_counter_ns as pc

from . import gen
from .columns import Claims
from .hist import FULL, HIGHEST, INTERVAL, SMALL, Recorder, record_ends
from .settings import BadInput, q
from .workloads import (
    READ,
    READS,
    READS_UNIFORM,
    RECORD,
    WRITE,
    Counted,
    Failed,
    Stop,
    begin_sql,
    create_schema,
    insert_sql,
    preload,
    rollback,
    schema,
)

NEVER = 1 << 62
LOOKUP = len(SMALL)
CHECK_NS = 1_000_000  # how often a closed-loop worker looks at the clock's limits and at cancellation
LATE_NS = 1_000_000  # an open-loop operation that starts later than this behind schedule is late


def go_float(f):
    """f as Go's %v writes a float64."""
    s = repr(f)
    return s[:-2] if s.endswith(".0") else s


class Ops(Claims):
    """read, write and mixed: point reads by primary key and single-row (or
    --batch row) inserts, updates or upserts, in closed or open loop."""

    ops = ["read", "write"]
    nops = 2

    def __init__(self, name, p, s):
        self.name = name
        self.batch, self.retries = s.int("batch"), s.busy_retries()
        self.mutex = threading.Lock() if s.bool("write-mutex") else None
        self.single = s.get("writer") == "single"
        self.sc = schema(p)
        self.rows = p.int("rows", 0)
        self.seed = p.seed()
        self.keys = p["keys"]
        try:
            theta = float(p["zipf-theta"])
        except ValueError:
            raise BadInput("--zipf-theta %s: want a number between 0 and 1" % q(p["zipf-theta"])) from None
        if self.keys not in ("uniform", "zipfian", "latest"):
            raise BadInput("--keys %s: want uniform, zipfian or latest" % q(self.keys))
        if not 0 < theta < 1:
            raise BadInput(
                "--zipf-theta %s: want a number between 0 and 1 (exclusive; YCSB uses 0.99)" % go_float(theta)
            )
        self.kind = p.v.get("write-kind") or "insert"
        if self.kind not in ("insert", "update", "upsert"):
            raise BadInput("--write-kind %s: want insert, update or upsert" % q(self.kind))
        self.duration = p.duration("duration")
        self.warmup = p.duration("warmup")
        self.count = p.int("count", 0)
        if self.count > 0:
            self.duration = 0
        elif self.duration <= 0:
            raise BadInput("--duration %s: want a positive duration, or set --count" % p["duration"])
        self.rate = p.float("rate", 0, 1e9)
        self.arrivals = p["arrivals"]
        if self.arrivals not in ("uniform", "poisson"):
            raise BadInput("--arrivals %s: want uniform or poisson" % q(self.arrivals))
        self.max_inflight = p.int("max-inflight", 1)
        if name == "mixed":
            self.readers, self.writers = p.int("readers", 0), p.int("writers", 0)
            self.ratio = p.float("write-ratio", 0, 100)
            if self.rate == 0 and self.readers + self.writers == 0:
                raise BadInput("--readers 0 --writers 0: nothing to run; give at least one reader or writer")
        elif name == "read":
            self.readers, self.writers, self.ratio = p.int("workers", 1), 0, 0.0
        else:
            self.readers, self.writers, self.ratio = 0, p.int("workers", 1), 100.0
        if (
            (self.readers > 0 or self.kind != "insert")
            and self.rows == 0
            and not (name == "write" and self.kind == "insert")
        ):
            raise BadInput("--rows 0: reads and updates need rows to pick from; load some with --rows N")
        self.zipf = gen.Zipf(max(self.rows, 1), theta) if self.keys != "uniform" else None
        self.init_claims(self.rows)

    def roles(self):
        """The closed loop's workers: each one's role."""
        return [READ] * self.readers + [WRITE] * self.writers

    def chooser(self):
        """The open loop's choice of operation seq's role."""
        writes = gen.chooser(self.seed, self.ratio)
        return lambda seq: WRITE if writes(seq) else READ

    def setup(self, env):
        create_schema(env, self.sc)
        try:
            preload(env, self.sc, self.seed, self.rows)
        except Failed as e:
            raise Failed("loading %d rows: %s" % (self.rows, e)) from e
        env.extra["table_rows_before"] = float(self.rows)

    def write_sql(self):
        sc = self.sc
        if self.kind == "update":
            return "UPDATE %s SET %s WHERE %s = ?" % (
                sc.table,
                ", ".join(c + " = ?" for c in sc.update_cols),
                sc.key_col,
            )
        sql = insert_sql(sc, 1)
        if self.kind == "upsert":
            sql += " ON CONFLICT(%s) DO UPDATE SET %s" % (
                sc.key_col,
                ", ".join("%s = excluded.%s" % (c, c) for c in sc.update_cols),
            )
        return sql

    def run(self, env):
        sc = self.sc
        self.read_sql = "SELECT %s FROM %s WHERE %s = ?" % (",".join(sc.columns), sc.table, sc.key_col)
        self.wsql = self.write_sql()
        self.begin = begin_sql(env.settings)
        self.env = env
        self.wpool = env.pool
        if self.single and (self.writers > 0 or self.ratio > 0):
            self.wpool = env.open_pool(1)
        try:
            st = Engine(env, self).run()
        finally:
            if self.wpool is not env.pool:
                self.wpool.close()
            self.finish(env)
        if self.rate > 0:
            el = (st.end - st.start) / 1e9
            if el > 0:
                env.extra["issued_ops_per_s"] = st.issued / el
            env.extra["executors"] = float(st.executors)

    def finish(self, env):
        if self.rate > 0:
            env.extra["wanted_ops_per_s"] = self.rate
        if self.next > self.rows:
            env.extra["rows_inserted"] = float(self.next - self.rows)
        try:
            env.extra["table_rows_after"] = float(env.pool.run("SELECT count(*) FROM " + self.sc.table)[0][0])
        except env.client.Error:
            pass


class Executor:
    """One worker's operations, with its own keys. It keeps a connection of
    its own, opened before the measured part, when its pool has one for
    every worker (as database/sql's pool ends up doing); else it borrows one
    per operation."""

    def __init__(self, w, i, role, users, writers):
        """Worker i of `users` sharing the run's pool, running role (READ,
        WRITE, or None for both); `writers` share a single writer's pool."""
        self.w, self.env = w, w.env
        self.client = w.env.client
        self.keys = gen.KeyGen(w.keys, w.zipf, w.seed, i)
        pool, wpool = w.env.pool, w.wpool
        self.rconn = self.wconn = None
        if role != WRITE and pool.pinnable(users):
            self.rconn = pool.get()
        if role != READ:
            if wpool is pool:
                self.wconn = self.rconn or (pool.get() if pool.pinnable(users) else None)
            elif wpool.pinnable(writers):
                self.wconn = wpool.get()
        self.read = self.make_read()

    def close(self):
        if self.rconn is not None:
            self.env.pool.put(self.rconn)
        if self.wconn is not None and self.wconn is not self.rconn:
            self.w.wpool.put(self.wconn)
        self.rconn = self.wconn = None

    def fail(self, err, retries=0):
        """SQLite's expected errors are counted; anything else ends the run."""
        kind = self.client.kind(err)
        if kind in ("busy", "locked", "constraint", "interrupted"):
            e = Counted(kind, err)
            e.retries = retries
            return e
        return Failed(str(err))

    def make_read(self):
        w, sc = self.w, self.w.sc
        sql, seed, key, off = w.read_sql, w.seed, sc.key, sc.key_offset
        next_key, fail, Error = self.keys.next, self.fail, self.client.Error

        def missing(k):
            return Counted("missing", "row not found: %s %s = %s" % (sc.table, sc.key_col, k))

        if self.rconn is not None:
            execute = self.rconn.cur.execute

            def read():
                k = next_key(w.visible)
                k = k + off if off is not None else key(seed, k)
                try:
                    rows = execute(sql, (k,)).fetchall()
                except Error as e:
                    raise fail(e) from None
                if rows:
                    return 0
                raise missing(k)

            return read
        pool = self.env.pool

        def read_borrowed():
            k = next_key(w.visible)
            k = k + off if off is not None else key(seed, k)
            c = pool.get()
            try:
                rows = c.cur.execute(sql, (k,)).fetchall()
            except Error as e:
                raise fail(e) from None
            finally:
                pool.put(c)
            if rows:
                return 0
            raise missing(k)

        return read_borrowed

    def do(self, op, rec):
        """Operation op (READ or WRITE) for the open loop; returns its retries."""
        return self.write() if op == WRITE else self.read()

    def write(self):
        w = self.w
        if w.mutex:
            with w.mutex:
                return self.write_rows(w)
        return self.write_rows(w)

    def write_rows(self, w):
        # The rows are chosen once, so a retry writes the same rows.
        first = None
        if w.kind == "insert":
            first = w.claim(w.batch)
            idx = range(first, first + w.batch)
        else:
            span = w.visible
            if w.kind == "upsert":
                span += span // 10  # some upserts insert
            idx = [self.keys.next(span) for _ in range(w.batch)]
        try:
            retries = 0
            while True:
                try:
                    self.write_once(idx)
                except self.client.Error as e:
                    if self.client.retryable(e) and (w.retries < 0 or retries < w.retries):
                        retries += 1
                        self.env.check()
                        continue
                    raise self.fail(e, retries) from None
                if self.env.ack:
                    self.env.ack(idx[0], len(idx))
                return retries
        finally:
            if first is not None:
                w.release(first)

    def write_once(self, idx):
        w = self.w
        c = self.wconn or w.wpool.get()
        cur = c.cur
        try:
            if len(idx) == 1:
                cur.execute(w.wsql, self.args(idx[0]))
                return
            cur.execute(w.begin)
            try:
                for i in idx:
                    cur.execute(w.wsql, self.args(i))
                cur.execute("COMMIT")
            except BaseException:
                rollback(cur, self.client)
                raise
        finally:
            if c is not self.wconn:
                w.wpool.put(c)

    def args(self, i):
        w, sc = self.w, self.w.sc
        if w.kind == "update":
            # The new values are row i generated under another seed.
            row = sc.row((w.seed + 1) & gen.M64, i)
            return tuple(row[k] for k in sc.update_idx) + (sc.key(w.seed, i),)
        return sc.row(w.seed, i)


class Lane:
    """A closed-loop worker's place in the run: the recorder it records into
    (an unregistered one during the warm-up), the window's deadline, whether
    it counts operations against --count. A lane of role None records
    into whichever op its loop says, and gets no histogram of its own."""

    def __init__(self, eng, role):
        self.eng, self.role = eng, role
        self.measuring = eng.measured
        self.rec = eng.env.recorder(eng.w.nops, live=True) if self.measuring else Recorder(eng.w.nops)
        self.deadline = eng.deadline if self.measuring else NEVER

    def check(self, start):
        """Called at most every CHECK_NS: None to stop, else the loop's new
        (recorder, histogram, deadline, next check, counting)."""
        eng = self.eng
        if eng.stopped or eng.env.cancel.is_set():
            return None
        if not self.measuring:
            if not eng.measured and start >= eng.warm_end:
                eng.begin(start)
            if eng.measured:
                self.measuring, self.deadline = True, eng.deadline
                self.rec = eng.env.recorder(eng.w.nops, live=True)
        if start >= self.deadline:
            return None
        check_at = min(start + CHECK_NS, self.deadline if self.measuring else eng.warm_end)
        counting = self.measuring and eng.w.count > 0
        h = self.rec.hist(self.role) if self.role is not None else None
        return self.rec, h, self.deadline, check_at, counting

    def done(self):
        """The successes: what the loop recorded in the service histogram."""
        self.rec.count[self.role] = sum(self.rec.hist(self.role))


class Stats:
    start = end = issued = executors = 0
    lag = None


class Engine:
    """Drives a workload's executors until the duration or count is reached,
    the run is cancelled, or an operation fails fatally."""

    def __init__(self, env, w):
        self.env, self.w = env, w
        self.error = None
        self.stopped = False
        self.lock = threading.Lock()
        self.measured = False
        self.start, self.deadline = None, NEVER
        self.workers = 0  # the closed loop's

    def stop(self, err):
        with self.lock:
            if self.error is None:
                self.error = err
            self.stopped = True
        self.env.halt.set()  # writes retrying after SQLITE_BUSY stop too

    def begin(self, now):
        """The measured part starts at now."""
        with self.lock:
            if self.measured:
                return
            self.start = now
            if self.w.duration > 0:
                self.deadline = now + self.w.duration
            self.env.start = now
            self.measured = True

    def run(self):
        env, w = self.env, self.w
        if w.warmup > 0:
            env.start = None  # the engine marks the end of the warm-up
        st = self.run_open() if w.rate > 0 else self.run_closed()
        env.end = st.end
        if self.error is not None:
            raise self.error
        if env.cancel.is_set():
            raise Stop()
        return st

    def spawn(self, target, *args):
        t = threading.Thread(target=target, args=args, daemon=True)
        t.start()
        return t

    def executor(self, i, role, users, writers):
        try:
            return Executor(self.w, i, role, users, writers)
        except BaseException as e:
            self.stop(Failed("worker %d: %s" % (i, e)))
            return None

    def run_closed(self):
        w = self.w
        roles = w.roles()
        self.workers = len(roles)

        def go():
            # Every worker has started: the run starts.
            t0 = pc()
            self.warm_end = t0 + w.warmup
            if w.warmup <= 0:
                self.begin(t0)

        self.ready = threading.Barrier(len(roles), action=go)
        self.claimed = counter(1)
        if len(roles) == 1:
            # A single worker runs on this thread, the main one: a loop on
            # a thread of its own ran up to a few percent slower.
            self.closed_worker(0, roles[0])
        else:
            threads = [self.spawn(self.closed_worker, i, role) for i, role in enumerate(roles)]
            for t in threads:
                t.join()
        end = pc()
        if not self.measured:
            self.begin(end)  # the warm-up outlasted the run (interrupted)
        if w.duration > 0 and end > self.deadline and not self.env.cancel.is_set():
            end = self.deadline  # the window; later completions are overruns
        st = Stats()
        st.start, st.end, st.executors = self.start, end, len(roles)
        return st

    def closed_worker(self, i, role):
        w = self.w
        if hasattr(w, "closed_worker"):
            return w.closed_worker(self, i, role)  # a workload with a loop of its own
        users = w.readers + (w.writers if w.wpool is self.env.pool else 0)
        ex = self.executor(i, role, users, w.writers)
        self.ready.wait()
        if ex is None:
            return
        lane = Lane(self, role)
        try:
            if role == READ and ex.rconn is not None and w.sc.key_offset is not None:
                self.read_loop(lane, ex)
            else:
                self.op_loop(lane, ex.read if role == READ else ex.write, role)
        except Stop:
            pass
        except BaseException as e:
            self.stop(e)
        finally:
            ex.close()

    def op_loop(self, lane, fn, role):
        """Runs fn back to back, timing each call."""
        claimed, limit = self.claimed, self.w.count
        rec = h = None
        deadline, check_at, counting = NEVER, 0, False
        small, lookup, record, clock = SMALL, LOOKUP, FULL.record, pc
        try:
            while True:
                start = clock()
                if start >= check_at:
                    st = lane.check(start)
                    if st is None:
                        break
                    rec, h, deadline, check_at, counting = st
                if counting and next(claimed) > limit:
                    break
                try:
                    r = fn()
                except Counted as e:
                    rec.retries[role] += getattr(e, "retries", 0)
                    rec.error(role, e.kind)
                    continue
                if r:
                    rec.retries[role] += r
                end = clock()
                d = end - start
                if end > deadline:
                    # Finished after the window closed: its latency counts,
                    # it does not count towards the rate.
                    rec.observe_overrun(role, d)
                    continue
                if d < lookup:
                    h[small[d]] += 1
                else:
                    record(h, d)
        finally:
            lane.done()

    def read_loop(self, lane, ex):
        if READS is not None and self.w.count <= 0:
            return self.read_loop_c(lane, ex)
        return self.read_loop_py(lane, ex)

    RAW = 4096  # readings the C loop keeps between two recordings

    def read_parts(self, ex):
        """What a point-read loop calls: execute, the key function (the
        schema's key offset added), fail, the client's Error and the SQL."""
        next_key, off = ex.keys.next, self.w.sc.key_offset
        if off:
            keys = next_key

            def next_key(n):
                return keys(n) + off

        return ex.rconn.cur.execute, next_key, ex.fail, ex.client.Error, self.w.read_sql

    def read_loop_c(self, lane, ex):
        """read_loop_py with the reads run by the C loop (READS, or
        READS_UNIFORM for uniform keys), which writes each read's end time
        into an array and returns at the next check's time, at a missing row
        or when the array is full; what it returns is counted in C (RECORD,
        record_ends's counts), off the clock. A --count run (each read
        claims one of a shared count) takes read_loop_py."""
        w, env = self.w, self.env
        execute, next_key, fail, Error, sql = self.read_parts(ex)
        alone, record, clock = self.workers == 1, FULL.record, pc
        raw = array("q", bytes(8 * self.RAW))
        # Uniform keys are drawn in C, the generator's state kept in ex.keys.
        keys, off = ex.keys, w.sc.key_offset or 0
        uniform = keys.next == keys.uniform
        try:
            now = clock()
            st = lane.check(now)
            if st is None:
                return
            rec, h, deadline, check_at, _ = st
            raw[0], k = now, 1
            while True:  # one C loop per check (1 ms), or per full array
                try:
                    if uniform:
                        got = READS_UNIFORM(execute, sql, keys, w.visible, off, raw, k, check_at)
                    else:
                        got = READS(execute, sql, next_key, w.visible, raw, k, check_at)
                except BaseException as e:
                    k = raw.index(0, k)  # the reads before the exception
                    if not isinstance(e, Error):
                        RECORD(h, raw, k)
                        raise
                    err = fail(e)
                    end = clock()
                    RECORD(h, raw, k)
                    if not isinstance(err, Counted):
                        raise err from None
                    rec.error(READ, err.kind)
                else:
                    n, status = got >> 2, got & 3
                    k += n
                    end = raw[k - 1]
                    if status == 2:  # full: record, go on
                        RECORD(h, raw, k)
                    else:
                        RECORD(h, raw, k - 1)
                        if status == 1:
                            rec.error(READ, "missing")
                        elif end <= deadline:
                            record(h, end - raw[k - 2])
                        else:
                            # Finished after the window closed: its latency
                            # counts, it does not count towards the rate.
                            rec.observe_overrun(READ, end - raw[k - 2])
                if end >= check_at:
                    st = lane.check(end)
                    if st is None:
                        break
                    rec, h, deadline, check_at, _ = st
                now = clock()  # what happened since end is the harness's
                if alone and lane.measuring:
                    env.recorded += now - end
                raw[0], k = now, 1
        finally:
            lane.done()

    def read_loop_py(self, lane, ex):
        """op_loop for point reads on a connection of the worker's own, with
        the read inline: the common case, where the harness costs most. One
        clock reading per read, as the Go event loop takes: a read's latency
        runs from the previous one's end to its own. The loop only keeps the
        end times; they are turned into latencies at each check of the
        limits (every CHECK_NS) and after an error, off the clock: the next
        read's latency starts after that, and with a single worker the run's
        elapsed time leaves it out (record_seconds), as the insert
        workload's does."""
        w, claimed, limit, env = self.w, self.claimed, self.w.count, self.env
        execute, next_key, fail, Error, sql = self.read_parts(ex)
        alone, record, clock = self.workers == 1, FULL.record, pc
        ends = []
        app = ends.append
        h = None
        try:
            now = clock()
            st = lane.check(now)
            if st is None:
                return
            rec, h, deadline, check_at, counting = st
            app(now)
            while True:
                if counting and next(claimed) > limit:
                    break
                try:
                    rows = execute(sql, (next_key(w.visible),)).fetchall()
                except Error as e:
                    err = fail(e)
                    if not isinstance(err, Counted):
                        raise err from None
                    rec.error(READ, err.kind)
                    rows = None
                end = clock()
                if rows and end < check_at:  # the common case, in one test (check_at <= deadline)
                    app(end)
                    continue
                record_ends(h, ends)
                if rows:
                    if end <= deadline:
                        record(h, end - ends[0])
                    else:
                        # Finished after the window closed: its latency
                        # counts, it does not count towards the rate.
                        rec.observe_overrun(READ, end - ends[0])
                elif rows is not None:
                    rec.error(READ, "missing")
                if end >= check_at:
                    st = lane.check(end)
                    if st is None:
                        ends[0] = end
                        break
                    rec, h, deadline, check_at, counting = st
                now = clock()  # what happened since end is the harness's
                if alone and lane.measuring:
                    env.recorded += now - end
                ends[0] = now
        finally:
            if h is not None:
                record_ends(h, ends)
            lane.done()

    def run_open(self):
        w, env = self.w, self.env
        tickets = queue.SimpleQueue()
        self.idle, self.t0 = 0, None
        threads = []
        lags = []
        choose = w.chooser()

        def spawn():
            with self.lock:
                self.idle += 1
            lag = INTERVAL.new()
            lags.append(lag)
            threads.append(self.spawn(self.open_executor, len(threads), tickets, choose, lag))

        t0 = self.t0 = pc()
        spawn()
        warm = w.warmup
        if warm <= 0:
            self.begin(t0)
        end_at = warm + w.duration
        issued, prev = 0, 0
        for seq in counter():
            due = gen.schedule(w.arrivals, w.rate, seq, prev, gen.uniform01(gen.splitmix64(w.seed ^ seq)))
            prev = due
            if w.duration > 0 and due >= end_at:
                break
            if w.count > 0 and due >= warm and issued >= w.count:
                break
            while not (self.stopped or env.cancel.is_set()):
                rem = t0 + due - pc()
                if rem <= 0:
                    break
                time.sleep(min(rem, 50_000_000) / 1e9)
            else:
                break
            if due >= warm:
                if not self.measured:
                    self.begin(t0 + warm)
                issued += 1
            if self.idle <= 0 and len(threads) < w.max_inflight:
                spawn()
            with self.lock:
                self.idle -= 1  # an executor is (or will be) busy with it
            tickets.put((seq, due))
        for _ in threads:
            tickets.put(None)
        for t in threads:
            t.join()
        stop_at = pc()
        if not self.measured:
            self.begin(stop_at)
        st = Stats()
        st.start, st.end, st.issued, st.executors = self.start, stop_at, issued, len(threads)
        st.lag = INTERVAL.new()
        for lag in lags:
            INTERVAL.add(st.lag, lag)
        total = sum(st.lag)
        if total:
            env.extra["sched_lag_p99_us"] = INTERVAL.quantile(st.lag, total, 99) / 1e3
        return st

    def open_executor(self, i, tickets, choose, lag):
        w = self.w
        if hasattr(w, "open_runner"):
            ex = w.open_runner(self, i)  # a workload with executors of its own
        else:
            ex = self.executor(i, None, w.max_inflight, w.max_inflight)
        env, warm, t0, nops = self.env, w.warmup, self.t0, w.nops
        warm_rec, rec = Recorder(nops), None
        try:
            while True:
                t = tickets.get()
                if t is None:
                    break
                if ex is None or self.stopped:
                    continue  # keep the dispatcher from blocking
                seq, due = t
                start = pc()
                late = start - t0 - due
                r = warm_rec
                if due >= warm:
                    if rec is None:
                        rec = env.recorder(nops, live=True, open_loop=True)
                    r = rec
                    if late <= HIGHEST:
                        INTERVAL.record(lag, late)
                op = choose(seq)
                try:
                    retries = ex.do(op, r)
                    ok = True
                except Counted as e:
                    retries, ok = getattr(e, "retries", 0), False
                    r.error(op, e.kind)
                end = pc()
                r.retries[op] += retries
                if ok:
                    r.observe(op, end - start)
                    FULL.record(r.resp(op), end - t0 - due)
                    if late > LATE_NS:
                        r.late[op] += 1
                with self.lock:
                    self.idle += 1
        except Stop:
            pass
        except BaseException as e:
            self.stop(e)
            while tickets.get() is not None:
                pass
        finally:
            if ex is not None:
                ex.close()
