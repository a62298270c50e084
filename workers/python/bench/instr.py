"""Point reads for an instruction count: the worker's read loop (Engine.read_loop,
for --count N) or the plain loop of plain_read.py (READS reads), on one
connection to a database of 100,000 bench rows, set up as slices.py does.
Prints how many reads it made. Under callgrind, the difference between two
runs of different lengths, divided by the difference in reads, is the
instructions per read, whatever the machine's load:

  INSTR=1 valgrind --tool=callgrind --instr-atstart=no python instr.py apsw worker 500
  (and 1000; plain 500 and plain 1000 for the plain loop)

usage: instr.py sqlite3|apsw worker|plain N"""

import itertools
import os
import subprocess
import sys
from time import perf_counter_ns as pc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import slices  # noqa: E402
from common import gen  # noqa: E402

from litebench_worker import ops  # noqa: E402


def plain(wl, env, n):
    c = env.pool.get()
    ex, nxt, sql = c.cur.execute, gen.KeyGen("uniform", None, 1, 0).next, wl.read_sql
    for _ in range(n):
        if not ex(sql, (nxt(slices.ROWS),)).fetchall():
            raise SystemExit("missing row")
    env.pool.put(c)
    return n


def worker(wl, env, n):
    """Engine.read_loop for --count n (a fixed number of reads: callgrind
    slows the clock's readings down, not the clock)."""
    wl.duration, wl.count = 0, n
    eng = ops.Engine(env, wl)
    eng.claimed = itertools.count(1)
    ex = ops.Executor(wl, 0, ops.READ, 1, 0)
    eng.begin(pc())
    lane = ops.Lane(eng, ops.READ)
    eng.read_loop(lane, ex)
    ex.close()
    return lane.rec.count[ops.READ]


def instrument(on):
    """Under callgrind --instr-atstart=no, only the reads are instrumented:
    the set-up runs at near native speed."""
    if os.environ.get("INSTR"):
        subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], capture_output=True)


def main(client, side, n):
    if os.environ.get("INSTR"):
        # Callgrind runs the reads some 250 times slower, so every latency
        # would be long and take the histograms' slow path, and every read
        # would see the clock's limits pass: the worker reads a clock that
        # moves 6.6 µs a reading instead, as a native read takes (one C call
        # a reading, like perf_counter_ns; the cost of reading the real
        # clock, once a read, is left out of the worker's count).
        ops.pc = itertools.count(pc(), 6600).__next__
    path = "/tmp/litebench-py-instr.db"
    w, wl, env = slices.setup(client, path)
    instrument(True)
    if side == "plain":
        done = plain(wl, env, n)
    else:
        done = worker(wl, env, n)
    instrument(False)
    w.close()
    slices.fresh(path)
    print(done)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
