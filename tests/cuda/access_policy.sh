#!/usr/bin/env bash
# Runs tests/cuda/access_policy `timed` under `cnuas exec` with the performance
# model on the unit architecture and checks the L2 hits the statistics count.
# The program reads, on one GPU: hot A (16 KiB), cold (128 KiB), hot A; then
# under a window making hot B persist: hot B, cold, hot B. A hot buffer is
# 128 lines of 4 sectors: 512 sectors. The cold buffer puts 32 lines in each
# of the L2's 32 sets of 16 ways, evicting every normal hot line; the
# persisting ones (4 ways of each set set aside) stay. So the six kernels hit
# 0, 0, 0 (A evicted), 0 (B's first read), 0, 512 (B kept) sectors in the L2,
# and the device 512 in all.
set -euo pipefail
cnuas=$1 program=$2 arch=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
unset LD_LIBRARY_PATH
"$cnuas" exec --gpu-mode performance --gpu-arch "$arch" --gpu-stats "$out/gpu.json" \
  -- "$program" timed > "$out/out.txt"
grep -q PASS "$out/out.txt"
# The hit counts of the device's "l2" object (indented 3) and of each
# kernel's summary (indented 4; the time series' are deeper).
hits=$(grep -A2 '^ \{3,4\}"l2": {' "$out/gpu.json" | sed -n 's/.*"hits": \([0-9]*\).*/\1/p' |
  tr '\n' ' ')
if [ "$hits" != "512 0 0 0 0 0 512 " ]; then
  echo "L2 hits (device, then kernels): $hits"
  exit 1
fi
cat "$out/out.txt"
echo "access policy window: the persisting hot buffer hits in the L2"
