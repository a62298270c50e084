"""litebench-worker as compare.py runs it: the worker unchanged, but for one
figure added to the final event's metrics, "bench_cpu" (seconds): the
process's CPU time (user+sys, every thread) over the workload's run, less
the CPU time of what the worker leaves out of its elapsed time (row
generation and latency recording between statements, and the point-read
loop's recording at its checks), so that it compares
with the plain loops' CPU time over their measured part. The wrappers that
take it cost a few µs per transaction, outside the worker's clock.

usage: cpu_worker.py --client sqlite3|apsw"""

import os
import sys
from time import process_time_ns as cpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from litebench_worker import __main__, ops, workloads  # noqa: E402
from litebench_worker.worker import Worker  # noqa: E402

left_out = [0]


def left_out_of_cpu(fn):
    def wrapper(*args):
        c = cpu()
        try:
            return fn(*args)
        finally:
            left_out[0] += cpu() - c

    return wrapper


workloads.Inserter.generate = left_out_of_cpu(workloads.Inserter.generate)
workloads.Inserter.fold = left_out_of_cpu(workloads.Inserter.fold)
workloads.Inserter.fold_c = left_out_of_cpu(workloads.Inserter.fold_c)
ops.record_ends = left_out_of_cpu(ops.record_ends)
if ops.RECORD is not None:
    ops.RECORD = left_out_of_cpu(ops.RECORD)
ops.Ops.finish = left_out_of_cpu(ops.Ops.finish)
worker_run = Worker.run


def run(self, send):
    wl_run, spent = self.wl.run, [0]

    def measured(env):
        left_out[0] = 0  # set-up's load is not measured
        c = cpu()
        try:
            return wl_run(env)
        finally:
            spent[0] = cpu() - c - left_out[0]

    self.wl.run = measured
    fin = worker_run(self, send)
    fin.setdefault("metrics", []).append({"name": "bench_cpu", "unit": "s", "value": spent[0] / 1e9})
    return fin


Worker.run = run

if __name__ == "__main__":
    sys.exit(__main__.main())
