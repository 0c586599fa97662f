#!/usr/bin/env bash
# Runs a CUDA program twice under `cnuas exec` and checks that the traces and
# statistics are written, name the program's kernel and copies, and are identical.
set -euo pipefail
cnuas=$1 program=$2 out=$3
mkdir -p "$out"
unset LD_LIBRARY_PATH
for run in 1 2; do
  "$cnuas" exec --trace "$out/trace$run.jsonl" --stats "$out/stats$run.json" -- "$program" >/dev/null
done
grep -q '"op":"_Z5scalePfif"' "$out/trace1.jsonl"
grep -q '"op":"memcpy HtoD"' "$out/trace1.jsonl"
grep -q '"op":"memcpy DtoH"' "$out/trace1.jsonl"
cmp "$out/trace1.jsonl" "$out/trace2.jsonl"
cmp "$out/stats1.json" "$out/stats2.json"
echo "traces and statistics written and identical"
