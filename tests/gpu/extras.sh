#!/usr/bin/env bash
# tests/gpu/extras.sh — GPU checks that go with an evaluation run (called by
# train/steps/eval.sh through EXTRA=...; writes into $OUT):
#   HF/transformers + C engine logits parity on models/default, the mutation
#   kinds of the synthesis pipeline run against their references, a sample of
#   every parametric family, and the Jupyter/CuPy end-to-end check.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ptxgen-out}
export PATH="$PATH:/usr/local/cuda/bin" HF_HUB_OFFLINE=1
echo "== parity: transformers vs train/model.py vs C engine"
timeout 45 python3 train/check_hf.py models/default --ptxgen build/ptxgen > "$OUT/check_hf.json" 2> "$OUT/check_hf.err"
echo "rc $?"; head -c 600 "$OUT/check_hf.json"; echo
if [ -d build/mutant_suite ]; then
    echo "== mutants (one suite folder per mutation kind x sample) on the GPU"
    timeout 45 build/ptxgen run --suite build/mutant_suite --no-baseline --no-timing --seeds 5 --timeout 20 \
        --out "$OUT/mutants.json" > "$OUT/mutants.txt" 2>&1
    echo "rc $?"; tail -4 "$OUT/mutants.txt"
fi
if [ -d build/family_suite ]; then
    echo "== parametric families on the GPU"
    BUDGET=50 OUT="$OUT" bash tests/gpu/families.sh build/family_suite 2>&1 | tail -12
fi
echo "== Jupyter magic + CuPy launch"
PTXGEN_BIN=$PWD/build/ptxgen timeout 60 python3 python/device_check.py --model models/default --arch sm_90 \
    > "$OUT/jupyter.json" 2> "$OUT/jupyter.err"
echo "rc $?"; head -c 800 "$OUT/jupyter.json"; echo
