#!/usr/bin/env bash
# train/steps/expert.sh — expert iteration on the GPU machine (issue 16), one stage per
# device call (each <= 600 s); every stage resumes from the files the earlier calls left in
# /tmp/pg (a warm machine keeps them; a replaced machine says MISSING and you start over).
# Needs what train/steps/base.sh's main-train left: $P/qwen-hf (the base, bf16 HF) and
# $P/qwen-lora (the starting adapter), plus the carried binaries (.carry/bin).
#
#   pool N [SEED]     N task-only training tasks (ptxgen synth --tasks-only) in $P/pool, plus the
#                     task folders of any carried .carry/famsuite (the families' generated tasks);
#                     a carried .carry/ei-seed.tgz (round-R/ folders saved by an earlier session:
#                     gen/, pool-eval.json, kept.json.partial, kept/) is unpacked into $P/ei, so a
#                     round cut short by the end of a session continues where it stopped; for a
#                     seeded round R > 1, carry round R-1's adapter as .carry/init-adapter
#   round R [SECS]    one call's worth of round R of train/expert_iter.py (sample -> verify ->
#                     select -> pairs -> train -> evaluate -> metrics); call again with the same R
#                     until it prints "round complete".  R = 0 evaluates the starting adapter.
#   report            every round's metrics into $OUT/expert-iter.json (for bench/results/)
#
# Knobs (environment): K samples per task and style (8), STYLES (terse,detailed,card),
# SAMPLE_S cap on the pool's generation (0: the call's time), EVAL_K samples per suite case (8),
# EVAL_STYLES (all five), EVAL_GEN_S cap on the suites' generation (300; then verification fits
# the same call), MAX_NEW tokens (6144), SHARDS verification processes (the cores), TIME_TOP
# candidates re-run per task (2), REVERIFY_JOBS re-runs at once (8; untimed when > 1: one re-run with
# timing took ~17 s, 23 tasks filled a whole call on 2026-12-02), TRAIN_S seconds of LoRA per round (240), LR (1e-4),
# STOP_AFTER a step: this call ends after it (train: evaluate then starts with a whole call; leave it
# off the next call), REPLAY pairs mixed in per round (2000, a seeded sample of
# $P/pairs-chatml.jsonl when present), ONLY, TRAIN_ARGS (more lora_base.py arguments, e.g. "--max-len 12288":
# the row kernels' pairs run to ~11k tokens and the 8192 default drops them).
# The suites are sampled at temperature 0.3 with the same seed every round (rounds compare case by
# case, and with every other suite eval); the pool at 0.7 with a seed per round.
set -uo pipefail
cd "$(dirname "$0")/../.."
P=/tmp/pg
OUT=${OUT:-/tmp/pg-out}
BIN=$P/bin
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
[ -d "$P/site" ] && export PYTHONPATH="$P/site"
need() { [ -e "$1" ] || { echo "MISSING $1: the machine was replaced or an earlier stage did not run" >&2; exit 3; }; }
if [ -d .carry/bin ]; then mkdir -p "$BIN"; cp .carry/bin/* "$BIN/"; fi
stage=${1:-}; shift || true

case "$stage" in
pool)
    need "$BIN/ptxgen"
    "$BIN/ptxgen" synth --tasks-only "$P/pool" --count "${1:-60}" --seed "${2:-16}" || exit 3
    if [ -d .carry/famsuite ]; then cp -r .carry/famsuite/* "$P/pool/"; fi
    # an earlier session's round (its sampled kernels, pool-eval.json, select's progress) continues here
    if [ -f .carry/ei-seed.tgz ]; then
        mkdir -p "$P/ei" && tar xzf .carry/ei-seed.tgz -C "$P/ei" || exit 3
        # a seeded round R > 1 starts from round R-1's adapter: on a fresh machine that is the one
        # carried as .carry/init-adapter (expert-ready copies it to $P/qwen-lora)
        for d in "$P"/ei/round-*; do
            r=${d##*round-}; prev=$P/ei/round-$((r - 1))
            if [ "$r" -gt 1 ] && [ ! -e "$prev/adapter" ]; then
                mkdir -p "$prev" && ln -s "$P/qwen-lora" "$prev/adapter" && echo "round $r continues from the carried init-adapter"
            fi
        done
        echo "seeded: $(ls "$P/ei")"
    fi
    echo "pool: $(ls "$P/pool" | wc -l) tasks in $P/pool"
    ;;
round)
    R=${1:?round number}
    need "$BIN/ptxgen"; need "$P/qwen-hf"; need "$P/pool"
    args=(all --round "$R" --work "$P/ei" --pool "$P/pool" --base "$P/qwen-hf" --model-name "qwen-ei$R"
          --ptxgen "$BIN/ptxgen" --lib "$BIN/libptxgen.so" --samples "${K:-8}" --styles "${STYLES:-terse,detailed,card}"
          --eval-samples "${EVAL_K:-8}" --train-seconds "${TRAIN_S:-240}" --lr "${LR:-1e-4}" --deadline "${2:-540}"
          --max-new "${MAX_NEW:-6144}" --shards "${SHARDS:-$(nproc)}" --time-top "${TIME_TOP:-2}" --reverify-jobs "${REVERIFY_JOBS:-8}"
          --sample-seconds "${SAMPLE_S:-0}" --eval-gen-seconds "${EVAL_GEN_S:-300}" --eval-styles "${EVAL_STYLES:-terse,detailed,card,zh,prose}")
    [ -d "$P/qwen-lora" ] && args+=(--adapter0 "$P/qwen-lora")
    [ -f "$P/pairs-chatml.jsonl" ] && args+=(--replay "$P/pairs-chatml.jsonl" --replay-n "${REPLAY:-2000}")
    [ -n "${ONLY:-}" ] && args+=(--only "$ONLY")
    [ -n "${STOP_AFTER:-}" ] && args+=(--stop-after "$STOP_AFTER")
    [ -n "${TRAIN_ARGS:-}" ] && args+=(--train-args "$TRAIN_ARGS")
    python3 train/expert_iter.py "${args[@]}" 2>&1 | grep -v '^Loading' | tail -n 25
    rc=${PIPESTATUS[0]}
    d=$P/ei/round-$R
    [ -f "$d/metrics.json" ] && cp "$d/metrics.json" "$OUT/expert-round-$R.json"
    for f in "$d"/eval-*.json; do
        [ -f "$f" ] && "$BIN/ptxgen" eval --report "$f" > "$OUT/expert-round-$R-$(basename "${f%.json}").md"
    done
    [ -f "$d/kept.json" ] && cp "$d/kept.json" "$OUT/expert-round-$R-kept.json"
    echo "round $R: exit $rc (4 = call again to continue)"
    ;;
report)
    python3 - "$P/ei" "$OUT/expert-iter.json" <<'PY'
import glob, json, os, sys
rounds = []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "round-*", "metrics.json")), key=lambda p: int(p.split("round-")[1].split("/")[0])):
    rounds.append(json.load(open(p)))
json.dump({"rounds": rounds}, open(sys.argv[2], "w"), indent=1)
for m in rounds:
    s = {k: (v.get("pass_at_1"), v.get("pass_at_8"), v.get("fast_1")) for k, v in m.get("suites", {}).items()}
    print(m["round"], "pool solved", (m.get("pool") or {}).get("tasks_solved"), "kept", m.get("kept"),
          "hygiene", (m.get("pool") or {}).get("hygiene"), "suites (pass@1, pass@8, fast_1)", s)
PY
    ;;
*)
    sed -n '2,20p' "$0"
    exit 2
    ;;
esac
