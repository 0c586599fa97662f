#!/bin/sh
# The per-algorithm comparison of one cuDNN forward convolution (the paper's
# conv_sample study): each cudnnConvolutionFwdAlgo_t runs alone in
# `tests/cuda/cudnn_ops algo A` under `cnuas exec --gpu-mode performance`,
# and its GPU statistics become one row: kernels, SM cycles, warp
# instructions, IPC, DRAM efficiency and bandwidth utilization, L2 hit rate,
# average power by component. Figures are the performance model's predictions
# (cycle-level, uncalibrated), not measurements of a GPU.
# Usage: bench/cudnn_algorithms.sh [build-dir [N C H W K]]
#   (default build, and the tests' shape 2 3 13 13 4; 3x3 filters, pad 1)
# Environment: ALGOS (default "0 1 2 3 4 5 6 7"), OUT (default cudnn-algorithms:
# gpu-algoA.json and the HTML report report-algoA/ per algorithm), CNUAS_GPU_ARCH.
set -e
build=${1:-build}
[ $# -le 1 ] || [ $# -eq 6 ] || { echo "usage: $0 [build-dir [N C H W K]]" >&2; exit 2; }
[ $# -eq 6 ] && shift && shape="$*"
out=${OUT:-cudnn-algorithms}
mkdir -p "$out"
for a in ${ALGOS:-0 1 2 3 4 5 6 7}; do
  # shellcheck disable=SC2086
  "$build/bin/cnuas" exec --gpu-mode performance --gpu-stats "$out/gpu-algo$a.json" \
    --gpu-report "$out/report-algo$a" -- "$build/tests/cuda/cudnn_ops" algo "$a" $shape \
    > "$out/algo$a.txt"
  grep -q '^PASS$' "$out/algo$a.txt" || { cat "$out/algo$a.txt"; exit 1; }
done
python3 - "$out" ${ALGOS:-0 1 2 3 4 5 6 7} <<'PY'
import json, re, sys
out, algos = sys.argv[1], sys.argv[2:]
first = open(f"{out}/algo{algos[0]}.txt").read().splitlines()[1]
print("convolution " + re.search(r" (on [^:]*)", first).group(1))
print("| algorithm | kernels | kernel time (us) | SM cycles | warp instructions | IPC | DRAM efficiency "
      "| DRAM bandwidth utilization | L2 hit rate | power core / L1 / L2 / NoC / DRAM / idle (W) "
      "| average power (W) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
for a in algos:
    line = open(f"{out}/algo{a}.txt").read().splitlines()[1]
    name = line.split()[1]
    stats = json.load(open(f"{out}/gpu-algo{a}.json"))
    if "not supported" in line or not stats["devices"]:
        print(f"| {a} {name} | not supported by cuDNN for this shape | | | | | | | | | |")
        continue
    d = stats["devices"][0]
    seconds = sum(k["time_ps"] for k in stats["kernels"]) * 1e-12
    e = d["energy_j"]
    power = " / ".join(f"{e[c] / seconds:.1f}" for c in ("core", "l1", "l2", "noc", "dram", "idle"))
    print(f"| {a} {name} | {d['kernels']} | {seconds * 1e6:.1f} | {d['cycles']} | {d['warp_instructions']} "
          f"| {d['ipc']:.2f} | {d['dram']['efficiency']:.3f} "
          f"| {d['dram']['bandwidth_utilization']:.4f} | {d['l2']['hit_rate']:.3f} "
          f"| {power} | {d['average_power_w']:.1f} |")
PY
