#!/usr/bin/env bash
# The kernel debugger refuses bad input with exit status 2 and a message naming
# what is wrong: a missing, truncated or foreign capture, a kernel the program
# never launched, a malformed thread range or launch number, a log that is none.
set -euo pipefail
cnuas=$1 program=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
unset LD_LIBRARY_PATH
expect() {  # PATTERN COMMAND...: exit status 2 and PATTERN on stderr
  local pattern=$1 status=0
  shift
  "$@" > "$out/stdout.txt" 2> "$out/stderr.txt" || status=$?
  if [ "$status" != 2 ] || ! grep -q -- "$pattern" "$out/stderr.txt"; then
    echo "expected status 2 and '$pattern' from: $*; got $status:"
    cat "$out/stderr.txt"
    exit 1
  fi
}
"$cnuas" debug capture --kernel strided_gather --out "$out/good.cap" -- "$program" > /dev/null 2>&1
expect "cannot open the capture '$out/missing.cap'" "$cnuas" debug replay "$out/missing.cap"
head -c 60 "$out/good.cap" > "$out/short.cap"
expect "$out/short.cap: corrupt capture" "$cnuas" debug replay "$out/short.cap"
# The header's body size one larger than the body: refused before decompressing.
cp "$out/good.cap" "$out/size.cap"
size=$(od -An -t u8 -j 16 -N 8 "$out/good.cap" | tr -d ' ')
printf "$(printf '%016x' $((size + 1)) | sed -E 's/(..)(..)(..)(..)(..)(..)(..)(..)/\\x\8\\x\7\\x\6\\x\5\\x\4\\x\3\\x\2\\x\1/')" |
  env -u LD_PRELOAD dd of="$out/size.cap" bs=1 seek=16 conv=notrunc status=none
expect "corrupt capture: the compressed body does not hold" "$cnuas" debug trace "$out/size.cap" --out "$out/x.log"
echo "not a capture" > "$out/text.cap"
expect "not a kernel capture" "$cnuas" debug instrument "$out/text.cap" --out "$out/inst"
expect "kernel 'no_such_kernel' launch #0 never ran; the program launched: .*strided_gather" \
  "$cnuas" debug capture --kernel no_such_kernel --out "$out/none.cap" -- "$program"
test ! -e "$out/none.cap"
expect "--kernel 'strided_gather#x': accepted: NAME or NAME#N" "$cnuas" debug capture --kernel 'strided_gather#x' \
  --out "$out/none.cap" -- "$program"
expect "'5-2' is no thread range" "$cnuas" debug trace "$out/good.cap" --out "$out/x.log" --threads 5-2
expect "unknown debug subcommand 'replays'" "$cnuas" debug replays "$out/good.cap"
echo "hello" > "$out/plain.log"
expect "plain.log:1:1: not a register-write line" "$cnuas" debug diff "$out/plain.log" "$out/plain.log"
: > "$out/empty.log"
expect "empty.log: not a register-write log" "$cnuas" debug diff "$out/empty.log" "$out/empty.log"
echo PASS
