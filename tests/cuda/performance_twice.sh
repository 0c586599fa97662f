#!/usr/bin/env bash
# Runs a CUDA program twice through the performance model under `cnuas exec`
# and checks that the traces, statistics and GPU statistics are identical. With
# managed memory the model's caches and DRAM banks see host-visible addresses,
# which must not depend on the process's address-space layout.
set -euo pipefail
cnuas=$1 program=$2 out=$3
mkdir -p "$out"
unset LD_LIBRARY_PATH
for run in 1 2; do
  "$cnuas" exec --gpu-mode performance --trace "$out/trace$run.jsonl" --stats "$out/stats$run.json" \
    --gpu-stats "$out/gpu$run.json" -- "$program" >/dev/null
done
cmp "$out/trace1.jsonl" "$out/trace2.jsonl"
cmp "$out/stats1.json" "$out/stats2.json"
cmp "$out/gpu1.json" "$out/gpu2.json"
echo "performance-mode outputs identical"
