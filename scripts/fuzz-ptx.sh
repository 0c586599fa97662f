#!/usr/bin/env bash
# Fuzz the PTX parser with libFuzzer (clang, with AddressSanitizer and UBSan),
# starting from the PTX that nvcc produced for the project's test kernels.
#
#   scripts/fuzz-ptx.sh [SECONDS=60] [BUILD_DIR=build]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build}
command -v clang++ >/dev/null || { echo "clang++ not installed: cannot build the fuzzer"; exit 77; }
out=$build/fuzz
mkdir -p "$out/corpus"
cp "$build"/tests/ptx/kernels/*.ptx "$out/corpus/" 2>/dev/null || true
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Iptx/include -Iptx/src \
  ptx/src/{types,opcodes,errors,lexer,decode,parser,cfg}.cpp tests/ptx/fuzz/parse_fuzzer.cpp \
  -o "$out/parse_fuzzer"
"$out/parse_fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 "$out/corpus" \
  2>&1 | tail -5
