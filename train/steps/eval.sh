#!/usr/bin/env bash
# train/steps/eval.sh — the evaluation run on the GPU machine, in one call of
# the device tool (<= 600 s).  Expects build/ptxgen (carried) and
# models/default (the trained model) in the working tree; writes under $OUT.
#
#   1. devinfo (measured ceilings)
#   2. ptxgen eval over bench/suite in SHARDS parallel shards (generation runs on
#      the CPU, correctness on the GPUs), no timing, kernels kept in $OUT/gen:
#      the full config with SAMPLES per case, then the ablations with ABL_SAMPLES
#   3. merge, then the timing pass: correct kernels timed one at a time vs nvcc
#   4. Markdown report
#   5. extra checks given as scripts in EXTRA (each with its own timeout)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ptxgen-out}
FINAL=$OUT                      # the device returns at most 8 files: work elsewhere, tar at the end
OUT=${WORK:-/tmp/ptxgen-eval}
SHARDS=${SHARDS:-14}
THREADS=${THREADS:-1}
SAMPLES=${SAMPLES:-1}
EVAL_BUDGET=${EVAL_BUDGET:-300}     # seconds for generation + correctness
TIME_BUDGET=${TIME_BUDGET:-120}     # seconds for the timing pass
mkdir -p "$OUT/gen" "$FINAL"
# RESUME_FROM=DIR: the work folder of an earlier call (eval-shard*.json, eval-abl*.json,
# gen/): finished cases are kept and only the missing ones run.
RESUME=()
if [ -n "${RESUME_FROM:-}" ]; then cp -r "$RESUME_FROM"/. "$OUT"/; RESUME=(--resume); fi
export PATH="$PATH:/usr/local/cuda/bin"
P=build/ptxgen
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
$P devinfo > "$OUT/devinfo.json" 2> "$OUT/devinfo.err" || echo "devinfo failed (rc $?)" >&2

# Each shard: the full config with SAMPLES samples per case (pass@k), then the
# ablations (no constraint, no bias) with ABL_SAMPLES; shards spread over the GPUs.
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l); [ "$NGPU" -ge 1 ] || NGPU=1
pids=()
for ((i = 0; i < SHARDS; i++)); do
    (
        export CUDA_VISIBLE_DEVICES=$((i % NGPU))
        end=$(( t0 + EVAL_BUDGET ))
        timeout "$EVAL_BUDGET" $P eval --suite bench/suite --model models/default --shard "$i/$SHARDS" --no-timing \
            --no-ablations --threads "$THREADS" --samples "$SAMPLES" --keep "$OUT/gen" --out "$OUT/eval-shard$i.json" "${RESUME[@]}" \
            --no-progress > "$OUT/eval-shard$i.md" 2> "$OUT/eval-shard$i.err"
        left=$(( end - $(date +%s) )); [ "$left" -gt 5 ] || exit 0
        timeout "$left" $P eval --suite bench/suite --model models/default --shard "$i/$SHARDS" --no-timing \
            --no-constraint --no-bias --threads "$THREADS" --samples "${ABL_SAMPLES:-1}" --keep "$OUT/gen" \
            --out "$OUT/eval-abl$i.json" "${RESUME[@]}" --no-progress > "$OUT/eval-abl$i.md" 2> "$OUT/eval-abl$i.err"
    ) &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "eval shards done in $(( $(date +%s) - t0 )) s"
shards=()
for ((i = 0; i < SHARDS; i++)); do
    [ -s "$OUT/eval-shard$i.json" ] && shards+=("$OUT/eval-shard$i.json")
    [ -s "$OUT/eval-abl$i.json" ] && shards+=("$OUT/eval-abl$i.json")
done
$P eval --merge "${shards[@]}" --out "$OUT/eval.json" || echo "merge failed" >&2
timeout "$TIME_BUDGET" $P eval --time-pass --suite bench/suite --keep "$OUT/gen" --out "$OUT/eval.json" --no-progress \
    2> "$OUT/time-pass.err" || echo "timing pass stopped (rc $?): partial timings kept" >&2
$P eval --report "$OUT/eval.json" > "$OUT/eval.md" 2>&1
echo "eval total $(( $(date +%s) - t0 )) s"
head -c 3000 "$OUT/eval.md"

cp "$OUT/eval.json" "$OUT/eval.md" "$FINAL/" 2>/dev/null
tar czf "$FINAL/eval_all.tgz" -C "$OUT" . 2>/dev/null
mkdir -p "$OUT/extras"
for s in ${EXTRA:-}; do
    echo "== $s"
    OUT="$OUT/extras" timeout "${EXTRA_TIMEOUT:-90}" bash "$s" > "$OUT/extras/$(basename "$s").log" 2>&1; echo "rc $?"
    tail -40 "$OUT/extras/$(basename "$s").log"
done
[ -n "${EXTRA:-}" ] && tar czf "$FINAL/extras.tgz" -C "$OUT/extras" . 2>/dev/null
echo "device_eval.sh finished in $(( $(date +%s) - t0 )) s"
