# Sourced by the checkpoint test scripts; they set $cnuas and $out first.
fail() { echo "FAIL: $*"; exit 1; }

# expect_refusal NAME PATTERN cnuas-args...: exit status 2 and PATTERN on stderr.
expect_refusal() {
  local name=$1 pattern=$2
  shift 2
  "$cnuas" exec "$@" > "$out/$name.out" 2> "$out/$name.err"
  local rc=$?
  [ "$rc" = 2 ] || { cat "$out/$name.err"; fail "$name: exit status $rc, expected 2"; }
  grep -q -- "$pattern" "$out/$name.err" || { cat "$out/$name.err"; fail "$name: no '$pattern'"; }
}
