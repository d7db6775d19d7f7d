#!/usr/bin/env bash
# tests/gpu/funnel.sh — the GPU side of the one verification funnel (issue 18, branch
# arch-funnel), which the build machine cannot run:
#   1. tests/nvcc_wrapper.sh with a GPU: the wrapper's differential test, now task_from_ptx +
#      gpu_run_diff (src/gpu/run.c's harness), must say "pass" for a candidate equal to nvcc's
#      kernel (and the report label "verified (GPU, 5 seeds, matches the baseline)");
#   2. eval --kernels on corpus kernels with the GPU: rows must reach "correct"/"timed" through
#      eval_funnel's GPU stage (the hand kernels are correct on the H200);
#   3. run --suite on three corpus tasks: the harness after the phase-aware fault macro
#      (correct kernels stay "ok", the JSON as before).
# Expects build/ptxgen (carried). Writes $OUT/funnel/; prints a short table last. <= 300 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ptxgen-out}/funnel
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
P=$PWD/build/ptxgen
"$P" devinfo > "$OUT/devinfo.txt" 2>&1 || { echo "no GPU: $(cat "$OUT/devinfo.txt")"; exit 3; }

# 1. the wrapper's tests (the GPU branch checks gpu.status == pass)
PTXGEN=build/ptxgen timeout 150 bash tests/nvcc_wrapper.sh > "$OUT/nvcc_wrapper.txt" 2>&1
wrap=$(tail -1 "$OUT/nvcc_wrapper.txt")

# 2. eval's funnel on the GPU with hand kernels standing in for generated ones
S=$(mktemp -d) K=$(mktemp -d)
for t in saxpy relu softmax_row dot_f32 transpose_padded; do
    cp -r "corpus/$t" "$S/"
    cp "corpus/$t/kernel.ptx" "$K/$t.terse.full.0.ptx"
done
timeout 120 "$P" eval --suite "$S" --kernels "$K" --model-name hand --no-progress \
    --out "$OUT/eval.json" > "$OUT/eval.txt" 2>&1
evalrc=$?
python3 - "$OUT/eval.json" > "$OUT/eval_rows.txt" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    if r["description"] == "terse" and r["config"] == "full":
        print(f'{r["task"]:18} {r["last_stage"]:8} correct={r["correct"]} speedup={r.get("speedup", "-")}')
EOF

# 3. the harness on three tasks (correctness and timing, nvcc baseline)
mkdir -p "$S/run"
for t in saxpy relu dot_f32; do cp -r "corpus/$t" "$S/run/"; done
timeout 120 "$P" run --suite "$S/run" --json --out "$OUT/run.json" > "$OUT/run.txt" 2>&1
runrc=$?
rm -rf "$S" "$K"

echo "== device_funnel: $(head -1 "$OUT/devinfo.txt")"
echo "nvcc wrapper tests:  $wrap"
echo "eval --kernels (rc $evalrc):"
cat "$OUT/eval_rows.txt"
echo "run --suite (rc $runrc, 0 = all correct):"
grep -E "^(saxpy|relu|dot_f32) " "$OUT/run.txt" || tail -5 "$OUT/run.txt"
