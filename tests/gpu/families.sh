#!/usr/bin/env bash
# tests/gpu/families.sh — GPU correctness of the parametric synthesis
# families (src/synth/family*.c): N samples per family, each checked by
# `ptxgen run` against its C reference (5 seeds x every distribution x every
# size, poisoned outputs, guard zones), no timing, no nvcc baseline.
# Prints the correct rate per family; full report in $OUT/families.json.
#
# Needs a suite folder of generated tasks (task.json + kernel.ptx each).
# Generate it on the build machine (nvcc families need nvcc there) and let it
# travel with the working tree (~2 MB for N=10):
#     make build/san/tests/synth/test_synth_family
#     SYNTH_FAMILY_DUMP=bench/family_suite SYNTH_FAMILY_N=10 build/san/tests/synth/test_synth_family
# then on the device (build/ptxgen carried, <= 90 s for N=10, 70 tasks):
#     OUT=... bash tests/gpu/families.sh [SUITE_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ptxgen-out}
SUITE=${1:-bench/family_suite}
BUDGET=${BUDGET:-85}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
if [ ! -d "$SUITE" ] || [ -z "$(ls -A "$SUITE" 2>/dev/null)" ]; then
    echo "no generated suite at $SUITE (see the header of this script)" >&2
    exit 2
fi
n=$(ls -d "$SUITE"/*/ | wc -l)
echo "families suite: $n tasks in $SUITE"
t0=$(date +%s)
timeout "$BUDGET" build/ptxgen run --suite "$SUITE" --no-baseline --no-timing --seeds 5 --timeout 20 \
    --out "$OUT/families.json" > "$OUT/families.txt" 2> "$OUT/families.err"
rc=$?
echo "ptxgen run: rc $rc in $(( $(date +%s) - t0 )) s (0 all correct, 1 some failed, 124 out of time)"
python3 - "$SUITE" "$OUT/families.json" <<'EOF'
import json, os, sys
suite, rep = sys.argv[1], sys.argv[2]
fam = {}
for d in sorted(os.listdir(suite)):
    try:
        t = json.load(open(os.path.join(suite, d, "task.json")))
        fam[t["name"]] = t.get("family", "?")
    except Exception:
        pass
try:
    tasks = json.load(open(rep)).get("tasks", [])
except Exception as e:
    print("no report:", e); sys.exit(1)
by = {}
for t in tasks:
    f = fam.get(t.get("task"), "?")
    ok = bool((t.get("kernel") or {}).get("correct"))
    c = by.setdefault(f, [0, 0, []])
    c[0] += ok; c[1] += 1
    if not ok: c[2].append(t.get("task"))
print("%-10s %8s %6s  failing" % ("family", "correct", "rate"))
tot = [0, 0]
for f in sorted(by):
    ok, n, bad = by[f]
    tot[0] += ok; tot[1] += n
    print("%-10s %4d/%-3d %5.0f%%  %s" % (f, ok, n, 100.0 * ok / n, " ".join(bad[:4])))
missing = len(fam) - len(tasks)
print("%-10s %4d/%-3d %5.0f%%  (%d tasks not reported)" % ("all", tot[0], tot[1], 100.0 * tot[0] / max(tot[1], 1), missing))
EOF
