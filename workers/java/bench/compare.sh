#!/usr/bin/env bash
# Runs the plain JDBC loops (PlainInsert, PlainRead) and the Java worker on
# the same jobs and prints each side's rate and the worker's share of the
# plain loop's:
#   insert: 1M rows (ROWS), prepared, 1000-row transactions, WAL,
#           synchronous=OFF, one row per statement (rows/s);
#   read:   ROWS rows loaded as the worker's set-up loads them, then point
#           reads by uniform random id, one thread, DURATION seconds
#           (default 10) after WARMUP (default 2) seconds (reads/s).
# WORKLOADS (insert read) chooses the jobs. Each round (ROUNDS, default 3;
# INTERLEAVE=MS: both sides at once, taking turns, see
# ../../bench/rounds.sh) runs the plain loop and the worker back to
# back, the side that goes first alternating, and prints both rates and
# their ratio; the summary gives the medians and the median of the
# per-round ratios, which cancels most of a noisy machine's drift. Each side
# also gives its rate per second of CPU time (the process's user and system
# time, every thread, over the measured part; for an insert, the share of it
# spent inserting rather than generating rows, in proportion to wall time),
# and the ratio of those, which a busy machine disturbs much less than wall
# time. The worker is driven over its protocol by drive.py.
set -euo pipefail
cd "$(dirname "$0")/.."
. ../bench/rounds.sh
ROWS=${ROWS:-1000000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
ROUNDS=${ROUNDS:-3}
out=$(./build.sh 2>&1) || {
  printf '%s\n' "$out" >&2
  exit 1
}
mkdir -p target/bench
javac -d target/bench -cp target/litebench-worker.jar bench/PlainInsert.java bench/PlainRead.java
jar=target/litebench-worker.jar
dir=$(mktemp -d "${TMPDIR:-/tmp}/litebench-java-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

insert_settings='"journal":"wal","sync":"off","batch":"1000","prepared":"true","rows-per-stmt":"1"'
read_settings='"journal":"wal","sync":"off","prepared":"true"'
side() { # side plain|worker insert|read: one measurement, "wall cpu"
  rm -f "$dir/$1".db* # a file each: INTERLEAVE runs both sides at once
  case "$1 $2" in
  "plain insert") java -cp "$jar:target/bench" PlainInsert "$dir/plain.db" "$ROWS" 2>"$dir/$1.stderr" ;;
  "plain read") java -cp "$jar:target/bench" PlainRead "$dir/plain.db" "$ROWS" "$DURATION" "$WARMUP" 2>"$dir/$1.stderr" ;;
  "worker insert")
    python3 bench/drive.py "{\"run_id\":\"bench\",\"interval_ns\":1000000000,\"workload\":\"insert\",\"path\":\"$dir/worker.db\",\"params\":{\"rows\":\"$ROWS\"},\"settings\":{$insert_settings}}" 0 \
      java -jar "$jar" 2>"$dir/$1.stderr"
    ;;
  "worker read")
    python3 bench/drive.py "{\"run_id\":\"bench\",\"interval_ns\":1000000000,\"workload\":\"read\",\"path\":\"$dir/worker.db\",\"params\":{\"rows\":\"$ROWS\",\"duration\":\"${DURATION}s\",\"warmup\":\"${WARMUP}s\"},\"settings\":{$read_settings}}" "$WARMUP" \
      java -jar "$jar" 2>"$dir/$1.stderr"
    ;;
  esac || {
    cat "$dir/$1.stderr" >&2
    exit 1
  }
}
each_job "$ROUNDS"
