#!/usr/bin/env bash
# train/steps/default.sh — the shipped default model (models/default) on the lent H200 in ONE device call (<= 590 s).
#
# Run from the repository root on the device, with build/ptxgen carried from the build machine:
#     bash train/steps/default.sh                 # $OUT set by the device tool
# Knobs (environment): TOTAL_S (590) wall budget of the whole script, SYNTH_COUNT (50000),
# SYNTH_JOBS (16), SYNTH_MAX_S (200) cap on generation, SYNTH_SEED (1), TRAIN_ARGS (extra train.py flags;
# e.g. "--phase finetune --base models/default --full-finetune" continues the shipped model),
# WORK (/tmp/ptxgen-train) scratch space that does not come back.
#
# Steps: (a) ptxgen synth (timed; if it runs past SYNTH_MAX_S the complete lines of its
# .partial file are used), (b) ptxgen prompts -> pairs (train/data.py pairs if the command is
# missing), (c) train.py --phase both --config-size default on cuda bf16 with the time that is
# left minus ~75 s, (d) the merged bf16 model (shards <= 16 MiB), adapter, train_log.jsonl,
# model card and synth --stats into $OUT, (e) check_hf.py (transformers, peft) on the result.
# A background loop re-packs $OUT every 90 s from train.py's periodic exports, so a run cut
# short still returns a model.
#
# $OUT (the device returns at most 8 files, 16 MiB each):
#   model/model-0000K-of-0000N.safetensors   weight shards (or model/model.safetensors)
#   model_rest.tar.gz   the rest of the model dir: config, index, generation_config, tokenizer,
#                       README.md (model card), adapter/ (PEFT), synth_stats.json, check_hf.json
#   train_log.jsonl     summary.txt     device_train.log
# Unpack:  mkdir -p D && cp FILES/model/* D/ && tar xzf FILES/model_rest.tar.gz -C D
set -u
T0=$(date +%s)
TOTAL_S=${TOTAL_S:-590}
SYNTH_COUNT=${SYNTH_COUNT:-50000}
SYNTH_JOBS=${SYNTH_JOBS:-16}
SYNTH_MAX_S=${SYNTH_MAX_S:-200}
TRAIN_ARGS=${TRAIN_ARGS:-}
OUT=${OUT:?set OUT to the folder that comes back}
WORK=${WORK:-/tmp/ptxgen-train}
P=build/ptxgen
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=true
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$WORK" "$OUT/model"
exec > >(tee -a "$OUT/device_train.log") 2>&1
left() { echo $((TOTAL_S - ($(date +%s) - T0))); }
say() { echo "[device_train +$(( $(date +%s) - T0 ))s] $*"; }

pack() {   # copy what train.py exported so far into $OUT (shards + one tarball)
    local m=$WORK/model
    [ -f "$m/config.json" ] || return 0
    rm -f "$OUT"/model/*.tmp
    for f in "$m"/model*.safetensors; do [ -f "$f" ] && cp "$f" "$OUT/model/.$(basename "$f").tmp" \
        && mv "$OUT/model/.$(basename "$f").tmp" "$OUT/model/$(basename "$f")"; done
    # drop shards of an earlier export that the current one no longer has
    for f in "$OUT"/model/*.safetensors; do [ -f "$f" ] && [ ! -f "$m/$(basename "$f")" ] && rm -f "$f"; done
    cp "$WORK/synth_stats.json" "$m/" 2>/dev/null
    cp "$WORK/check_hf.json" "$m/" 2>/dev/null
    (cd "$m" && tar czf "$OUT/.model_rest.tmp" --exclude='model*.safetensors' --exclude='*.tmp*' \
        --exclude=train_log.jsonl . 2>/dev/null) && mv "$OUT/.model_rest.tmp" "$OUT/model_rest.tar.gz"
    [ -f "$m/train_log.jsonl" ] && cp "$m/train_log.jsonl" "$OUT/train_log.jsonl"
    return 0
}

say "start; budget ${TOTAL_S}s; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 2 | tr '\n' ' ')"
python3 -c 'import torch, transformers, tokenizers, safetensors; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.device_count(), "transformers", transformers.__version__)'
python3 -c 'import peft; print("peft", peft.__version__)' 2>/dev/null || echo "peft: not installed (the adapter check is skipped)"
[ -x "$P" ] || { echo "device_train: $P missing (carry build/ptxgen)"; exit 2; }

# ---- (a) synth -----------------------------------------------------------------------------
say "synth: $SYNTH_COUNT samples, $SYNTH_JOBS jobs, cap ${SYNTH_MAX_S}s"
ts=$(date +%s)
timeout "$SYNTH_MAX_S" "$P" synth --count "$SYNTH_COUNT" --seed "${SYNTH_SEED:-1}" --jobs "$SYNTH_JOBS" --no-progress --exclude bench/suite \
    --out "$WORK/synth.jsonl" 2>&1 | tail -n 3
synth_s=$(( $(date +%s) - ts ))
if [ ! -s "$WORK/synth.jsonl" ] && [ -s "$WORK/synth.jsonl.partial" ]; then
    # cut short: keep the complete lines written so far
    python3 -c 'import sys,json
ok=0
with open(sys.argv[1]) as f, open(sys.argv[2],"w") as o:
    for l in f:
        try: json.loads(l); o.write(l); ok+=1
        except Exception: break
print("synth: used", ok, "samples of the partial file")' "$WORK/synth.jsonl.partial" "$WORK/synth.jsonl"
fi
[ -s "$WORK/synth.jsonl" ] || { echo "device_train: synth produced nothing"; exit 1; }
n_synth=$(wc -l <"$WORK/synth.jsonl")
"$P" synth --stats "$WORK/synth.jsonl" >"$WORK/synth_stats.json" 2>&1
say "synth: $n_synth samples in ${synth_s}s"

# ---- (b) prompt/completion pairs -----------------------------------------------------------------
ts=$(date +%s)
if "$P" prompts --in "$WORK/synth.jsonl" --out "$WORK/pairs.jsonl" 2>"$WORK/prompts.err"; then
    how="ptxgen prompts"
else
    how="train/data.py pairs (ptxgen prompts: $(head -c 120 "$WORK/prompts.err"))"
    python3 train/data.py pairs --in "$WORK/synth.jsonl" --out "$WORK/pairs.jsonl" --jobs "$SYNTH_JOBS" || exit 1
fi
say "pairs: $(wc -l <"$WORK/pairs.jsonl") via $how in $(( $(date +%s) - ts ))s"

# ---- (c) train ---------------------------------------------------------------------------------------
budget=$(( $(left) - 75 ))
[ "$budget" -ge 60 ] || { echo "device_train: only ${budget}s left for training"; budget=60; }
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)
if [ "${ngpu:-0}" -gt 1 ]; then launch=(torchrun --standalone --nproc_per_node "$ngpu"); else launch=(python3); fi
say "train: ${budget}s on $ngpu GPU(s)"
( while sleep 90; do pack; done ) &
packer=$!
# shellcheck disable=SC2086
timeout $((budget + 45)) "${launch[@]}" train/train.py --phase both --config-size default \
    --data "$WORK/pairs.jsonl" --tokenizer models/default/tokenizer.json \
    --out "$WORK/model" --ckpt-dir "$WORK/ckpt" --time-budget "$budget" \
    --batch-tokens 65536 --seq-len 1024 --lr 1e-3 --ft-lr 5e-4 --warmup 200 \
    --eval-every-s 150 --eval-prompts 8 --eval-max-new 768 --ckpt-every-s 120 --log-every 50 \
    $TRAIN_ARGS
train_rc=$?
kill "$packer" 2>/dev/null; wait "$packer" 2>/dev/null
say "train: exit $train_rc"

# ---- (d) + (e) export is done by train.py; check it, pack it ------------------------------------------
if [ -f "$WORK/model/config.json" ]; then
    ad=(); [ -f "$WORK/model/adapter/adapter_config.json" ] && [ -f "$WORK/ckpt/base/config.json" ] \
        && ad=(--adapter "$WORK/model/adapter" --base "$WORK/ckpt/base")
    timeout $(( $(left) > 40 ? $(left) - 10 : 30 )) python3 train/check_hf.py "$WORK/model" "${ad[@]}" \
        >"$WORK/check_hf.json" 2>"$WORK/check_hf.err"
    echo "check_hf exit $?"; cat "$WORK/check_hf.json"; tail -n 3 "$WORK/check_hf.err"
fi
pack

# ---- summary ---------------------------------------------------------------------------------------------
python3 - "$WORK" "$synth_s" "$n_synth" "$train_rc" <<'EOF' | tee "$OUT/summary.txt"
import json, os, sys
work, synth_s, n_synth, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
log = []
p = os.path.join(work, "model", "train_log.jsonl")
if os.path.exists(p):
    for l in open(p):
        try: log.append(json.loads(l))
        except Exception: pass
print(f"synth: {n_synth} samples in {synth_s}s ({n_synth / max(1, synth_s):.0f}/s)")
for r in log:
    if r["event"] == "start":
        print(f"device: {r['device']} x{r['world_size']}; params {r['params']:,}; train/val pairs {r['pairs_train']}/{r['pairs_val']}")
    if r["event"] == "phase_end":
        print(f"{r['phase']}: {r['steps']} steps, {r['tokens']:,} tokens, {r['seconds']}s, train loss {r['train_loss']}, val loss {r['val_loss']}"
              + (f", max_length {r['max_length']} ({r['dropped']} dropped)" if "max_length" in r else ""))
ev = [r for r in log if r["event"] == "eval"]
if ev:
    e = ev[-1]
    print("last eval: " + ", ".join(f"{k} {e.get(k)}" for k in ("greedy_check_pass", "greedy_ptxas_pass", "greedy_ended",
          "sampled_check_pass", "sampled_ptxas_pass", "sampled_ended", "n_prompts")))
try:
    v = json.load(open(os.path.join(work, "check_hf.json")))
    print("check_hf: ok=%s " % v["ok"] + "; ".join(f"{c['check']} {c.get('max_rel_diff', c.get('note'))}" for c in v["checks"]))
except Exception as e:
    print("check_hf: no verdict", e)
print(f"train exit {rc}")
EOF
ls -la "$OUT" "$OUT/model"
say "done"
