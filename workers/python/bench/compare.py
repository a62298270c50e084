"""The worker's harness against the plain loops: for each client, a 1M-row
insert and 10 s of single-thread point reads, by the plain loop and by the
worker (through the protocol, intervals on as the runner asks), ROUNDS rounds
of pairs, the side that goes first alternating. Each side runs in a process
of its own and gives its rate per second of wall time and per second of CPU
time: the plain loop's user+sys over its measured part, the worker's over
its workload's run less the row generation and latency recording it leaves
out of its elapsed time (cpu_worker.py, the worker with that figure added to
its final event). The CPU figure is the steadier estimate of the harness's
cost on a busy machine; the wall one is the goal's. Each line ends with the
machine's one-minute load average (the side measured counts for about 1 of
it). Prints every figure, the medians and the median of the per-round ratios
of both.

CLIENTS (default "sqlite3 apsw") and KINDS (default "insert read") choose
the clients and jobs, e.g. CLIENTS=apsw KINDS=read for more rounds of one
figure in the same time.

usage: compare.py [ROUNDS [DIR]]"""

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.join(HERE, "..", ".venv", "bin", "python")
SETTINGS = {"journal": "wal", "sync": "off", "prepared": "true"}


def remove(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def plain(script, client, path):
    """(wall rate, CPU rate) of a plain loop in a process of its own."""
    out = subprocess.run(
        [PYTHON, os.path.join(HERE, script), client, path], capture_output=True, text=True, check=True
    ).stdout
    wall, cpu = out.split()
    return float(wall), float(cpu)


def worker(client, path, workload, params, settings):
    """(wall rate, CPU rate) of the worker running one job."""
    job = {
        "run_id": "bench",
        "workload": workload,
        "target": "python-" + client,
        "path": path,
        "params": params,
        "settings": settings,
        "interval_ns": 10**9,
    }
    p = subprocess.Popen(
        [PYTHON, os.path.join(HERE, "cpu_worker.py"), "--client", client],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )

    def send(m):
        p.stdin.write(json.dumps(m) + "\n")
        p.stdin.flush()

    def until(kind):
        for line in p.stdout:
            ev = json.loads(line)
            if ev["t"] == kind:
                return ev
            if ev["t"] == "error":
                raise SystemExit("worker: %s" % ev["error"])
        raise SystemExit("worker: ended before %s" % kind)

    try:
        send({"t": "hello", "protocol": 1})
        send({"t": "setup", "job": job})
        until("setup_done")
        send({"t": "run"})
        fin = until("final")
        send({"t": "close"})
    finally:
        p.stdin.close()
        p.wait()
        remove(path)
    if fin["status"] != "ok":
        raise SystemExit("worker: %s" % fin)
    cpu = [m["value"] for m in fin["metrics"] if m["name"] == "bench_cpu"][0]
    return fin["done"] / fin["elapsed_s"], fin["done"] / cpu


def main(rounds=3, d="/tmp"):
    path = os.path.join(d, "litebench-py-bench.db")
    runs = {
        "insert": (
            lambda c: plain("plain_insert.py", c, path),
            lambda c: worker(c, path, "insert", {"rows": "1000000"}, dict(SETTINGS, batch="1000")),
        ),
        "read": (
            lambda c: plain("plain_read.py", c, path),
            lambda c: worker(c, path, "read", {"rows": "100000", "duration": "10s"}, SETTINGS),
        ),
    }
    clients = os.environ.get("CLIENTS", "sqlite3 apsw").split()
    kinds = os.environ.get("KINDS", "insert read").split()
    for k in kinds:
        if k not in runs:
            raise SystemExit("compare.py: KINDS=%s: want insert and/or read" % k)
    runs = {k: runs[k] for k in kinds}
    got = {}
    for r in range(rounds):
        for client in clients:
            for kind, (plain_fn, worker_fn) in runs.items():
                # A pair, in alternating order: the machine's drift hits both alike.
                pair = [("plain", plain_fn), ("worker", worker_fn)][:: 1 if r % 2 == 0 else -1]
                for name, fn in pair:
                    wall, cpu = fn(client)
                    got.setdefault((client, kind, name), []).append((wall, cpu))
                    print(
                        "round %d %-8s %-6s %-6s %10.0f /s  %10.0f /CPU s  (load %.2f)"
                        % (r + 1, client, kind, name, wall, cpu, os.getloadavg()[0]),
                        flush=True,
                    )
    print()
    for client in clients:
        for kind in runs:
            p, w = got[(client, kind, "plain")], got[(client, kind, "worker")]
            for i, unit in ((0, "wall"), (1, "CPU ")):
                ratios = [b[i] / a[i] for a, b in zip(p, w)]
                print(
                    "%-8s %-6s %s plain %9.0f /s  worker %9.0f /s  (medians)  worker/plain per round: median %.3f (%s)"
                    % (
                        client,
                        kind,
                        unit,
                        statistics.median(x[i] for x in p),
                        statistics.median(x[i] for x in w),
                        statistics.median(ratios),
                        " ".join("%.2f" % x for x in ratios),
                    )
                )


if __name__ == "__main__":
    main(*(int(a) if i == 0 else a for i, a in enumerate(sys.argv[1:])))
