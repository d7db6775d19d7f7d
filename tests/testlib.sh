# testlib.sh — what the shell test suites share; source it after `cd` to the repository root.
# Counts: ok / bad "why" (prints FAIL: why); expect_rc WANT DESC CMD... runs CMD quietly and checks
# its exit status; finish prints the "N passed, N failed" line every suite ends with and returns
# non-zero when anything failed.  $tmp is a fresh folder, removed on exit.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_rc() { # expect_rc WANT DESC CMD...
    local want=$1 desc=$2; shift 2
    "$@" >/dev/null 2>&1
    local rc=$?
    [ "$rc" -eq "$want" ] && ok || bad "$desc: exit $rc, want $want"
}
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
