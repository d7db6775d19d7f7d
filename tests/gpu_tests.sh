#!/usr/bin/env bash
# gpu_tests.sh — harness tests that need a GPU: adversarial kernels (does
# nothing, writes half, writes wrong values, writes out of bounds, clobbers an
# input, faults, hangs) must each get the expected verdict, and the batch must
# go on after a fault or a hang.  Without a GPU every case is SKIPPED, loudly.
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
pass=0; fail=0; skip=0
cases=(tests/gpu/adversarial/*/)
# GPU_TESTS_ONLY=twin: only the CUDA C twin checks (a short device call)
only=${GPU_TESTS_ONLY:-}
if ! "$P" devinfo >/dev/null 2>&1; then
    why=$("$P" devinfo 2>&1 | head -n 1)
    n=$(( ${#cases[@]} + 7 ))   # + the wrong kernel's two stop rules + the timed good kernel + two twin verdicts + eval twins + time pass
    echo "SKIPPED: $n GPU harness tests (${why#ptxgen devinfo: })"
    echo "gpu: 0 passed, 0 failed, $n skipped"
    exit 0
fi
[ "$only" = twin ] && cases=()
for d in "${cases[@]}"; do
    want=$(cat "$d/expect")
    # expect_hygiene: the reward-hygiene reason the verdict must carry (src/gpu/hygiene.c)
    wanth=none; [ -f "$d/expect_hygiene" ] && wanth=$(cat "$d/expect_hygiene")
    out=$("$P" run --no-baseline --no-timing --seeds 2 --timeout 10 --json "$d/task.json" "$d/kernel.ptx" 2>/dev/null)
    got=$(printf '%s\n' "$out" | grep -m1 '"status"' | sed -E 's/.*"status": "([^"]+)".*/\1/')
    goth=$(printf '%s\n' "$out" | grep -m1 '"hygiene": "' | sed -E 's/.*"hygiene": "([^"]+)".*/\1/')
    [ -n "$goth" ] || goth=none
    if [ "$got" = "$want" ] && [ "$goth" = "$wanth" ]; then pass=$((pass + 1)); echo "ok   $(basename "$d"): $got ($goth)"
    else fail=$((fail + 1)); echo "FAIL $(basename "$d"): got '$got' ($goth), want '$want' ($wanth)"; fi
done
# a wrong kernel stops at the first wrong input set; --all-sets checks them all
W=tests/gpu/adversarial/noop   # writes nothing: wrong on every set
modes=(first all); [ "$only" = twin ] && modes=()
for mode in "${modes[@]}"; do
    extra=(); [ "$mode" = all ] && extra=(--all-sets)
    "$P" run --no-baseline --no-timing --seeds 2 --timeout 10 --json "${extra[@]}" "$W/task.json" "$W/kernel.ptx" \
        >/tmp/ptxgen-gpu-wrong.json 2>/dev/null
    if python3 - "$mode" /tmp/ptxgen-gpu-wrong.json <<'PY'
import json, sys
k = json.load(open(sys.argv[2]))["tasks"][0]["kernel"]
n, total = k["checks"], k["checks_total"]
assert total > 1 and (n == total if sys.argv[1] == "all" else n < total), (n, total, k.get("detail"))
PY
    then pass=$((pass + 1)); echo "ok   no-op kernel, $mode sets: $(grep -o '"checks": [0-9]*' /tmp/ptxgen-gpu-wrong.json)"
    else fail=$((fail + 1)); echo "FAIL no-op kernel, $mode sets"; fi
done
# the good kernel, timed, after the fault and the hang: the batch goes on with a clean context
if [ "$only" != twin ]; then
"$P" run --no-baseline --seeds 1 --json tests/gpu/adversarial/good/task.json >/tmp/ptxgen-gpu-good.json 2>&1 \
    && grep -q '"ms_median"' /tmp/ptxgen-gpu-good.json && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: timing the good kernel"; }
fi
# CUDA C twins (ptxgen twin): nvcc's PTX of the twin agrees with the twin on every input set of the
# inferred task (3 sizes x 2 distributions x 5 seeds); the same PTX with a*x turned into a*a differs
tw=$(mktemp -d)
for c in good wrong; do
    cp tests/twin/saxpy.cu "$tw/$c.cu"
    cp "tests/twin/saxpy_$c.ptx" "$tw/$c.ptx"
    "$P" twin --request "y = a*x + y" --json "$tw/$c.ptx" "$tw/$c.cu" >"$tw/$c.json" 2>"$tw/$c.err"
    echo $? >"$tw/$c.rc"
done
if python3 - "$tw" <<'PY'
import json, sys
d = sys.argv[1]
g, w = (json.load(open(f"{d}/{c}.json")) for c in ("good", "wrong"))
assert g["verdict"] == "agrees" and g["input_sets"] == 30 and open(f"{d}/good.rc").read().strip() == "0", g
assert g["line"].startswith("agrees with its CUDA twin on 30 input sets"), g["line"]
assert w["verdict"] == "differs" and open(f"{d}/wrong.rc").read().strip() == "1", w
assert w["line"].startswith("differs from its CUDA twin: attempt 1: wrong:"), w["line"]
PY
then pass=$((pass + 2)); echo "ok   twin verdicts: $(grep -o '"line": "[^"]*' "$tw/good.json" | head -c 80) / $(grep -o '"line": "[^"]*' "$tw/wrong.json" | head -c 120)"
else fail=$((fail + 2)); echo "FAIL twin verdicts:"; cat "$tw"/*.json "$tw"/*.err | head -n 40; fi
# eval --kernels with twins (tests/twin/eval_kernels/README.md): agrees+correct, agrees+wrong (a twin as
# wrong as its PTX), differs+wrong: precision 1/2 -- agreement with a twin is not correctness
"$P" eval --suite bench/suite --only relu6 --kernels tests/twin/eval_kernels --no-progress --no-ablations --twin-own \
    --out "$tw/eval.json" >/dev/null 2>&1
if python3 - "$tw/eval.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = {r["description"]: ((r.get("twin") or {}).get("verdict"), r["correct"]) for r in d["rows"]}
assert v["terse"] == ("agrees", True) and v["detailed"] == ("agrees", False) and v["card"] == ("differs", False), v
# a twin nvcc rejects: nvcc's own error line (from --twin-own's compile, not a second one), not compared
tp = [r["twin"] for r in d["rows"] if r["description"] == "prose"][0]
assert v["prose"] == ("nvcc-failed", True) and "six" in tp["detail"] and "error" in tp["detail"], tp
a = d["configs"]["full"]["twin"]
assert a["with_twin"] == 4 and a["compared"] == 3 and a["agrees"] == 2 and a["agrees_wrong"] == 1 and abs(a["precision"] - 0.5) < 1e-9, a
# --twin-own: the real relu6 twins (terse, card) are correct, the plain ReLU one (detailed) is not
own = {r["description"]: (r.get("twin_own") or {}).get("correct") for r in d["rows"]}
assert own == {"terse": True, "detailed": False, "card": True, "zh": None, "prose": False}, own
assert a["own_run"] == 4 and a["own_correct"] == 2, a
PY
then pass=$((pass + 1)); echo "ok   eval twin precision 1/2, a rejected twin's nvcc error, the twins' own correctness 2/4 on tests/twin/eval_kernels"
else fail=$((fail + 1)); echo "FAIL eval twins: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['description'], r.get('twin'), r['correct']) for r in d['rows']])" "$tw/eval.json" 2>&1 | head -c 600)"; fi
# the timing pass of a --no-bias run times no_bias rows (it used to look for "full" rows and time none)
mkdir -p "$tw/nb"
cp tests/twin/eval_kernels/relu6.terse.full.0.ptx "$tw/nb/relu6.terse.no_bias.0.ptx"
"$P" eval --suite bench/suite --only relu6 --kernels "$tw/nb" --no-progress --no-bias --no-timing --styles terse \
    --out "$tw/nb.json" >/dev/null 2>&1
"$P" eval --time-pass --suite bench/suite --keep "$tw/nb" --no-bias --no-progress --out "$tw/nb.json" 2>"$tw/nb.err"
if python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]; assert r['config']=='no_bias' and r['correct'] is True and r.get('speedup',0)>0, r" "$tw/nb.json" 2>/dev/null
then pass=$((pass + 1)); echo "ok   eval --time-pass --no-bias times the no_bias row"
else fail=$((fail + 1)); echo "FAIL eval --time-pass --no-bias: $(head -c 300 "$tw/nb.err") $(head -c 600 "$tw/nb.json")"; fi
rm -rf "$tw"
echo "gpu: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
