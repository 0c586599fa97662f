#!/bin/sh
# Wall and CPU time of three CUDA programs of the classes that were slow
# (issue 22): a GPU hash table, a conjugate-gradient solver and a
# level-synchronous BFS, at full size, under `cnuas exec` on the default
# platform. Each program prints its own rates; `time` adds the CPU time.
# Usage: bench/kernels_bench.sh [build-dir]
set -e
build=${1:-build}
programs=$build/tests/cuda
for run in "hash_table" "cg_solver 512 300" "bfs_levels"; do
  echo "== $run"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e s wall, %U s user, %M KiB peak" "$build/bin/cnuas" exec -- $programs/$run
done
