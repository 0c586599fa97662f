#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: measure copy times and write Cnuas
# observation sets, split into training (even repetitions) and held-out (odd).
#
#   calibration/gpu/collect.sh TARGET [OUT_DIR=calibration/observations]
#
# Then, for example:
#   cnuas calibrate fit --component cnuas.pcie_root --target TARGET-h2d \
#     --profile profiles/pcie/gen5-x16.yaml --observations OUT/TARGET-h2d.train.csv --out TARGET-h2d.yaml
#   cnuas calibrate validate --calibration TARGET-h2d.yaml --observations OUT/TARGET-h2d.heldout.csv
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?usage: collect.sh TARGET [OUT_DIR]}
out=${2:-calibration/observations}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
build=$(mktemp -d)
"$nvcc" -O2 -o "$build/measure_copies" calibration/gpu/measure_copies.cu
"$build/measure_copies" "$target" 6 > "$build/all.csv"
mkdir -p "$out"
for direction in h2d d2h; do
  header=$(head -1 "$build/all.csv")
  { echo "$header"; grep ",$target-$direction," "$build/all.csv" | awk -F, '$6 % 2 == 0'; } > "$out/$target-$direction.train.csv"
  { echo "$header"; grep ",$target-$direction," "$build/all.csv" | awk -F, '$6 % 2 == 1'; } > "$out/$target-$direction.heldout.csv"
done
echo "wrote $out/$target-{h2d,d2h}.{train,heldout}.csv (measured on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
