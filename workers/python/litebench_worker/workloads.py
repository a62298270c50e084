"""The workloads (insert, scan, read, write, mixed) as litebench's Go worker runs
them: the same SQL, rows, keys, transactions, retries, error kinds and
figures. Times are time.perf_counter_ns() readings.

Latencies go into preallocated histogram lists (see hist.py) inline: a
duration d below 131 µs at index SMALL[d] (0 ns is moved to 1 ns when the
histograms are merged), a longer one through FULL.record.
"""

import threading
from array import array
from itertools import chain, repeat
from operator import itemgetter
from time import perf_counter_ns as pc
from time import process_time_ns

from . import gen
from .hist import Recorder, record_ends
from .settings import BadInput, q

MAX_VARIABLES = 32766  # SQLite's default bound-parameter limit
INSERT, BEGIN, COMMIT = 0, 1, 2
READ, WRITE = 0, 1


class Stop(Exception):
    """The run was cancelled, or another of its workers failed."""


class Failed(Exception):
    """An error that ends the run (status failed)."""


class Counted(Exception):
    """An operation's error that is counted, by kind, and the run goes on."""

    def __init__(self, kind, err):
        super().__init__(str(err))
        self.kind = kind


class Env:
    """What a workload gets: the client, the settings, the run's pool and what it reports."""

    def __init__(self, client, settings, pool, open_pool, cancel):
        self.client, self.settings, self.pool = client, settings, pool
        self.open_pool = open_pool  # open_pool(max_open) opens another pool on the same database
        self.cancel = cancel  # a threading.Event: the controller's cancel
        self.halt = threading.Event()  # a worker failed: the others stop
        self.extra, self.notes, self.recorders = {}, [], []
        # The process's CPU time and the clock at the measured start and at
        # its end, read as they are set: the process_cpu figure.
        self._cpu0 = self._cpu1 = None
        self.start = None  # the measured start; None during a warm-up
        self.end = None
        # ns inside the measured interval spent generating rows inline and
        # recording latencies between transactions: the harness's, not measured
        self.generated = self.recorded = 0
        self.ack = None  # ack(first, rows) after every committed write transaction
        self.done = 0  # rows or operations counted so far (insert and scan)

    @property
    def start(self):
        return self._start

    @start.setter
    def start(self, t):
        self._start = t
        if t is not None:
            self._cpu0 = (process_time_ns(), pc())

    @property
    def end(self):
        """The measured end, set once every thread of the measured part is done."""
        return self._end

    @end.setter
    def end(self, t):
        self._end = t
        if t is not None:
            self._cpu1 = (process_time_ns(), pc())

    def process_cpu(self):
        """The CPU the whole process used over the measured part, every
        thread's, in cores, as the Go worker reports process_cpu; None for a
        workload that marks no end or a warm-up that never ended."""
        if self._start is None or self._cpu0 is None or self._cpu1 is None:
            return None
        (c0, t0), (c1, t1) = self._cpu0, self._cpu1
        return (c1 - c0) / (t1 - t0) if t1 > t0 else None

    def recorder(self, nops, live=False, open_loop=False):
        r = Recorder(nops, live, open_loop)
        self.recorders.append(r)  # atomic under the GIL
        return r

    def check(self):
        if self.cancel.is_set() or self.halt.is_set():
            raise Stop()


def create_schema(env, sc):
    for sql in sc.create:
        try:
            env.pool.run(sql)
        except env.client.Error as e:
            raise Failed("create %s: %s" % (sc.name, e)) from e


def begin_sql(settings):
    return "BEGIN IMMEDIATE" if settings.get("tx") == "immediate" else "BEGIN"


def insert_sql(sc, k):
    row = "(" + ",".join("?" * len(sc.columns)) + ")"
    return "INSERT INTO %s(%s) VALUES %s" % (sc.table, ",".join(sc.columns), ",".join([row] * k))


def check_rows_per_stmt(sc, rps):
    n = rps * len(sc.columns)
    if n > MAX_VARIABLES:
        raise BadInput(
            "--rows-per-stmt %d × %d columns of %s = %d bound variables, past SQLite's limit of %d; "
            "use --rows-per-stmt %d or less"
            % (rps, len(sc.columns), sc.name, n, MAX_VARIABLES, MAX_VARIABLES // len(sc.columns))
        )


SECOND = itemgetter(1)

try:
    from ._timed import calls as CALLS  # the timing loops in C (setup.sh builds them)
    from ._timed import reads as READS
    from ._timed import reads_uniform as READS_UNIFORM
    from ._timed import record as RECORD
except ImportError:  # pragma: no cover - the worker then times in Python
    CALLS = READS = READS_UNIFORM = RECORD = None


def stamped(calls):
    """(result, the clock's reading after it) for each call of `calls`, an
    iterator that makes one call (a statement, a read) per step: the loop
    runs in C, so that the harness adds no bytecode between two calls, only
    the clock."""
    return zip(calls, iter(pc, -1))  # -1: a sentinel the clock never reads, an int compared at C speed


def rollback(cur, client):
    try:
        cur.execute("ROLLBACK")
    except client.Error:
        pass  # the error already ended the transaction


class Inserter:
    """One loading worker: rows [frm, to) in transactions of `batch` rows."""

    CHUNK = 4096  # rows generated at a time, between statements and off the clock

    def __init__(self, env, sc, seed, batch, rps, retries, rec, explicit=False):
        self.env, self.sc, self.seed, self.rec = env, sc, seed, rec
        self.explicit = explicit  # every transaction begun, even one of a single statement
        self.batch, self.rps, self.retries = batch, rps, retries
        self.begin = begin_sql(env.settings)
        self.sqls = {}
        self.ends = []
        self.generated = self.recorded = 0  # ns spent generating rows and recording latencies
        self.chunk = max(rps, self.CHUNK // rps * rps)
        # The C loop's clock readings: a start, one per statement of a
        # chunk, the last shorter statement's and the loop's end mark.
        self.raw = array("q", bytes(8 * (self.chunk // rps + 3))) if CALLS else None

    def sql(self, k):
        q = self.sqls.get(k)
        if q is None:
            q = self.sqls[k] = insert_sql(self.sc, k)
        return q

    def statements(self, first, n):
        """The bound arguments of rows [first, first+n), one tuple per statement."""
        row, seed, k = self.sc.row, self.seed, self.rps
        rows = [row(seed, i) for i in range(first, first + n)]
        if k == 1:
            return rows
        return [tuple(chain.from_iterable(rows[j : j + k])) for j in range(0, n, k)]

    def run(self, frm, to, pinned, ready=None):
        """Loads rows [frm, to); several workers start together at `ready`."""
        env, client, rec = self.env, self.env.client, self.rec
        conn = env.pool.get() if pinned else None
        try:
            if ready is not None:
                try:
                    ready.wait()
                except threading.BrokenBarrierError:
                    raise Stop() from None
            for start in range(frm, to, self.batch):
                env.check()
                n = min(self.batch, to - start)
                attempt = 0
                while True:
                    c = conn or env.pool.get()
                    try:
                        self.tx(c.cur, start, n)
                        err = None
                    except client.Error as e:
                        err = e
                    finally:
                        if c is not conn:
                            env.pool.put(c)
                    if err is None:
                        env.done += n
                        if env.ack:
                            env.ack(start, n)
                        break
                    env.check()
                    if client.retryable(err) and (self.retries < 0 or attempt < self.retries):
                        rec.retries[INSERT] += 1
                        attempt += 1
                        continue
                    kind = client.kind(err)
                    rec.error(INSERT, kind)
                    if kind == "other":
                        raise Failed("insert rows %d-%d: %s" % (start, start + n - 1, err))
                    break  # the batch is lost and counted; the run goes on
        finally:
            if conn:
                env.pool.put(conn)

    def generate(self, first, n):
        """statements() off the clock."""
        t = pc()
        stmts = self.statements(first, n)
        self.generated += pc() - t
        return stmts

    def tx(self, cur, start, n):
        """Rows [start, start+n) in one transaction, or one autocommit statement.

        Statements' end times go to a list (stamped(): the statements are run
        and the clock read from C); fold() turns them into latencies off the
        clock, between chunks of rows and after the transaction.
        """
        ex, rec, rps = cur.execute, self.rec, self.rps
        stmts = self.generate(start, min(n, self.chunk))
        prev = pc()
        if n <= rps and not self.explicit:
            ex(self.sql(n), stmts[0])
            rec.observe(INSERT, pc() - prev, n)
            return
        full, tail = self.sql(rps), n % rps
        if self.raw is not None:
            return self.tx_c(cur, stmts, start, n, full, tail, prev)
        ends = self.ends
        app = ends.append
        last, tail_done = None, False
        try:
            ex(self.begin)
            now = pc()
            rec.observe(BEGIN, now - prev)
            app(now)
            off = 0
            while True:
                if off + len(stmts) * rps > n:  # the last, shorter statement
                    stmts, last = stmts[:-1], stmts[-1]
                ends.extend(map(SECOND, stamped(map(ex, repeat(full), stmts))))
                if last is not None:
                    ex(self.sql(tail), last)
                    app(pc())
                    tail_done = True
                    break
                off += len(stmts) * rps
                if off >= n:
                    break
                self.fold(0)
                stmts = self.generate(start + off, min(n - off, self.chunk))
                app(pc())
            ex("COMMIT")
            rec.observe(COMMIT, pc() - ends[-1])
        except BaseException:
            rollback(cur, self.env.client)
            raise
        finally:
            self.fold(tail if tail_done else 0)

    def tx_c(self, cur, stmts, start, n, full, tail, prev):
        """tx() with the statements run by the C loop (CALLS), which writes
        the clock's readings to self.raw; fold_c() turns them into latencies
        off the clock."""
        ex, rec, rps, raw = cur.execute, self.rec, self.rps, self.raw
        last, tail_done, k = None, False, 0
        try:
            ex(self.begin)
            now = pc()
            rec.observe(BEGIN, now - prev)
            raw[0], k = now, 1
            off = 0
            while True:
                if off + len(stmts) * rps > n:  # the last, shorter statement
                    stmts, last = stmts[:-1], stmts[-1]
                try:
                    CALLS(ex, full, stmts, raw, k)
                except BaseException:
                    k = raw.index(0, k)  # the readings of the statements that returned
                    raise
                k += len(stmts)
                if last is not None:
                    ex(self.sql(tail), last)
                    raw[k] = pc()
                    k += 1
                    tail_done = True
                    break
                off += len(stmts) * rps
                if off >= n:
                    break
                self.fold_c(k, 0)
                stmts = self.generate(start + off, min(n - off, self.chunk))
                raw[0], k = pc(), 1
            ex("COMMIT")
            rec.observe(COMMIT, pc() - raw[k - 1])
        except BaseException:
            rollback(cur, self.env.client)
            raise
        finally:
            self.fold_c(k, tail if tail_done else 0)

    def fold_c(self, k, tail):
        """fold() for the first k readings of self.raw."""
        t = pc()
        self.record(self.raw[:k], tail)
        self.recorded += pc() - t

    def fold(self, tail):
        """Records the statements whose end times are in self.ends (after the
        time they started from): one latency each, rps rows each, or `tail`
        rows for the last one when tail is set. The time it takes is the
        harness's, left out of the measured time."""
        t = pc()
        self.record(self.ends, tail)
        self.ends.clear()
        self.recorded += pc() - t

    def record(self, ends, tail):
        """The statements whose end times are in ends, after the time they
        started from, into the insert's histogram and count (fold)."""
        k = len(ends) - 1
        if k > 0:
            self.rec.count[INSERT] += k * self.rps - (self.rps - tail if tail else 0)
            record_ends(self.rec.hist(INSERT), ends)


def load(env, sc, seed, frm, to, workers, batch, rps, retries, recorders, explicit=False):
    """Inserts rows [frm, to) with `workers` threads, one recorder each;
    explicit begins even a transaction of one statement."""
    rps = max(rps, 1)
    batch = max(batch, rps)  # a transaction holds at least one whole statement
    total = to - frm
    ins = [Inserter(env, sc, seed, batch, rps, retries, r, explicit) for r in recorders]
    if workers == 1:
        ins[0].run(frm, to, env.pool.pinnable(1))
        env.generated += ins[0].generated
        env.recorded += ins[0].recorded
        return
    errs = [None] * workers
    pinned = env.pool.pinnable(workers)
    ready = threading.Barrier(workers)

    def work(i):
        try:
            ins[i].run(frm + total * i // workers, frm + total * (i + 1) // workers, pinned, ready)
        except BaseException as e:
            errs[i] = e
            if not isinstance(e, Stop):
                ready.abort()
                env.halt.set()  # one failed worker ends the run

    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in sorted((e for e in errs if e), key=lambda e: isinstance(e, Stop)):
        raise e


def preload(env, sc, seed, rows):
    """Rows [0, rows) as set-up: fast settings, recorded nowhere, not measured."""
    if rows:
        load(env, sc, seed, 0, rows, 1, 10000, min(100, MAX_VARIABLES // len(sc.columns)), -1, [Recorder(3)])
        env.generated = env.recorded = env.done = 0


class Insert:
    ops = ["insert", "begin", "commit"]

    def __init__(self, p, s):
        self.sc = schema(p)
        self.rows = p.int("rows", 1)
        self.workers = p.int("workers", 1)
        self.seed = p.seed()
        check_rows_per_stmt(self.sc, s.int("rows-per-stmt"))
        self.vacuum = p.bool("vacuum")

    def setup(self, env):
        create_schema(env, self.sc)

    def run(self, env):
        run_insert(env, self.sc, self.seed, self.rows, self.workers, self.vacuum)


def run_insert(env, sc, seed, rows, workers, vacuum, explicit=False):
    """The measured load of rows [0, rows) of sc with the settings' batch and
    rows-per-stmt, then VACUUM if asked (timed on its own)."""
    s = env.settings
    recs = [env.recorder(3) for _ in range(workers)]
    if workers > 1:
        env.notes.append(
            "rows are generated inline by each of the %d worker threads, inside the measured "
            "time (they share one Python interpreter)" % workers
        )
    load(env, sc, seed, 0, rows, workers, s.int("batch"), s.int("rows-per-stmt"), s.busy_retries(), recs, explicit)
    env.end = pc()
    if vacuum:
        t = pc()
        try:
            env.pool.run("VACUUM")
        except env.client.Error as e:
            raise Failed("vacuum: %s" % e) from e
        env.extra["vacuum_seconds"] = (pc() - t) / 1e9


def schema(p):
    sc = gen.SCHEMAS.get(p["schema"])
    if sc is None:
        raise BadInput("--schema %s: unknown schema (known: %s)" % (q(p["schema"]), ", ".join(sorted(gen.SCHEMAS))))
    return sc


def ensure_bench(env, rows, seed):
    """The bench table holding exactly rows [0, rows); a kept one is reused."""
    sc = gen.SCHEMAS["bench"]
    if env.pool.run("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='bench'")[0][0] == 1:
        n = env.pool.run("SELECT count(*) FROM bench")[0][0]
        if n == rows:
            env.notes.append("reused the %d bench rows already in the database" % n)
            return
        env.pool.run("DROP TABLE bench")
    create_schema(env, sc)
    preload(env, sc, seed, rows)


class Scan:
    """Every bench row, rand re-hashed and compared with hash (seed 000)."""

    ops = ["scan"]

    def __init__(self, p, s):
        self.rows = p.int("rows", 1)
        self.seed = p.seed()

    def setup(self, env):
        ensure_bench(env, self.rows, self.seed)

    def run(self, env):
        rec = env.recorder(1)
        check = gen.check_bench
        c = env.pool.get()
        n = 0
        first = None
        try:
            start = pc()
            cur = c.cur.execute("SELECT ID, rand, hash FROM bench")
            returned = pc()
            for row_id, rand, digest in cur:
                if n == 0:
                    first = pc()
                if not check(rand, digest):
                    raise Failed(
                        "row ID %d: hash mismatch: stored hash %s is not the SHA-256 of rand %s"
                        % (row_id, digest, rand)
                    )
                n += 1
                if n & 0xFFFF == 0:
                    env.done = n
                    env.check()
            end = pc()
        finally:
            env.done = n
            env.pool.put(c)
        rec.observe(0, end - start, n)
        env.extra["time_to_query_us"] = (returned - start) / 1e3
        if first is not None:
            env.extra["first_row_us"] = (first - start) / 1e3
        if n:
            env.extra["us_per_row"] = (end - start) / 1e3 / n
        if n != self.rows:
            raise Failed("scan read %d rows, want %d" % (n, self.rows))
