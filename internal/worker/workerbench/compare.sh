#!/usr/bin/env bash
# compare.sh DIR WORKER: compares the Go worker program WORKER, built in
# the worker's directory DIR by DIR/build.sh, with the plain loops of
# DIR/bench (a workerbench program) on the same jobs: a 1M-row insert and
# 10 s of single-thread point reads (see bench.go). Each round runs the
# plain loop and the worker back to back, the side that goes first
# alternating, and prints both rates and their ratio, per second of wall
# time and per second of CPU time (the process's user and system time over
# the measured part; the worker's from set-up done to its final event,
# less the rows' generation it leaves out of its time). The summary gives
# the medians and the median of the rounds' paired ratios: the wall-clock
# one is the goal's figure, the CPU one, which other work on a shared
# machine disturbs much less, the steadier estimate of the harness's cost.
# ROUNDS (5 by default) sets the rounds, WORKLOADS (insert read) the jobs,
# INTERLEAVE=MS runs both sides of a round at once, taking turns
# (../../../workers/bench/rounds.sh). Needs about 1 GB of free disk in
# TMPDIR and about a minute per round.
set -euo pipefail
dir=$1 prog=$2
cd "$dir"
rounds=${ROUNDS:-5}
./build.sh >/dev/null
go build -o bench/plain ./bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/litebench-go-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. ../bench/rounds.sh # median and rounds: the paired rounds every worker's bench shares
side() { # side plain|worker insert|read: one measurement, "wall cpu"
  rm -f "$tmp/$1".db*
  if [ "$1" = plain ]; then
    ./bench/plain "$2" "$tmp/$1.db"
  else
    ./bench/plain "worker-$2" "./$prog" "$tmp/$1.db"
  fi
  rm -f "$tmp/$1".db*
}
echo "load before: $(uptime)"
each_job "$rounds"
echo "load after: $(uptime)"
