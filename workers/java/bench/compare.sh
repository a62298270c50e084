#!/usr/bin/env bash
# Runs the plain JDBC loops (PlainInsert, PlainRead) and the Java worker on
# the same jobs, interleaved, ROUNDS times (default 3), and prints the median
# of each and the worker's share of the plain loop's rate:
#   insert: 1M rows (ROWS), prepared, 1000-row transactions, WAL,
#           synchronous=OFF, one row per statement (rows/s);
#   read:   ROWS rows loaded as the worker's set-up loads them, then point
#           reads by uniform random id, one thread, DURATION seconds
#           (default 10) after WARMUP (default 2) seconds (reads/s).
# The worker is driven over its protocol; python3 reads its final event.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
ROUNDS=${ROUNDS:-3}
./build.sh
mkdir -p target/bench
javac -d target/bench -cp target/litebench-worker.jar bench/PlainInsert.java bench/PlainRead.java
jar=target/litebench-worker.jar
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# worker JOB_JSON: runs one job through the worker and prints done/elapsed_s.
worker() {
  printf '%s\n' '{"t":"hello","protocol":1}' "{\"t\":\"setup\",\"job\":$1}" '{"t":"run"}' '{"t":"close"}' |
    java -jar "$jar" 2>"$dir/stderr" | python3 -c '
import json, sys
for line in sys.stdin:
    ev = json.loads(line)
    if ev["t"] == "error":
        sys.exit("worker: " + ev["error"])
    if ev["t"] == "final":
        if ev["status"] != "ok":
            sys.exit("worker: " + ev["status"] + " " + ev.get("error", ""))
        print(round(ev["done"] / ev["elapsed_s"]))
'
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

insert_settings='"journal":"wal","sync":"off","batch":"1000","prepared":"true","rows-per-stmt":"1"'
read_settings='"journal":"wal","sync":"off","prepared":"true"'
pi=() wi=() pr=() wr=()
for r in $(seq "$ROUNDS"); do
  rm -f "$dir"/*.db*
  pi+=("$(java -cp "$jar:target/bench" PlainInsert "$dir/plain.db" "$ROWS" 2>/dev/null)")
  wi+=("$(worker "{\"run_id\":\"bench\",\"workload\":\"insert\",\"path\":\"$dir/worker.db\",\"params\":{\"rows\":\"$ROWS\"},\"settings\":{$insert_settings}}")")
  pr+=("$(java -cp "$jar:target/bench" PlainRead "$dir/plain-read.db" "$ROWS" "$DURATION" "$WARMUP" 2>/dev/null)")
  wr+=("$(worker "{\"run_id\":\"bench\",\"workload\":\"read\",\"path\":\"$dir/worker-read.db\",\"params\":{\"rows\":\"$ROWS\",\"duration\":\"${DURATION}s\",\"warmup\":\"${WARMUP}s\"},\"settings\":{$read_settings}}")")
  echo "round $r: insert plain ${pi[-1]} worker ${wi[-1]} rows/s; read plain ${pr[-1]} worker ${wr[-1]} reads/s"
done
# Each round's pair ran back to back: the median of the rounds' ratios
# suffers less from a machine whose load drifts than the ratio of medians.
ratios() { python3 -c 'import sys; a = sys.argv[1].split(); b = sys.argv[2].split(); print(sorted(round(float(y) / float(x), 3) for x, y in zip(a, b))[len(a) // 2])' "$1" "$2"; }
a=$(median "${pi[@]}") b=$(median "${wi[@]}") c=$(median "${pr[@]}") d=$(median "${wr[@]}")
echo "insert (median of $ROUNDS): plain loop $a rows/s, worker $b rows/s; worker/plain: $(python3 -c "print(round($b/$a, 3))"), median of the rounds' ratios $(ratios "${pi[*]}" "${wi[*]}")"
echo "read   (median of $ROUNDS): plain loop $c reads/s, worker $d reads/s; worker/plain: $(python3 -c "print(round($d/$c, 3))"), median of the rounds' ratios $(ratios "${pr[*]}" "${wr[*]}")"
