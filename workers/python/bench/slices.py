"""The harness's cost measured where the shared machine's noise hurts least:
the worker's own loops (Engine.read_loop, Inserter) and the plain loops run
in one process, on one connection to one database, in alternating slices
(ROUNDS pairs of MS-millisecond slices of point reads, and of 20,000-row
inserts in 1,000-row transactions); prints the rates over all the slices and
the best slice's (the one other processes disturbed least), and worker/plain.

usage: slices.py sqlite3|apsw [ROUNDS [MS]]"""

import itertools
import os
import sys
import threading
from time import perf_counter_ns as pc

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


def worker_reads(ops, env, ns):
    ops.duration = ns
    eng = Engine(env, ops)
    eng.claimed = itertools.count(1)
    ex = Executor(ops, 0, READ, 1, 0)
    eng.begin(pc())
    lane = Lane(eng, READ)
    eng.read_loop(lane, ex)
    ex.close()
    return lane.rec.count[READ], ns


def plain_reads(ops, env, ns):
    c = env.pool.get()
    ex, nxt, sql = c.cur.execute, gen.KeyGen("uniform", None, 1, 0).next, ops.read_sql
    t0 = pc()
    end, done = t0 + ns, 0
    while pc() < end:
        for _ in range(100):
            ex(sql, (nxt(ROWS),)).fetchall()
        done += 100
    el = pc() - t0
    env.pool.put(c)
    return done, el


def worker_inserts(env, first, n):
    ins = Inserter(env, gen.SCHEMAS["bench"], 1, 1000, 1, 0, Recorder(3))
    t0 = pc()
    ins.run(first, first + n, True)
    return n, pc() - t0 - ins.generated - ins.recorded


def plain_inserts(env, first, n):
    c = env.pool.get()
    ex, spent = c.cur.execute, 0
    for s in range(first, first + n, 1000):
        data = [gen.bench_row(1, i) for i in range(s, s + 1000)]
        t = pc()
        ex("BEGIN")
        for r in data:
            ex(INSERT, r)
        ex("COMMIT")
        spent += pc() - t
    env.pool.put(c)
    return n, spent


def main(client, rounds=30, ms=100):
    path = "/tmp/litebench-py-slices.db"
    w, ops, env = setup(client, path)
    tot = {k: [0, 0] for k in ("wr", "pr", "wi", "pi")}
    best = {k: 0 for k in tot}
    first = ROWS
    for r in range(rounds):
        pair = [("wr", lambda: worker_reads(ops, env, ms * 10**6)), ("pr", lambda: plain_reads(ops, env, ms * 10**6))]
        ins = [("wi", worker_inserts), ("pi", plain_inserts)]
        for k, fn in pair[:: 1 if r % 2 == 0 else -1]:
            n, el = fn()
            tot[k][0] += n
            tot[k][1] += el
            best[k] = max(best[k], n / el * 1e9)
        for k, fn in ins[:: 1 if r % 2 == 0 else -1]:
            n, el = fn(env, first, 20_000)
            first += 20_000
            tot[k][0] += n
            tot[k][1] += el
            best[k] = max(best[k], n / el * 1e9)
    w.close()
    fresh(path)
    rate = {k: n / el * 1e9 for k, (n, el) in tot.items()}
    for name, w, p in (("reads", "wr", "pr"), ("insert", "wi", "pi")):
        print(
            "%-8s %-6s all slices: plain %7.0f /s worker %7.0f /s worker/plain %.3f; best slices: %7.0f %7.0f %.3f"
            % (client, name, rate[p], rate[w], rate[w] / rate[p], best[p], best[w], best[w] / best[p])
        )


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
