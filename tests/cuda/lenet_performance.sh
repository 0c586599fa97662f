#!/usr/bin/env bash
# Runs tests/cuda/lenet under `cnuas exec` in performance mode and checks that
# the GPU statistics time each layer's library kernel: cuDNN's convolution,
# LRN, pooling and softmax kernels (forward and backward) and cuBLAS's GEMM
# and AXPY kernels, every one with cycles, on a GPU that told the program 13.0,
# and that the HTML report has a page section and pictures for each kernel.
set -euo pipefail
cnuas=$1 program=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
unset LD_LIBRARY_PATH
# The run's summary (stderr) goes to a file: the expected output is the
# program's lines followed by this script's.
if ! "$cnuas" exec --gpu-mode performance --gpu-stats "$out/gpu.json" --gpu-report "$out/report" \
  -- "$program" 2>"$out/err.txt" | tee "$out/out.txt"; then
  cat "$out/err.txt" >&2
  exit 1
fi
grep -q '^PASS$' "$out/out.txt"
stats=$out/gpu.json
for kernel in 'cudnn3cnn[0-9]*conv2d_[a-z_]*kernel' 'cudnn3cnn[0-9]*wgrad2d_[a-z_]*kernel' \
              'dgrad_alg1_engine' 'lrnForward' 'lrnBackward' 'pooling_fw_4d_kernel' \
              'pooling_bw_kernel' 'softmax_fw_[a-z_]*kernel' 'softmax_bw_[a-z_]*kernel' \
              'sgemm_[a-z0-9_]*' 'gemmSN_[A-Z]*_kernel' 'axpy_kernel'; do
  if ! grep -q "\"kernel\": \"[^\"]*$kernel" "$stats"; then
    echo "check failed: no kernel matching '$kernel' in $stats"
    exit 1
  fi
done
kernels=$(grep -c '"kernel": ' "$stats")
grep -q "\"kernels\": $kernels" "$stats"  # the device's roll-up counts them all
grep -q '"compute_capability": "13.0"' "$stats"
if grep -q '"cycles": 0,' "$stats"; then
  echo "check failed: a kernel or device with 0 cycles in $stats"
  exit 1
fi
test -s "$out/report/index.html" || { echo "check failed: no HTML report"; exit 1; }
pictures=$(ls "$out/report" | grep -c -- '-sm-ipc.svg$' || true)
if [ "$pictures" -ne "$kernels" ]; then
  echo "check failed: $pictures per-SM IPC pictures in the report for $kernels kernels"
  exit 1
fi
# The size budget: each kernel's pictures under 250 KB.
for first in "$out"/report/k*-sm-ipc.svg; do
  prefix=${first%-sm-ipc.svg}
  bytes=$(cat "$prefix"-*.svg | wc -c)
  [ "$bytes" -lt 256000 ] || { echo "check failed: ${prefix##*/} pictures weigh $bytes bytes"; exit 1; }
done
echo "GPU statistics and the HTML report name $kernels kernels, cuDNN's and cuBLAS's among them"
