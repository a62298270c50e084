"""One job: set-up (open, stamp, read back, load), the measured run with its
interval and ack events, and the final event, as the Go worker (internal/worker)
produces them."""

import sys
import threading
from time import perf_counter_ns as pc

from . import db
from .fdtable import own_fd_table
from .hist import INTERVAL, IntervalTaker, merge
from .ops import Ops
from .program import Program
from .settings import WORKLOADS, BadInput, Params, Settings
from .workloads import Env, Failed, Insert, Scan, Stop

VERSION = "0.1.0"
CAPS = ["closed_loop", "open_loop", "intervals", "acks", "digest", "in_memory", "program"]


def new_workload(name, p, s):
    if name == "insert":
        return Insert(p, s)
    if name == "scan":
        return Scan(p, s)
    return Ops(name, p, s)


def compact(ev):
    """Leaves out empty members, as the Go worker's omitempty fields are."""
    return {k: v for k, v in ev.items() if k == "t" or v not in (None, "", 0, [], {})}


class Worker:
    def __init__(self, client, cancel):
        self.client = client
        self.cancel = cancel
        self.job = None
        self.pool = None
        # The descriptors the interval thread writes to, besides 0 to 2:
        # set by the protocol, it gives that thread a table of its own
        # (fdtable); None leaves it on the process's.
        self.keep_fds = None

    def hello(self):
        c = self.client
        return {
            "t": "hello",
            "protocol": 1,
            "lang": "python %d.%d.%d" % sys.version_info[:3],
            "version": VERSION,
            "caps": CAPS,
            "client": c.target,
            "driver": c.driver,
            "driver_version": c.driver_version,
            "engine_version": c.engine_version,
        }

    def setup(self, job):
        if self.job is not None:
            raise BadInput("worker: setup twice")
        c = self.client
        target = job.get("target") or c.target
        if target != c.target:
            raise BadInput("job: target %s sent to the %s worker" % (target, c.target))
        name = job.get("workload", "")
        if job.get("program") is not None:
            s = Settings({}, job.get("settings") or {})
            self.wl = Program(job["program"], s)
        else:
            p = Params(name, job.get("params") or {})  # first: it refuses an unknown workload
            s = Settings(WORKLOADS[name][1], job.get("settings") or {})
            self.wl = new_workload(name, p, s)
        path = job.get("path", "")
        memory = s.bool("in-memory")
        if not memory:
            allowed = db.BENCH_OBJECTS
            if isinstance(self.wl, Program):
                allowed = allowed | self.wl.own_objects()
            why = db.check_owned(path, allowed=allowed)
            if why:
                raise BadInput("refusing to use " + why)
        pool = self.pool = db.Pool(
            c,
            db.uri(path, memory, s.bool("shared-cache")),
            s.pragmas(),
            s.bool("prepared"),
            s.int("pool"),
            s.bool("conn-per-op"),
        )

        def open_pool(max_open):
            return db.Pool(c, pool.uri, pool.pragmas, pool.prepared, max_open)

        self.env = env = Env(c, s, pool, open_pool, self.cancel)
        if not s.bool("prepared"):
            env.notes.append(
                "prepared=false: %s's statement cache is off, so every statement is prepared "
                "when it runs and finalised after" % c.driver.split(" ")[0]
            )
        self.job = job
        t0 = pc()
        try:
            if memory:
                pool.hold()
            conn = pool.get()
        except c.Error as e:
            raise Failed("open %s with %s: %s" % (path, c.target, e)) from e
        try:
            if isinstance(self.wl, Insert) or getattr(self.wl, "ins", None):
                # A SQLite built with a lower bound-variable limit than the
                # one litebench checks against cannot run the statement.
                limit, cols = c.variable_limit(conn.raw), len(self.wl.sc.columns)
                if s.int("rows-per-stmt") * cols > limit:
                    raise BadInput(
                        "--rows-per-stmt %d: %s's SQLite allows %d bound variables; use "
                        "--rows-per-stmt %d or less" % (s.int("rows-per-stmt"), c.target, limit, limit // cols)
                    )
            if not memory:
                conn.run("PRAGMA application_id = %d" % db.BENCH_APP_ID)
            ev = {
                "t": "setup_done",
                "client": c.target,
                "engine": "sqlite",
                "engine_version": c.engine_version,
                "compile_options": [r[0] for r in conn.run("PRAGMA compile_options")],
                "journal_mode": str(conn.run("PRAGMA journal_mode")[0][0]).lower(),
            }
        finally:
            pool.put(conn)
        try:
            self.wl.setup(env)
        except Stop:
            raise Failed("setup: interrupted") from None
        except (Failed, c.Error) as e:
            raise Failed("setup: %s" % e) from e
        if job.get("digest"):
            ev["digest"] = self.digest()
        ev["setup_ms"] = (pc() - t0) // 1000 / 1e3
        env.done = 0
        return compact(ev)

    def digest(self):
        conn = self.pool.get()
        try:
            return db.digest(conn)
        finally:
            self.pool.put(conn)

    def run(self, send):
        if self.job is None:
            raise BadInput("worker: run before setup")
        env, job, wl = self.env, self.job, self.wl
        if job.get("acks"):
            env.ack = lambda first, n: send({"t": "ack", "seqs": [first], "rows": [n]})
        start = env.start = pc()
        stop = self.intervals(send)
        err = None
        try:
            wl.run(env)
        except Stop:
            pass
        except (Failed, self.client.Error) as e:
            err = str(e)
        except Exception as e:  # a bug: say what it was, as a failed run
            err = "%s: %s" % (type(e).__name__, e)
        end = env.end or pc()
        stop()
        if env.start is not None:
            start = env.start
        fin = {
            "t": "final",
            "status": "ok",
            "elapsed_s": (end - start - env.generated - env.recorded) / 1e9,
            "done": self.done(final=True),
            "final_ops": merge(wl.ops, env.recorders),
        }
        of = getattr(wl, "of", None)
        if of:
            # A program's statements with results of their own name their transaction.
            parts = dict(zip(wl.ops, of))
            for o in fin["final_ops"]:
                if parts.get(o["name"]):
                    o["of"] = parts[o["name"]]
        extra = {}
        if env.generated > 0:
            extra["generate_seconds"] = env.generated / 1e9
        if env.recorded > 0:
            extra["record_seconds"] = env.recorded / 1e9
        cores = env.process_cpu()
        if cores is not None:
            extra["process_cpu"] = cores
        extra.update(env.extra)
        fin.update(metrics=metrics(extra), notes=env.notes, connections_opened=self.pool.opened)
        cancelled = self.cancel.is_set()
        if err is None and not cancelled and job.get("digest"):
            try:
                fin["digest"] = self.digest()
            except self.client.Error as e:
                err = "digest after run: %s" % e
        if err is not None:
            fin.update(status="failed", error=err)
        elif cancelled:
            fin["status"] = "interrupted"
        return compact(fin)

    def done(self, final=False):
        """Rows (insert, scan) or measured operations so far: during the run,
        operations are counted from the intervals taken."""
        if not isinstance(self.wl, (Ops, Program)) or getattr(self.wl, "ins", None):
            return self.env.done
        n = getattr(self.wl, "ntx", None)  # a program's parts are not operations of their own
        return sum(sum(r.count[:n]) for r in self.env.recorders) if final else self.taken

    def intervals(self, send):
        """Sends an interval every job.interval_ns from the live recorders,
        once the measured part has started; returns the function that stops it."""
        every = int(self.job.get("interval_ns") or 0)
        self.taken = 0
        if every <= 0:
            return lambda: None
        env, wl, taker = self.env, self.wl, IntervalTaker()
        of = getattr(wl, "of", None) or [""] * len(wl.ops)
        halt = threading.Event()
        last = [None]

        def tick(now):
            ops = []
            for i, name in enumerate(wl.ops):
                if of[i]:
                    continue  # a program's statements' own results are in the final event only
                n, errs, counts = taker.take(env.recorders, i)
                if n or errs:
                    op = {"name": name, "n": n, "err": errs, "hist": INTERVAL.encode(counts) if counts else ""}
                    ops.append({k: v for k, v in op.items() if v or k == "n"})
                self.taken += n
            start = env.start
            if start is None or now < start:
                return  # warm-up
            frm = max(start, last[0] or start)
            last[0] = now
            send(
                compact(
                    {
                        "t": "interval",
                        "at_s": (now - start) / 1e9,
                        "span_s": (now - frm) / 1e9,
                        "done": self.done(),
                        "ops": ops,
                    }
                )
            )

        def loop():
            if self.keep_fds is not None:
                own_fd_table(self.keep_fds)
            nxt = pc() + every
            while not halt.wait(max(nxt - pc(), 0) / 1e9):
                now = pc()
                tick(now)
                nxt = max(nxt + every, now + every // 2)  # a late tick does not make the next ones early
            now = pc()
            if last[0] is None or now - last[0] > every // 10:
                tick(now)  # a last, partial interval, so short runs have a series too

        t = threading.Thread(target=loop, daemon=True)
        t.start()

        def stop():
            halt.set()
            t.join()

        return stop

    def close(self):
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def describe():
    """The workloads this worker runs, their parameters' defaults and the
    settings defaults each changes."""
    return {name: {"params": p, "settings": s} for name, (p, s) in WORKLOADS.items()}


# The workloads' figures as the Go worker names them in the final event's
# metrics: name, unit, and which way is better ("" for a figure that
# describes the run rather than rates it).
FIGURES = {
    "generate_seconds": ("generate", "s", ""),
    "record_seconds": ("record", "s", ""),
    "process_cpu": ("process_cpu", "cores", ""),
    "table_rows_before": ("table_rows_before", "rows", ""),
    "issued_ops_per_s": ("issued_rate", "ops/s", ""),
    "executors": ("executors", "executors", ""),
    "wanted_ops_per_s": ("wanted_rate", "ops/s", ""),
    "rows_inserted": ("rows_inserted", "rows", ""),
    "table_rows_after": ("table_rows_after", "rows", ""),
    "sched_lag_p99_us": ("sched_lag_p99", "\u00b5s", ""),
    "vacuum_seconds": ("vacuum", "s", "lower"),
    "time_to_query_us": ("query_returned", "\u00b5s", "lower"),
    "first_row_us": ("first_row", "\u00b5s", "lower"),
    "us_per_row": ("per_row", "\u00b5s", "lower"),
}


def metrics(extra):
    """The figures of extra as the protocol's metrics list."""
    out = []
    for key, value in extra.items():
        name, unit, better = FIGURES.get(key, (key, "", ""))
        m = {"name": name, "unit": unit, "value": value}
        if better:
            m["better"] = better
        out.append(m)
    return out
