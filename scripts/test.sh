#!/usr/bin/env bash
# The whole test suite: the Release build, then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

./scripts/check-format.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

if [[ "${CNUAS_SKIP_SANITIZERS:-0}" != 1 ]]; then
  # The CUDA test programs are nvcc's output, the same in both builds: copied
  # from the Release build instead of compiled again.
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCNUAS_SANITIZE=ON \
    -DCNUAS_CUDA_PROGRAMS_FROM="$PWD/build/tests/cuda" >/dev/null
  cmake --build build-asan -j"$jobs"
  # Release only, each for the reason given (under the sanitizers they took 50
  # of CI's minutes; the paths they run are covered there by the smaller tests
  # named):
  # - the published-figure checks stream 16-64 MiB through the H100/H200/1080 Ti
  #   models (1.5-2.5 min each): GpuL2Partitions, GpuMicrobench, GpuModel, Cluster;
  # - whole cuDNN/cuBLAS/cuFFT programs and LeNet (cudnn_graph 13 min, lenet and
  #   its performance run 7 min, cudnn_ops 3.5 min, math_libs 1.5 min):
  #   Cuda.cudnn_algorithms, Cuda.cudnn_ops_performance, Cuda.cublas_gemm(_performance),
  #   Cuda.cublas_deterministic;
  # - checkpoint_resume, a dozen cnuas runs of three programs (6.5 min):
  #   Cuda.checkpoint_steps, Cuda.checkpoint_inside_kernel;
  # - the performance-mode runs of dynamic parallelism and a cooperative grid
  #   (3.5 and 2 min): their functional runs and Cuda.performance_mode;
  # - the terminal progress line over a long run (2 min): the progress unit tests;
  # - the 1024-node cluster's full run (1.2 min): ShippedPlatformPins.Cluster1024.
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure \
    -E '^(Profiles/GpuPublished\.|GpuL2Bandwidth\.|Cuda\.(cudnn_graph|lenet|lenet_performance|cudnn_ops|math_libs|checkpoint_resume|dynamic_parallelism_performance|cooperative_grid_performance)$|Progress\.ALineOnATerminalNothingOtherwise$|Run/ShippedPlatform\.RunsWithOrderedNonOverlappingTrace/cluster_1024( |$))'
fi
