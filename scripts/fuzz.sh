#!/usr/bin/env bash
# Fuzz an input reader with libFuzzer (clang, with AddressSanitizer and UBSan),
# starting from the project's own inputs of that kind:
#   ptx     the PTX parser, from the PTX nvcc produced for the test kernels
#   fatbin  the fat-binary reader, from the test programs' fat binaries
#
#   scripts/fuzz.sh ptx|fatbin [SECONDS=60] [BUILD_DIR=build]   (CNUAS_FUZZ_RUNS=N: N runs, fixed seed)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh ptx|fatbin [SECONDS] [BUILD_DIR]}
seconds=${2:-60}
build=${3:-build}
command -v clang++ >/dev/null || { echo "clang++ not installed: cannot build the fuzzer"; exit 77; }
out=$build/fuzz/$target
mkdir -p "$out/corpus"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined)
case "$target" in
  ptx)
    cp "$build"/tests/ptx/kernels/*.ptx "$out/corpus/" 2>/dev/null || true
    clang++ "${flags[@]}" -Iptx/include -Iptx/src \
      ptx/src/{types,opcodes,errors,lexer,decode,parser,cfg,shared_layout}.cpp tests/ptx/fuzz/parse_fuzzer.cpp \
      -o "$out/fuzzer"
    ;;
  fatbin)
    cp "$build"/tests/cuda/*.fatbin tests/runtime/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
    clang++ "${flags[@]}" -Iruntime/src runtime/src/fatbin.cpp tests/runtime/fuzz/fatbin_fuzzer.cpp \
      -lfmt -lzstd -llz4 -o "$out/fuzzer"
    ;;
  *)
    echo "unknown fuzz target '$target': ptx or fatbin" >&2
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
