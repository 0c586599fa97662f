#!/usr/bin/env bash
# The kernel debugger end to end (docs/kernel-debugger.md) on debug_fft_index:
# capture and replay; a wrong rem.u32 injected into a copy of the PTX is found
# by `debug diff` at exactly the line it was injected on; the instrumented
# program builds with nvcc, its PTX assembles with ptxas, and run on this
# simulator it logs exactly what `debug trace` logs.
set -euo pipefail
cnuas=$1 program=$2 nvcc=$3 libdir=$4 out=$5
rm -rf "$out" && mkdir -p "$out/ptx"
unset LD_LIBRARY_PATH
kernel=_Z14strided_gatherPKjPjjj

# Launch #1 (stride 7) by its C++ name; the module's PTX is dumped beside it.
CNUAS_DUMP_PTX="$out/ptx" "$cnuas" debug capture --kernel 'strided_gather#1' --out "$out/good.cap" \
  -- "$program" > "$out/capture.txt" 2>&1
grep -q PASS "$out/capture.txt"
grep -q "debug capture: launch #1 of $kernel (2 buffers" "$out/capture.txt"
"$cnuas" debug replay "$out/good.cap" | grep -q "outputs match (2 buffers"
"$cnuas" debug replay --gpu-mode performance "$out/good.cap" | grep -q "SM cycles.*outputs match"

# The injected bug: the first rem.u32 of the module divides by 97 instead of n.
# Its line comes from grep, independently of the debugger.
ptx=$(ls "$out"/ptx/*.ptx | head -1)
line=$(grep -n 'rem\.u32' "$ptx" | head -1 | cut -d: -f1)
test -n "$line"
sed -E "${line}s/rem\.u32([[:space:]]+)(%r[0-9]+), (%r[0-9]+), (%r[0-9]+);/rem.u32\1\2, \3, 97;/" \
  "$ptx" > "$out/bug.ptx"
test "$(diff "$ptx" "$out/bug.ptx" | grep -c '^>')" = 1
status=0
"$cnuas" debug capture --kernel "$kernel#1" --out "$out/bug.cap" \
  --ptx-override "strided_gather=$out/bug.ptx" -- "$program" > "$out/capture_bug.txt" 2>&1 ||
  status=$?
test "$status" = 1  # the program sees wrong results
grep -q "FAIL" "$out/capture_bug.txt"
grep -q "is replaced by $out/bug.ptx" "$out/capture_bug.txt"

"$cnuas" debug trace "$out/good.cap" --out "$out/good.log" > /dev/null
"$cnuas" debug trace "$out/bug.cap" --out "$out/bug.log" > /dev/null
status=0
"$cnuas" debug diff "$out/good.log" "$out/bug.log" > "$out/diff.txt" || status=$?
test "$status" = 3
# Every diverging thread diverges first at the injected line. Threads i < n = 100
# reach the rem; those with (i * 7) % 100 != (i * 7) % 97 get a different index.
expected=0
for ((i = 0; i < 100; i++)); do ((i * 7 % 100 != i * 7 % 97)) && expected=$((expected + 1)); done
diverging=$(grep -c '^thread ' "$out/diff.txt")
test "$diverging" = "$expected"
test "$(grep -c "^thread .*: PTX line $line 'rem.u32" "$out/diff.txt")" = "$diverging"
grep -q "^128 threads compared, $diverging diverge$" "$out/diff.txt"
grep -q "^first divergence at PTX line $line 'rem.u32[^']*': $expected threads$" "$out/diff.txt"
test "$(grep -c '^first divergence' "$out/diff.txt")" = 1
! grep -q "^thread 0 " "$out/diff.txt"
"$cnuas" debug diff "$out/good.log" "$out/good.log" | grep -q "^128 threads compared, 0 diverge$"
# A thread range keeps only those threads.
"$cnuas" debug trace "$out/good.cap" --out "$out/some.log" --threads 3-4,70 > /dev/null
test "$(grep -v '^#' "$out/some.log" | cut -d' ' -f1 | sort -u | tr '\n' ' ')" = "3 4 70 "

# The instrumented program: nvcc builds it, ptxas accepts its PTX, and on this
# simulator its log equals the trace byte for byte.
"$cnuas" debug instrument "$out/good.cap" --out "$out/inst" > /dev/null
env -u LD_PRELOAD "$(dirname "$nvcc")/ptxas" -arch=sm_90 "$out/inst/instrumented.ptx" -o "$out/inst/check.cubin"
env -u LD_PRELOAD "$nvcc" -o "$out/inst/replay" "$out/inst/replay.cu" -L"$(dirname "$nvcc")/../lib64/stubs" -lcuda
LD_LIBRARY_PATH=$libdir "$out/inst/replay" "$out/inst" "$out/gpu.log" 2> "$out/replay.txt"
cmp "$out/gpu.log" "$out/good.log"
"$cnuas" debug diff "$out/gpu.log" "$out/good.log" | grep -q " 0 diverge$"

# A kernel that calls a device function: the callee's writes are logged too.
"$cnuas" debug capture --kernel call_scale --out "$out/call.cap" -- "$program" > /dev/null 2>&1
"$cnuas" debug replay "$out/call.cap" | grep -q "outputs match"
"$cnuas" debug trace "$out/call.cap" --out "$out/call.log" > /dev/null
"$cnuas" debug instrument "$out/call.cap" --out "$out/call" > /dev/null
env -u LD_PRELOAD "$nvcc" -o "$out/call/replay" "$out/call/replay.cu" -L"$(dirname "$nvcc")/../lib64/stubs" -lcuda
LD_LIBRARY_PATH=$libdir "$out/call/replay" "$out/call" "$out/call_gpu.log" 2> /dev/null
cmp "$out/call_gpu.log" "$out/call.log"
echo PASS
