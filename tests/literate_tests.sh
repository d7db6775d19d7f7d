#!/usr/bin/env bash
# literate_tests.sh — the two-stage model's formats through the CLI (docs/LITERATE.md):
# synth --format literate|plain, prompts --stage and --plain, fmt --strip-comments, and
# gen's two stages (--plan, the plan written beside the kernel, --plain, --single-stage)
# with the SmolLM2 test model (tests/gen/two_stage; skipped without models/base).
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_rc() { # expect_rc WANT DESC CMD...
    local want=$1 desc=$2; shift 2
    "$@" >/dev/null 2>&1
    local rc=$?
    [ "$rc" -eq "$want" ] && ok || bad "$desc: exit $rc, want $want"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_nvcc=0
{ command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; } && have_nvcc=1
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"

# the model's recipe runs on the GPU machine: here its syntax, and its usage for an unknown step
expect_rc 0 "bash -n train/recipe.sh" bash -n train/recipe.sh
expect_rc 2 "recipe usage" env OUT="$tmp/dev" bash train/recipe.sh no-such-step

# fmt keeps the plan lines of a literate kernel; --strip-comments gives the plain kernel
"$P" fmt corpus/saxpy/kernel.ptx > "$tmp/lit.ptx" 2>/dev/null && ok || bad "fmt literate corpus kernel"
grep -q $'^\t// unsigned int i = blockIdx.x \* blockDim.x + threadIdx.x;$' "$tmp/lit.ptx" && ok || bad "fmt keeps the plan line"
"$P" fmt --strip-comments corpus/saxpy/kernel.ptx > "$tmp/plain.ptx" 2>/dev/null && ok || bad "fmt --strip-comments"
! grep -q '//' "$tmp/plain.ptx" && ok || bad "--strip-comments leaves a comment"
[ "$(grep -vc '^\s*//' "$tmp/lit.ptx")" = "$(wc -l < "$tmp/plain.ptx")" ] && ok || bad "stripping removes only the comment lines"
"$P" fmt "$tmp/lit.ptx" | cmp -s - "$tmp/lit.ptx" && ok || bad "fmt of a literate kernel is a fixed point"

if [ "$have_nvcc" = 1 ]; then
    # synth: literate by default (plan as cuda_c, format field, no mutants), plain as before
    "$P" synth --count 24 --seed 5 --jobs 1 --no-progress --out "$tmp/lit.jsonl" > /dev/null 2>&1 && ok || bad "synth literate"
    "$P" synth --count 24 --seed 5 --jobs 1 --no-progress --format plain --out "$tmp/plain.jsonl" > /dev/null 2>&1 && ok || bad "synth plain"
    python3 - "$tmp/lit.jsonl" "$tmp/plain.jsonl" <<'PY' && ok || bad "synth formats"
import json, sys
lit = [json.loads(l) for l in open(sys.argv[1])]
plain = [json.loads(l) for l in open(sys.argv[2])]
assert len(lit) == 24 and len(plain) == 24, (len(lit), len(plain))
assert all(r.get("format") == "literate" for r in lit), "every literate line says so"
assert not any("format" in r for r in plain), "plain lines are as before"
assert not any(r["source"] == "mutant" for r in lit), "literate draws no mutants by default"
nvcc = [r for r in lit if r["source"] == "nvcc"]
assert nvcc and all(r.get("cuda_c") for r in nvcc), "every nvcc sample carries its plan"
for r in nvcc:
    plan = {" ".join(l.split()) for l in r["cuda_c"].splitlines()}
    comments = [l.strip()[2:].strip() for l in r["ptx_code"].splitlines() if l.startswith("\t//")]
    assert comments, r["id"] + ": a literate nvcc sample has plan lines"
    assert all(c in plan for c in comments), r["id"] + ": every comment is a line of the plan"
    assert ".loc" not in r["ptx_code"] and "_param_" not in r["ptx_code"], r["id"] + ": no line table, task names"
PY
    expect_rc 2 "synth --format bogus" "$P" synth --count 2 --seed 1 --format bogus --out "$tmp/x.jsonl"
    # prompts: the two turns of every sample, and the single-stage arm without comments
    "$P" prompts --format chatml --stage both --in "$tmp/lit.jsonl" --out "$tmp/both.jsonl" 2>/dev/null && ok || bad "prompts --stage both"
    "$P" prompts --format chatml --plain --in "$tmp/lit.jsonl" --out "$tmp/single.jsonl" 2>/dev/null && ok || bad "prompts --plain"
    python3 - "$tmp/both.jsonl" "$tmp/single.jsonl" <<'PY' && ok || bad "prompts formats"
import json, sys
both = [json.loads(l) for l in open(sys.argv[1])]
single = [json.loads(l) for l in open(sys.argv[2])]
plans = [r for r in both if r["turn"] == "plan"]
ptx = [r for r in both if r["turn"] == "ptx"]
assert len(plans) == len(ptx) == 24, (len(plans), len(ptx))
assert all(r["prompt"].endswith("<|im_start|>assistant\n") for r in both)
assert all("Step 1 of 2" in r["prompt"] and r["completion"].endswith("<|im_end|>") for r in plans)
assert all("extern \"C\" __global__" in r["completion"] for r in plans), "a plan is CUDA C"
assert all("The plan (CUDA C):" in r["prompt"] and r["completion"].startswith(".version") for r in ptx)
assert sum("\t//" in r["completion"] for r in ptx) >= 20, "PTX turns carry plan lines"
assert len(single) == 24 and not any("\t//" in r["completion"] for r in single), "--plain drops every comment"
PY
    expect_rc 2 "prompts --stage without chatml" "$P" prompts --stage both --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
    expect_rc 2 "prompts --stage bogus" "$P" prompts --format chatml --stage bogus --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
else
    echo "SKIPPED: nvcc not found; synth --format and prompts --stage not checked"
fi

# gen: the two stages with a given plan (the random test adapter writes nonsense plans)
if [ -e models/base/smollm2-135m-instruct.Q4_1.gguf ] && [ "$have_nvcc" = 1 ]; then
    mkdir -p "$tmp/out"
    "$P" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu "scale x by a into y" --samples 1 \
        --max-tokens 160 -o "$tmp/out/k.ptx" --json > "$tmp/g.json" 2> "$tmp/g.err"
    grep -q "gen: plan: kernel scale, given, nvcc compiles it" "$tmp/g.err" && ok || bad "gen reports the plan: $(head -3 "$tmp/g.err")"
    grep -q $'^\\.visible \\.entry scale($' "$tmp/out/k.ptx" && grep -q $'^\t.param .f32 a,$' "$tmp/out/k.ptx" && ok ||
        bad "the plan gives the free-form request its signature"
    cmp -s "$tmp/out/k.cu" tests/gen/two_stage/plan_scale.cu && ok || bad "the plan is written beside the kernel"
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['pipeline']=='plan-literate' and j['plan']['source']=='given' and j['plan']['nvcc_compiles']" \
        "$tmp/g.json" && ok || bad "gen --json says the pipeline and the plan"
    "$P" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu "scale" --samples 1 --max-tokens 160 --plain \
        -o "$tmp/out/p.ptx" > /dev/null 2>&1
    [ -e "$tmp/out/p.ptx" ] && ! grep -q $'^\t//' "$tmp/out/p.ptx" && ok || bad "gen --plain writes no plan lines"
    expect_rc 1 "gen refuses a plan nvcc rejects" "$P" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_bad.cu "scale" \
        --samples 1 --max-tokens 100 -o "$tmp/out/b.ptx"
    [ ! -e "$tmp/out/b.ptx" ] && ok || bad "no kernel for a rejected plan"
    expect_rc 2 "--plan with a single-stage model" "$P" gen --model tests/gen/tiny --plan tests/gen/two_stage/plan_scale.cu "scale" \
        -o "$tmp/out/c.ptx"
    "$P" gen --model tests/gen/two_stage --single-stage "scale x by a" --samples 1 --max-tokens 100 --json -o "$tmp/out/s.ptx" \
        > "$tmp/s.json" 2> "$tmp/s.err"
    ! grep -q "gen: plan:" "$tmp/s.err" && ! grep -q '"pipeline"' "$tmp/s.json" && ok || bad "--single-stage skips the plan turn"
else
    echo "SKIPPED: models/base/smollm2-135m-instruct.Q4_1.gguf or nvcc absent; gen's two stages not checked (bash models/fetch_base.sh --smollm2)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
