#!/usr/bin/env bash
# cli_tests.sh — exit codes, diagnostic format and golden files of the CLI.
# UPDATE_GOLDEN=1 bash tests/cli_tests.sh rewrites the golden files.
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
golden() { # golden NAME CMD... : compare stdout with tests/golden/NAME
    local name=$1; shift
    local out
    out=$("$@" 2>/dev/null)
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then printf '%s\n' "$out" >"tests/golden/$name"; ok; return; fi
    if [ "$out" = "$(cat "tests/golden/$name" 2>/dev/null)" ]; then ok; else
        bad "golden $name differs:"; diff <(printf '%s\n' "$out") "tests/golden/$name" | head -20; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# exit codes
expect_rc 0 "check valid" "$P" check examples/vecadd.ptx
expect_rc 1 "check invalid" "$P" check tests/golden/bad_vecadd.ptx
expect_rc 1 "check mixed" "$P" check examples/vecadd.ptx tests/golden/bad_vecadd.ptx
expect_rc 2 "check missing file" "$P" check "$tmp/nope.ptx"
expect_rc 2 "check bad option" "$P" check --frobnicate examples/vecadd.ptx
expect_rc 2 "check no files" "$P" check
expect_rc 2 "unknown command" "$P" frobnicate
expect_rc 0 "help" "$P" --help
expect_rc 1 "fmt of unparsable" "$P" fmt tests/golden/bad_syntax.ptx

# diagnostics: file:line:col: error[CODE]: message, one per BAD line
"$P" check tests/golden/bad_vecadd.ptx 2>"$tmp/diag"
for want in "16:.*error\[E306\]" "17:.*error\[E206\]" "18:.*error\[E302\]" "21:.*error\[E207\]" "22:.*error\[E206\]" "23:.*error\[E202\]" "24:.*error\[E304\]"; do
    grep -qE "^tests/golden/bad_vecadd.ptx:$want" "$tmp/diag" && ok || bad "diagnostic $want missing"
done
[ "$(grep -c 'error\[' "$tmp/diag")" -eq 7 ] && ok || bad "expected exactly 7 errors, got $(grep -c 'error\[' "$tmp/diag")"

# golden files for every format we write
golden vecadd.fmt.ptx "$P" fmt examples/vecadd.ptx
golden bad_vecadd.check.json "$P" check --json tests/golden/bad_vecadd.ptx
golden bad_syntax.check.json "$P" check --json tests/golden/bad_syntax.ptx
if "$P" stats examples/vecadd.ptx >/dev/null 2>&1; then golden vecadd.stats.json "$P" stats examples/vecadd.ptx; else bad "stats failed"; fi
if "$P" explain examples/vecadd.ptx >/dev/null 2>&1; then golden vecadd.explain.txt "$P" explain examples/vecadd.ptx; else bad "explain failed"; fi

# super-optimization training pairs: nvcc's PTX -> the measured-faster hand kernel, same ABI
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    if PATH="$PATH:/usr/local/cuda/bin" "$P" prompts --superopt corpus --results bench/results/2026-11-30-corpus-h200.json \
        --out "$tmp/superopt.jsonl" 2>/dev/null; then ok; else bad "prompts --superopt failed"; fi
    n=$(wc -l < "$tmp/superopt.jsonl" 2>/dev/null || echo 0)
    [ "$n" -ge 30 ] && ok || bad "prompts --superopt: only $n pairs"
    python3 - "$tmp/superopt.jsonl" "$tmp" <<'PY' && ok || bad "a super-optimization completion keeps neither the baseline's signature nor valid PTX"
import json, sys
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    sig = r["prompt"].split("<|signature|>")[1].split("\n<|ptx|>")[0]
    assert sig and sig in r["completion"], r["id"]
    path = f"{sys.argv[2]}/so{i}.ptx"
    open(path, "w").write(r["completion"].replace("<|end|>", ""))
PY
    for f in "$tmp"/so*.ptx; do "$P" check "$f" >/dev/null 2>&1 || { bad "invalid completion $f"; break; }; done; ok
else
    echo "SKIPPED: prompts --superopt (nvcc not found)"
fi

# generation: the README's main command, JSON verdicts, bad model dirs; eval without a GPU
"$P" gen "$(cat examples/saxpy.card.md)" -o "$tmp/saxpy.ptx" 2>"$tmp/gen.err" && ok || bad "gen on the README card failed: $(tail -2 "$tmp/gen.err")"
head -1 "$tmp/saxpy.ptx" | grep -q '^// GENERATED_BY: ptxgen ' && ok || bad "generated file lacks the GENERATED_BY line"
expect_rc 0 "generated saxpy validates" "$P" check "$tmp/saxpy.ptx"
grep -q '^\.visible \.entry saxpy($' "$tmp/saxpy.ptx" && ok || bad "the card's kernel name/signature was not forced"
"$P" gen --model tests/gen/tiny --json --samples 1 -o "$tmp/t.ptx" "vector add" >"$tmp/gen.json" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['verdicts']['check']=='pass' and d['model']=='tiny' and d['tokens']>0" "$tmp/gen.json" \
    && ok || bad "gen --json on the random model: $(head -c 300 "$tmp/gen.json")"
expect_rc 2 "gen with a missing model dir" "$P" gen --model "$tmp/nope" "x"
expect_rc 2 "gen without a description" "$P" gen
PTXGEN_EVAL_TMP=1 "$P" eval --suite bench/suite --only relu6 --model tests/gen/tiny --no-gpu --no-progress \
    --out "$tmp/eval.json" >"$tmp/eval.md" 2>/dev/null
python3 - "$tmp/eval.json" <<'PY' && ok || bad "eval without a GPU must mark GPU columns 'not run'"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["correct_rate"] == "not run" and d["load_rate"] == "not run", d
assert d["configs"]["full"]["validator_pass_rate"] == 1.0, d["configs"]["full"]   # constrained: valid by construction
assert len(d["rows"]) == 15 and all(r["correct"] == "not run" for r in d["rows"])
PY
# merging an ablation run into a pass@k run: tasks counted once, k per config from the rows
python3 - "$tmp/eval.json" "$tmp/eval_s1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rows"] = [dict(r, sample=1) for r in d["rows"] if r["config"] == "full"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$P" eval --merge "$tmp/eval.json" "$tmp/eval_s1.json" --out "$tmp/eval_m.json" >/dev/null 2>&1
python3 - "$tmp/eval_m.json" <<'PY' && ok || bad "eval --merge: task count or per-config k wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tasks"] == 1, d["tasks"]
assert d["configs"]["full"]["k"] == 2 and d["configs"]["no_constraint"]["k"] == 1, d["configs"]
assert d["configs"]["full"]["samples"] == 10, d["configs"]["full"]
PY

# grammar export and the CI performance gate
golden grammar.gbnf "$P" grammar --gbnf
expect_rc 2 "grammar without a format" "$P" grammar
"$P" grammar --gbnf -o "$tmp/g.gbnf" && cmp -s "$tmp/g.gbnf" tests/golden/grammar.gbnf && ok || bad "grammar -o differs from stdout"
expect_rc 0 "gate identical" "$P" gate --no-ptxas --baseline tests/gate/base.ptx --candidate tests/gate/cand_same.ptx
expect_rc 0 "gate improved" "$P" gate --no-ptxas --baseline tests/gate/base.ptx --candidate tests/gate/cand_improved.ptx
expect_rc 1 "gate f32->f64" "$P" gate --no-ptxas --baseline tests/gate/base.ptx --candidate tests/gate/cand_f64.ptx
expect_rc 1 "gate invalid candidate" "$P" gate --no-ptxas --baseline tests/gate/base.ptx --candidate tests/gate/cand_invalid.ptx
expect_rc 2 "gate invalid baseline" "$P" gate --no-ptxas --baseline tests/gate/cand_invalid.ptx --candidate tests/gate/base.ptx
expect_rc 2 "gate usage" "$P" gate --baseline tests/gate/base.ptx

# fmt output is valid, parses back to itself (idempotent) and reads stdin
"$P" fmt examples/vecadd.ptx >"$tmp/a.ptx"
expect_rc 0 "fmt output validates" "$P" check "$tmp/a.ptx"
"$P" fmt "$tmp/a.ptx" >"$tmp/b.ptx"
cmp -s "$tmp/a.ptx" "$tmp/b.ptx" && ok || bad "fmt is not idempotent"

# --ptxas merges ptxas's verdict when ptxas is available
if command -v ptxas >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
    "$P" check --json --ptxas examples/vecadd.ptx >"$tmp/j" 2>&1
    grep -q '"registers"' "$tmp/j" && ok || bad "check --ptxas lacks the resource report"
else
    echo "SKIPPED: check --ptxas (ptxas not found)"
fi
# the ISA table dumps as JSON with every form
n=$("$P" isa | grep -c '"opcode"')
[ "$n" -gt 100 ] && ok || bad "isa dump has only $n forms"

# ptxgen logits on a GGUF file (tests/model/gguf_engine's tiny qwen2) with its LoRA adapter as a side path
"$P" logits --model tests/model/gguf_engine/tiny_qwen2.gguf --adapter tests/model/gguf_engine/tiny_qwen2_lora \
    --ids 1,5,17,42 --steps 2 --top 3 >"$tmp/gl" 2>&1
grep -q '"dtype":"gguf"' "$tmp/gl" && grep -q '"steps":\[{' "$tmp/gl" && ok || bad "logits on a .gguf: $(head -c 300 "$tmp/gl")"
expect_rc 2 "logits: a compute dtype for a .gguf" "$P" logits --model tests/model/gguf_engine/tiny_qwen2.gguf --dtype bf16 --ids 1,2

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
