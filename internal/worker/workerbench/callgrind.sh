#!/usr/bin/env bash
# callgrind.sh DIR WORKER: instructions per operation of the Go worker
# program WORKER (built in DIR by DIR/build.sh) and of the plain loops of
# DIR/bench, on the jobs of bench.go made smaller, counted by valgrind's
# callgrind: a figure that other work on the machine does not change. Each
# side runs each job at two sizes and the difference of its process's
# instructions is divided by the difference of the operations, so set-up,
# start-up and the preload cancel out: per inserted row (rows INS_ROWS1
# and INS_ROWS2, 20000 and 60000 by default) and per point read (READS1
# and READS2 reads, 10000 and 40000, on READ_ROWS rows, 100000). The
# worker's figure includes its harness (load engine, histograms, pool);
# the plain loop's, the rows' generation (the worker's, generated inline,
# is in its figure too), not its interval reports (see bench.go's
# Interval). With OUT set, each run keeps its callgrind output as
# OUT/SIDE-JOB-1.out (the smaller size) and OUT/SIDE-JOB-2.out, for
# callgrind_annotate. Takes a few minutes.
set -euo pipefail
dir=$1 prog=$2
. "$(dirname "$0")/../../../workers/bench/callgrind-lib.sh"
cd "$dir"
./build.sh >/dev/null
go build -o bench/plain ./bench
# Callgrind fails an assertion on the signals of the Go runtime's
# asynchronous preemption: it is turned off (for both sides alike).
export GODEBUG=${GODEBUG:+$GODEBUG,}asyncpreemptoff=1
# No interval reports: under valgrind they come far more often per
# operation than at full speed, as often as the machine's load makes them.
export LITEBENCH_BENCH_INTERVAL=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/litebench-go-callgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/worker" <<EOS
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$tmp/worker.out" --log-file="$tmp/worker.log" "$PWD/$prog"
EOS
chmod +x "$tmp/worker"
# ir plain|worker insert|read 1|2: the instructions of the side's
# process (its callgrind output in $tmp/SIDE.out).
ir() {
  rm -f "$tmp"/bench.db* "$tmp"/*.log "$tmp"/*.out
  if [ "$1" = plain ]; then
    valgrind --tool=callgrind --callgrind-out-file="$tmp/plain.out" --log-file="$tmp/plain.log" \
      ./bench/plain "$2" "$tmp/bench.db" >/dev/null
  else
    ./bench/plain "worker-$2" "$tmp/worker" "$tmp/bench.db" >/dev/null
  fi
  collected "$@"
}
r1=${INS_ROWS1:-20000} r2=${INS_ROWS2:-60000}
p=$(per plain insert LITEBENCH_BENCH_ROWS "$r1" "$r2")
w=$(per worker insert LITEBENCH_BENCH_ROWS "$r1" "$r2")
report insert row "$p" "$w"
export LITEBENCH_BENCH_ROWS=${READ_ROWS:-100000}
n1=${READS1:-10000} n2=${READS2:-40000}
p=$(per plain read LITEBENCH_BENCH_READS "$n1" "$n2")
w=$(per worker read LITEBENCH_BENCH_READS "$n1" "$n2")
report read read "$p" "$w"
