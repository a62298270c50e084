#!/usr/bin/env bash
# Compares the rust-rusqlite worker with plain rusqlite loops on the same
# jobs, interleaved: a 1M-row insert (prepared, 1000-row transactions, WAL,
# synchronous=OFF, one row per statement) and 10 s of single-thread point
# reads by uniform random id on a 100k-row table. Prints each round and the
# medians of ROUNDS rounds (3) with the worker's share of the plain loop's
# rate. ROWS, READ_ROWS and SECONDS change the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
./build.sh >/dev/null
bin=target/release
rounds=${ROUNDS:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/litebench-rust-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
declare -A runs
for r in $(seq "$rounds"); do
  for kind in insert read; do
    rm -f "$dir"/*
    plain=$("$bin/litebench-rust-bench" "$kind" "$dir")
    rm -f "$dir"/*
    worker=$("$bin/litebench-rust-bench" "worker-$kind" "$dir" "$bin/litebench-worker-rust")
    echo "round $r $kind: plain $plain, worker $worker"
    runs[$kind-plain]+="$plain "
    runs[$kind-worker]+="$worker "
  done
done
for kind in insert read; do
  p=$(tr ' ' '\n' <<<"${runs[$kind-plain]}" | grep . | median)
  w=$(tr ' ' '\n' <<<"${runs[$kind-worker]}" | grep . | median)
  unit=rows/s; [ "$kind" = read ] && unit=ops/s
  awk -v k="$kind" -v p="$p" -v w="$w" -v u="$unit" 'BEGIN {printf "median %s: plain %.0f %s, worker %.0f %s, worker/plain %.3f\n", k, p, u, w, u, w / p}'
done
