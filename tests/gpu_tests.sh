#!/usr/bin/env bash
# gpu_tests.sh — harness tests that need a GPU: adversarial kernels (does
# nothing, writes half, writes wrong values, writes out of bounds, clobbers an
# input, faults, hangs) must each get the expected verdict, and the batch must
# go on after a fault or a hang.  Without a GPU every case is SKIPPED, loudly.
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
pass=0; fail=0; skip=0
cases=(tests/gpu/adversarial/*/)
if ! "$P" devinfo >/dev/null 2>&1; then
    why=$("$P" devinfo 2>&1 | head -n 1)
    echo "SKIPPED: ${#cases[@]} GPU harness tests (${why#ptxgen devinfo: })"
    echo "gpu: 0 passed, 0 failed, ${#cases[@]} skipped"
    exit 0
fi
for d in "${cases[@]}"; do
    want=$(cat "$d/expect")
    got=$("$P" run --no-baseline --no-timing --seeds 2 --timeout 10 --json "$d/task.json" "$d/kernel.ptx" 2>/dev/null \
          | grep -m1 '"status"' | sed -E 's/.*"status": "([^"]+)".*/\1/')
    if [ "$got" = "$want" ]; then pass=$((pass + 1)); echo "ok   $(basename "$d"): $got"
    else fail=$((fail + 1)); echo "FAIL $(basename "$d"): got '$got', want '$want'"; fi
done
# the good kernel, timed, after the fault and the hang: the batch goes on with a clean context
"$P" run --no-baseline --seeds 1 --json tests/gpu/adversarial/good/task.json >/tmp/ptxgen-gpu-good.json 2>&1 \
    && grep -q '"ms_median"' /tmp/ptxgen-gpu-good.json && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: timing the good kernel"; }
echo "gpu: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
