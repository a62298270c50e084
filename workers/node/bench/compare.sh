#!/usr/bin/env bash
# The worker against plain better-sqlite3 loops on the same jobs: a 1M-row
# insert (prepared, 1,000-row transactions, WAL, synchronous OFF, one row per
# statement) and 10 s of single-thread point reads by uniform random id over
# 100,000 rows. Each round runs the plain loop and the worker (the side that
# goes first alternating) and prints both rates per second of wall time and
# per second of CPU time, and their ratios; the summary gives the medians and
# the median of the rounds' worker/plain ratios, the figure that the
# machine's drift disturbs least (../../bench/rounds.sh). ROUNDS (3), ROWS,
# READ_ROWS, READ_SECONDS and WORKLOADS (insert read) change the jobs, as the
# positional arguments did before:
#
#   workers/node/bench/compare.sh [ROWS] [READ_ROWS] [SECONDS] [ROUNDS]
#
# INTERLEAVE=MS runs both sides of a round at once, taking turns of MS ms;
# PIN=CPU with it runs both on one CPU. STEADY=1 takes the reads' CPU
# figures from each side's steady part (bench/run-worker.js).
set -euo pipefail
cd "$(dirname "$0")/.."
. ../bench/rounds.sh
./build.sh >/dev/null
rows=${ROWS:-${1:-1000000}}
read_rows=${READ_ROWS:-${2:-100000}}
secs=${READ_SECONDS:-${3:-10}}
n=${ROUNDS:-${4:-3}}
dir=$(mktemp -d "${TMPDIR:-/tmp}/litebench-node-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# figures prints a run's two figures: per second of wall-clock time, per
# second of CPU time.
figures() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const o=JSON.parse(s);console.log(Object.values(o).map(v=>v.toFixed(0)).join(" "))})'; }
side() { # side plain|worker insert|read: one measurement (its own files in dir)
  case "$1 $2" in
  "plain insert") node bench/plain-insert.js "$dir" "$rows" | figures ;;
  "worker insert") node bench/run-worker.js "$dir" insert "$rows" | figures ;;
  "plain read") node bench/plain-read.js "$dir" "$read_rows" "$secs" | figures ;;
  "worker read") node bench/run-worker.js "$dir" read "$read_rows" "$secs" | figures ;;
  esac
}
each_job "$n"
