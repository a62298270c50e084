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
figure in the same time. INTERLEAVE=MS runs both sides of a round at once,
taking turns of MS milliseconds on the machine (each side's process group
stopped while the other runs), so that both meet the same machine, whose
speed drifts by tens of percent from one second to the next; the CPU
figures are then the round's (a side's wall time includes the other's
turns). PIN=CPU, with INTERLEAVE, runs both sides' processes (every
thread) on that one CPU: the two vCPUs of a shared machine differ in speed
from minute to minute, and a side's turn could land on either; pinned, a
round of the plain loop against itself came within 3 % (0.977 to 1.030),
against 10 % unpinned. PARALLEL=1 runs both sides of a round at once without turns, each
pinned to a CPU of its own (the sides swap CPUs from one round to the next):
they too meet the same machine, and no side is ever stopped. Stopping the
worker, a process of several threads, costs it more than the plain loop's
single thread: with INTERLEAVE=50 its point reads came out near 0.90 of the
plain loop's per CPU second, where PARALLEL=1 and rounds one after the other
both gave 0.97 to 1.06.

usage: compare.py [ROUNDS [DIR]]"""

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.join(HERE, "..", ".venv", "bin", "python")
SETTINGS = {"journal": "wal", "sync": "off", "prepared": "true"}


def remove(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


# The processes of the sides running now (INTERLEAVE): each in a session of
# its own, so that a signal to its group stops or continues all of it.
running = []
running_lock = threading.Lock()

# The CPU each side is pinned to (PARALLEL), by side.
cpus = {}


def start(args, side, **kw):
    cpu = cpus.get(side)
    if cpu is not None:
        kw["preexec_fn"] = lambda: os.sched_setaffinity(0, {cpu})
    p = subprocess.Popen(args, start_new_session=True, **kw)
    with running_lock:
        running.append(p)
    return p


def plain(script, client, path):
    """(wall rate, CPU rate) of a plain loop in a process of its own."""
    p = start([PYTHON, os.path.join(HERE, script), client, path], "plain", stdout=subprocess.PIPE, text=True)
    out, _ = p.communicate()
    if p.returncode != 0:
        raise SystemExit("%s: exit status %d" % (script, p.returncode))
    wall, cpu = out.split()
    return float(wall), float(cpu)


def interleaved(fns, ms):
    """Runs the functions' sides at once, taking turns of ms milliseconds
    (each side's process group stopped while the other runs), or without
    turns when ms is 0; returns their results."""
    out = [None] * len(fns)
    errs = []

    def run(i, fn):
        try:
            out[i] = fn()
        except BaseException as e:  # noqa: BLE001 - reported below
            errs.append(e)

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    turn = 0
    if not ms:
        for t in threads:
            t.join()
    while any(t.is_alive() for t in threads):
        time.sleep(ms / 1000)
        with running_lock:
            live = [p for p in running if p.poll() is None]
        if len(live) < 2:
            for p in live:
                signal_group(p, signal.SIGCONT)
            continue
        turn = (turn + 1) % len(live)
        for i, p in enumerate(live):
            signal_group(p, signal.SIGSTOP if i != turn else signal.SIGCONT)
    with running_lock:
        running.clear()
    if errs:
        raise errs[0]
    return out


def signal_group(p, sig):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


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
    p = start(
        [PYTHON, os.path.join(HERE, "cpu_worker.py"), "--client", client],
        "worker",
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
    # A file each, so that the sides can run at once (INTERLEAVE).
    pp, wp = (os.path.join(d, "litebench-py-bench-%s.db" % side) for side in ("plain", "worker"))
    runs = {
        "insert": (
            lambda c: plain("plain_insert.py", c, pp),
            lambda c: worker(c, wp, "insert", {"rows": "1000000"}, dict(SETTINGS, batch="1000")),
        ),
        "read": (
            lambda c: plain("plain_read.py", c, pp),
            lambda c: worker(c, wp, "read", {"rows": "100000", "duration": "10s"}, SETTINGS),
        ),
    }
    inter = int(os.environ.get("INTERLEAVE") or 0)
    parallel = bool(os.environ.get("PARALLEL"))
    if parallel and len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("compare.py: PARALLEL=1 needs two CPUs")
    pin = os.environ.get("PIN", "")
    if pin:
        if parallel or not inter:
            raise SystemExit("compare.py: PIN=CPU goes with INTERLEAVE=MS, not PARALLEL")
        if not pin.isdigit() or int(pin) not in os.sched_getaffinity(0):
            raise SystemExit("compare.py: PIN=%s: want one of the CPUs %s" % (pin, sorted(os.sched_getaffinity(0))))
        cpus["plain"] = cpus["worker"] = int(pin)
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
                if parallel:
                    cpus["plain"], cpus["worker"] = (0, 1) if r % 2 == 0 else (1, 0)
                    res = interleaved([lambda fn=fn: fn(client) for _, fn in pair], 0)
                elif inter:
                    res = interleaved([lambda fn=fn: fn(client) for _, fn in pair], inter)
                else:
                    res = [None] * len(pair)
                for k, (name, fn) in enumerate(pair):
                    wall, cpu = res[k] or fn(client)
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
