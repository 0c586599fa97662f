#!/usr/bin/env bash
# Checkpoints inside a kernel with checkpoint_cta: relay#1 (launch 1, 6 CTAs)
# is cut before CTA 3 begins, while CTA 0 is resident mid-execution (its
# threads diverged, some spinning on a flag a later CTA sets, shared memory
# written). The program checks every value against a host reference, so a
# resumed run that passes restored the right state; stdout (device printf
# from before the checkpoint included) must equal the uninterrupted run's.
set -uo pipefail
cnuas=$1 program=$2 out=$3 cooperative=$4
rm -rf "$out"
mkdir -p "$out"
unset LD_LIBRARY_PATH
. "$(dirname "$0")/refusal.sh"

"$cnuas" exec --gpu-mode functional -- "$program" > "$out/full.out" 2> "$out/full.err" ||
  { cat "$out/full.err"; fail "uninterrupted run"; }
grep -q '^PASS$' "$out/full.out" || fail "uninterrupted run did not pass"
grep -q 'device: relay CTA 0 begins' "$out/full.out" || fail "no device printf"

# The checkpoint run writes the checkpoint mid-kernel and runs on to the end.
"$cnuas" exec --checkpoint "$out/ck" --checkpoint-at 'relay#1:3' -- "$program" \
  > "$out/ck.out" 2> "$out/ck.err" || { cat "$out/ck.err"; fail "checkpoint run"; }
grep -q 'checkpoint written at launch 1 (relay(.*)), inside it before CTA 3 (next CTA to begin: 1; 1 CTA(s) resident)' \
  "$out/ck.err" || { cat "$out/ck.err"; fail "no checkpoint message inside launch 1"; }
cmp "$out/ck.out" "$out/full.out" || fail "the checkpoint run's output differs"
[ "$(od -An -tu4 -j8 -N4 "$out/ck/checkpoint.cnck" | tr -d ' ')" = 2 ] || fail "version is not 2"

# Resumed functionally and in performance mode: CTA 0 continues from its saved
# state, CTAs 1 on begin; the results equal the uninterrupted run's.
for mode in functional performance; do
  "$cnuas" exec --resume "$out/ck" --gpu-mode $mode -- "$program" > "$out/$mode.out" \
    2> "$out/$mode.err" || { cat "$out/$mode.err"; fail "resume in $mode mode"; }
  grep -q 'at launch 1 (relay(.*)) inside it, before CTA 3 (next CTA to begin: 1; 1 CTA(s) resident restored)' \
    "$out/$mode.err" || { cat "$out/$mode.err"; fail "$mode: no resume message"; }
  cmp "$out/$mode.out" "$out/full.out" || fail "the $mode resume's output differs"
done

# Refusals: a CTA beyond the grid, another relay launch (its salt parameter
# differs, fill's does not), a CTA checkpoint asked of a performance-mode run.
expect_refusal beyond "a CTA index from 0 to 5" \
  --checkpoint "$out/beyond" --checkpoint-at 'relay#1:6' -- "$program"
expect_refusal salt "does not match the launch the checkpoint was written at" \
  --resume "$out/ck" -- "$program" 6 1
expect_refusal perf "ran in performance mode" --gpu-mode performance \
  --checkpoint "$out/perf" --checkpoint-at 'relay#1:3' -- "$program"
# A cooperative grid begins all its CTAs at once: no CTA begins inside it.
expect_refusal cooperative "is a cooperative launch, whose CTAs all begin at once" \
  --checkpoint "$out/coop" --checkpoint-at 'sweeps#1:1' -- "$cooperative"

# Rewritten files (their zstd checksum recomputed, so only the checks on
# the content can catch them): a saved CTA of another layout version is
# refused before the launch runs, and a version-1 file (no CTAS record, a
# kernel-boundary checkpoint rewritten as version 1) still resumes.
if command -v zstd > /dev/null; then
  raw=$out/ck.raw
  tail -c +17 "$out/ck/checkpoint.cnck" | env -u LD_PRELOAD zstd -d -q > "$raw"
  # CTAS, u32 kind, u64 CTA, u64 next, string printf (u32 length), u64 slots,
  # u64 bytes, then the first saved CTA's u32 layout version.
  at=$(grep -obUa CTAS "$raw" | tail -n 1 | cut -d: -f1)
  printed=$(od -An -tu4 -j$((at + 24)) -N4 "$raw" | tr -d ' ')
  version_at=$((at + 28 + printed + 16))
  [ "$(od -An -tu4 -j$version_at -N4 "$raw" | tr -d ' ')" = 1 ] || fail "no CTA state where expected"
  printf '\x07' | env -u LD_PRELOAD dd of="$raw" bs=1 seek=$version_at conv=notrunc 2> /dev/null
  mkdir -p "$out/badcta"
  { printf 'CNUASCKP\x02\x00\x00\x00\x00\x00\x00\x00'
    env -u LD_PRELOAD zstd -q --check < "$raw"; } > "$out/badcta/checkpoint.cnck"
  expect_refusal badcta "saved CTA state is not one of this kernel: layout version 7" \
    --resume "$out/badcta" -- "$program"

  "$cnuas" exec --checkpoint "$out/at1" --checkpoint-at 'relay#1' --checkpoint-stop -- "$program" \
    > /dev/null 2> "$out/at1.err" || { cat "$out/at1.err"; fail "checkpoint at relay#1"; }
  mkdir -p "$out/v1"
  { printf 'CNUASCKP\x01\x00\x00\x00\x00\x00\x00\x00'
    tail -c +17 "$out/at1/checkpoint.cnck" | env -u LD_PRELOAD zstd -d -q | head -c -12 |
      { cat; printf 'END!'; } | env -u LD_PRELOAD zstd -q --check; } > "$out/v1/checkpoint.cnck"
  "$cnuas" exec --resume "$out/v1" -- "$program" > "$out/v1.out" 2> "$out/v1.err" ||
    { cat "$out/v1.err"; fail "resume from a version-1 file"; }
  cmp "$out/v1.out" "$out/full.out" || fail "the version-1 resume's output differs"
fi
echo "checkpoint inside a kernel: identical results, mismatches refused"
