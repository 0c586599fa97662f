#!/usr/bin/env bash
# Runs launch_replay under `cnuas exec` with launch replay on (the default)
# and off: the program checks its results either way, the traces and
# statistics must be byte-identical, and the replays are the ones the rule in
# ptx/src/launch_replay.h predicts for 16 iterations with inputs changed
# before iterations 4, 8 and 12: launch 0 executes unhashed, 1 executes and is
# recorded, 2-3 replay; after each change two launches execute (the first
# still sees the previous output in memory) and two replay: 2+2+2+2 = 8.
set -euo pipefail
cnuas=$1 program=$2 out=$3
mkdir -p "$out"
unset LD_LIBRARY_PATH
"$cnuas" exec --log info --trace "$out/on.jsonl" --stats "$out/on.json" -- "$program" 16 \
  > "$out/on.out" 2> "$out/on.err"
"$cnuas" exec --no-launch-replay --log info --trace "$out/off.jsonl" --stats "$out/off.json" \
  -- "$program" 16 > "$out/off.out" 2> "$out/off.err"
grep -q PASS "$out/on.out"
grep -q PASS "$out/off.out"
grep -q "cnuas: 8 kernel launch(es) replayed" "$out/on.err" || { cat "$out/on.err"; exit 1; }
if grep -q "replayed" "$out/off.err"; then echo "replayed with --no-launch-replay"; exit 1; fi
cmp "$out/on.jsonl" "$out/off.jsonl"
cmp "$out/on.json" "$out/off.json"
echo "replayed 8 launches; traces and statistics identical"
