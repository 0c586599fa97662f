#!/usr/bin/env bash
# `cnuas exec` as `cnuas run`: a short summary on stderr by default (none with
# --log quiet) that reports the program's host time, --out DIR with the four
# outputs, the GTKWave save file, stats.csv and metadata.json, --vcd alone, and kernel stages the
# cycle-level model timed of class "model" everywhere a class appears.
set -euo pipefail
cnuas=$1 program=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
unset LD_LIBRARY_PATH
"$cnuas" exec --gpu-mode performance --out "$out/perf" -- "$program" >"$out/perf.out" 2>"$out/perf.err"
grep -q PASS "$out/perf.out"
grep -q "^cnuas: platform 'default'" "$out/perf.err"
grep -q "simulated time: .* \[analytic + cycle-level model\]" "$out/perf.err"
# The program runs for a good part of a second in the model: never 0.000 s.
host_s=$(sed -n 's/.*, \([0-9.]*\) s host time.*/\1/p' "$out/perf.err")
awk -v s="$host_s" 'BEGIN { if (!(s > 0)) { print "host time " s; exit 1 } }'
for f in trace.jsonl trace.perfetto.json waves.vcd waves.gtkw stats.json stats.csv metadata.json; do
  test -s "$out/perf/$f"
done
# performance_mode.cu launches two kernels: both stages are model time, and
# the copies stay analytic.
[ "$(grep -c '"class":"model"' "$out/perf/trace.jsonl")" = 2 ]
grep '"class":"model"' "$out/perf/trace.jsonl" | grep -q '"op":"_Z13reduce_kernelPKiiPi'
grep -q '"class":"analytic"' "$out/perf/trace.jsonl"
# The trace is records only; its header is in the run's metadata, written at exit.
grep -q '"class": "analytic+model"' "$out/perf/metadata.json"
grep -q '"exec"' "$out/perf/metadata.json"
grep -q '"class": "analytic+model"' "$out/perf/stats.json"
grep -q '"class":"model"' "$out/perf/trace.perfetto.json"

"$cnuas" exec --gpu-mode functional --log quiet --vcd "$out/alone.vcd" -- "$program" \
  >"$out/quiet.out" 2>"$out/quiet.err"
grep -q PASS "$out/quiet.out"
[ ! -s "$out/quiet.err" ]
test -s "$out/alone.vcd" && test -s "$out/alone.gtkw"
"$cnuas" exec --gpu-mode functional --trace "$out/functional.jsonl" -- "$program" >/dev/null 2>&1
! grep -q '"class":"model"' "$out/functional.jsonl"
echo "exec outputs agree"
