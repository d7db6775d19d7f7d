#!/usr/bin/env bash
# tests/gpu/corpus_literate.sh — the literate corpus on the GPU (issue 28, docs/LITERATE.md).
# Two runs of `ptxgen run` (5 seeds x every distribution x every size, poisoned outputs, guard
# zones; no timing, no nvcc baseline) over the corpus tasks:
#   1. literate: every corpus/<task>/kernel.ptx, the hand kernel with its plan comments;
#   2. plans: every corpus/<task>/plan.cu, compiled here by nvcc (-ptx, the kernel's .target), as
#      the kernel of a temporary suite (task.json copied, the kernel file plan.ptx).
# Prints both counts (and the tasks that fail); reports in $OUT/literate.{json,txt} and
# $OUT/plans.{json,txt}, nvcc logs of plans that do not compile in $OUT/nvcc/.
# Usage on the device (build/ptxgen carried): OUT=... bash tests/gpu/corpus_literate.sh [TASK-GLOB]
# DRY_RUN=1 runs `ptxgen run --dry-run` instead (no GPU: spec, check, ptxas, signatures, the C
# reference on the smallest size), which is what the build machine can check.
# Exit: 0 when every kernel and every plan is correct (dry run: statically ok), 1 otherwise, 2 on
# a usage error (no ptxgen, no nvcc, no task).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ptxgen-out}
GLOB=${1:-*}
BUDGET=${BUDGET:-280}   # seconds per run (two runs; a device call has 600)
P=${PTXGEN:-build/ptxgen}
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p "$OUT/nvcc"
[ -x "$P" ] || { echo "no $P (build it, or set PTXGEN)" >&2; exit 2; }
command -v nvcc >/dev/null || { echo "nvcc not found: the plans cannot be compiled" >&2; exit 2; }
if [ "${DRY_RUN:-0}" = 1 ]; then MODE=(--dry-run); else MODE=(--no-baseline --no-timing --seeds 5 --timeout 30); fi

kern=$(mktemp -d)
plans=$(mktemp -d)
trap 'rm -rf "$kern" "$plans"' EXIT
n=0
built=0
for d in corpus/$GLOB/; do
    t=$(basename "$d")
    [ -f "$d/task.json" ] && [ -f "$d/kernel.ptx" ] || continue
    n=$((n + 1))
    ln -s "$PWD/$d" "$kern/$t"
    mkdir "$plans/$t"
    cp "$d"/task.json "$plans/$t/"
    [ -f "$d/reference.cu" ] && cp "$d/reference.cu" "$plans/$t/"
    arch=$(awk '$1 == ".target" { sub(/,.*/, "", $2); print $2; exit }' "$d/kernel.ptx")
    if [ -f "$d/plan.cu" ] && nvcc -ptx -O3 -arch="${arch:-sm_80}" -o "$plans/$t/plan.ptx" "$d/plan.cu" >"$OUT/nvcc/$t.log" 2>&1; then
        built=$((built + 1))
        rm -f "$OUT/nvcc/$t.log"
    else
        echo "plan $t: not compiled ($(grep -m1 -i error "$OUT/nvcc/$t.log" 2>/dev/null || echo 'no plan.cu'))"
        rm -rf "${plans:?}/$t"
    fi
done
[ "$n" -gt 0 ] || { echo "no corpus task matches '$GLOB'" >&2; exit 2; }
echo "corpus: $n tasks, $built plans compiled by $(nvcc --version | tail -n 1)"

t0=$(date +%s)
timeout "$BUDGET" "$P" run --suite "$kern" "${MODE[@]}" --out "$OUT/literate.json" >"$OUT/literate.txt" 2>&1
echo "literate kernels: ptxgen run rc $? in $(( $(date +%s) - t0 )) s (0 all correct, 1 some failed, 124 out of time)"
t0=$(date +%s)
timeout "$BUDGET" "$P" run --suite "$plans" --kernel plan.ptx "${MODE[@]}" --out "$OUT/plans.json" >"$OUT/plans.txt" 2>&1
echo "plans:            ptxgen run rc $? in $(( $(date +%s) - t0 )) s"

python3 - "$n" "$OUT/literate.json" "$OUT/plans.json" "${DRY_RUN:-0}" <<'EOF'
import json, sys
n, dry = int(sys.argv[1]), sys.argv[4] == "1"
def count(path):
    try:
        tasks = json.load(open(path)).get("tasks", [])
    except Exception as e:
        return 0, [], "no report (%s)" % e
    ok = [t.get("task") for t in tasks if (t.get("static_ok") if dry else (t.get("kernel") or {}).get("correct"))]
    bad = sorted(t.get("task") for t in tasks if t.get("task") not in ok)
    return len(ok), bad, "%d reported" % len(tasks)
what = "statically ok" if dry else "correct on the GPU"
allgood = True
for label, path in (("literate kernels", sys.argv[2]), ("plans (nvcc)", sys.argv[3])):
    k, bad, note = count(path)
    allgood &= k == n
    print("%-17s %3d/%d %s  (%s)%s" % (label + ":", k, n, what, note, ("  failing: " + " ".join(bad[:12])) if bad else ""))
sys.exit(0 if allgood else 1)
EOF
