#!/usr/bin/env bash
# Runs the adapter benchmark several times per configuration and prints the
# median figures (this machine's timing is noisy). Usage: run_adapter_bench.sh [runs=5]
set -euo pipefail
runs=${1:-5}
bench=${BENCH:-build/bin/adapter_bench}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-34s %12s %12s %10s %8s\n" "stages streams elements lanes" "raw ns/event" "ns/stage" "M stages/s" "ratio"
for cfg in "1000000 8 4 2" "1000000 64 8 2" "4000000 8 4 2" "4000000 64 8 2" "4000000 8 4 2 no-trace"; do
  raw=(); stage=()
  for ((i = 0; i < runs; i++)); do
    out=$($bench $cfg)
    raw+=("$(awk '/raw SystemC/ {print $3}' <<<"$out")")
    stage+=("$(awk '/cnuas adapter/ {print $3}' <<<"$out")")
  done
  r=$(printf "%s\n" "${raw[@]}" | median)
  s=$(printf "%s\n" "${stage[@]}" | median)
  printf "%-34s %12s %12s %10.2f %8.2f\n" "$cfg" "$r" "$s" "$(echo "1000 / $s" | bc -l)" "$(echo "$s / $r" | bc -l)"
done
