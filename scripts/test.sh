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
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCNUAS_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  # Release only: the published-figure checks stream 16-64 MiB through the
  # H100/H200/1080 Ti models (1.5-2.5 min each under the sanitizers, 10 of CI's
  # minutes); the same model paths run under the sanitizers in the smaller
  # gpu_tests (GpuL2Partitions, GpuMicrobench, GpuModel, Cluster ...).
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure \
    -E '^(Profiles/GpuPublished\.|GpuL2Bandwidth\.)'
fi
