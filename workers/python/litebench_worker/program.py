"""Workload programs (docs/workload-program.md): a workload file or pgbench
scripts compiled by litebench into plain data, run here with the program's
expressions (exprs.py), column generators (columns.py) and the load engine
of ops.py. Set-up and the closed loop are implemented; steps that this
runner does not run yet are refused at set-up."""

import threading
import time
from time import perf_counter_ns as pc

from . import columns, exprs
from .ops import NEVER, Engine, Lane
from .settings import BadInput
from .workloads import Counted, Failed, Stop, begin_sql, create_schema, preload, rollback

KEYS_STREAM = 0x6B6579
OPS_STREAM = 0x726174
COUNTED = ("busy", "locked", "constraint", "interrupted")


class Missing(Exception):
    """A row a step expected was not there."""


def text_of(v):
    """A column's value as Go's database/sql renders it as text."""
    if type(v) is float:
        return exprs.go_float(v)
    if type(v) is bytes:
        return v.decode("utf-8", "replace")
    return str(v)


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
    """A program's set-up, closed-loop run and checks."""

    def __init__(self, prog, s):
        if prog.get("version") != 1:
            raise BadInput("program version %s: this worker runs version 1" % prog.get("version"))
        self.p = prog
        self.name = prog.get("name", "")
        self.seed = int(prog["seed"])
        self.tables = [columns.Table(t, self.seed) for t in prog.get("tables") or []]
        self.ops = prog.get("ops") or []
        self.nops = len(self.ops)
        self.ntx = len(prog.get("transactions") or [])
        self.txns = prog.get("transactions") or []
        self.stmts = prog.get("statements") or []
        self.retries = s.busy_retries()
        self.begin_sql = begin_sql(s)
        self.settings = s
        if prog.get("insert"):
            raise BadInput("program %s: [insert] workloads are not run by the Python worker yet" % self.name)
        load = prog.get("load") or {}
        if load.get("rate", 0) > 0:
            raise BadInput("program %s: rate: the Python worker runs programs in closed loop only yet" % self.name)
        for t in self.txns:
            for st in t.get("steps") or []:
                if st["kind"] == "table" and st["op"]["op"] != "read":
                    raise BadInput(
                        "program %s: %s: table operation %s is not run by the Python worker yet"
                        % (self.name, st.get("at", ""), st["op"]["op"])
                    )
                if st["kind"] == "native":
                    raise BadInput(
                        "program %s: %s: native operation %s is not run by the Python worker yet"
                        % (self.name, st.get("at", ""), st["op"]["op"])
                    )
        self.count = load.get("count", 0)
        self.duration = 0 if self.count > 0 else load.get("duration_ns", 0)
        self.warmup = load.get("warmup_ns", 0)
        self.rate = 0
        self.roles_ = load.get("roles") or [-1]
        self.mix = load.get("mix") or []
        self.readers, self.writers = len(self.roles_), 0
        self.lock = threading.Lock()
        self.before = {}

    def roles(self):
        return list(self.roles_)

    def chooser(self):
        return mix_chooser(self.seed, self.mix)

    def setup(self, env):
        conn = env.pool.get()
        try:
            for t in self.tables:
                create_schema(env, t)
                if t.rows:
                    try:
                        preload(env, t, self.seed, t.rows)
                    except Failed as e:
                        raise Failed("loading %d rows of %s: %s" % (t.rows, t.name, e)) from e
            for sql in self.p.get("init") or []:
                try:
                    conn.run(sql)
                except env.client.Error as e:
                    raise Failed("init: %s: %s" % (e, sql.strip().splitlines()[0] if sql.strip() else sql)) from e
            self.scale = 1
            if self.p.get("scale", -1) >= 0:
                try:
                    n = conn.run("SELECT count(*) FROM pgbench_branches")[0][0]
                    if n > 0:
                        self.scale = n
                except env.client.Error:
                    pass
            for c in self.p.get("checks") or []:
                if c.get("expect") == "unchanged":
                    self.before[c["name"]] = self.check_value(conn, c)
            self.table_rows(env, conn, "table_rows_before")
        finally:
            env.pool.put(conn)

    def table_rows(self, env, conn, name):
        for t in self.tables:
            key = name if len(self.tables) == 1 else "%s.%s" % (name, t.name)
            try:
                env.extra[key] = float(conn.run("SELECT count(*) FROM " + t.name)[0][0])
            except env.client.Error:
                pass

    def check_value(self, conn, c):
        rows = conn.run(c["sql"])
        if not rows:
            return None
        v = rows[0][0]
        return "" if v is None else text_of(v)

    def run(self, env):
        self.env = env
        try:
            Engine(env, self).run()
        finally:
            self.finish(env)

    def finish(self, env):
        conn = env.pool.get()
        try:
            self.table_rows(env, conn, "table_rows_after")
            inserted = sum(t.next - t.rows for t in self.tables)
            if inserted:
                env.extra["rows_inserted"] = float(inserted)
        finally:
            env.pool.put(conn)

    def closed_worker(self, eng, i, role):
        """The closed loop's worker i: runs its role's transaction, or the
        mix's choice for each operation (seq = i × 2^40, +1, …)."""
        try:
            ex = Runner(self, eng.env, i)
        except BaseException as e:
            eng.stop(Failed("worker %d: %s" % (i, e)))
            ex = None
        eng.ready.wait()
        if ex is None:
            return
        lane = Lane(eng, 0)
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
                    retries = ex.txn(op, rec)
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
    """One worker's state: its connection, variables and random sequence."""

    def __init__(self, w, env, i):
        self.w, self.env, self.client = w, env, env.client
        p = w.p
        c = self.ctx = exprs.Ctx(len(p.get("vars") or []), columns.draw(w.seed, KEYS_STREAM, i + 1), w.tables)
        for k, v in enumerate(p.get("vars") or []):
            if "value" in v:
                c.vars[k], c.set[k] = exprs.literal(v["value"]), True
        c.vars[p.get("client_id", 0)], c.set[p.get("client_id", 0)] = i, True
        if p.get("scale", -1) >= 0:
            c.vars[p["scale"]], c.set[p["scale"]] = w.scale, True
        self.conn = env.pool.get()
        self.cur = self.conn.cur
        self.tx = False

    def close(self):
        if self.conn is not None:
            self.env.pool.put(self.conn)
            self.conn = None

    def txn(self, op, rec):
        """Runs transaction op once (again after busy as busy-retry allows);
        returns the retries."""
        steps = self.w.txns[op]["steps"]
        state, retries = self.ctx.state, 0
        while True:
            try:
                for st in steps:
                    part = st.get("part", -1)
                    if part is None or part < 0:
                        self.step(st)
                        continue
                    t0 = pc()
                    try:
                        self.step(st)
                    except (self.client.Error, Missing) as e:
                        rec.error(part, self.kind(e))
                        raise
                    rec.observe(part, pc() - t0)
                return retries
            except exprs.EvalError as e:
                self.abort()
                raise Failed(str(e)) from None
            except Missing as e:
                self.abort()
                raise self.counted("missing", e, retries) from None
            except self.client.Error as e:
                self.abort()
                kind = self.kind(e)
                if kind in ("busy", "locked") and (self.w.retries < 0 or retries < self.w.retries):
                    retries += 1
                    self.ctx.state = state
                    self.env.check()
                    continue
                if kind in COUNTED:
                    raise self.counted(kind, e, retries) from None
                raise Failed("%s: %s" % (self.w.txns[op].get("name", ""), e)) from None

    def kind(self, e):
        return "missing" if isinstance(e, Missing) else self.client.kind(e)

    def counted(self, kind, e, retries):
        c = Counted(kind, e)
        c.retries = retries
        return c

    def abort(self):
        if self.tx:
            rollback(self.cur, self.client)
            self.tx = False

    def step(self, st):
        k = st["kind"]
        c = self.ctx
        if k == "set":
            v = st.get("var", 0)
            c.vars[v] = exprs.evaluate(st["expr"], c)
            c.set[v] = True
        elif k == "sql":
            self.sql(self.w.stmts[st.get("stmt", 0)])
        elif k == "begin":
            self.cur.execute(self.w.begin_sql)
            self.tx = True
        elif k == "commit" or k == "rollback":
            self.tx = False
            self.cur.execute(k.upper())
        elif k == "sleep":
            v = exprs.to_number(exprs.evaluate(st["expr"], c), st["expr"])
            ns = v * st.get("unit_ns", 1)
            if ns > 0:
                time.sleep(ns / 1e9)
        elif k == "table":
            self.table(st["op"])
        else:
            raise Failed("%s: step %s is not run by the Python worker" % (st.get("at", ""), k))

    def sql(self, s):
        c = self.ctx
        args = []
        for slot in s.get("binds") or []:
            if not c.set[slot]:
                raise exprs.EvalError("%s: variable :%s is not set" % (s.get("at", ""), self.w.p["vars"][slot]["name"]))
            v = c.vars[slot]
            args.append(int(v) if type(v) is bool else v)
        rows = self.cur.execute(s["sql"], args).fetchall()
        into = s.get("into")
        if into:
            if not rows:
                raise Missing("%s: the query returned no row" % s.get("at", ""))
            for k, slot in enumerate(into):
                v = rows[0][k]
                c.vars[slot] = None if v is None else exprs.text_value(text_of(v))
                c.set[slot] = True

    def table(self, op):
        w = self.w
        t = w.tables[op["table"]]
        kind, dist, theta = op["op"], op.get("keys", "uniform"), op.get("theta", 0)
        if kind == "read":
            i = t.next_key(self.ctx, dist, theta, t.visible)
            if not self.cur.execute(op["sql"], (t.key(i),)).fetchall():
                raise Missing("row not found: %s %s = %s" % (t.name, t.key_col, t.key(i)))
            return
        raise Failed("table operation %s is not run by the Python worker yet" % kind)
