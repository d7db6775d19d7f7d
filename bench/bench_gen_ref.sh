#!/usr/bin/env bash
# bench_gen_ref.sh — the reference draft source (nvcc's literate PTX of the plan) on and off, side by
# side: for each TASK, ROUNDS rounds of three gen runs of a two-stage model -- --draft 8 (all draft
# sources), --draft 8 --no-draft-ref, --draft 0 -- the order rotated every round; each run's gen
# --json (the PTX turn's model steps, drafts per source, decode seconds; the plan turn's), process
# wall and CPU seconds, the load average before it, and the sha256 (16 hex digits) of its module and
# plan: every run's must equal its task's --draft 0 output's byte for byte (drafts are only guesses;
# bench_gen_ref_summary.py checks).
# Usage: bash bench/bench_gen_ref.sh OUT.jsonl   (one line per run; the summary is made from it)
# Environment: MODEL (default models/qwen-plan), TASKS ("bias_gelu_residual complex_mul adam_step"),
#   PLAN: "reference" gives the task's reference.cu as the plan (--plan: translation, no plan turn;
#   the PTX turn alone), else the model writes it (default model),
#   ROUNDS 1, THREADS 2, SAMPLES 4 (plan attempts), DRAFT 8, PTXGEN_BUILD (build).
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
MODEL=${MODEL:-models/qwen-plan}
TASKS=${TASKS:-"bias_gelu_residual complex_mul adam_step"}
ROUNDS=${ROUNDS:-1}
THREADS=${THREADS:-2}
SAMPLES=${SAMPLES:-4}
DRAFT=${DRAFT:-8}
PLAN=${PLAN:-model}
OUT=${1:?usage: bench_gen_ref.sh OUT.jsonl}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-ref.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
: > "$OUT"
for task in $TASKS; do
    for r in $(seq 1 "$ROUNDS"); do
        modes="ref noref plain"
        case $((r % 3)) in 2) modes="noref plain ref" ;; 0) modes="plain ref noref" ;; esac
        for mode in $modes; do
            flags="--draft $DRAFT"
            [ "$mode" = noref ] && flags="--draft $DRAFT --no-draft-ref"
            [ "$mode" = plain ] && flags="--draft 0"
            [ "$PLAN" = reference ] && flags="$flags --plan bench/suite/$task/reference.cu"
            l=$(cut -d' ' -f1-3 /proc/loadavg)
            # shellcheck disable=SC2086
            /usr/bin/time -f "%e %U %S" -o "$WORK/t" "$BUILD/ptxgen" gen --model "$MODEL" --task "bench/suite/$task/task.json" \
                --threads "$THREADS" --samples "$SAMPLES" $flags --json -o "$WORK/$task-$r-$mode.ptx" > "$WORK/j" 2> "$WORK/e" || true
            ptx_sha=$(sha256sum < "$WORK/$task-$r-$mode.ptx" 2>/dev/null | cut -c1-16 || true)
            plan_sha=$(sha256sum < "$WORK/$task-$r-$mode.cu" 2>/dev/null | cut -c1-16 || true)
            python3 - "$WORK/j" "$WORK/t" "$WORK/e" "$task" "$r" "$mode" "$l" "$ptx_sha" "$plan_sha" "$PLAN" >> "$OUT" <<'PY'
import json, sys
j, t, e, task, r, mode, load, ptx_sha, plan_sha, plan = sys.argv[1:11]
row = {"task": task, "plan": plan, "round": int(r), "mode": mode, "load_before": load, "ptx_sha256_16": ptx_sha, "plan_sha256_16": plan_sha}
try:
    g = json.load(open(j))
    sp = g["speculative"]
    row.update({"ptx_tokens": g["tokens"], "ptx_decode_s": g["seconds"], "ptx_model_steps": sp["model_steps"],
                "ptx_drafted": sp["drafted"], "ptx_accepted": sp["accepted"], "ptx_jumped": sp["jumped"],
                "ptx_by_source_drafted_kept": sp.get("by_source")})
    if "plan" in g:
        p = g["plan"]
        row.update({"plan_decode_s": p.get("decode_seconds"), "plan_model_steps": p.get("speculative", {}).get("model_steps"),
                    "plan_s_with_nvcc": p.get("seconds")})
    w, u, s = (float(x) for x in open(t).read().split()[-3:])
    row.update({"process_wall_s": w, "process_cpu_s": round(u + s, 2)})
    row["notes"] = [l.strip() for l in open(e) if "drafts" in l]
except Exception as ex:
    row["error"] = "%s: %s" % (ex, open(e).read()[-300:])
print(json.dumps(row))
PY
            echo "$task round $r $mode done ($(tail -n 1 "$OUT" | cut -c1-160))" >&2
        done
    done
done
