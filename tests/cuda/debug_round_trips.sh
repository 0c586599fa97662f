#!/usr/bin/env bash
# Capture/replay round trips on the project's CUDA test programs: each chosen
# launch, replayed alone on the PTX engine, writes exactly the bytes it wrote
# inside the program (replay compares every captured buffer and variable).
set -euo pipefail
cnuas=$1 programs=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
unset LD_LIBRARY_PATH
check() {  # NAME KERNEL[#N] PROGRAM [ARGS...]
  local name=$1 kernel=$2
  shift 2
  "$cnuas" debug capture --kernel "$kernel" --out "$out/$name.cap" -- "$programs/$@" \
    > "$out/$name.txt" 2>&1
  grep -q PASS "$out/$name.txt"
  "$cnuas" debug replay "$out/$name.cap" | tee -a "$out/replays.txt" | grep -q "outputs match"
}
check black_scholes black_scholes black_scholes 2000
check bfs_expand 'expand#2' bfs_levels 2000 3
check hash_insert insert hash_table 3000
check cg_spmv 'spmv#4' cg_solver 48 20
# A kernel's buffers: black_scholes reads s, x, t and writes call and put.
grep -q "black_scholes.*outputs match (5 buffers" "$out/replays.txt"
echo PASS
