# Shared by the callgrind.sh scripts (sourced): each defines
# ir SIDE JOB RUN, which runs side SIDE (plain|worker) of job JOB under
# callgrind with its log in $tmp/SIDE.log and its output in $tmp/SIDE.out,
# then calls collected to print the instructions.

# collected SIDE JOB RUN: the instructions valgrind collected for the
# side's run (its log), keeping its callgrind output as OUT/SIDE-JOB-RUN.out
# when OUT is set.
collected() {
  if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    cp "$tmp/$1.out" "$OUT/$1-$2-$3.out"
  fi
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/$1.log"
}

# per SIDE JOB VAR N1 N2: instructions per operation between sizes N1
# and N2 of the job (VAR set to each in the side's environment).
per() {
  local a b
  a=$(export "$3=$4" && ir "$1" "$2" 1)
  b=$(export "$3=$5" && ir "$1" "$2" 2)
  awk -v a="$a" -v b="$b" -v n1="$4" -v n2="$5" 'BEGIN {printf "%.0f", (b - a) / (n2 - n1)}'
}

# report JOB UNIT PLAIN WORKER: one line of figures.
report() {
  echo "$1: plain $3, worker $4 instructions per $2, ratio $(awk -v p="$3" -v w="$4" 'BEGIN {printf "%.3f", w / p}')"
}
