#!/bin/sh
# Wall and CPU time of eight CUDA programs of the kinds public samples are
# made of (issue 13): streams with large async copies, a separable texture
# convolution, eigenvalues by bisection, prefix scans, managed memory streamed
# by a kernel, a matrix multiply fed by cp.async / memcpy_async pipelines,
# Black-Scholes and cuRAND Monte Carlo option pricing. Each program checks its
# own results against a host reference and prints its sizes; `time` adds the
# CPU time. Sizes are the samples' data sets, with one timed iteration where
# a sample repeats identical launches (the time grows linearly with more).
# Usage: bench/samples_bench.sh [build-dir] [program...]
set -e
build=${1:-build}
[ $# -gt 0 ] && shift
programs=$build/tests/cuda
all="streams_scale texture_convolution eigen_bisection prefix_scan managed_stream
     async_copy_matmul black_scholes monte_carlo"
for p in ${*:-$all}; do
  echo "== $p"
  /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB peak" "$build/bin/cnuas" exec -- "$programs/$p"
done
