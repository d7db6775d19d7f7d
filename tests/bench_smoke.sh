#!/usr/bin/env bash
# bench_smoke.sh — the benchmark programs build and run (make bench is not part of the tests, so a
# change to a library struct once left build/bench_model unbuildable, and a literate corpus kernel
# made its constraint replay fail, unnoticed).  Tiny inputs; no timing is judged.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
B=${PTXGEN_BUILD:-build}
. tests/testlib.sh

# the constraint replays a literate corpus kernel (plan lines and all) as gen writes it
"$B/ptxgen" fmt corpus/axpby_relu/kernel.ptx > "$tmp/replay.ptx" || bad "fmt corpus/axpby_relu"
if "$B/bench_model" tests/gen/tiny --threads 1 --pp 4 --tg 4 --reps 1 --constraint "$tmp/replay.ptx" > "$tmp/bm.json" 2> "$tmp/bm.err"; then
    grep -qE '"constraint": \{"file": "[^"]*", "tokens": [1-9][0-9]*' "$tmp/bm.json" && ok || bad "bench_model --constraint: no token count: $(head -c 300 "$tmp/bm.json")"
    grep -q '"tg4_tok_s"' "$tmp/bm.json" && ok || bad "bench_model: no decode rate: $(head -c 300 "$tmp/bm.json")"
else
    bad "bench_model --constraint: $(tail -2 "$tmp/bm.err")"
fi
# a kernel the constraint refuses is named, with the token, and the exit status says so
printf '.version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n)\n{\n\tbogus;\n}\n' > "$tmp/bad.ptx"
if "$B/bench_model" tests/gen/tiny --threads 1 --pp 4 --tg 4 --reps 1 --constraint "$tmp/bad.ptx" > /dev/null 2> "$tmp/bad.err"; then
    bad "bench_model accepted a kernel the constraint refuses"
else
    grep -q "the constraint refuses token" "$tmp/bad.err" && ok || bad "bench_model refusal not named: $(tail -1 "$tmp/bad.err")"
fi
finish
