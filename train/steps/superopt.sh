#!/usr/bin/env bash
# train/steps/superopt.sh — on the GPU machine (device tool), usually in the
# background of train/steps/eval.sh:
#   1. the super-optimization pairs: corpus kernels that measured faster than
#      nvcc's PTX of their reference.cu (RESULTS, a `ptxgen run --suite corpus`
#      report), prompt = nvcc's PTX, completion = the faster kernel;
#   2. a LoRA adapter (q_proj/v_proj, r 16) on models/default for that mode,
#      PEFT format -> $OUT/superopt/ (shipped as models/superopt);
#   3. when 2 GPUs are present: the DDP check, torchrun on 2 processes training a
#      tiny model for a few steps (the loss must fall; log -> $OUT/ddp_log.jsonl).
# Knobs: RESULTS, SO_BASE (models/default), SO_STEPS (80), SO_MAXLEN (4096: the pairs carry nvcc's whole PTX), SO_GPU
# (the GPU for step 2), DDP (1; 0 skips step 3), WORK.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?set OUT}
W=${WORK:-/tmp/ptxgen-superopt}
P=${PTXGEN:-build/ptxgen}
mkdir -p "$W" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
t0=$(date +%s)
say() { echo "[superopt +$(( $(date +%s) - t0 ))s] $*"; }

$P prompts --superopt corpus --results "${RESULTS:-bench/results/2026-11-30-corpus-h200.json}" \
    --out "$W/superopt.jsonl" --arch sm_90 2> "$W/prompts.err"
say "pairs: $(wc -l < "$W/superopt.jsonl") ($(tail -1 "$W/prompts.err"))"
cp "$W/superopt.jsonl" "$OUT/superopt_pairs.jsonl"

CUDA_VISIBLE_DEVICES=${SO_GPU:-0} python3 train/train.py --phase finetune --base "${SO_BASE:-models/default}" \
    --data "$W/superopt.jsonl" --out "$W/so" --lora-targets q_proj,v_proj --lora-r 16 --lora-alpha 32 \
    --ft-steps "${SO_STEPS:-80}" --ft-lr 3e-4 --warmup 10 --batch-tokens 32768 --no-periodic-export \
    --max-length "${SO_MAXLEN:-4096}" \
    --log-every 10 --eval-prompts 0 > "$W/so.log" 2>&1
say "adapter training rc $? ($(grep -c event=step "$W/so.log") step lines)"
mkdir -p "$OUT/superopt"
cp "$W/so/adapter/"* "$OUT/superopt/" 2>/dev/null
cp "$W/so/train_log.jsonl" "$OUT/superopt/train_log.jsonl" 2>/dev/null
tail -5 "$W/so.log"

ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$ngpu" -ge 2 ] && [ "${DDP:-1}" = 1 ]; then
    timeout 240 torchrun --standalone --nproc_per_node 2 train/train.py --config-size tiny --phase both \
        --data "$W/superopt.jsonl" --out "$W/ddp" --steps 40 --ft-steps 20 --lr 2e-3 --warmup 5 \
        --batch-tokens 8192 --seq-len 512 --no-ptxas --no-periodic-export --eval-prompts 0 --log-every 5 \
        > "$W/ddp.log" 2>&1
    say "DDP (2 GPUs) rc $?"
    cp "$W/ddp/train_log.jsonl" "$OUT/ddp_log.jsonl" 2>/dev/null
    grep -E "event=(start|phase_end|end)|Error|error" "$W/ddp.log" | head -12
else
    say "DDP check skipped: $ngpu GPU(s) here"
fi
cp "$W/so.log" "$W/ddp.log" "$OUT/" 2>/dev/null
say "done"
