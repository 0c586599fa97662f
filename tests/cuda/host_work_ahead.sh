#!/usr/bin/env bash
# Runs host_work_ahead under `cnuas exec` with the host idle for 0 ms and for
# 200 ms after issuing a host function (the runtime's helper runs it ahead only
# in the second run), in functional and in performance mode: traces and
# statistics must be byte-identical between the two.
set -euo pipefail
cnuas=$1 program=$2 out=$3
mkdir -p "$out"
unset LD_LIBRARY_PATH
for mode in functional performance; do
  for busy in 0 200; do
    tag=$mode-$busy
    "$cnuas" exec --gpu-mode "$mode" --trace "$out/trace-$tag.jsonl" --stats "$out/stats-$tag.json" \
      --gpu-stats "$out/gpu-$tag.json" -- "$program" "$busy" | grep -q PASS
  done
  cmp "$out/trace-$mode-0.jsonl" "$out/trace-$mode-200.jsonl"
  cmp "$out/stats-$mode-0.json" "$out/stats-$mode-200.json"
  cmp "$out/gpu-$mode-0.json" "$out/gpu-$mode-200.json"
done
echo "host work ahead: outputs identical"
