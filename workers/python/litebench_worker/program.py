"""Workload programs (docs/workload-program.md): a workload file or pgbench
scripts compiled by litebench into plain data, run here with the program's
expressions (exprs.py), column generators (columns.py) and the load engine
of ops.py: set-up, transactions of steps in closed or open loop, table and
native operations, [insert] programs and the checks after the run."""

import threading
from time import perf_counter_ns as pc

from . import columns, db, exprs, gen
from .ops import NEVER, Engine, Lane
from .settings import BadInput
from .workloads import (
    Counted,
    Failed,
    Stop,
    begin_sql,
    check_rows_per_stmt,
    create_schema,
    preload,
    rollback,
    run_insert,
)

KEYS_STREAM = 0x6B6579
OPS_STREAM = 0x726174
COUNTED = ("busy", "locked", "constraint", "interrupted")
NATIVES = ("scan_verify", "paginate_offset", "paginate_keyset")
TABLE_OPS = ("read", "insert", "update", "upsert")


class Missing(Exception):
    """A row a step expected was not there."""


class TableFailed(Exception):
    """A table operation's database error, after its own retries: the
    transaction is not run again for it."""

    def __init__(self, err, retries):
        super().__init__(str(err))
        self.err, self.retries = err, retries


def text_of(v):
    """A column's value as Go's database/sql renders it as text."""
    if type(v) is float:
        return exprs.go_float(v)
    if type(v) is bytes:
        return v.decode("utf-8", "replace")
    return str(v)


def go_parse_float(s):
    """s as Go's strconv.ParseFloat reads a decimal number, or None."""
    s = s.strip(" \t\n\r\v\f")
    if "_" in s or not s:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def compare_text(got, op, want):
    """A check's comparison: as numbers when both parse as numbers, else as
    text (= and != only compare text for equality)."""
    g, x = go_parse_float(got), go_parse_float(want)
    if g is not None and x is not None:
        c = (g > x) - (g < x)
    elif op == "=":
        return got == want
    elif op in ("!=", "<>"):
        return got != want
    else:
        c = (got > want) - (got < want)
    return exprs.cmp(op, c)


def mix_chooser(seed, mix):
    """The transaction of operation seq as the mix chooses it."""
    total = sum(m.get("weight", 0) for m in mix)
    thr, acc = [], 0.0
    for m in mix:
        acc += m.get("weight", 0)
        thr.append(acc * (10000 / total))
    txns = [m.get("txn", 0) for m in mix]

    def choose(seq):
        x = float(columns.draw(seed, OPS_STREAM, seq) % 10000)
        for k, t in enumerate(thr):
            if x < t:
                return txns[k]
        return txns[-1]

    return choose


class Program:
    """A program's set-up, run (closed or open loop, or an [insert] load)
    and checks."""

    def own_objects(self):
        """The lower-cased names of the tables and indexes the program
        creates: its tables, their DDL's and its init's."""
        statements = [q for t in self.p.get("tables") or [] for q in t.get("create") or []]
        return {t.name.lower() for t in self.tables} | db.own_objects(statements + list(self.p.get("init") or []))

    def __init__(self, prog, s):
        if prog.get("version") != 1:
            raise BadInput("program version %s: this worker runs version 1" % prog.get("version"))
        self.p = prog
        self.name = prog.get("name", "")
        self.seed = int(prog["seed"])
        try:
            self.tables = [columns.Table(t, self.seed) for t in prog.get("tables") or []]
        except (KeyError, TypeError, ValueError) as e:
            raise BadInput("program %s: tables: %s" % (self.name, e)) from None
        self.ops = prog.get("ops") or []
        self.of = prog.get("of") or [""] * len(self.ops)
        self.nops = len(self.ops)
        self.txns = prog.get("transactions") or []
        self.ntx = len(self.txns)
        self.stmts = prog.get("statements") or []
        self.checks = prog.get("checks") or []
        self.retries = s.busy_retries()
        self.begin_sql = begin_sql(s)
        self.explicit = s.get("tx") == "immediate"
        self.settings = s
        self.ins = prog.get("insert")
        self.before = {}
        self.scale = 1
        if self.ins:
            t = self.ins_table = self.sc = self.table(self.ins.get("table", 0), "insert")
            check_rows_per_stmt(t, s.int("rows-per-stmt"))
            self.rate = self.count = 0
            return
        for t in self.txns:
            for st in t.get("steps") or []:
                self.check_step(st)
        try:
            self.steps = [[compile_step(self, st) for st in t.get("steps") or []] for t in self.txns]
        except exprs.EvalError as e:
            raise BadInput("program %s: %s" % (self.name, e)) from None
        load = prog.get("load") or {}
        self.count = load.get("count", 0)
        self.duration = 0 if self.count > 0 else load.get("duration_ns", 0)
        if self.count <= 0 and self.duration <= 0:
            raise BadInput("program %s: load: give a positive duration_ns or count" % self.name)
        self.warmup = load.get("warmup_ns", 0)
        self.rate = load.get("rate", 0)
        self.arrivals = load.get("arrivals") or "uniform"
        if self.arrivals not in ("uniform", "poisson"):
            raise BadInput("program %s: arrivals %s: want uniform or poisson" % (self.name, self.arrivals))
        self.max_inflight = max(load.get("max_inflight", 0), 1)
        self.roles_ = load.get("roles") or [-1]
        self.mix = load.get("mix") or []
        if self.rate > 0 or -1 in self.roles_:
            if not self.mix or sum(m.get("weight", 0) for m in self.mix) <= 0:
                raise BadInput(
                    "program %s: mix: the weights add up to nothing; give a transaction a weight" % self.name
                )
        for r in self.roles_:
            if r >= self.ntx:
                raise BadInput("program %s: role %d: there are %d transactions" % (self.name, r, self.ntx))
        self.readers, self.writers = len(self.roles_), 0
        # Writes go through one connection (writer=single) or one at a time
        # (write-mutex), as the Go session's writer does.
        self.single = s.get("writer") == "single"
        self.wlock = threading.Lock() if self.single or s.bool("write-mutex") else None
        self.wpool = None

    def table(self, k, what):
        if not 0 <= k < len(self.tables):
            raise BadInput("program %s: %s: no table %d" % (self.name, what, k))
        return self.tables[k]

    def check_step(self, st):
        k, at = st.get("kind"), st.get("at", "")
        if k in ("table", "native"):
            op = st.get("op") or {}
            t = self.table(op.get("table", 0), "%s %s" % (at, k))
            if k == "table" and op.get("op") not in TABLE_OPS:
                raise BadInput("program %s: %s: unknown table operation %s" % (self.name, at, op.get("op")))
            if k == "native":
                if op.get("op") not in NATIVES:
                    raise BadInput("program %s: %s: unknown native operation %s" % (self.name, at, op.get("op")))
                if op["op"] != "scan_verify" and t.text[0]:
                    raise BadInput("program %s: %s: %s needs an integer key" % (self.name, at, op["op"]))
        elif k not in ("set", "sleep", "sql", "begin", "commit", "rollback"):
            raise BadInput("program %s: %s: unknown step %s" % (self.name, at, k))

    def roles(self):
        return list(self.roles_)

    def chooser(self):
        return mix_chooser(self.seed, self.mix)

    def setup(self, env):
        for t in self.tables:
            create_schema(env, t)
            if t.rows and t is not getattr(self, "ins_table", None):
                try:
                    preload(env, t, self.seed, t.rows)
                except Failed as e:
                    raise Failed("loading %d rows of %s: %s" % (t.rows, t.name, e)) from e
        conn = env.pool.get()
        try:
            for sql in self.p.get("init") or []:
                try:
                    conn.run(sql)
                except env.client.Error as e:
                    raise Failed("init: %s: %s" % (e, sql.strip().splitlines()[0] if sql.strip() else sql)) from e
            if not self.ins:
                for t in self.tables:
                    env.extra[self.figure("table_rows_before", t)] = float(t.rows)
            if self.p.get("scale", -1) >= 0:
                try:
                    n = conn.run("SELECT count(*) FROM pgbench_branches")[0][0]
                    if n > 0:
                        self.scale = n
                except env.client.Error:
                    pass
            for c in self.checks:
                if c.get("expect") == "unchanged":
                    try:
                        self.before[c["name"]] = self.check_value(conn, c)[0]
                    except env.client.Error as e:
                        raise Failed('check "%s" before the run: %s' % (c["name"], e)) from e
        finally:
            env.pool.put(conn)

    def figure(self, name, t):
        return name if len(self.tables) == 1 else "%s.%s" % (name, t.name)

    def check_value(self, conn, c):
        """The first column of the check's first row as text, and whether there was a row."""
        rows = conn.run(c["sql"])
        if not rows:
            return "", False
        v = rows[0][0]
        return ("" if v is None else text_of(v)), True

    def run(self, env):
        self.env = env
        if self.ins:
            return self.run_insert(env)
        if self.single:
            self.wpool = env.open_pool(1)
        try:
            st = Engine(env, self).run()
        finally:
            if self.wpool is not None:
                self.wpool.close()
            self.finish(env)
        if self.rate > 0:
            el = (st.end - st.start) / 1e9
            if el > 0:
                env.extra["issued_ops_per_s"] = st.issued / el
            env.extra["executors"] = float(st.executors)
        self.verify(env)

    def run_insert(self, env):
        r = self.ins
        run_insert(
            env,
            self.ins_table,
            self.seed,
            r.get("rows", 0),
            max(r.get("workers", 1), 1),
            r.get("vacuum"),
            self.explicit,
        )
        if not env.cancel.is_set():
            self.verify(env)

    def finish(self, env):
        if self.rate > 0:
            env.extra["wanted_ops_per_s"] = self.rate
        for t in self.tables:
            if t.next > t.rows:
                env.extra[self.figure("rows_inserted", t)] = float(t.next - t.rows)
        if env.cancel.is_set():
            return  # the counts could wait behind writers still running
        conn = env.pool.get()
        try:
            for t in self.tables:
                try:
                    env.extra[self.figure("table_rows_after", t)] = float(
                        conn.run("SELECT count(*) FROM " + t.name)[0][0]
                    )
                except env.client.Error:
                    pass
        finally:
            env.pool.put(conn)

    def verify(self, env):
        """The checks: each adds a note; a failed one fails the run."""
        if not self.checks:
            return
        failed = []
        conn = env.pool.get()
        try:
            for c in self.checks:
                try:
                    got, found = self.check_value(conn, c)
                except env.client.Error as e:
                    raise Failed('check "%s": %s' % (c["name"], e)) from e
                ok, want, kind = False, c.get("want", ""), c.get("expect")
                if kind == "empty":
                    ok, want = not found, "no row"
                    if found:
                        got = "a row"
                elif kind == "unchanged":
                    base = self.before.get(c["name"], "")
                    ok, want = got == base, base + " (unchanged)"
                else:
                    op = c.get("cmp") or "="
                    if not found:
                        got = "no row"
                    else:
                        ok = compare_text(got, op, want)
                    if op != "=":
                        want = op + " " + want
                if ok:
                    env.notes.append('check "%s" passed: %s' % (c["name"], got))
                    continue
                msg = 'check "%s" failed: got %s, want %s (%s)' % (c["name"], got, want, c.get("at", ""))
                env.notes.append(msg)
                failed.append(msg)
        finally:
            env.pool.put(conn)
        if failed:
            raise Failed("; ".join(failed))

    def runner(self, eng, i, users):
        """Worker i's Runner, or None when it cannot start (the run stops)."""
        try:
            return Runner(self, eng.env, i, users)
        except BaseException as e:
            eng.stop(Failed("worker %d: %s" % (i, e)))
            return None

    def open_runner(self, eng, i):
        return self.runner(eng, i, self.max_inflight)

    def closed_worker(self, eng, i, role):
        """The closed loop's worker i: runs its role's transaction, or the
        mix's choice for each operation (seq = i × 2^40, +1, …)."""
        ex = self.runner(eng, i, len(self.roles_))
        eng.ready.wait()
        if ex is None:
            return
        lane = Lane(eng, None)
        choose = self.chooser() if role < 0 else None
        seq = i << 40
        claimed, limit = eng.claimed, self.count
        rec, deadline, check_at, counting = None, NEVER, 0, False
        try:
            while True:
                start = pc()
                if start >= check_at:
                    st = lane.check(start)
                    if st is None:
                        break
                    rec, _, deadline, check_at, counting = st
                if counting and next(claimed) > limit:
                    break
                op = role if choose is None else choose(seq)
                seq += 1
                try:
                    retries = ex.do(op, rec)
                except Counted as e:
                    rec.retries[op] += getattr(e, "retries", 0)
                    rec.error(op, e.kind)
                    continue
                end = pc()
                rec.retries[op] += retries
                if end > deadline:
                    rec.observe_overrun(op, end - start)
                else:
                    rec.observe(op, end - start)
        except Stop:
            pass
        except BaseException as e:
            eng.stop(e)
        finally:
            ex.close()


class Runner:
    """One worker's state: its connection, variables and random sequence.
    It keeps a connection of its own when the pool has one for every
    worker, else it borrows one per transaction."""

    def __init__(self, w, env, i, users):
        self.w, self.env, self.client = w, env, env.client
        self.slot = i
        p = w.p
        c = self.ctx = exprs.Ctx(len(p.get("vars") or []), columns.draw(w.seed, KEYS_STREAM, i + 1), w.tables)
        for k, v in enumerate(p.get("vars") or []):
            if "value" in v:
                c.vars[k], c.set[k] = exprs.literal(v["value"]), True
        c.vars[p.get("client_id", 0)], c.set[p.get("client_id", 0)] = i, True
        if p.get("scale", -1) >= 0:
            c.vars[p["scale"]], c.set[p["scale"]] = w.scale, True
        self.pool = env.pool
        self.own = self.pool.get() if self.pool.pinnable(users) else None
        self.conn = self.own
        self.cur = self.own.cur if self.own is not None else None
        self.tx = False  # a transaction a step began is open
        self.wconn = None  # the single writer's connection, while this worker holds it
        self.locked = False

    def close(self):
        self.abort()
        if self.own is not None:
            self.pool.put(self.own)
            self.own = self.conn = None

    def do(self, op, rec):
        """Runs transaction op (the load engine's operation); returns its retries."""
        if self.own is not None:
            return self.txn(op, rec)
        c = self.conn = self.pool.get()
        self.cur = c.cur
        try:
            return self.txn(op, rec)
        finally:
            self.abort()  # a run that stops mid-transaction returns no open one to the pool
            self.conn = self.cur = None
            self.pool.put(c)

    def txn(self, op, rec):
        """Runs transaction op once (again after busy as busy-retry allows);
        returns the retries."""
        steps = self.w.steps[op]
        state, retries = self.ctx.state, 0
        while True:
            table_retries = 0
            try:
                for step, part in steps:
                    if part < 0:
                        table_retries += step(self)
                        continue
                    t0 = pc()
                    try:
                        table_retries += step(self)
                    except (self.client.Error, Missing, TableFailed) as e:
                        rec.error(part, self.kind(e))
                        raise
                    rec.observe(part, pc() - t0)
                return retries + table_retries
            except exprs.EvalError as e:
                self.abort()
                raise Failed(str(e)) from None
            except Missing as e:
                self.abort()
                raise self.counted("missing", e, retries + table_retries) from None
            except TableFailed as e:
                self.abort()
                kind = self.client.kind(e.err)
                if kind in COUNTED:
                    raise self.counted(kind, e, retries + table_retries + e.retries) from None
                raise Failed("%s: %s" % (self.w.txns[op].get("name", ""), e)) from None
            except self.client.Error as e:
                self.abort()
                kind = self.client.kind(e)
                if self.client.retryable(e) and (self.w.retries < 0 or retries < self.w.retries):
                    retries += 1
                    self.ctx.state = state
                    self.env.check()
                    continue
                if kind in COUNTED:
                    raise self.counted(kind, e, retries + table_retries) from None
                raise Failed("%s: %s" % (self.w.txns[op].get("name", ""), e)) from None

    def kind(self, e):
        if isinstance(e, Missing):
            return "missing"
        return self.client.kind(e.err if isinstance(e, TableFailed) else e)

    def counted(self, kind, e, retries):
        c = Counted(kind, e)
        c.retries = retries
        return c

    def abort(self):
        if self.tx:
            rollback(self.cur, self.client)
            self.end_write()

    # Writes: under the write mutex and on the single writer's connection
    # when the settings ask for them.

    def start_write(self):
        """Takes the writer: the mutex and, with writer=single, its connection."""
        w = self.w
        if w.wlock is not None and not self.locked:
            w.wlock.acquire()
            self.locked = True
        if w.wpool is not None and self.wconn is None:
            self.wconn = w.wpool.get()
            self.cur = self.wconn.cur

    def end_write(self):
        self.tx = False
        if self.wconn is not None:
            self.w.wpool.put(self.wconn)
            self.wconn = None
            self.cur = self.conn.cur
        if self.locked:
            self.locked = False
            self.w.wlock.release()

    def write(self, fn, *args):
        """fn(*args) as an autocommit write, or in the open transaction."""
        if self.tx:
            return fn(*args)
        self.start_write()
        try:
            return fn(*args)
        finally:
            self.end_write()

    def begin(self, read):
        if not read:
            self.start_write()
        try:
            self.cur.execute(self.w.begin_sql)
        except BaseException:
            self.end_write()
            raise
        self.tx = True

    def end(self, sql):
        try:
            self.cur.execute(sql)
        finally:
            self.end_write()

    def sleep(self, ns):
        if ns > 0 and self.env.cancel.wait(ns / 1e9):
            raise Stop()  # a cancel cuts the sleep short

    def statement(self, s):
        if s.read or self.tx:
            self.sql(s)
        else:
            self.write(self.sql, s)

    def sql(self, s):
        c = self.ctx
        vs, set_ = c.vars, c.set
        args = []
        for slot in s.binds:
            if not set_[slot]:
                raise exprs.EvalError("%s: variable :%s is not set" % (s.at, self.w.p["vars"][slot]["name"]))
            v = vs[slot]
            args.append(int(v) if type(v) is bool else v)
        rows = self.cur.execute(s.sql, args).fetchall()
        into = s.into
        if into:
            if not rows:
                raise Missing("%s: \\gset: the query returned no row" % s.at)
            for k, slot in enumerate(into):
                v = rows[0][k]
                c.vars[slot] = None if v is None else exprs.text_value(text_of(v))
                c.set[slot] = True

    def table(self, op):
        """A table operation; returns its retries."""
        t = self.w.tables[op["table"]]
        kind, dist, theta = op["op"], op.get("keys", "uniform"), op.get("theta", 0)
        if kind == "read":
            i = t.next_key(self.ctx, dist, theta, t.visible)
            if not self.cur.execute(op["sql"], (t.key(i),)).fetchall():
                raise Missing("row not found: %s %s = %s" % (t.name, t.key_col, t.key(i)))
            return 0
        n = max(op.get("batch", 1), 1)
        # The rows are chosen once, so a retry writes the same rows.
        if kind == "insert":
            first = t.claim(n)
            try:
                return self.write_rows(t, op, range(first, first + n))
            finally:
                t.release(first)
        span = t.visible
        if kind == "upsert":
            span += span // 10  # some upserts insert
        return self.write_rows(t, op, [t.next_key(self.ctx, dist, theta, span) for _ in range(n)])

    def write_rows(self, t, op, idx):
        args = [self.row_args(t, op, i) for i in idx]
        retries = 0
        while True:
            try:
                self.write(self.write_once, op["sql"], args)
            except self.client.Error as e:
                if self.client.retryable(e) and (self.w.retries < 0 or retries < self.w.retries):
                    retries += 1
                    self.env.check()
                    continue
                raise TableFailed(e, retries) from None
            if self.env.ack:
                self.env.ack(idx[0], len(idx))
            return retries

    def write_once(self, sql, args):
        cur = self.cur
        if len(args) == 1 and (not self.w.explicit or self.tx):
            cur.execute(sql, args[0])
            return
        cur.execute(self.w.begin_sql)
        try:
            for a in args:
                cur.execute(sql, a)
            cur.execute("COMMIT")
        except BaseException:
            rollback(cur, self.client)
            raise

    def row_args(self, t, op, i):
        """Row i's parameters: its columns, an update's new values and key,
        or the columns a statement of the file binds."""
        seed = t.seed
        kind = op["op"]
        row = t.row((seed + 1) & gen.M64 if kind == "update" else seed, i)
        bind = op.get("bind")
        if bind:
            return tuple(t.key(i) if k < 0 else row[k] for k in bind)
        if kind == "update":
            return tuple(row[k] for k in t.update_idx) + (t.key(i),)
        return row

    def native(self, op):
        t = self.w.tables[op["table"]]
        name = op["op"]
        if name == "scan_verify":
            n = 0
            for key, rand, digest in self.cur.execute(op["sql"]):
                if not gen.check_bench(rand, digest):
                    raise Failed(
                        "%s %s %s: hash mismatch: stored hash %s is not the SHA-256 of rand %s"
                        % (t.name, t.key_col, text_of(key), digest, rand)
                    )
                n += 1
            if n < t.visible:
                raise Failed("scan_verify read %d rows of %s, want at least %d" % (n, t.name, t.visible))
            return
        depth, page = op.get("depth", 0), op.get("page", 0)
        args = (page, depth) if name == "paginate_offset" else (t.key(depth - 1), page)
        rows = self.cur.execute(op["sql"], args).fetchall()
        first = rows[0][0] if rows else -1
        want = t.key(depth)
        if first != want or len(rows) != page:
            raise Failed(
                "%s: the page starts at %s %d with %d rows, want %d with %d"
                % (name, t.key_col, first, len(rows), want, page)
            )


class Stmt:
    """A program's statement, its members read once."""

    __slots__ = ("sql", "binds", "into", "read", "at")

    def __init__(self, s):
        self.sql, self.binds, self.into = s["sql"], tuple(s.get("binds") or ()), tuple(s.get("into") or ())
        self.read, self.at = bool(s.get("read")), s.get("at", "")


def compile_step(w, st):
    """A step as (run, part): run(runner) runs it and returns the retries a
    table operation made; part is the op of its own result, or -1."""
    k = st["kind"]
    part = st.get("part", -1)
    part = -1 if part is None else part
    if k == "set":
        x, v = exprs.compile_expr(st["expr"]), st.get("var", 0)

        def run(r):
            c = r.ctx
            c.vars[v] = x(c)
            c.set[v] = True
            return 0

    elif k == "sql":
        s = Stmt(w.stmts[st.get("stmt", 0)])

        def run(r):
            r.statement(s)
            return 0

    elif k == "begin":
        read = bool(st.get("read"))

        def run(r):
            r.begin(read)
            return 0

    elif k in ("commit", "rollback"):
        sql = k.upper()

        def run(r):
            r.end(sql)
            return 0

    elif k == "sleep":
        e = st["expr"]
        x, unit = exprs.compile_expr(e), st.get("unit_ns", 1)

        def run(r):
            r.sleep(exprs.to_int(x(r.ctx), e) * unit)
            return 0

    elif k == "table":
        op = st["op"]

        def run(r):
            return r.table(op)

    else:
        op = st["op"]

        def run(r):
            r.native(op)
            return 0

    return run, part
