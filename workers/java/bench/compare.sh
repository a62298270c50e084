#!/usr/bin/env bash
# Runs the plain JDBC loops (PlainInsert, PlainRead) and the Java worker on
# the same jobs and prints each side's rate and the worker's share of the
# plain loop's:
#   insert: 1M rows (ROWS), prepared, 1000-row transactions, WAL,
#           synchronous=OFF, one row per statement (rows/s);
#   read:   ROWS rows loaded as the worker's set-up loads them, then point
#           reads by uniform random id, one thread, DURATION seconds
#           (default 10) after WARMUP (default 2) seconds (reads/s).
# Each round (ROUNDS, default 3) runs the plain loop and the worker back to
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

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
insert_settings='"journal":"wal","sync":"off","batch":"1000","prepared":"true","rows-per-stmt":"1"'
read_settings='"journal":"wal","sync":"off","prepared":"true"'
side() { # side plain|worker insert|read: one measurement, "wall cpu"
  rm -f "$dir"/*.db*
  case "$1 $2" in
  "plain insert") java -cp "$jar:target/bench" PlainInsert "$dir/plain.db" "$ROWS" 2>"$dir/stderr" ;;
  "plain read") java -cp "$jar:target/bench" PlainRead "$dir/plain.db" "$ROWS" "$DURATION" "$WARMUP" 2>"$dir/stderr" ;;
  "worker insert")
    python3 bench/drive.py "{\"run_id\":\"bench\",\"workload\":\"insert\",\"path\":\"$dir/worker.db\",\"params\":{\"rows\":\"$ROWS\"},\"settings\":{$insert_settings}}" 0 \
      java -jar "$jar" 2>"$dir/stderr"
    ;;
  "worker read")
    python3 bench/drive.py "{\"run_id\":\"bench\",\"workload\":\"read\",\"path\":\"$dir/worker.db\",\"params\":{\"rows\":\"$ROWS\",\"duration\":\"${DURATION}s\",\"warmup\":\"${WARMUP}s\"},\"settings\":{$read_settings}}" "$WARMUP" \
      java -jar "$jar" 2>"$dir/stderr"
    ;;
  esac || {
    cat "$dir/stderr" >&2
    exit 1
  }
}
for kind in insert read; do
  unit=rows/s
  [ "$kind" = read ] && unit=reads/s
  plains=() workers=() ratios=() cpuratios=()
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
      read -r p pc < <(side plain "$kind")
      read -r w wc < <(side worker "$kind")
    else
      read -r w wc < <(side worker "$kind")
      read -r p pc < <(side plain "$kind")
    fi
    ratio=$(awk -v p="$p" -v w="$w" 'BEGIN {printf "%.3f", w / p}')
    cpuratio=$(awk -v p="$pc" -v w="$wc" 'BEGIN {printf "%.3f", w / p}')
    echo "$kind round $r: plain $p $unit, worker $w $unit, ratio $ratio; per CPU second: plain $pc, worker $wc, ratio $cpuratio"
    plains+=("$p") workers+=("$w") ratios+=("$ratio") cpuratios+=("$cpuratio")
  done
  mp=$(printf '%s\n' "${plains[@]}" | median)
  mw=$(printf '%s\n' "${workers[@]}" | median)
  mr=$(printf '%s\n' "${ratios[@]}" | median)
  mc=$(printf '%s\n' "${cpuratios[@]}" | median)
  echo "$kind: median plain $mp $unit, median worker $mw $unit, median paired ratio $mr, per CPU second $mc"
done
