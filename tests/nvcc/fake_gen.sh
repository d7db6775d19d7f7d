#!/usr/bin/env bash
# A stand-in for `ptxgen gen --baseline B --kernel K -o OUT --json` (tests/nvcc_wrapper.sh).
# FAKE_GEN_MODE: copy (the baseline itself: a valid candidate), invalid (an
# unknown opcode), signature (a parameter dropped), f64 (valid, but computes in double:
# the gate's precision rule must reject it without a GPU), none (writes nothing, exit 2).
# FAKE_GEN_LOG: append "KERNEL SEED" per call there (the wrapper's tries).
set -u
[ "${1:-}" = gen ] || { echo "fake ptxgen: only 'gen'" >&2; exit 2; }
shift
base= kernel= out= seed=
while [ $# -gt 0 ]; do
    case "$1" in
        --baseline) base=$2; shift ;;
        --kernel) kernel=$2; shift ;;
        -o) out=$2; shift ;;
        --seed) seed=$2; shift ;;
    esac
    shift
done
[ -n "${FAKE_GEN_LOG:-}" ] && echo "$kernel $seed" >> "$FAKE_GEN_LOG"
case "${FAKE_GEN_MODE:-copy}" in
    copy) cp "$base" "$out" ;;
    invalid) sed 's/\bret;/frobnicate.b32 %r1, %r1;\n\tret;/' "$base" > "$out" ;;
    signature) awk -v k="$kernel" '
        index($0, ".entry " k "(") { inentry = 1 }
        inentry && /_param_0,?$/ && !dropped { dropped = 1; next }
        { print }' "$base" | sed 's/_param_0\]/_param_1]/' > "$out" ;;
    f64) awk -v k="$kernel" '
        index($0, ".entry " k "(") { inentry = 1 }
        inentry && $0 ~ /^[ \t]*ret;/ { print "\tmov.f64 %fdz1, 0d3FF0000000000000;"; print "\tmul.f64 %fdz2, %fdz1, %fdz1;" }
        { print }
        inentry && $0 == "{" { print "\t.reg .f64 %fdz<3>;" }
        inentry && $0 == "}" { inentry = 0 }' "$base" > "$out" ;;
    none) echo "ptxgen gen: not built yet" >&2; exit 2 ;;
esac
printf '{"ptx_file": "%s", "kernel": "%s", "model": "fake", "tokens": 0, "seconds": 0, "verdicts": {"check": "pass", "ptxas": "not run", "gpu": "not run"}, "attempts": 1}\n' "$out" "$kernel"
