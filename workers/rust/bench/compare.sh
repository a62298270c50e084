#!/usr/bin/env bash
# Compares the rust-rusqlite worker with plain rusqlite loops on the same
# jobs: a 1M-row insert (prepared, 1000-row transactions, WAL,
# synchronous=OFF, one row per statement) and 10 s of single-thread point
# reads by uniform random id on a 100k-row table. Each round runs the plain
# loop and the worker back to back, the side that goes first alternating (as
# 'litebench selfcheck' does), and prints both rates and their ratio; the
# summary gives the medians and the median of the per-round ratios, which
# cancels most of a noisy machine's drift. The goal is a ratio of at least
# 0.95. Each side also gives its rate per second of CPU time (the worker's
# between set-up and the final event), and the ratio of those, which a
# busy machine disturbs much less than wall time. ROUNDS (3), ROWS,
# READ_ROWS and SECONDS change the sizes, WORKLOADS (insert read) the jobs;
# INTERLEAVE=MS runs both sides of a round at once, taking turns
# (../../bench/rounds.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. ../bench/rounds.sh
./build.sh >/dev/null
bin=target/release
rounds=${ROUNDS:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/litebench-rust-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
side() { # side plain|worker insert|read: one measurement (a directory each)
  rm -rf "${dir:?}/$1"
  mkdir "$dir/$1"
  if [ "$1" = plain ]; then
    "$bin/litebench-rust-bench" "$2" "$dir/$1"
  else
    "$bin/litebench-rust-bench" "worker-$2" "$dir/$1" "$bin/litebench-worker-rust"
  fi
}
each_job "$rounds"
