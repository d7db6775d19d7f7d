#!/usr/bin/env bash
# literate_tests.sh — the two-stage model's formats through the CLI (docs/LITERATE.md):
# synth --format literate|plain, prompts --stage and --plain, fmt --strip-comments, and
# gen's two stages (--plan, the plan written beside the kernel, --plain, --single-stage)
# with the SmolLM2 test model (tests/gen/two_stage; skipped without models/base).
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
PR=${PTXGEN_RELEASE:-$P}
. tests/testlib.sh
have_nvcc=0
{ command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; } && have_nvcc=1
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"

# retrieve: a library from a synth dataset (skips counted, a held-out suite's task kept out), queries
"$P" retrieve build --in tests/golden/retrieve/synth.jsonl --out "$tmp/lib.jsonl" --per-family 2 --max-ptx-bytes 200 \
    --exclude bench/suite,bench/suite-prose 2>"$tmp/rb.err" && [ "$(wc -l < "$tmp/lib.jsonl")" -eq 3 ] &&
    grep -q "3 kernels from 9 lines.*1 of the excluded suites" "$tmp/rb.err" && ! grep -q adam_step "$tmp/lib.jsonl" && ok \
    || bad "retrieve build: $(cat "$tmp/rb.err")"
"$P" retrieve query --lib tests/golden/retrieve/tiny.jsonl -k 1 "每一行的最大值" 2>/dev/null | grep -q "^rowmax_f32 " && ok || bad "retrieve query (zh)"
"$P" retrieve query --lib tests/golden/retrieve/tiny.jsonl --json "relu" 2>/dev/null |
    python3 -c "import json,sys; h=json.load(sys.stdin); assert [x['task'] for x in h]==['relu_f32','relu_f16'] and h[0]['score']>0" && ok \
    || bad "retrieve query --json"
"$P" retrieve query --lib tests/golden/retrieve/tiny.jsonl --exclude-task rowmax_f32 -k 1 "每一行的最大值" 2>/dev/null | grep -q "^rowmax_f32 " \
    && bad "retrieve query --exclude-task returned the task" || ok
"$P" retrieve eval --lib tests/golden/retrieve/tiny.jsonl --json 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin); s=d['styles']
assert d['kernels']==5 and s['terse']['queries']==5 and s['zh']['queries']==3 and s['terse']['family_at1']+s['zh']['family_at1']==3" && ok \
    || bad "retrieve eval --json"
expect_rc 2 "retrieve eval without --lib" "$P" retrieve eval
expect_rc 2 "retrieve without a step" "$P" retrieve
expect_rc 2 "retrieve with an unknown step" "$P" retrieve frob
expect_rc 0 "retrieve --help" "$P" retrieve --help
expect_rc 2 "retrieve build without --out" "$P" retrieve build --in tests/golden/retrieve/synth.jsonl
expect_rc 2 "retrieve build with nothing that qualifies" "$P" retrieve build --in tests/golden/retrieve/synth.jsonl --max-ptx-bytes 1 --out "$tmp/none.jsonl"
[ ! -e "$tmp/none.jsonl" ] && ok || bad "retrieve build wrote a library with nothing that qualified"
expect_rc 2 "retrieve build with a missing --exclude folder" "$P" retrieve build --in tests/golden/retrieve/synth.jsonl --exclude "$tmp/nope" --out "$tmp/x.jsonl"
expect_rc 2 "retrieve query -k 0" "$P" retrieve query --lib tests/golden/retrieve/tiny.jsonl -k 0 relu
"$P" retrieve query --lib tests/golden/retrieve/synth.jsonl relu 2>"$tmp/rq.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "synth.jsonl:1:.*E903.*unknown key" "$tmp/rq.err" && ok || bad "retrieve query of a file that is not a library: exit $rc, $(cat "$tmp/rq.err")"

# fmt keeps the plan lines of a literate kernel; --strip-comments gives the plain kernel
"$P" fmt corpus/saxpy/kernel.ptx > "$tmp/lit.ptx" 2>/dev/null && ok || bad "fmt literate corpus kernel"
grep -q $'^\t// unsigned int i = blockIdx.x \* blockDim.x + threadIdx.x;$' "$tmp/lit.ptx" && ok || bad "fmt keeps the plan line"
"$P" fmt --strip-comments corpus/saxpy/kernel.ptx > "$tmp/plain.ptx" 2>/dev/null && ok || bad "fmt --strip-comments"
! grep -q '//' "$tmp/plain.ptx" && ok || bad "--strip-comments leaves a comment"
[ "$(grep -vc '^\s*//' "$tmp/lit.ptx")" = "$(wc -l < "$tmp/plain.ptx")" ] && ok || bad "stripping removes only the comment lines"
"$P" fmt "$tmp/lit.ptx" | cmp -s - "$tmp/lit.ptx" && ok || bad "fmt of a literate kernel is a fixed point"

# fmt --regs named: registers named after the plan, declared at first use (docs/LITERATE.md)
"$P" fmt --regs named --plan corpus/saxpy/plan.cu corpus/saxpy/kernel.ptx > "$tmp/named.ptx" 2>/dev/null && ok || bad "fmt --regs named"
! grep -q '%[a-z]*<' "$tmp/named.ptx" && grep -q $'^\t\.reg \.b32 %i;$' "$tmp/named.ptx" && ok || bad "fmt --regs named: %i declared, no counts"
"$P" check "$tmp/named.ptx" > /dev/null 2>&1 && ok || bad "the named kernel checks"
"$P" fmt "$tmp/named.ptx" | cmp -s - "$tmp/named.ptx" && ok || bad "fmt of a named kernel is a fixed point"
[ "$(grep -v '^\s*\.reg' "$tmp/named.ptx" | grep -c .)" = "$(grep -v '^\s*\.reg' "$tmp/lit.ptx" | grep -c .)" ] && ok \
    || bad "named: the same lines but for the declarations"
expect_rc 2 "fmt --regs bogus" "$P" fmt --regs bogus corpus/saxpy/kernel.ptx
expect_rc 2 "fmt --regs named --tighten-regs" "$P" fmt --regs named --tighten-regs corpus/saxpy/kernel.ptx
expect_rc 2 "fmt --plan without --regs named" "$P" fmt --plan corpus/saxpy/plan.cu corpus/saxpy/kernel.ptx
if command -v ptxas >/dev/null 2>&1; then   # ptxas takes every corpus kernel in the named style
    nbad=0
    for d in corpus/*/; do
        arch=$(grep -m1 '^\.target' "$d/kernel.ptx" | awk '{print $2}')
        "$P" fmt --regs named --plan "$d/plan.cu" "$d/kernel.ptx" > "$tmp/n.ptx" 2>/dev/null &&
            ptxas -arch="$arch" "$tmp/n.ptx" -o /dev/null 2>/dev/null || { nbad=$((nbad + 1)); echo "  ptxas refuses the named $d"; }
    done
    [ "$nbad" = 0 ] && ok || bad "ptxas refuses $nbad named corpus kernels"
    # nested { } blocks (nvcc's inline asm): the golden named kernel, and fmt --regs named of its input
    "$P" fmt --regs named --plan tests/golden/literate/blocks.cu tests/golden/literate/blocks.lit.ptx > "$tmp/b.ptx" 2>/dev/null &&
        cmp -s "$tmp/b.ptx" tests/golden/literate/blocks.named.ptx && ptxas -arch=sm_80 "$tmp/b.ptx" -o /dev/null 2>/dev/null \
        && ok || bad "fmt --regs named of nested blocks: the golden file, taken by ptxas"
fi

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
    # synth --regs named: the same samples, registers renamed (a checker maps the names back), ptxas verified
    "$P" synth --count 24 --seed 5 --jobs 1 --no-progress --regs named --out "$tmp/named.jsonl" > /dev/null 2>&1 && ok || bad "synth --regs named"
    python3 - "$tmp/lit.jsonl" "$tmp/named.jsonl" "$P" "$tmp" <<'PY' && ok || bad "synth --regs named: renamed only"
import json, re, subprocess, sys
def fmt(ptx):   # both sides canonical (a template writes [%r8+0], the named text is printed: [%r3])
    with open(sys.argv[4] + "/c.ptx", "w") as f: f.write(ptx)
    return subprocess.run([sys.argv[3], "fmt", sys.argv[4] + "/c.ptx"], capture_output=True, text=True, check=True).stdout
lit = [json.loads(l) for l in open(sys.argv[1])]
named = [json.loads(l) for l in open(sys.argv[2])]
assert [r["id"] for r in lit] == [r["id"] for r in named], "the same samples"
assert all(r.get("regs") == "named" for r in named) and not any("regs" in r for r in lit)
REG = re.compile(r"%[A-Za-z_$][\w$]*")
def body(ptx):   # the lines but for register declarations; a declaration's types by name
    lines, types = [], {}
    for l in ptx.splitlines():
        m = re.match(r"\s*\.reg\s+(\.\w+)\s+(%[\w$]+)(<\d+>)?;", l)
        if m: types[m.group(2)] = m.group(1); continue
        if l.strip(): lines.append(l.strip())
    return lines, types
for a, b in zip(lit, named):
    la, ta = body(fmt(a["ptx_code"])); lb, tb = body(fmt(b["ptx_code"]))
    assert len(la) == len(lb), a["id"] + ": statement count"
    assert not re.search(r"\.reg[^;]*<", b["ptx_code"]), b["id"] + ": a counted declaration"
    fwd, back = {}, {}
    for x, y in zip(la, lb):
        assert REG.sub("%", x) == REG.sub("%", y), (a["id"], x, y)
        for u, v in zip(REG.findall(x), REG.findall(y)):
            assert fwd.setdefault(u, v) == v and back.setdefault(v, u) == u, (a["id"], "not one-to-one", u, v)
    for v, u in back.items():   # every named register is declared once, with the type of its numbered one
        if v in tb:
            base = re.sub(r"\d+$", "", u)
            assert tb[v] == ta.get(u, ta.get(base)), (b["id"], v, u)
    assert len(tb) == len(set(tb)), b["id"]
PY
    # synth --plan-style fixed: the same tasks as the default (varied), no plan_style field (docs/LITERATE.md)
    "$P" synth --count 24 --seed 5 --jobs 1 --no-progress --plan-style fixed --out "$tmp/fixed.jsonl" > /dev/null 2>&1 && ok || bad "synth --plan-style fixed"
    python3 - "$tmp/lit.jsonl" "$tmp/fixed.jsonl" <<'PY' && ok || bad "synth --plan-style: fixed and varied"
import json, sys
var = {r["id"]: r for r in map(json.loads, open(sys.argv[1]))}
fix = {r["id"]: r for r in map(json.loads, open(sys.argv[2]))}
both = [i for i in var if i in fix]
assert len(both) >= 20, len(both)
assert all(var[i]["task"] == fix[i]["task"] for i in both), "a style changes the plan, never the task"
assert not any("plan_style" in r for r in fix.values()), "fixed lines are as before"
assert all(r["source"] == "nvcc" for r in var.values() if "plan_style" in r), "only nvcc families have variants"
PY
    expect_rc 2 "synth --plan-style bogus" "$P" synth --count 2 --seed 1 --plan-style bogus --out "$tmp/x.jsonl"
    expect_rc 2 "synth --regs named --format plain" "$P" synth --count 2 --seed 1 --format plain --regs named --out "$tmp/x.jsonl"
    expect_rc 2 "synth --regs bogus" "$P" synth --count 2 --seed 1 --regs bogus --out "$tmp/x.jsonl"
    "$P" prompts --format chatml --stage both --in "$tmp/named.jsonl" --out "$tmp/named_pairs.jsonl" 2>/dev/null &&
        grep -q '\.reg \.b32 %' "$tmp/named_pairs.jsonl" && ! grep -q '\.reg[^;]*<' "$tmp/named_pairs.jsonl" && ok || bad "prompts of named samples keep the style"
    # the recipe's named arm: prompts --regs named of the numbered run == the pairs of the named run
    "$P" prompts --format chatml --stage both --regs named --in "$tmp/lit.jsonl" --out "$tmp/named_pairs2.jsonl" 2>/dev/null &&
        cmp -s "$tmp/named_pairs.jsonl" "$tmp/named_pairs2.jsonl" && ok || bad "prompts --regs named differs from synth --regs named"
    expect_rc 2 "prompts --regs named --widen-regs" "$P" prompts --format chatml --regs named --widen-regs 64 --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
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
# the task's launch follows the target in both turns exactly when the plan turn gives the signature
ptx_of = {r["id"]: r for r in ptx}
for r in plans:
    sig = "with this signature:" in r["prompt"]
    for t in (r, ptx_of[r["id"]]):
        assert ("\nLaunch: block " in t["prompt"]) == sig, (r["id"], t["turn"], sig)
assert sum("with this signature:" in r["prompt"] for r in plans) >= 12, "most plan pairs carry the signature"
PY
    # retrieval: a library of the same samples; pairs carry the nearest kernels, never the sample's own task
    "$P" retrieve build --in "$tmp/lit.jsonl" --per-family 0 --out "$tmp/rlib.jsonl" 2>/dev/null && ok || bad "retrieve build of a synth run"
    "$P" prompts --format chatml --stage both --retrieve "$tmp/rlib.jsonl" --retrieve-k 2 --in "$tmp/lit.jsonl" --out "$tmp/rag.jsonl" 2>/dev/null \
        && ok || bad "prompts --retrieve"
    python3 - "$tmp/lit.jsonl" "$tmp/rag.jsonl" "$tmp/both.jsonl" <<'PY' && ok || bad "prompts --retrieve pairs"
import json, re, sys
lit = {r["id"]: r for r in map(json.loads, open(sys.argv[1]))}
rag = [json.loads(l) for l in open(sys.argv[2])]
both = [json.loads(l) for l in open(sys.argv[3])]
assert len(rag) == len(both) == 48
assert [(r["id"], r["turn"], r["completion"]) for r in rag] == [(r["id"], r["turn"], r["completion"]) for r in both], "same completions"
with_ex = 0
for r in rag:
    own = lit[r["id"]]["task"]["name"]
    heads = re.findall(r"^// (\S+)$", r["prompt"].split("Step ")[0], re.M)
    assert own not in heads, r["id"] + ": retrieved its own task"
    if r["turn"] == "plan" and "Similar verified kernels" in r["prompt"]:
        with_ex += 1
        assert 1 <= len(heads) <= 2, heads
    if r["turn"] == "ptx" and "A similar verified kernel in literate PTX" in r["prompt"]:
        assert r["prompt"].index("A similar verified kernel") < r["prompt"].index("The plan (CUDA C):")
assert with_ex >= 20, with_ex
PY
    expect_rc 2 "prompts --retrieve without --stage" "$P" prompts --format chatml --retrieve "$tmp/rlib.jsonl" --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
    expect_rc 2 "prompts --retrieve of a file that is not a library" "$P" prompts --format chatml --stage both --retrieve "$tmp/lit.jsonl" \
        --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
    expect_rc 2 "prompts --stage without chatml" "$P" prompts --stage both --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
    expect_rc 2 "prompts --stage bogus" "$P" prompts --format chatml --stage bogus --in "$tmp/lit.jsonl" --out "$tmp/x.jsonl"
else
    echo "SKIPPED: nvcc not found; synth --format and prompts --stage not checked"
fi

# gen: the two stages with a given plan (the random test adapter writes nonsense plans)
# synth --literate-of: one plan's literate PTX as synth makes the targets (golden: the file test_decode feeds the
# constraint; .pragma "nounroll", cvt.sat.f32.f32 and the shared array `red` are in it)
if [ "$have_nvcc" = 1 ]; then
    "$P" synth --literate-of bench/suite/softmax_row_b128/reference.cu > "$tmp/lo.ptx" 2>"$tmp/lo.err" &&
        cmp -s "$tmp/lo.ptx" tests/golden/decode/literate/softmax_row_b128.ptx && ok \
        || bad "synth --literate-of: $(head -c 300 "$tmp/lo.err"; diff "$tmp/lo.ptx" tests/golden/decode/literate/softmax_row_b128.ptx | head -5)"
    "$P" synth --literate-of bench/suite/softmax_row_b128/reference.cu --kernel nope > /dev/null 2>"$tmp/lo2.err"; rc=$?
    [ "$rc" -eq 1 ] && grep -q "no extern \"C\" __global__ kernel named nope" "$tmp/lo2.err" && ok || bad "synth --literate-of --kernel nope: exit $rc"
    printf 'extern "C" __global__ void k(float* a) { a[0] = b; }\n' > "$tmp/bad.cu"
    "$P" synth --literate-of "$tmp/bad.cu" > "$tmp/bad.out" 2>"$tmp/bad.err"; rc=$?
    [ "$rc" -eq 1 ] && [ ! -s "$tmp/bad.out" ] && ok || bad "synth --literate-of of a plan nvcc rejects: exit $rc"
else
    echo "SKIPPED: nvcc absent; synth --literate-of not checked"
fi
expect_rc 2 "synth --literate-of a missing file" "$P" synth --literate-of "$tmp/missing.cu"

if [ -e models/base/smollm2-135m-instruct.Q4_1.gguf ] && [ "$have_nvcc" = 1 ]; then
    # these gens run a 135M base: on the release binary ($PTXGEN_RELEASE), seconds each where the
    # sanitized one takes minutes; test_pipeline runs the same two turns under ASan
    mkdir -p "$tmp/out"
    "$PR" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu "scale x by a into y" --samples 1 \
        --max-tokens 160 -o "$tmp/out/k.ptx" --json > "$tmp/g.json" 2> "$tmp/g.err"
    grep -q "gen: plan: kernel scale, given, nvcc compiles it" "$tmp/g.err" && ok || bad "gen reports the plan: $(head -3 "$tmp/g.err")"
    grep -q $'^\\.visible \\.entry scale($' "$tmp/out/k.ptx" && grep -q $'^\t.param .f32 a,$' "$tmp/out/k.ptx" && ok ||
        bad "the plan gives the free-form request its signature"
    cmp -s "$tmp/out/k.cu" tests/gen/two_stage/plan_scale.cu && ok || bad "the plan is written beside the kernel"
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['pipeline']=='plan-literate' and j['plan']['source']=='given' and j['plan']['nvcc_compiles']" \
        "$tmp/g.json" && ok || bad "gen --json says the pipeline and the plan"
    "$PR" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu "scale" --samples 1 --max-tokens 160 --plain \
        -o "$tmp/out/p.ptx" > /dev/null 2>&1
    [ -e "$tmp/out/p.ptx" ] && ! grep -q $'^\t//' "$tmp/out/p.ptx" && ok || bad "gen --plain writes no plan lines"
    expect_rc 1 "gen refuses a plan nvcc rejects" "$PR" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_bad.cu "scale" \
        --samples 1 --max-tokens 100 -o "$tmp/out/b.ptx"
    [ ! -e "$tmp/out/b.ptx" ] && ok || bad "no kernel for a rejected plan"
    # retrieval in gen: --retrieve LIB, and the library a model folder ships (base.json "retrieval")
    ptoks() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['prompt_tokens'])" "$1" 2>/dev/null || echo 0; }
    "$PR" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu "relu of x" --samples 1 --max-tokens 40 --json \
        -o "$tmp/out/r0.ptx" >"$tmp/r0.json" 2>/dev/null
    "$PR" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu "relu of x" --samples 1 --max-tokens 40 --json \
        --retrieve tests/golden/retrieve/tiny.jsonl -o "$tmp/out/r1.ptx" >"$tmp/r1.json" 2>"$tmp/r1.err"
    [ "$(ptoks "$tmp/r1.json")" -gt "$(ptoks "$tmp/r0.json")" ] && grep -q "gen: retrieval: 2 of 5 kernels .*(relu_f32, ...)" "$tmp/r1.err" && ok \
        || bad "gen --retrieve: the PTX turn's prompt carries the nearest kernels ($(ptoks "$tmp/r0.json") -> $(ptoks "$tmp/r1.json")): $(head -3 "$tmp/r1.err")"
    mkdir -p "$tmp/m2" && cp tests/gen/two_stage/adapter_* "$tmp/m2/" && cp tests/golden/retrieve/tiny.jsonl "$tmp/m2/retrieval.jsonl"
    python3 -c "import json,sys; d=json.load(open('tests/gen/two_stage/base.json')); import os; d['gguf']=os.path.relpath('$PWD/models/base/smollm2-135m-instruct.Q4_1.gguf', sys.argv[1].rsplit('/',1)[0]); d['retrieval']='retrieval.jsonl'; json.dump(d, open(sys.argv[1],'w'))" "$tmp/m2/base.json"
    "$PR" gen --model "$tmp/m2" --plan tests/gen/two_stage/plan_scale.cu "relu of x" --samples 1 --max-tokens 40 --json \
        -o "$tmp/out/r2.ptx" >"$tmp/r2.json" 2>"$tmp/r2.err"
    [ "$(ptoks "$tmp/r2.json")" = "$(ptoks "$tmp/r1.json")" ] && grep -q "retrieval.jsonl in the prompts" "$tmp/r2.err" && ok \
        || bad "a model's own library (base.json retrieval): $(head -3 "$tmp/r2.err")"
    python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['retrieval']='../tiny.jsonl'; json.dump(d, open(p,'w'))" "$tmp/m2/base.json"
    "$PR" gen --model "$tmp/m2" --plan tests/gen/two_stage/plan_scale.cu "relu of x" --samples 1 --max-tokens 40 --json \
        -o "$tmp/out/r3.ptx" >"$tmp/r3.json" 2>"$tmp/r3.err"
    ! grep -q "gen: retrieval" "$tmp/r3.err" && ok || bad "base.json retrieval outside the model folder was followed"
    expect_rc 2 "gen --retrieve of a file that is not a library" "$P" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_scale.cu \
        --retrieve tests/golden/retrieve/synth.jsonl "x" --samples 1 --max-tokens 40 -o "$tmp/out/r4.ptx"
    expect_rc 2 "gen --retrieve with a single-stage model" "$P" gen --model tests/gen/tiny --retrieve tests/golden/retrieve/tiny.jsonl "x" \
        --samples 1 --max-tokens 40 -o "$tmp/out/r5.ptx"
    expect_rc 2 "--plan with a single-stage model" "$P" gen --model tests/gen/tiny --plan tests/gen/two_stage/plan_scale.cu "scale" \
        -o "$tmp/out/c.ptx"
    # the plans' GPU check (--verify gpu --task): without a GPU the plan is not run, a note says so (not an error;
    # exit 3 as for any --verify gpu without a GPU); --no-plan-check does not ask; --json "plan" reports both
    "$P" devinfo > /dev/null 2>&1
    if [ $? -eq 3 ]; then   # no GPU here (devinfo's exit 3); with one, tests/gpu_engine_fake.sh and the GPU runs check it
        for pc in on off; do
            flag=; [ $pc = off ] && flag=--no-plan-check
            "$PR" gen --model tests/gen/two_stage --plan tests/gen/two_stage/plan_silu.cu --task bench/suite/ew_silu/task.json --verify gpu \
                $flag --samples 1 --max-tokens 40 --json -o "$tmp/out/pc$pc.ptx" > "$tmp/pc$pc.json" 2> "$tmp/pc$pc.err"
            rc=$?
            python3 - "$tmp/pc$pc.json" $pc <<'PY' && [ "$rc" -eq 3 ] && ok || bad "gen --verify gpu, plan check $pc, no GPU: exit $rc: $(grep 'gen: plan' "$tmp/pc$pc.err")"
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
assert p["gpu_checked"] == 0 and p["gpu_wrong"] == 0 and p["gpu"] == "not run", p
if sys.argv[2] == "on":
    assert p["gpu_check"] is True and p["gpu_note"].startswith("the plan was not run on the GPU: no GPU ("), p
else:
    assert p["gpu_check"] is False and p["gpu_note"] is None, p
PY
        done
        grep -q "gen: plan: kernel ew_silu, given, nvcc compiles it, not run on the GPU (" "$tmp/pcon.err" &&
            grep -q "gen: plan: the plan was not run on the GPU: no GPU (" "$tmp/pcon.err" && ok || bad "the plan line says the plan did not run: $(grep 'gen: plan' "$tmp/pcon.err")"
        grep -q "gen: plan: not run on the GPU (--no-plan-check)" "$tmp/pcoff.err" && ok || bad "--no-plan-check: $(grep 'gen: plan' "$tmp/pcoff.err")"
    else
        echo "SKIPPED: a GPU is here; gen's plan check without a GPU not checked"
    fi
    "$PR" gen --model tests/gen/two_stage --single-stage "scale x by a" --samples 1 --max-tokens 100 --json -o "$tmp/out/s.ptx" \
        > "$tmp/s.json" 2> "$tmp/s.err"
    ! grep -q "gen: plan:" "$tmp/s.err" && ! grep -q '"pipeline"' "$tmp/s.json" && ok || bad "--single-stage skips the plan turn"
else
    echo "SKIPPED: models/base/smollm2-135m-instruct.Q4_1.gguf or nvcc absent; gen's two stages not checked (bash models/fetch_base.sh --smollm2)"
fi

# a canonical-style model (base.json "regs": "canonical"): the PTX turn's reference drafts are nvcc's literate PTX with
# its registers renumbered in first-use order (docs/DESIGN.md), and speculative decoding still writes what --draft 0
# writes.  models/qwen-plan over the 0.5B base stands in (trained numbered: which drafts it keeps differs, never the bytes)
if [ -e models/base/qwen2.5-coder-0.5b-instruct.gguf ] && [ "$have_nvcc" = 1 ]; then
    mkdir -p "$tmp/mc" "$tmp/out" && cp models/qwen-plan/adapter_* "$tmp/mc/"
    python3 -c "import json,os,sys; d=json.load(open('models/qwen-plan/base.json')); d['gguf']=os.path.relpath('$PWD/models/base/qwen2.5-coder-0.5b-instruct.gguf', sys.argv[1]); d['regs']='canonical'; json.dump(d, open(sys.argv[1]+'/base.json','w'))" "$tmp/mc"
    for d in 0 8; do
        "$PR" gen --model "$tmp/mc" --plan tests/gen/two_stage/plan_scale.cu "scale x by a into y" --samples 1 --seed 3 --temperature 0.7 \
            --max-tokens 400 --draft $d --json -o "$tmp/out/c$d.ptx" > "$tmp/c$d.json" 2> "$tmp/c$d.err"
    done
    grep -q "gen: drafts: nvcc's literate PTX of the plan is the reference (.* bytes, registers renumbered in first-use order" "$tmp/c8.err" &&
        python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['speculative']; assert s['by_source']['reference'][0] > 0, s" "$tmp/c8.json" &&
        [ -s "$tmp/out/c0.ptx" ] && cmp -s "$tmp/out/c0.ptx" "$tmp/out/c8.ptx" && ok ||
        bad "gen --draft 8 with a canonical-style model's reference must write what --draft 0 writes: $(grep 'gen:' "$tmp/c8.err" | head -3)"
else
    echo "SKIPPED: models/base/qwen2.5-coder-0.5b-instruct.gguf or nvcc absent; a canonical-style model's reference drafts not checked"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
