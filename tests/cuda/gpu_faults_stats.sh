#!/usr/bin/env bash
# Corrected (single-bit) ECC errors are counted per GPU in the statistics and
# marked in the trace; an uncorrectable one is counted and marked with the
# kernel it failed. Expectations (faults/sbe.yaml, faults/dbe_1us.yaml; the
# `run` case lasts about 2.4 ms, its 64 MiB copy alone 2.1 ms at 31.5 GB/s):
# the errors at 1 us and 30 us fall inside the run, the one at 1 s after it.
set -euo pipefail
cnuas=$1 program=$2 faults=$3 out=$4
mkdir -p "$out"
unset LD_LIBRARY_PATH
"$cnuas" exec --faults "$faults/sbe.yaml" --stats "$out/sbe.json" --trace "$out/sbe.jsonl" \
  -- "$program" run >/dev/null
grep -q '"default.gpu": {.*"faults":{"ecc_corrected":2,"ecc_uncorrectable":0}' "$out/sbe.json"
[ "$(grep -c '"event":"ecc_corrected"' "$out/sbe.jsonl")" = 2 ]
grep -q '"t_ps":1000000,.*"event":"ecc_corrected","component":"default.gpu"' "$out/sbe.jsonl"
grep -q '"t_ps":30000000,.*"event":"ecc_corrected","component":"default.gpu"' "$out/sbe.jsonl"
echo "corrected ECC errors: 2 counted and marked at 1 us and 30 us"
"$cnuas" exec --faults "$faults/dbe_1us.yaml" --stats "$out/dbe.json" --trace "$out/dbe.jsonl" \
  -- "$program" fail_running cudaErrorECCUncorrectable reset_clears >/dev/null 2>&1
grep -q '"default.gpu": {.*"faults":{"ecc_corrected":0,"ecc_uncorrectable":1}' "$out/dbe.json"
grep -q '"t_ps":1000000,.*"event":"ecc_uncorrectable","component":"default.gpu","xid":48,"kernel_failed":true' \
  "$out/dbe.jsonl"
echo "uncorrectable ECC error: counted and marked at 1 us with the kernel it failed"
