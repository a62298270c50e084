# Paired rounds of a worker against a plain loop, for the workers' bench
# scripts (source this file). rounds KIND UNIT N runs N rounds of the job
# KIND through the caller's function 'side plain|worker KIND', which prints
# one measurement as "RATE_PER_WALL_SECOND RATE_PER_CPU_SECOND". In each
# round the two sides run back to back, the one that goes first alternating;
# it prints both rates and their ratios (worker / plain), then the medians
# and the medians of the paired ratios, which cancel most of a noisy
# machine's drift.

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

rounds() {
  local kind=$1 unit=$2 n=$3 r p pc w wc ratio cpuratio
  local plains=() workers=() ratios=() cpuratios=()
  for r in $(seq "$n"); do
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
  echo "$kind: median plain $(printf '%s\n' "${plains[@]}" | median) $unit," \
    "median worker $(printf '%s\n' "${workers[@]}" | median) $unit," \
    "median paired ratio $(printf '%s\n' "${ratios[@]}" | median)," \
    "per CPU second $(printf '%s\n' "${cpuratios[@]}" | median)"
}
