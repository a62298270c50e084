"""The worker's harness against the plain loops: for each client, a 1M-row
insert and 10 s of single-thread point reads, by the plain loop and by the
worker (through the protocol, intervals on as the runner asks), ROUNDS rounds
interleaved; prints every figure and the medians.

usage: compare.py [ROUNDS [DIR]]"""

import json
import os
import statistics
import subprocess
import sys

import plain_insert
import plain_read

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "..", "litebench-worker")
SETTINGS = {"journal": "wal", "sync": "off", "prepared": "true"}


def worker(client, path, workload, params, settings):
    job = {
        "run_id": "bench",
        "workload": workload,
        "target": "python-" + client,
        "path": path,
        "params": params,
        "settings": settings,
        "interval_ns": 10**9,
    }
    msgs = [{"t": "hello", "protocol": 1}, {"t": "setup", "job": job}, {"t": "run"}, {"t": "close"}]
    out = subprocess.run(
        [WORKER, "--client", client],
        input="".join(json.dumps(m) + "\n" for m in msgs),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    fin = [json.loads(line) for line in out.splitlines() if '"final"' in line][0]
    if fin["status"] != "ok":
        raise SystemExit("worker: %s" % fin)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return fin["done"] / fin["elapsed_s"]


def main(rounds=3, d="/tmp"):
    path = os.path.join(d, "litebench-py-bench.db")
    runs = {
        "insert plain": lambda c: plain_insert.main(c, path),
        "insert worker": lambda c: worker(c, path, "insert", {"rows": "1000000"}, dict(SETTINGS, batch="1000")),
        "read plain": lambda c: plain_read.main(c, path),
        "read worker": lambda c: worker(c, path, "read", {"rows": "100000", "duration": "10s"}, SETTINGS),
    }
    got = {}
    for r in range(rounds):
        for client in ("sqlite3", "apsw"):
            for name, fn in runs.items():
                v = fn(client)
                got.setdefault((client, name), []).append(v)
                print("round %d %-8s %-14s %10.0f /s" % (r + 1, client, name, v), flush=True)
    print()
    for client in ("sqlite3", "apsw"):
        for kind in ("insert", "read"):
            p = statistics.median(got[(client, kind + " plain")])
            w = statistics.median(got[(client, kind + " worker")])
            print("%-8s %-6s plain %9.0f /s  worker %9.0f /s  worker/plain %.3f" % (client, kind, p, w, w / p))


if __name__ == "__main__":
    main(*(int(a) if i == 0 else a for i, a in enumerate(sys.argv[1:])))
