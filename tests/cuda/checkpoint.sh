#!/usr/bin/env bash
# Checkpoint and resume with checkpoint_steps (6 steps of three kernels:
# advance, scale, tally; launches are numbered from 0 in host launch order, so
# step s launches 3s, 3s+1 and 3s+2; launch 7 is step 2's scale and tally#3 is
# launch 8). The program checks every kernel against a host reference, so a
# run that passes restored the right memory; stdout (device printf included)
# must also be byte-identical to the uninterrupted run's.
set -uo pipefail
cnuas=$1 program=$2 out=$3 other=$4
rm -rf "$out"
mkdir -p "$out"
unset LD_LIBRARY_PATH
. "$(dirname "$0")/refusal.sh"

"$cnuas" exec --gpu-mode functional --trace "$out/full.jsonl" -- "$program" \
  > "$out/full.out" 2> "$out/full.err" || { cat "$out/full.err"; fail "uninterrupted run"; }
grep -q '^PASS$' "$out/full.out" || fail "uninterrupted run did not pass"
grep -q 'device: step 1 starts' "$out/full.out" || fail "no device printf in the uninterrupted run"

# Checkpoint at launch 7; the checkpoint run itself goes on to the end.
"$cnuas" exec --checkpoint "$out/at7" --checkpoint-at 7 -- "$program" \
  > "$out/ck7.out" 2> "$out/ck7.err" || { cat "$out/ck7.err"; fail "checkpoint run"; }
grep -q 'checkpoint written at launch 7 (scale(int\*, int, int))' "$out/ck7.err" ||
  { cat "$out/ck7.err"; fail "no checkpoint message at launch 7"; }
cmp "$out/ck7.out" "$out/full.out" || fail "the checkpoint run's output differs"

# Format header: the magic and version 2 (docs/checkpoint-format.md).
file=$out/at7/checkpoint.cnck
[ "$(head -c 8 "$file")" = CNUASCKP ] || fail "no CNUASCKP magic"
[ "$(od -An -tu4 -j8 -N4 "$file" | tr -d ' ')" = 2 ] || fail "format version is not 2"

# Resume in the checkpoint run's mode: same output (the skipped launches'
# printf included), the same simulated time at the checkpoint's launch, and a
# byte-identical trace: the skipped launches keep their recorded work.
"$cnuas" exec --resume "$out/at7" --gpu-mode functional --trace "$out/res7.jsonl" -- \
  "$program" > "$out/res7.out" 2> "$out/res7.err" || { cat "$out/res7.err"; fail "resume"; }
cmp "$out/res7.out" "$out/full.out" || fail "the resumed run's output differs"
line=$(grep 'resumed from' "$out/res7.err") || { cat "$out/res7.err"; fail "no resume message"; }
echo "$line" | grep -q 'at launch 7 (scale(int\*, int, int)): 7 launch(es) skipped' ||
  fail "resumed elsewhere: $line"
[ "$(echo "$line" | sed -E 's/.*simulated time ([0-9]+) ps.*checkpoint.s: ([0-9]+) ps.*/\1=\2/' |
  awk -F= '{print ($1 == $2)}')" = 1 ] || fail "simulated time differs: $line"
cmp "$out/res7.jsonl" "$out/full.jsonl" || fail "the resumed run's trace differs"

# By name and occurrence: tally#3 is launch 8; resumed in performance mode
# the results are the same and only the 10 launches from 8 on reach the
# performance model (18 launches in all).
"$cnuas" exec --checkpoint "$out/tally3" --checkpoint-at 'tally#3' -- "$program" \
  > /dev/null 2> "$out/ck8.err" || { cat "$out/ck8.err"; fail "checkpoint at tally#3"; }
grep -q 'checkpoint written at launch 8 (tally(' "$out/ck8.err" || fail "tally#3 is not launch 8"
"$cnuas" exec --resume "$out/tally3" --gpu-mode performance --gpu-stats "$out/perf.json" -- \
  "$program" > "$out/perf.out" 2> "$out/perf.err" || { cat "$out/perf.err"; fail "perf resume"; }
cmp "$out/perf.out" "$out/full.out" || fail "the performance-mode resume's output differs"
[ "$(grep -c '"kernel": ' "$out/perf.json")" = 10 ] || fail "performance runs: not 10"

# Sampling: only tally in detail; after launch 8 it runs at 8, 11, 14 and 17.
"$cnuas" exec --resume "$out/tally3" --gpu-kernel-modes _Z5tallyPKiiPxi=performance \
  --gpu-stats "$out/sample.json" -- "$program" > "$out/sample.out" 2> "$out/sample.err" ||
  { cat "$out/sample.err"; fail "sampling resume"; }
cmp "$out/sample.out" "$out/full.out" || fail "the sampled run's output differs"
[ "$(grep -c '"kernel": "_Z5tallyPKiiPxi"' "$out/perf.json")" = 4 ] || fail "tally runs: not 4"
[ "$(grep -c '"kernel": ' "$out/sample.json")" = 4 ] || fail "sampled runs: not 4"

# --checkpoint-stop ends the program at the checkpoint (after steps 0 and 1,
# exit status 0); resuming from that checkpoint still gives the whole output.
"$cnuas" exec --checkpoint "$out/stop7" --checkpoint-at 7 --checkpoint-stop -- "$program" \
  > "$out/stop.out" 2> "$out/stop.err" || { cat "$out/stop.err"; fail "checkpoint-stop run"; }
grep -q 'ends at the checkpoint' "$out/stop.err" || fail "no stop message"
head -n 3 "$out/full.out" | cmp - "$out/stop.out" || fail "the stopped run's output is not steps 0-1"
"$cnuas" exec --resume "$out/stop7" -- "$program" > "$out/stop_res.out" 2> "$out/stop_res.err" ||
  { cat "$out/stop_res.err"; fail "resume after a stopped run"; }
cmp "$out/stop_res.out" "$out/full.out" || fail "resume after a stopped run differs"

# Mismatches are refused with exit status 2 and a message.
expect_refusal inputs "device memory before launch 0 (advance(int\*, int, int)) differs" \
  --resume "$out/at7" -- "$program" 6 5
expect_refusal shorter "ended after 6 kernel launch(es), before the checkpoint's launch 7" \
  --resume "$out/at7" -- "$program" 2
expect_refusal binary "written by another program" --resume "$out/at7" -- "$other" 1
expect_refusal unreached "ended after 18 kernel launch(es) without reaching it" \
  --checkpoint "$out/never" --checkpoint-at 40 -- "$program"
expect_refusal missing "cannot read checkpoint" --resume "$out/none" -- "$program"

# Damaged files: another version, a flipped byte, a truncation, no checkpoint.
mkdir -p "$out/v3" "$out/flip" "$out/cut" "$out/junk"
cp "$file" "$out/v3/checkpoint.cnck"
printf '\x03' | env -u LD_PRELOAD dd of="$out/v3/checkpoint.cnck" bs=1 seek=8 conv=notrunc 2> /dev/null
expect_refusal version "format version 3; this Cnuas reads versions 1 to 2" --resume "$out/v3" -- \
  "$program"
size=$(stat -c %s "$file")
# A byte changed in the reserved header field, at the frame's start, in the
# middle and in the checksum at the end.
for at in 12 40 $((size / 2)) $((size - 1)); do
  cp "$file" "$out/flip/checkpoint.cnck"
  byte=$(od -An -tu1 -j$at -N1 "$file" | tr -d ' ')
  printf "\\x$(printf %02x $(((byte + 1) % 256)))" |
    env -u LD_PRELOAD dd of="$out/flip/checkpoint.cnck" bs=1 seek=$at conv=notrunc 2> /dev/null
  expect_refusal "flipped$at" "is damaged\|is truncated" --resume "$out/flip" -- "$program"
done
head -c $((size / 2)) "$file" > "$out/cut/checkpoint.cnck"
expect_refusal truncated "is truncated" --resume "$out/cut" -- "$program"
head -c 4096 /dev/urandom > "$out/junk/checkpoint.cnck"
expect_refusal junk "is no Cnuas checkpoint" --resume "$out/junk" -- "$program"
echo "checkpoint and resume: identical results, mismatches and damage refused"
