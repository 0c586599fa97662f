#!/usr/bin/env bash
# The 1024-GPU cluster running a ring allreduce under background traffic:
# wall time, stages (booked events) per second and peak memory.
# Usage: bench/cluster_bench.sh [cnuas binary]
set -euo pipefail
cd "$(dirname "$0")/.."
cnuas=${1:-build/bin/cnuas}
stats=$(mktemp)
log=$(mktemp)
/usr/bin/time -v "$cnuas" run platforms/cluster-1024.yaml --workload workloads/cluster-allreduce-1024.yaml \
  --stats "$stats" >"$log" 2>&1 || { cat "$log"; exit 1; }
python3 - "$stats" "$log" <<'PY'
import json, re, sys
stats = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", log).group(1)
parts = [float(p) for p in wall.split(":")]
seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1))
sim = float(re.search(r"stages booked, ([0-9.]+) s host time", log).group(1))
stages = stats["stages"]
print(f"elements             {len(stats['elements'])}")
print(f"operations           {stats['operations_count']}")
print(f"stages booked        {stages}")
print(f"simulated time       {stats['makespan_ps'] / 1e9:.3f} ms [analytic]")
print(f"wall time            {seconds:.2f} s in all, {sim:.2f} s simulating")
print(f"stages per second    {stages / sim / 1e6:.2f} M while simulating, {stages / seconds / 1e6:.2f} M overall")
print(f"peak memory          {rss_kb / 1024:.0f} MiB")
PY
rm -f "$stats" "$log"
