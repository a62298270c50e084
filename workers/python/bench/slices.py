"""The harness's cost measured where the shared machine's noise hurts least:
the worker's own loops (Engine.read_loop, Inserter) and the plain loops run
in one process, on one connection to one database, in alternating slices
(ROUNDS pairs of MS-millisecond slices of point reads, and of 20,000-row
inserts in 1,000-row transactions); prints the rates over all the slices and
the best slice's (the one other processes disturbed least), per second of
wall time and per second of the thread's CPU time, and worker/plain.

usage: slices.py sqlite3|apsw [ROUNDS [MS]]"""

import itertools
import os
import sys
import threading
from time import perf_counter_ns as pc
from time import thread_time_ns as cpu

from common import INSERT, fresh, gen

from litebench_worker import db
from litebench_worker.hist import Recorder
from litebench_worker.ops import READ, Engine, Executor, Lane
from litebench_worker.worker import Worker
from litebench_worker.workloads import Inserter

ROWS = 100_000


def setup(client, path):
    fresh(path)
    w = Worker(db.Client(client), threading.Event())
    job = {
        "workload": "read",
        "target": "python-" + client,
        "path": path,
        "params": {"rows": str(ROWS)},
        "settings": {"journal": "wal", "sync": "off"},
    }
    w.setup(job)
    ops, env = w.wl, w.env
    ops.read_sql, ops.wpool, ops.env = "SELECT ID,rand,hash FROM bench WHERE ID = ?", env.pool, env
    return w, ops, env


class CPUInserter(Inserter):
    """The worker's Inserter, taking the CPU time of what it leaves out of its clock too."""

    left_out = 0

    def generate(self, first, n):
        c = cpu()
        try:
            return super().generate(first, n)
        finally:
            self.left_out += cpu() - c

    def fold(self, tail):
        c = cpu()
        try:
            return super().fold(tail)
        finally:
            self.left_out += cpu() - c


def worker_reads(ops, env, ns):
    """The loop of a single reader, less the time it leaves out (turning end
    times into latencies), as the worker's elapsed time does."""
    ops.duration = ns
    eng = Engine(env, ops)
    eng.claimed = itertools.count(1)
    eng.workers = 1
    ex = Executor(ops, 0, READ, 1, 0)
    env.recorded = 0
    c = cpu()
    eng.begin(pc())
    lane = Lane(eng, READ)
    eng.read_loop(lane, ex)
    c = cpu() - c
    ex.close()
    return lane.rec.count[READ], ns - env.recorded, c


def plain_reads(ops, env, ns):
    c = env.pool.get()
    ex, nxt, sql = c.cur.execute, gen.KeyGen("uniform", None, 1, 0).next, ops.read_sql
    c0, t0 = cpu(), pc()
    end, done = t0 + ns, 0
    while pc() < end:
        for _ in range(100):
            ex(sql, (nxt(ROWS),)).fetchall()
        done += 100
    el, el_cpu = pc() - t0, cpu() - c0
    env.pool.put(c)
    return done, el, el_cpu


def worker_inserts(env, first, n):
    ins = CPUInserter(env, gen.SCHEMAS["bench"], 1, 1000, 1, 0, Recorder(3))
    c, t0 = cpu(), pc()
    ins.run(first, first + n, True)
    return n, pc() - t0 - ins.generated - ins.recorded, cpu() - c - ins.left_out


def plain_inserts(env, first, n):
    c = env.pool.get()
    ex, spent, spent_cpu = c.cur.execute, 0, 0
    for s in range(first, first + n, 1000):
        data = [gen.bench_row(1, i) for i in range(s, s + 1000)]
        c0, t = cpu(), pc()
        ex("BEGIN")
        for r in data:
            ex(INSERT, r)
        ex("COMMIT")
        spent += pc() - t
        spent_cpu += cpu() - c0
    env.pool.put(c)
    return n, spent, spent_cpu


def main(client, rounds=30, ms=100):
    path = "/tmp/litebench-py-slices.db"
    w, ops, env = setup(client, path)
    tot = {k: [0, 0, 0] for k in ("wr", "pr", "wi", "pi")}
    best = {k: [0, 0] for k in tot}
    first = ROWS

    def add(k, n, el, el_cpu):
        t = tot[k]
        t[0], t[1], t[2] = t[0] + n, t[1] + el, t[2] + el_cpu
        best[k] = [max(best[k][0], n / el * 1e9), max(best[k][1], n / el_cpu * 1e9)]

    for r in range(rounds):
        pair = [("wr", lambda: worker_reads(ops, env, ms * 10**6)), ("pr", lambda: plain_reads(ops, env, ms * 10**6))]
        ins = [("wi", worker_inserts), ("pi", plain_inserts)]
        for k, fn in pair[:: 1 if r % 2 == 0 else -1]:
            add(k, *fn())
        for k, fn in ins[:: 1 if r % 2 == 0 else -1]:
            add(k, *fn(env, first, 20_000))
            first += 20_000
    w.close()
    fresh(path)
    for name, wk, pk in (("reads", "wr", "pr"), ("insert", "wi", "pi")):
        for i, unit in ((1, "wall"), (2, "CPU ")):
            p, wr = tot[pk][0] / tot[pk][i] * 1e9, tot[wk][0] / tot[wk][i] * 1e9
            bp, bw = best[pk][i - 1], best[wk][i - 1]
            print(
                "%-8s %-6s %s all slices: plain %7.0f /s worker %7.0f /s worker/plain %.3f; "
                "best slices: %7.0f %7.0f %.3f" % (client, name, unit, p, wr, wr / p, bp, bw, bw / bp)
            )


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
