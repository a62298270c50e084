"""The worker's harness against the plain loops: for each client, a 1M-row
insert and 10 s of single-thread point reads, by the plain loop and by the
worker (through the protocol, intervals on as the runner asks), ROUNDS rounds
of back-to-back pairs; prints every figure, the medians and the median of
the per-round ratios.

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
        "insert": (
            lambda c: plain_insert.main(c, path),
            lambda c: worker(c, path, "insert", {"rows": "1000000"}, dict(SETTINGS, batch="1000")),
        ),
        "read": (
            lambda c: plain_read.main(c, path),
            lambda c: worker(c, path, "read", {"rows": "100000", "duration": "10s"}, SETTINGS),
        ),
    }
    got = {}
    for r in range(rounds):
        for client in ("sqlite3", "apsw"):
            for kind, (plain, work) in runs.items():
                # A pair, in alternating order: the machine's drift hits both alike.
                pair = [("plain", plain), ("worker", work)][:: 1 if r % 2 == 0 else -1]
                for name, fn in pair:
                    v = fn(client)
                    got.setdefault((client, kind, name), []).append(v)
                    print("round %d %-8s %-6s %-6s %10.0f /s" % (r + 1, client, kind, name, v), flush=True)
    print()
    for client in ("sqlite3", "apsw"):
        for kind in runs:
            p, w = got[(client, kind, "plain")], got[(client, kind, "worker")]
            ratios = [b / a for a, b in zip(p, w)]
            print(
                "%-8s %-6s plain %9.0f /s  worker %9.0f /s  (medians)  worker/plain per round: median %.3f (%s)"
                % (
                    client,
                    kind,
                    statistics.median(p),
                    statistics.median(w),
                    statistics.median(ratios),
                    " ".join("%.2f" % x for x in ratios),
                )
            )


if __name__ == "__main__":
    main(*(int(a) if i == 0 else a for i, a in enumerate(sys.argv[1:])))
