#!/usr/bin/env bash
# The worker against plain better-sqlite3 loops on the same jobs, interleaved
# (3 rounds; medians, and the median of each round's worker/plain ratio, the
# figure that noise between rounds disturbs least): a 1M-row insert (prepared, 1,000-row transactions, WAL,
# synchronous OFF, one row per statement) and 10 s of single-thread point
# reads by uniform random id over 100,000 rows.
#
#   workers/node/bench/compare.sh [ROWS] [READ_ROWS] [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
./build.sh
rows=${1:-1000000}
read_rows=${2:-100000}
secs=${3:-10}
rounds=${4:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# figures prints a run's two figures: per second of wall-clock time, per
# second of CPU time.
figures() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const o=JSON.parse(s);console.log(Object.values(o).map(v=>v.toFixed(0)).join(" "))})'; }
declare -a pi wi pr wr pic wic prc wrc
for r in $(seq "$rounds"); do
  read -r a b < <(node bench/plain-insert.js "$dir" "$rows" | figures)
  pi+=("$a") pic+=("$b")
  read -r a b < <(node bench/run-worker.js "$dir" insert "$rows" | figures)
  wi+=("$a") wic+=("$b")
  read -r a b < <(node bench/plain-read.js "$dir" "$read_rows" "$secs" | figures)
  pr+=("$a") prc+=("$b")
  read -r a b < <(node bench/run-worker.js "$dir" read "$read_rows" "$secs" | figures)
  wr+=("$a") wrc+=("$b")
  echo "round $r: insert rows/s plain ${pi[-1]} worker ${wi[-1]} (per CPU s ${pic[-1]} ${wic[-1]});" \
    "reads ops/s plain ${pr[-1]} worker ${wr[-1]} (per CPU s ${prc[-1]} ${wrc[-1]})"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { printf '%s\n' "$@" | sort -n | tail -n 1; }
# report prints the medians and, as a machine shared with other work slows
# some rounds, the best rounds too.
report() {
  local name=$1 p w bp bw
  p=$(median "${@:2:$rounds}")
  w=$(median "${@:$((2 + rounds)):$rounds}")
  bp=$(best "${@:2:$rounds}")
  bw=$(best "${@:$((2 + rounds)):$rounds}")
  echo "$name: medians plain $p, worker $w, worker/plain $(node -p "($w / $p).toFixed(3)");" \
    "best plain $bp, worker $bw, worker/plain $(node -p "($bw / $bp).toFixed(3)")"
}
# paired prints the median of the rounds' worker/plain ratios.
paired() {
  local name=$1 k ratios=()
  for ((k = 0; k < rounds; k++)); do
    local p=${@:$((2 + k)):1} w=${@:$((2 + rounds + k)):1}
    ratios+=("$(node -p "($w / $p).toFixed(3)")")
  done
  echo "$name: paired worker/plain ratios ${ratios[*]}; median $(median "${ratios[@]}")"
}
report "insert rows/s" "${pi[@]}" "${wi[@]}"
report "point reads ops/s" "${pr[@]}" "${wr[@]}"
paired "insert rows/s" "${pi[@]}" "${wi[@]}"
paired "point reads ops/s" "${pr[@]}" "${wr[@]}"
paired "insert rows per CPU second" "${pic[@]}" "${wic[@]}"
paired "point reads per CPU second" "${prc[@]}" "${wrc[@]}"
