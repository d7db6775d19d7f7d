#!/usr/bin/env bash
# train/steps/ship_checks.sh — the checks that go with shipping a new models/default, on the
# GPU machine (device tool), usually in the background of train/steps/eval.sh:
#   1. the super-optimization adapter retrained on the new base (train/steps/superopt.sh, DDP=0):
#      an adapter is only valid for the base it was trained on;
#   2. train/check_hf.py: transformers vs train/model.py vs the C engine on models/default, and
#      peft.PeftModel(models/default, new adapter) vs our merged model;
#   3. tests/gpu_tests.sh (the harness's adversarial cases).
# Writes $OUT/model_checks.tgz (superopt/ adapter, logs, check_hf JSON verdicts).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
FINAL=${OUT:?set OUT}
W=${WORK:-/tmp/ptxgen-model-checks}
mkdir -p "$W"
export PATH="$PATH:/usr/local/cuda/bin" HF_HUB_OFFLINE=1
t0=$(date +%s)
say() { echo "[model_checks +$(( $(date +%s) - t0 ))s] $*"; }
OUT=$W DDP=0 SO_GPU=${SO_GPU:-1} timeout 200 bash train/steps/superopt.sh > "$W/superopt.txt" 2>&1
say "superopt adapter rc $?"; tail -3 "$W/superopt.txt"
CUDA_VISIBLE_DEVICES=${SO_GPU:-1} timeout 90 python3 train/check_hf.py models/default --ptxgen build/ptxgen \
    > "$W/check_hf_base.json" 2> "$W/check_hf_base.err"
say "check_hf base rc $?"; head -c 800 "$W/check_hf_base.json"; echo
if [ -f "$W/superopt/adapter_config.json" ]; then
    CUDA_VISIBLE_DEVICES=${SO_GPU:-1} timeout 90 python3 train/check_hf.py models/default --adapter "$W/superopt" \
        --base models/default > "$W/check_hf_adapter.json" 2> "$W/check_hf_adapter.err"
    say "check_hf adapter rc $?"; head -c 800 "$W/check_hf_adapter.json"; echo
fi
CUDA_VISIBLE_DEVICES=${SO_GPU:-1} timeout 120 bash tests/gpu_tests.sh > "$W/gpu_tests.txt" 2>&1
say "gpu_tests rc $?"; tail -4 "$W/gpu_tests.txt"
tar czf "$FINAL/.model_checks.tmp" -C "$W" . && mv "$FINAL/.model_checks.tmp" "$FINAL/model_checks.tgz"
say "done"
