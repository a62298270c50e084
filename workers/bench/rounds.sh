# Paired rounds of a worker against a plain loop, for the workers' bench
# scripts (source this file). rounds KIND UNIT N runs N rounds of the job
# KIND through the caller's function 'side plain|worker KIND', which prints
# one measurement as "RATE_PER_WALL_SECOND RATE_PER_CPU_SECOND". In each
# round the two sides run back to back, the one that goes first alternating;
# it prints both rates and their ratios (worker / plain), then the medians
# and the medians of the paired ratios, which cancel most of a noisy
# machine's drift.
#
# With INTERLEAVE=MS set, the two sides of a round run at once and take
# turns on the machine, MS milliseconds each: each side's process group is
# stopped (SIGSTOP) while the other runs. Both then meet the same machine,
# whose speed on a shared host drifts by tens of percent from one second to
# the next, and the paired ratio per CPU second is the round's figure (a
# side's wall time then includes the other's turns: its wall-clock rate
# means nothing). The caller's side function must let both sides run at
# once: each its own files.
#
# PIN=CPU, with INTERLEAVE, runs both sides (every process and thread they
# start) on that one CPU. The vCPUs of a shared machine differ in speed from
# minute to minute, and an unpinned side's turn lands on either: pinned, a
# round of a plain loop against itself came within 3 % (0.977 to 1.030)
# against 10 % unpinned. A runtime that sizes itself by the CPUs it may use
# (Go's GOMAXPROCS, the JVM's collector) then runs otherwise (README.md).
#
# each_job N runs N rounds of each job WORKLOADS names ("insert read" by
# default), refusing any other name with exit 2.

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

rounds() {
  local kind=$1 unit=$2 n=$3 r p pc w wc ratio cpuratio
  local plains=() workers=() ratios=() cpuratios=()
  if [ -n "${PIN:-}" ]; then
    if [ -z "${INTERLEAVE:-}" ]; then
      echo "rounds: PIN=CPU goes with INTERLEAVE=MS" >&2
      return 2
    fi
    if ! taskset -c -p "$PIN" $$ >/dev/null; then
      echo "rounds: PIN=$PIN: not a CPU this process may run on (see nproc)" >&2
      return 2
    fi
  fi
  for r in $(seq "$n"); do
    if [ -n "${INTERLEAVE:-}" ]; then
      read -r p pc w wc < <(interleaved "$kind" "$r")
    elif [ $((r % 2)) = 1 ]; then
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
  echo "$kind: median plain $(printf '%s\n' "${plains[@]}" | median) $unit," \
    "median worker $(printf '%s\n' "${workers[@]}" | median) $unit," \
    "median paired ratio $(printf '%s\n' "${ratios[@]}" | median)," \
    "per CPU second $(printf '%s\n' "${cpuratios[@]}" | median)"
}

# interleaved KIND ROUND: both sides of one round at once, taking turns of
# INTERLEAVE ms, the worker's turn first in odd rounds and the plain
# loop's in even ones; prints "p pc w wc".
interleaved() {
  local kind=$1 fp fw a b run stopped t slice
  slice=$(awk -v ms="$INTERLEAVE" 'BEGIN {printf "%.3f", ms / 1000}')
  fp=$(mktemp) fw=$(mktemp)
  set -m # each side in a process group of its own
  side plain "$kind" >"$fp" &
  a=$!
  kill -STOP -- -"$a" 2>/dev/null || true
  side worker "$kind" >"$fw" &
  b=$!
  set +m
  run=$b stopped=$a
  if [ $(($2 % 2)) = 0 ]; then
    kill -STOP -- -"$b" 2>/dev/null || true
    kill -CONT -- -"$a" 2>/dev/null || true
    run=$a stopped=$b
  fi
  while kill -0 "$a" 2>/dev/null || kill -0 "$b" 2>/dev/null; do
    sleep "$slice"
    if kill -0 "$stopped" 2>/dev/null; then
      kill -STOP -- -"$run" 2>/dev/null || true
      kill -CONT -- -"$stopped" 2>/dev/null || true
      t=$run run=$stopped stopped=$t
    fi
  done
  wait "$a" || { cat "$fp" >&2; return 1; }
  wait "$b" || { cat "$fw" >&2; return 1; }
  echo "$(cat "$fp") $(cat "$fw")"
  rm -f "$fp" "$fw"
}

each_job() {
  local n=$1 kind
  for kind in ${WORKLOADS:-insert read}; do
    case $kind in
    insert) rounds insert rows/s "$n" || return ;;
    read) rounds read reads/s "$n" || return ;;
    *)
      echo "WORKLOADS=$kind: want insert and/or read" >&2
      return 2
      ;;
    esac
  done
}
