#!/usr/bin/env bash
# Fuzz an input reader with libFuzzer (clang, with AddressSanitizer and UBSan),
# starting from the project's own inputs of that kind:
#   platform     platform YAML: loader, includes, parameters, topology, inline workload
#   profile      profile YAML: loader, base chain, values checked against the type's schema
#   workload     workload YAML for platforms/h100-node.yaml
#   calibration  calibration YAML (cnuas calibrate fit's output)
#   csv          measured-time CSV (cnuas calibrate's observations)
#   ptx          the PTX parser, from the PTX nvcc produced for the test kernels
#   fatbin       the fat-binary reader, from the test programs' fat binaries
#   all          each of the above in turn, SECONDS each
#
#   scripts/fuzz.sh KIND|all [SECONDS=60] [BUILD_DIR=build]   (CNUAS_FUZZ_RUNS=N: N runs, fixed seed)
#
# The YAML and CSV targets link an instrumented libcnuas, built once (cmake,
# clang, -DCNUAS_FUZZ=ON) in BUILD_DIR/fuzz-cmake. A finding is written beside
# the fuzzer (BUILD_DIR/fuzz/KIND/crash-*, timeout-*, oom-*) and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
kinds="platform profile workload calibration csv ptx fatbin"
target=${1:?usage: scripts/fuzz.sh ${kinds// /|}|all [SECONDS] [BUILD_DIR]}
seconds=${2:-60}
build=${3:-build}
if [ "$target" = all ]; then
  # One kind after another (one fuzzer at a time on a shared machine); every
  # kind runs even when an earlier one finds something.
  failed=()
  for kind in $kinds; do
    echo "== $kind"
    rc=0
    "$0" "$kind" "$seconds" "$build" || rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || failed+=("$kind")
  done
  [ ${#failed[@]} -eq 0 ] || { echo "findings or failures: ${failed[*]}"; exit 1; }
  exit 0
fi
command -v clang++ >/dev/null || { echo "clang++ not installed: cannot build the fuzzer"; exit 77; }
out=$build/fuzz/$target
mkdir -p "$out/corpus"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined)

# The instrumented library and the fuzzer of one input kind, from the project's CMake files.
build_input_fuzzer() {
  local dir=$build/fuzz-cmake launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DCNUAS_FUZZ=ON -DCNUAS_TESTS=OFF \
      "${launcher[@]}" >/dev/null
  fi
  cmake --build "$dir" -j"$(nproc)" --target "${target}_fuzzer" >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
  cp "$dir/bin/${target}_fuzzer" "$out/fuzzer"
}

seeds=tests/fuzz/corpus/$target
case "$target" in
  platform)
    # cluster-1024's two million operations would take seconds per input.
    cp $(ls platforms/*.yaml | grep -v cluster-1024) "$seeds"/* "$out/corpus/"
    build_input_fuzzer
    ;;
  profile)
    find profiles -name '*.yaml' -not -path 'profiles/gpu-arch/*' -exec cp {} "$out/corpus/" \;
    cp "$seeds"/* "$out/corpus/"
    build_input_fuzzer
    ;;
  workload)
    cp workloads/gemm-offload.yaml "$seeds"/* "$out/corpus/"
    build_input_fuzzer
    ;;
  calibration)
    cp "$seeds"/* "$out/corpus/"
    build_input_fuzzer
    ;;
  csv)
    cp calibration/observations/*.csv "$seeds"/* "$out/corpus/"
    build_input_fuzzer
    ;;
  ptx)
    cp "$build"/tests/ptx/kernels/*.ptx "$out/corpus/" 2>/dev/null || true
    clang++ "${flags[@]}" -Iptx/include -Iptx/src \
      ptx/src/{types,opcodes,errors,lexer,decode,decode_bulk,parser,cfg,fast_forms,register_init,shared_layout,wgmma_decode,mma_layout}.cpp tests/ptx/fuzz/parse_fuzzer.cpp \
      -o "$out/fuzzer"
    ;;
  fatbin)
    cp "$build"/tests/cuda/*.fatbin tests/runtime/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
    clang++ "${flags[@]}" -Iruntime/src runtime/src/fatbin.cpp tests/runtime/fuzz/fatbin_fuzzer.cpp \
      -lfmt -lzstd -llz4 -o "$out/fuzzer"
    ;;
  *)
    echo "unknown fuzz target '$target': ${kinds// /, } or all" >&2
    exit 2
    ;;
esac
# With CNUAS_FUZZ_RUNS set (ctest does), a fixed seed and that many runs: the
# same inputs on every machine, so a test run is repeatable; otherwise random
# inputs for SECONDS. Crash, timeout and out-of-memory inputs go beside the
# fuzzer, not into the working tree.
if [ -n "${CNUAS_FUZZ_RUNS:-}" ]; then
  budget=(-seed=1 -runs="$CNUAS_FUZZ_RUNS")
else
  budget=(-max_total_time="$seconds")
fi
"$out/fuzzer" "${budget[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -malloc_limit_mb=1100 -artifact_prefix="$out/" "$out/corpus" 2>&1 | tail -5
