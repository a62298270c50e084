"""Point reads for an instruction count: the worker's read loop
(Engine.read_loop of a single reader, for a duration of N readings of the
clock below), the plain loop of plain_read.py (N reads), or the recording
the worker's loop leaves out of its measured time (hist.record_ends over N
reads' end times), on one connection to a database of 100,000 bench rows,
set up as slices.py does. Prints how many reads it made (or recorded).
Under callgrind, the difference between two runs of different lengths,
divided by the difference in reads, is the instructions per read, whatever
the machine's load:

  INSTR=1 LITEBENCH_TIMED_STEP_NS=6600 valgrind --tool=callgrind --instr-atstart=no \
      python instr.py apsw worker 2000
  (and 6000; plain and fold 2000 and 6000 likewise; PYTHON=1 counts the
  worker's Python loop instead of its C loop)

The worker's measured part is worker less fold.

usage: instr.py sqlite3|apsw worker|plain|fold N"""

import itertools
import os
import subprocess
import sys
from time import perf_counter_ns as pc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import slices  # noqa: E402
from common import gen  # noqa: E402

from litebench_worker import hist, ops, workloads  # noqa: E402


def plain(wl, env, n):
    c = env.pool.get()
    ex, nxt, sql = c.cur.execute, gen.KeyGen("uniform", None, 1, 0).next, wl.read_sql
    for _ in range(n):
        if not ex(sql, (nxt(slices.ROWS),)).fetchall():
            raise SystemExit("missing row")
    env.pool.put(c)
    return n


def worker(wl, env, n):
    """Engine.read_loop of a single worker for --duration n × 6.6 µs on the
    clock below: n reads, less one for each check of the limits (every
    1 ms) and for the start."""
    wl.duration, wl.count = n * 6600, 0
    eng = ops.Engine(env, wl)
    eng.claimed = itertools.count(1)
    eng.workers = 1
    ex = ops.Executor(wl, 0, ops.READ, 1, 0)
    eng.begin(ops.pc())
    lane = ops.Lane(eng, ops.READ)
    eng.read_loop(lane, ex)
    ex.close()
    return lane.rec.count[ops.READ]


def fold(n):
    """What the worker's read loop leaves out of the measured time, for n
    reads: hist.record_ends over their end times, 6.6 µs apart, in lists of
    150 (1 ms of reads), as the loop keeps them."""
    h, t, lists = hist.FULL.new(), pc(), []
    for first in range(0, n, 150):
        lists.append(list(range(t + first * 6600, t + (min(first + 150, n) + 1) * 6600, 6600)))
    instrument(True)
    for ends in lists:
        hist.record_ends(h, ends)
    instrument(False)
    return sum(h)


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
        # a reading, like perf_counter_ns; under callgrind it counts some 90
        # instructions more than perf_counter_ns's 500 or so).
        ops.pc = itertools.count(pc(), 6600).__next__
        if ops.READS is not None:
            # The C loops' own clock moves 6.6 µs a reading too
            # (LITEBENCH_TIMED_STEP_NS, set before the module loaded), and
            # the Python side reads the same one.
            from litebench_worker import _timed

            if os.environ.get("LITEBENCH_TIMED_STEP_NS") != "6600":
                raise SystemExit("instr.py: run with LITEBENCH_TIMED_STEP_NS=6600 (or PYTHON=1 for Python's loop)")
            ops.pc = workloads.pc = _timed.now
        if os.environ.get("PYTHON"):
            ops.READS = None  # count Python's loop
    path = "/tmp/litebench-py-instr-%d.db" % os.getpid()  # runs side by side do not share it
    w, wl, env = slices.setup(client, path)
    if side == "fold":
        done = fold(n)  # instrumented on its own: the lists it folds are built first
    else:
        instrument(True)
        done = plain(wl, env, n) if side == "plain" else worker(wl, env, n)
        instrument(False)
    w.close()
    slices.fresh(path)
    print(done)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
