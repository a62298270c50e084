#!/usr/bin/env bash
# callgrind.sh: instructions per operation of the rust-rusqlite worker and
# of the plain loops of plain.rs, counted by valgrind's callgrind (a figure
# that other work on the machine does not change), on smaller jobs than
# compare.sh's. Each side runs each job at two sizes and the difference of
# its process's instructions is divided by the difference of the
# operations, so set-up, start-up and the preload cancel out: per inserted
# row (ROWS1 and ROWS2 rows, 20000 and 60000 by default) and per point read
# (READS1 and READS2 reads, 10000 and 40000, on READ_ROWS rows, 100000).
# The worker's figure includes its harness; both include the rows'
# generation. JOBS ("insert read") chooses the jobs. With OUT set, the larger run of each side and job keeps its
# callgrind output as OUT/SIDE-JOB.out, for callgrind_annotate. Takes a
# few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. ../bench/callgrind-lib.sh
./build.sh >/dev/null
bin=$PWD/target/release
tmp=$(mktemp -d "${TMPDIR:-/tmp}/litebench-rust-callgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# ir plain|worker insert|read 1|2: the instructions of the side's
# process, its callgrind output kept as $tmp/SIDE.out.
ir() {
  rm -rf "$tmp"/db "$tmp"/*.log "$tmp"/*.out
  mkdir "$tmp/db"
  local cg=(valgrind --tool=callgrind --callgrind-out-file="$tmp/$1.out" --log-file="$tmp/$1.log")
  if [ "$1" = plain ]; then
    "${cg[@]}" "$bin/litebench-rust-bench" "$2" "$tmp/db" >/dev/null
  else
    printf '#!/bin/sh\nexec %s "%s"\n' "${cg[*]}" "$bin/litebench-worker-rust" >"$tmp/worker"
    chmod +x "$tmp/worker"
    "$bin/litebench-rust-bench" "worker-$2" "$tmp/db" "$tmp/worker" >/dev/null
  fi
  collected "$@"
}
jobs=${JOBS:-insert read}
if [[ " $jobs " == *" insert "* ]]; then
  r1=${ROWS1:-20000} r2=${ROWS2:-60000}
  p=$(per plain insert ROWS "$r1" "$r2")
  w=$(per worker insert ROWS "$r1" "$r2")
  report insert row "$p" "$w"
fi
if [[ " $jobs " == *" read "* ]]; then
  export READ_ROWS=${READ_ROWS:-100000}
  n1=${READS1:-10000} n2=${READS2:-40000}
  p=$(per plain read READS "$n1" "$n2")
  w=$(per worker read READS "$n1" "$n2")
  report read read "$p" "$w"
fi
