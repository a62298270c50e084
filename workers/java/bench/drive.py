#!/usr/bin/env python3
"""Runs one job through a worker over its protocol and prints two rates.

  drive.py JOB_JSON WARMUP_S COMMAND...

Starts COMMAND (the worker), says hello, sets the job up, runs it and
prints the operations done per second of the worker's own elapsed time and
per second of the worker process's CPU time (user and system, every
thread) over the measured part, as the worker reports it (its process_cpu
figure, in cores over the measured part: the warm-up before it and the
counts and histograms after it left out, as its rate leaves them out);
when the worker generated rows (its 'generate' metric, seconds left out of
its elapsed time), the inserting share of it: elapsed / (elapsed +
generate), as the plain loops count theirs (generation's wall time is no
measure of its CPU time on a busy machine), which process_cpu × elapsed
is. A worker that does not report process_cpu is measured from /proc,
from the run message, or WARMUP_S seconds after it when the job has a
warm-up, to the final event.
"""
import json
import os
import subprocess
import sys
import time


def cpu_of(pid):
    """The CPU time of process pid so far (user and system), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    # The fields after the command name (which ends with ')'): utime and
    # stime are the 12th and 13th, in clock ticks.
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    job, warmup, cmd = json.loads(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(msg):
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()

    def wait(want):
        for line in p.stdout:
            ev = json.loads(line)
            if ev["t"] == want:
                return ev
            if ev["t"] == "error":
                sys.exit("worker: " + ev["error"])
        sys.exit("worker: ended before " + want)

    send({"t": "hello", "protocol": 1})
    wait("hello")
    send({"t": "setup", "job": job})
    wait("setup_done")
    send({"t": "run"})
    if warmup > 0:
        time.sleep(warmup)
    c0 = cpu_of(p.pid)
    fin = wait("final")
    cpu = cpu_of(p.pid) - c0
    send({"t": "close"})
    p.stdin.close()
    p.wait()
    if fin["status"] != "ok":
        sys.exit("worker: " + fin["status"] + " " + fin.get("error", ""))
    metrics = {m["name"]: m["value"] for m in fin.get("metrics", [])}
    elapsed = fin["elapsed_s"]
    if "process_cpu" in metrics:
        cpu = metrics["process_cpu"] * elapsed
    else:
        cpu *= elapsed / (elapsed + metrics.get("generate", 0))
    print(round(fin["done"] / elapsed), round(fin["done"] / cpu))


main()
