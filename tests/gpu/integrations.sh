#!/usr/bin/env bash
# tests/gpu/integrations.sh — one real end-to-end run of each integration on the
# GPU machine (issue 8), results into $OUT:
#   1. ptxgen-nvcc on examples/nvcc/kernels.cu: the normal build, <kernel>_baseline.ptx,
#      <kernel>_superopt.ptx from the super-optimization adapter (models/superopt, or
#      $PTXGEN_SUPEROPT_ADAPTER), the differential test on the GPU, the report;
#   2. ptxgen gate on a regression (the article's float silently turned into double, and
#      a slower rewrite) with ptxas -v, and --from-cu on the same .cu file;
#   3. the Jupyter magic + CuPy launch (python/device_check.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?set OUT}
P=$PWD/${PTXGEN:-build/ptxgen}
export PATH="$PATH:/usr/local/cuda/bin" HF_HUB_OFFLINE=1
mkdir -p "$OUT/nvcc"
t0=$(date +%s)
say() { echo "[integrations +$(( $(date +%s) - t0 ))s] $*"; }

ln -sf "$P" "$(dirname "$P")/ptxgen-nvcc"
"$(dirname "$P")/ptxgen-nvcc" -O3 -arch=sm_90 -c examples/nvcc/kernels.cu -o "$OUT/nvcc/kernels.o" \
    --ptxgen-out "$OUT/nvcc" > "$OUT/nvcc/wrapper.out" 2> "$OUT/nvcc/wrapper.err"
say "ptxgen-nvcc rc $? (nvcc's own exit status)"
tail -8 "$OUT/nvcc/wrapper.err"
head -c 2500 "$OUT/nvcc/ptxgen_report.md" 2>/dev/null; echo

for c in cand_f64 cand_worse cand_improved; do
    "$P" gate --baseline tests/gate/base.ptx --candidate "tests/gate/$c.ptx" --markdown "$OUT/gate_$c.md" \
        --json "$OUT/gate_$c.json" --quiet
    say "gate $c (ptxas -v): exit $?"
done
"$P" gate --from-cu examples/nvcc/kernels.cu --arch sm_90 --markdown "$OUT/gate_from_cu.md" --json "$OUT/gate_from_cu.json" \
    --quiet 2> "$OUT/gate_from_cu.err"
say "gate --from-cu examples/nvcc/kernels.cu: exit $?"
head -c 1500 "$OUT/gate_from_cu.md"; echo

PTXGEN_BIN=$P timeout 150 python3 python/device_check.py --model "$PWD/models/default" --arch sm_90 \
    > "$OUT/jupyter.json" 2> "$OUT/jupyter.err"
say "jupyter device check rc $?"
head -c 1200 "$OUT/jupyter.json"; echo
