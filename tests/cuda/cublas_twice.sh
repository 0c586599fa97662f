#!/usr/bin/env bash
# Runs the cuBLAS program twice under `cnuas exec` (the GPU reports 13.0 for it) and
# checks that the traces and statistics name cuBLAS's own kernels and are
# identical: the library's kernel choice and its driver calls are repeatable.
set -euo pipefail
cnuas=$1 program=$2 out=$3
mkdir -p "$out"
unset LD_LIBRARY_PATH
for run in 1 2; do
  "$cnuas" exec --trace "$out/trace$run.jsonl" \
    --stats "$out/stats$run.json" -- "$program" >/dev/null
done
grep -q '"op":"_Z18sgemm_largek_lds64' "$out/trace1.jsonl"
grep -q '"op":"memcpy DtoH"' "$out/trace1.jsonl"
cmp "$out/trace1.jsonl" "$out/trace2.jsonl"
cmp "$out/stats1.json" "$out/stats2.json"
echo "cuBLAS traces and statistics written and identical"
