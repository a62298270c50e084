#!/usr/bin/env bash
# Runs the plain go-sqlite-lite loops and the worker on the same jobs,
# interleaved, for ROUNDS rounds (3 by default), and prints the medians, the
# worker's share of the plain loop's median rate, and the median of the
# rounds' own shares (steadier on a machine whose load drifts). Needs about 2 GB of free disk
# in TMPDIR and a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
./build.sh
go build -o bench/plain ./bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  ./bench/plain insert "$tmp/plain.db" >>"$tmp/plain-insert"
  ./bench/plain worker-insert ./litebench-worker-sqlite-lite "$tmp/worker-insert.db" >>"$tmp/worker-insert"
  rm -f "$tmp/worker-insert.db"*
  ./bench/plain worker-read ./litebench-worker-sqlite-lite "$tmp/worker-read.db" >>"$tmp/worker-read"
  rm -f "$tmp/worker-read.db"*
  ./bench/plain read "$tmp/plain.db" >>"$tmp/plain-read"
  rm -f "$tmp/plain.db"*
  echo "round $r: insert plain $(tail -1 "$tmp/plain-insert") worker $(tail -1 "$tmp/worker-insert") rows/s;" \
    "read plain $(tail -1 "$tmp/plain-read") worker $(tail -1 "$tmp/worker-read") reads/s"
done
median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for w in insert read; do
  paste "$tmp/worker-$w" "$tmp/plain-$w" | awk '{print $1/$2}' >"$tmp/ratio-$w"
  p=$(median "$tmp/plain-$w")
  k=$(median "$tmp/worker-$w")
  awk -v w="$w" -v p="$p" -v k="$k" -v r="$(median "$tmp/ratio-$w")" \
    'BEGIN {printf "%s: plain %.0f/s, worker %.0f/s, worker/plain %.3f (median of the rounds: %.3f)\n", w, p, k, k/p, r}'
done
