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
# ROUNDS (5 by default) sets the rounds, WORKLOADS (insert read) the jobs. Needs about 1 GB of free disk in
# TMPDIR and about a minute per round.
set -euo pipefail
dir=$1 prog=$2
cd "$dir"
rounds=${ROUNDS:-5}
./build.sh >/dev/null
go build -o bench/plain ./bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/litebench-go-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
side() { # side plain|worker insert|read: one measurement, "wall cpu"
  rm -f "$tmp"/bench.db*
  if [ "$1" = plain ]; then
    ./bench/plain "$2" "$tmp/bench.db"
  else
    ./bench/plain "worker-$2" "./$prog" "$tmp/bench.db"
  fi
  rm -f "$tmp"/bench.db*
}
echo "load before: $(uptime)"
for kind in ${WORKLOADS:-insert read}; do
  unit=rows/s
  [ "$kind" = read ] && unit=reads/s
  plains=() workers=() ratios=() cpuratios=()
  for r in $(seq "$rounds"); do
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
  echo "$kind: median plain $mp $unit, median worker $mw $unit; median paired ratio worker/plain: wall $mr, per CPU second $mc"
done
echo "load after: $(uptime)"
