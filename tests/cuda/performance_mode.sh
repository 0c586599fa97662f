#!/usr/bin/env bash
# Runs tests/cuda/performance_mode under `cnuas exec` with each kernel timing:
# - performance: both kernels in the statistics and the report, the event-timed
#   kernel equal to launch overhead + the model's time, identical across runs;
# - functional: the kernel takes its launch overhead only;
# - per kernel: only the named kernel runs in the performance model.
set -euo pipefail
cnuas=$1 program=$2 out=$3
launch_ms=0.004  # the default platform's launch overhead (4 us)
rm -rf "$out" && mkdir -p "$out"
unset LD_LIBRARY_PATH
for run in 1 2; do
  "$cnuas" exec --gpu-mode performance --gpu-stats "$out/gpu$run.json" --gpu-report "$out/report" \
    -- "$program" > "$out/out$run.txt"
  grep -q PASS "$out/out$run.txt"
done
cmp "$out/gpu1.json" "$out/gpu2.json"
[ "$(grep -c '"kernel": ' "$out/gpu1.json")" = 2 ]
grep -q '"kernels": 2' "$out/gpu1.json"  # the run's figures for the GPU
grep -q '"kernel": "_Z13reduce_kernelPKiiPi"' "$out/gpu1.json"
test -s "$out/report/index.html"
[ "$(ls "$out"/report/*.svg | wc -l)" = 14 ]  # 7 pictures per kernel
# The report's size budget: well under 500 KB for this program.
report_bytes=$(cat "$out"/report/* | wc -c)
[ "$report_bytes" -lt 512000 ] || { echo "report of $report_bytes bytes, over 500 KB"; exit 1; }
# The first kernel's time in the model against the program's event timing.
model_ps=$(grep -m1 '"time_ps"' "$out/gpu1.json" | tr -dc '0-9')
event_ms=$(sed -n 's/^reduce_ms=//p' "$out/out1.txt")
awk -v p="$model_ps" -v e="$event_ms" -v l="$launch_ms" 'BEGIN {
  want = p / 1e9 + l; d = e - want; if (d < 0) d = -d;
  if (p <= 0 || d > 1e-6) { print "event " e " ms, model " want " ms"; exit 1 } }'

"$cnuas" exec --gpu-mode functional -- "$program" > "$out/functional.txt"
grep -q PASS "$out/functional.txt"
[ "$(sed -n 's/^reduce_ms=//p' "$out/functional.txt")" = "0.004000000" ]

"$cnuas" exec --gpu-kernel-modes _Z13reduce_kernelPKiiPi=performance --gpu-stats "$out/one.json" \
  -- "$program" | grep -q PASS
[ "$(grep -c '"kernel": ' "$out/one.json")" = 1 ]
echo "performance mode: statistics, report, event timing and per-kernel modes agree"
