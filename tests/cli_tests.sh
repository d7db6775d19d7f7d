#!/usr/bin/env bash
# cli_tests.sh — exit codes, diagnostic format and golden files of the CLI.
# UPDATE_GOLDEN=1 bash tests/cli_tests.sh rewrites the golden files.
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
. tests/testlib.sh
golden() { # golden NAME CMD... : compare stdout with tests/golden/NAME
    local name=$1; shift
    local out
    out=$("$@" 2>/dev/null)
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then printf '%s\n' "$out" >"tests/golden/$name"; ok; return; fi
    if [ "$out" = "$(cat "tests/golden/$name" 2>/dev/null)" ]; then ok; else
        bad "golden $name differs:"; diff <(printf '%s\n' "$out") "tests/golden/$name" | head -20; fi
}
# PTXGEN_QUICK=1 (make check): short generations for eval, no nvcc-built super-optimization pairs
QUICK=${PTXGEN_QUICK:-0}
EVAL_QUICK=()
[ "$QUICK" = 1 ] && EVAL_QUICK=(--max-tokens 128)

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
if [ "$QUICK" = 1 ]; then
    echo "SKIPPED: prompts --superopt (PTXGEN_QUICK=1)"
elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
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
# speculative decoding: the same module as plain decoding, fewer model steps; the n-gram table
"$P" ngram --in tests/golden/ngram_pairs.jsonl --tokenizer tests/gen/tiny/tokenizer.json --order 3 --min-count 1 --out "$tmp/ng.bin" 2>/dev/null \
    && cmp -s "$tmp/ng.bin" tests/golden/ngram_tiny.bin && ok || bad "ptxgen ngram: the table differs from tests/golden/ngram_tiny.bin"
"$P" gen --model tests/gen/tiny --json --samples 1 --seed 5 --temperature 1 --max-tokens 200 --draft 0 -o "$tmp/d0.ptx" "vector add" >"$tmp/d0.json" 2>/dev/null
"$P" gen --model tests/gen/tiny --json --samples 1 --seed 5 --temperature 1 --max-tokens 200 --draft 8 --ngram "$tmp/ng.bin" -o "$tmp/d8.ptx" "vector add" >"$tmp/d8.json" 2>/dev/null
cmp -s "$tmp/d0.ptx" "$tmp/d8.ptx" && python3 -c "
import json, sys
a, b = (json.load(open(f))['speculative'] for f in sys.argv[1:3])
assert a['draft_max'] == 0 and a['drafted'] == 0 and b['draft_max'] == 8 and b['model_steps'] <= a['model_steps'], (a, b)
assert all(s['rows'] == s['model_steps'] + s['drafted'] for s in (a, b)), (a, b)" "$tmp/d0.json" "$tmp/d8.json" \
    && ok || bad "gen --draft 8 must write what --draft 0 writes: $(head -c 300 "$tmp/d8.json")"
"$P" ngram --in tests/golden/ngram_pairs.jsonl --tokenizer tests/tokenizer/gpt2.json --out "$tmp/ng_gpt2.bin" 2>/dev/null
expect_rc 2 "gen --ngram of another tokenizer" "$P" gen --model tests/gen/tiny --samples 1 --ngram "$tmp/ng_gpt2.bin" "x"
"$P" gen --model tests/gen/tiny --samples 1 --ngram "$tmp/ng_gpt2.bin" "x" 2>&1 | grep -q "another tokenizer" && ok || bad "gen --ngram names the cause"
expect_rc 2 "ngram without --out" "$P" ngram --in tests/golden/ngram_pairs.jsonl --tokenizer tests/gen/tiny/tokenizer.json
expect_rc 2 "ngram of a missing file" "$P" ngram --in "$tmp/nope.jsonl" --tokenizer tests/gen/tiny/tokenizer.json --out "$tmp/x.bin"
expect_rc 2 "gen --draft out of range" "$P" gen --model tests/gen/tiny --draft 65 "x"
# --draft-fixed weighs the drafts against a dearer step: other drafts, never another module
"$P" gen --model tests/gen/tiny --json --samples 1 --seed 5 --temperature 1 --max-tokens 200 --draft 8 --draft-fixed 8 --ngram "$tmp/ng.bin" -o "$tmp/d8f.ptx" "vector add" >/dev/null 2>&1
cmp -s "$tmp/d0.ptx" "$tmp/d8f.ptx" && ok || bad "gen --draft 8 --draft-fixed 8 must write what --draft 0 writes"
expect_rc 2 "gen --draft-fixed out of range" "$P" gen --model tests/gen/tiny --draft-fixed 65 "x"
expect_rc 2 "gen --draft-fixed not a number" "$P" gen --model tests/gen/tiny --draft-fixed two "x"
# the register style the constraint admits: numbered unless --regs named (or the model's base.json "regs")
"$P" gen --model tests/gen/tiny --json --samples 1 --max-tokens 64 --regs named -o "$tmp/rn.ptx" "vector add" >"$tmp/rn.json" 2>/dev/null
grep -q '"regs": "named"' "$tmp/rn.json" && grep -q '"regs": "numbered"' "$tmp/d0.json" && ok \
    || bad "gen --json must say the register style: $(grep -o '"regs": "[a-z]*"' "$tmp/rn.json" "$tmp/d0.json")"
expect_rc 2 "gen --regs of an unknown style" "$P" gen --model tests/gen/tiny --regs roman "x"
PTXGEN_EVAL_TMP=1 "$P" eval --suite bench/suite --only relu6 --model tests/gen/tiny --no-gpu --no-progress "${EVAL_QUICK[@]}" \
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

# a run cut short (a shard killed by its time limit): the report says which samples have no verdict
python3 - "$tmp/eval.json" "$tmp/eval_cut.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["planned"] == {"samples": 15, "tasks": {"relu6": 15}}, d.get("planned")
d["rows"] = d["rows"][:12]
json.dump(d, open(sys.argv[2], "w"))
PY
"$P" eval --merge "$tmp/eval_cut.json" --out "$tmp/eval_cutm.json" >/dev/null 2>&1 && "$P" eval --report "$tmp/eval_cutm.json" >"$tmp/eval_cut.md" 2>&1
grep -q '3 of 15 planned samples have no verdict.*relu6 12/15' "$tmp/eval_cut.md" && ok || bad "a cut run's report must name the samples without a verdict: $(head -c 600 "$tmp/eval_cut.md")"
grep -q 'planned samples have no verdict' "$tmp/eval.md" && bad "a complete run's report claims missing verdicts" || ok

# re-verifying what a cut run never reached repeats keys: --merge refuses, --replace lets the re-run win
rm -f "$tmp/eval_dup.json"
"$P" eval --merge "$tmp/eval_cut.json" "$tmp/eval.json" --out "$tmp/eval_dup.json" >/dev/null 2>"$tmp/dup.err"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "eval --merge of repeated keys: exit $rc, want 2"
grep -qF "relu6/terse/full/0 is in both $tmp/eval_cut.json and $tmp/eval.json" "$tmp/dup.err" && ok || bad "eval --merge must name the repeated key and both files: $(cat "$tmp/dup.err")"
[ -e "$tmp/eval_dup.json" ] && bad "eval --merge wrote a file despite repeated keys" || ok
expect_rc 2 "eval --merge of a file with itself" "$P" eval --merge "$tmp/eval.json" "$tmp/eval.json" --out "$tmp/eval_dup.json"
python3 - "$tmp/eval.json" "$tmp/eval_rerun.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rows"] = [dict(r, correct=False) for r in d["rows"][9:15]]   # rows 9-11 repeat the cut run's
json.dump(d, open(sys.argv[2], "w"))
PY
"$P" eval --merge "$tmp/eval_cut.json" "$tmp/eval_rerun.json" --replace --out "$tmp/eval_rep.json" >/dev/null 2>"$tmp/rep.err" \
    && "$P" eval --report "$tmp/eval_rep.json" >"$tmp/eval_rep.md" 2>&1 && ok || bad "eval --merge --replace failed: $(cat "$tmp/rep.err")"
grep -q '3 rows replaced' "$tmp/rep.err" && ok || bad "eval --merge --replace must say how many rows it replaced: $(cat "$tmp/rep.err")"
python3 - "$tmp/eval_rep.json" "$tmp/eval.json" <<'PY' && ok || bad "eval --merge --replace: rows or planned wrong"
import json, sys
d, full = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
key = lambda r: (r["task"], r["description"], r["config"], r.get("sample", 0))
assert [key(r) for r in d["rows"]] == [key(r) for r in full["rows"]], [key(r) for r in d["rows"]]
assert [r["correct"] for r in d["rows"]] == ["not run"] * 9 + [False] * 6, [r["correct"] for r in d["rows"]]
assert d["planned"] == {"samples": 15, "tasks": {"relu6": 15}}, d["planned"]
PY
grep -q 'planned samples have no verdict' "$tmp/eval_rep.md" && bad "a cut run completed by a re-run still claims missing verdicts" || ok

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
# ---- hostile input, honest verdicts (issue 19) --------------------------------------------
T=tests/gen/tiny
# a task name cannot walk out of eval --keep's folder (task specs must name one plain file)
mkdir -p "$tmp/suite/evil" "$tmp/keep"
python3 -c "import json,sys; t=json.load(open('bench/suite/relu6/task.json')); t['name']='../../escaped'; json.dump(t,open(sys.argv[1],'w'))" \
    "$tmp/suite/evil/task.json"
cp bench/suite/relu6/reference.cu "$tmp/suite/evil/"
"$P" eval --suite "$tmp/suite" --model "$T" --no-gpu --no-progress --no-ablations --keep "$tmp/keep/k" --out "$tmp/evil.json" \
    >/dev/null 2>"$tmp/evil.err"
rc=$?
[ "$rc" -ne 0 ] && grep -q '\$\.name' "$tmp/evil.err" && ok || bad "eval with a task named ../../escaped: exit $rc, $(head -c 200 "$tmp/evil.err")"
find "$tmp" -name 'escaped*' | grep -q . && bad "a kept kernel escaped its folder" || ok
# prompts never overwrites its input (same file, or a link to it); --arch must be a target
printf '{"id":"a"}\n' >"$tmp/same.jsonl"
cp "$tmp/same.jsonl" "$tmp/same.orig"
ln -sf "$tmp/same.jsonl" "$tmp/link.jsonl"
expect_rc 2 "prompts --in X --out X" "$P" prompts --in "$tmp/same.jsonl" --out "$tmp/same.jsonl"
expect_rc 2 "prompts --out a link to its input" "$P" prompts --in "$tmp/same.jsonl" --out "$tmp/link.jsonl"
cmp -s "$tmp/same.jsonl" "$tmp/same.orig" && ok || bad "prompts overwrote its input"
expect_rc 2 "prompts --arch bogus" "$P" prompts --in "$tmp/same.jsonl" --out "$tmp/o.jsonl" --arch bogus
# register counts: fmt --tighten-regs (golden), --widen-regs N, their errors; prompts --widen-regs
golden fmt_tighten_regs.ptx "$P" fmt --tighten-regs corpus/argmax_f32/kernel.ptx
"$P" fmt --widen-regs 512 corpus/argmax_f32/kernel.ptx >"$tmp/wide.ptx" 2>/dev/null
grep -q '%r<512>;' "$tmp/wide.ptx" && "$P" check -q "$tmp/wide.ptx" >/dev/null 2>&1 &&
    [ "$("$P" fmt --tighten-regs "$tmp/wide.ptx")" = "$(cat tests/golden/fmt_tighten_regs.ptx)" ] && ok ||
    bad "fmt --widen-regs 512 then --tighten-regs is not fmt --tighten-regs"
expect_rc 2 "fmt --widen-regs 0" "$P" fmt --widen-regs 0 corpus/argmax_f32/kernel.ptx
expect_rc 2 "fmt --widen-regs 513" "$P" fmt --widen-regs 513 corpus/argmax_f32/kernel.ptx
expect_rc 2 "fmt --widen-regs with --tighten-regs" "$P" fmt --widen-regs 64 --tighten-regs corpus/argmax_f32/kernel.ptx
expect_rc 2 "prompts --widen-regs x" "$P" prompts --in "$tmp/same.jsonl" --out "$tmp/o.jsonl" --widen-regs x
python3 -c "import json,sys; print(json.dumps({'id':'w1','family':'t','description':'argmax','arch':'sm_90','split':'train','ptx_code':open(sys.argv[1]).read()}))" \
    corpus/argmax_f32/kernel.ptx >"$tmp/one.jsonl"
"$P" prompts --in "$tmp/one.jsonl" --out "$tmp/wide.jsonl" --format chatml --widen-regs 64 2>/dev/null
python3 -c "
import json, re, sys
c = json.loads(open(sys.argv[1]).readline())['completion']
n = [int(k) for k in re.findall(r'\.reg \.\w+ %\w+<(\d+)>', c)]
sys.exit(0 if n and all(k >= 64 for k in n) else 1)" "$tmp/wide.jsonl" && ok || bad "prompts --widen-regs 64: a declaration below 64"
# the canonical register style: fmt --renumber-regs (golden; = --regs canonical; a fixed point; valid),
# its errors; prompts --regs canonical (numbers in order of first appearance); synth --regs canonical
golden fmt_renumber_regs.ptx "$P" fmt --renumber-regs corpus/argmax_f32/kernel.ptx
"$P" fmt --renumber-regs corpus/argmax_f32/kernel.ptx >"$tmp/rn1.ptx" 2>/dev/null
[ "$("$P" fmt --regs canonical corpus/argmax_f32/kernel.ptx 2>/dev/null)" = "$(cat "$tmp/rn1.ptx")" ] && ok ||
    bad "fmt --regs canonical is not fmt --renumber-regs"
"$P" check -q "$tmp/rn1.ptx" >/dev/null 2>&1 && [ "$("$P" fmt --renumber-regs "$tmp/rn1.ptx")" = "$(cat "$tmp/rn1.ptx")" ] && ok ||
    bad "fmt --renumber-regs: invalid, or not a fixed point"
expect_rc 2 "fmt --renumber-regs with --regs named" "$P" fmt --renumber-regs --regs named corpus/argmax_f32/kernel.ptx
expect_rc 2 "fmt --renumber-regs with --widen-regs" "$P" fmt --renumber-regs --widen-regs 64 corpus/argmax_f32/kernel.ptx
expect_rc 2 "fmt --regs roman" "$P" fmt --regs roman corpus/argmax_f32/kernel.ptx
expect_rc 2 "prompts --regs canonical --widen-regs" "$P" prompts --in "$tmp/one.jsonl" --out "$tmp/o.jsonl" --regs canonical --widen-regs 64
expect_rc 2 "prompts --regs roman" "$P" prompts --in "$tmp/one.jsonl" --out "$tmp/o.jsonl" --regs roman
"$P" prompts --in "$tmp/one.jsonl" --out "$tmp/canon.jsonl" --format chatml --regs canonical 2>/dev/null
python3 -c "
import json, re, sys
c = json.loads(open(sys.argv[1]).readline())['completion']
body = c[c.index('{'):]
decl = dict(re.findall(r'\.reg \.\w+ (%[a-z]+)<(\d+)>', body))
seen = {}
for base, num in re.findall(r'(%[a-z]+)(\d+)\b', re.sub(r'\.reg [^;]*;', '', body)):
    if base not in decl: continue
    seen.setdefault(base, [])
    if int(num) not in seen[base]: seen[base].append(int(num))
ok = decl and all(v == list(range(1, len(v) + 1)) and int(decl[b]) == len(v) + 1 for b, v in seen.items())
sys.exit(0 if ok else 1)" "$tmp/canon.jsonl" && ok || bad "prompts --regs canonical: registers not numbered 1, 2, ... in order of first appearance"
expect_rc 2 "synth --regs roman" "$P" synth --count 1 --seed 1 --regs roman --out "$tmp/sr.jsonl"
if command -v ptxas >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
    # in a folder of its own: its meta file must not meet the later "a refused synth wrote a meta file" check
    mkdir -p "$tmp/canon"
    PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin" "$P" synth --count 3 --seed 4 --format plain --sources hand --regs canonical \
        --no-progress --out "$tmp/canon/sc.jsonl" >/dev/null 2>"$tmp/canon/sc.err"
    rc=$?
    python3 - "$tmp/canon/sc.jsonl" "$P" "$tmp/canon/k.ptx" <<'PY' && [ "$rc" -eq 0 ] && ok || bad "synth --regs canonical: exit $rc: $(tail -2 "$tmp/canon/sc.err")"
import json, subprocess, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(rows) == 3 and all(r.get('regs') == 'canonical' for r in rows)
for r in rows:   # renumbering a canonical sample again changes nothing
    with open(sys.argv[3], 'w') as f:
        f.write(r['ptx_code'])
    a = subprocess.run([sys.argv[2], 'fmt', sys.argv[3]], capture_output=True, text=True).stdout
    b = subprocess.run([sys.argv[2], 'fmt', '--renumber-regs', sys.argv[3]], capture_output=True, text=True).stdout
    assert a and a == b, r['id']
PY
else
    echo "SKIPPED: synth --regs canonical (ptxas not found)"
fi
# a launch expression nested 50k deep is a spec error, not a stack overflow (run, gen --task)
mkdir -p "$tmp/deep"
python3 -c "import json,sys; t=json.load(open('corpus/saxpy/task.json')); t['launch']['grid']=['('*50000+'n'+')'*50000]; json.dump(t,open(sys.argv[1],'w'))" \
    "$tmp/deep/task.json"
"$P" run --dry-run "$tmp/deep/task.json" corpus/saxpy/kernel.ptx >/dev/null 2>"$tmp/deep.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "nested deeper" "$tmp/deep.err" && ok || bad "run on a 50k-deep grid: exit $rc"
"$P" gen --model "$T" --task "$tmp/deep/task.json" >/dev/null 2>"$tmp/deep.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "nested deeper" "$tmp/deep.err" && ok || bad "gen --task on a 50k-deep grid: exit $rc"
# empty inputs: no undefined behaviour (the sanitized binary aborts on any)
: >"$tmp/empty.ptx"
: >"$tmp/empty.jsonl"
"$P" fmt "$tmp/empty.ptx" >/dev/null 2>&1; rc=$?
[ "$rc" -le 1 ] && ok || bad "fmt of an empty file: exit $rc"
expect_rc 0 "synth --stats of an empty file" "$P" synth --stats "$tmp/empty.jsonl"
expect_rc 0 "tokenize --stats of an empty file" "$P" tokenize --tokenizer "$T/tokenizer.json" --stats "$tmp/empty.jsonl"
# eval --report on JSON of the wrong shape: a message naming the field, exit 2
echo '{"rows": [1]}' >"$tmp/shape.json"
"$P" eval --report "$tmp/shape.json" >"$tmp/shape.out" 2>"$tmp/shape.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'rows\[0\]' "$tmp/shape.err" && ! grep -q "(null)" "$tmp/shape.out" && ok || bad "eval --report on a wrong shape: exit $rc"
# nonsense flag values are refused with a message naming the flag
for args in "--temperature nan" "--temperature inf" "--temperature -1" "--top-k 0" "--top-k -5" "--threads 0" "--threads -3" \
            "--threads 100000" "--samples -1" "--samples abc" "--max-tokens 0" "--seed -1"; do
    read -r flag val <<<"$args"
    "$P" gen --model "$T" "$flag" "$val" "vector add" >/dev/null 2>"$tmp/flag.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q -- "$flag" "$tmp/flag.err" && ! grep -q "^usage" "$tmp/flag.err" && ok || bad "gen $args: exit $rc: $(head -c 200 "$tmp/flag.err")"
    "$P" eval --suite bench/suite --model "$T" "$flag" "$val" >/dev/null 2>"$tmp/flag.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q -- "$flag" "$tmp/flag.err" && ok || bad "eval $args: exit $rc: $(head -c 200 "$tmp/flag.err")"
done
expect_rc 2 "gen with an empty description" "$P" gen --model "$T" "  "
expect_rc 2 "gen -f an empty file" "$P" gen --model "$T" -f "$tmp/empty.ptx"
expect_rc 2 "gen --arch bogus" "$P" gen --model "$T" --arch bogus "vector add"
"$P" gen --help | grep -q -- "--arch sm_80" && ok || bad "gen --help does not document the sm_80 default"
# logits past the model's context is refused, as gen refuses it
expect_rc 2 "logits past the context" "$P" logits --model "$T" --ids 1,2,3 --steps 5000
# synth: checked before the work, and a resume must match the interrupted run
expect_rc 2 "synth --arch sm_1" "$P" synth --count 5 --seed 1 --arch sm_1 --out "$tmp/s.jsonl"
expect_rc 2 "synth --out a folder" "$P" synth --count 5 --seed 1 --out "$tmp/deep"
echo 'garbage' >"$tmp/garbage.json"
expect_rc 2 "synth --results garbage" "$P" synth --count 5 --seed 1 --results "$tmp/garbage.json" --out "$tmp/s.jsonl"
: >"$tmp/r.jsonl.partial"
printf '16 0\nargs --count 5 --seed 1 --arch sm_90 --sources 15 --family-pct 0 --corpus corpus --exclude - --results -\n' >"$tmp/r.jsonl.partial.state"
"$P" synth --count 5 --seed 2 --out "$tmp/r.jsonl" --no-progress >/dev/null 2>"$tmp/r.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "other arguments" "$tmp/r.err" && ok || bad "synth resumed with another seed: exit $rc"
ls "$tmp"/*.meta.json >/dev/null 2>&1 && bad "a refused synth wrote a meta file" || ok
# synth --family-weight: a bad item is refused before any work (exit 2), naming it
"$P" synth --help | grep -q -- "--family-weight NAME=W" && ok || bad "synth --help does not document --family-weight"
for case in "sofmax=10|unknown family 'sofmax'" "softmax=abc|'softmax=abc'" "softmax=101|'softmax=101'" \
            "softmax=-1|'softmax=-1'" "softmax|'softmax'" "softmax=2,softmax=3|named twice" "softmax=1,|empty item"; do
    spec=${case%%|*} want=${case#*|}
    "$P" synth --count 5 --seed 1 --family-weight "$spec" --out "$tmp/fw.jsonl" --no-progress >/dev/null 2>"$tmp/fw.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$want" "$tmp/fw.err" && ok || bad "synth --family-weight $spec: exit $rc: $(head -c 300 "$tmp/fw.err")"
done
# a family named in two options is a duplicate too; the message lists the family names
"$P" synth --count 5 --seed 1 --family-weight softmax=2 --family-weight softmax=3 --out "$tmp/fw.jsonl" 2>"$tmp/fw.err" >/dev/null
[ $? -eq 2 ] && grep -q "named twice" "$tmp/fw.err" && ok || bad "a family in two --family-weight options: $(head -c 300 "$tmp/fw.err")"
families=$("$P" synth --count 5 --seed 1 --family-weight nosuch=1 --out "$tmp/fw.jsonl" 2>&1 | sed -n 's/.*(families: \(.*\))$/\1/p')
[[ " $families " == *" map "* && " $families " == *" softmax "* ]] && ok ||
    bad "the unknown-family message does not list the families: $families"
allzero=$(for f in $families; do printf '%s=0,' "$f"; done)
"$P" synth --count 5 --seed 1 --family-weight "${allzero%,}" --out "$tmp/fw.jsonl" 2>"$tmp/fw.err" >/dev/null
[ $? -eq 2 ] && grep -q "weight 0" "$tmp/fw.err" && ok || bad "every family at weight 0: $(head -c 300 "$tmp/fw.err")"
ls "$tmp"/fw.jsonl* >/dev/null 2>&1 && bad "a refused --family-weight run wrote files" || ok
# synth outside the repository finds the corpus next to the binary; its counts agree with its meta file
if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
    PX=$(cd "$(dirname "$P")" && pwd)/$(basename "$P")
    (cd "$tmp" && PATH="$PATH:/usr/local/cuda/bin" "$PX" synth --count 4 --seed 3 --jobs 100000 --out "$tmp/o4.jsonl" \
        --no-progress >/dev/null 2>"$tmp/synth.err")
    rc=$?
    [ "$rc" -eq 0 ] && grep -q "capped at" "$tmp/synth.err" && ok || bad "synth from another folder with --jobs 100000: exit $rc: $(tail -2 "$tmp/synth.err")"
    python3 - "$tmp/o4.jsonl.meta.json" "$tmp/synth.err" <<'PY' && ok || bad "synth's failure counts disagree"
import json, re, sys
m = json.load(open(sys.argv[1]))
printed = int(re.search(r"(\d+) failed verification", open(sys.argv[2]).read()).group(1))
assert m["failed_verification"] == printed == sum(f["failed"] for f in m["by_family"].values()), (m, printed)
PY
    # a heavy weight dominates a small run: softmax 10, map and reduce 1, the other families 0 (so
    # softmax is the one nvcc family compiled); the sidecar records the weights
    fw="softmax=10"
    for f in $families; do case $f in softmax|map|reduce) ;; *) fw="$fw,$f=0" ;; esac; done
    "$P" synth --count 20 --seed 5 --family-pct 100 --family-weight "$fw" --no-progress --out "$tmp/fw20.jsonl" 2>"$tmp/fw20.err"
    rc=$?
    "$P" synth --stats "$tmp/fw20.jsonl" >"$tmp/fw20.stats" 2>&1
    python3 - "$tmp/fw20.stats" "$tmp/fw20.jsonl.meta.json" <<'PY' && [ "$rc" -eq 0 ] && ok || bad "synth --family-weight softmax=10: exit $rc: $(tail -2 "$tmp/fw20.err")"
import json, sys
st, meta = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fam = st["by_family"]
assert st["samples"] == 20, st
assert fam.get("softmax", 0) >= 10 and fam["softmax"] == max(fam.values()), fam
assert meta["family_weight"].startswith("softmax=10,"), meta
PY
else
    echo "SKIPPED: synth runs (ptxas not found)"
fi
# ptxas that hangs is stopped; no temp file is left behind by stats --ptxas, eval, or an interrupted gen
mkdir -p "$tmp/t"
printf '#!/bin/sh\nexec sleep 60\n' >"$tmp/hang-ptxas"
chmod +x "$tmp/hang-ptxas"
TMPDIR="$tmp/t" PTXAS="$tmp/hang-ptxas" PTXGEN_PTXAS_TIMEOUT=1 "$P" stats --ptxas examples/vecadd.ptx >/dev/null 2>"$tmp/hang.err"
grep -q "did not finish within 1 s" "$tmp/hang.err" && ok || bad "a hanging ptxas was not stopped: $(head -c 200 "$tmp/hang.err")"
TMPDIR="$tmp/t" "$P" eval --suite bench/suite --only relu6 --model "$T" --no-gpu --no-progress --no-ablations --max-tokens 64 \
    --out "$tmp/e2.json" >/dev/null 2>&1
TMPDIR="$tmp/t" timeout -s TERM 2 "$P" gen --model "$T" --max-tokens 100000 --samples 1000 "vector add" >/dev/null 2>&1
[ -z "$(ls -A "$tmp/t")" ] && ok || bad "temp files left behind: $(ls "$tmp/t")"
# eval without a GPU says "not run", never "0/5 correct"; --only with no match says so
grep -q "| relu6 | elementwise | 5/5 | 5/5 | not run |" "$tmp/eval.md" && ok || bad "eval --no-gpu per-task table: $(grep relu6 "$tmp/eval.md")"
"$P" eval --suite bench/suite --only nosuchtask --model "$T" --no-gpu >/dev/null 2>"$tmp/only.err"
grep -q "only nosuchtask: no such task" "$tmp/only.err" && ok || bad "eval --only nosuchtask: $(cat "$tmp/only.err")"
# gen says what it verified; names the kernel after the request or --name; --verify gpu without a GPU exits 3
"$P" gen --model "$T" --samples 1 --max-tokens 200 --json -o "$tmp/va.ptx" "tiled 16x16 SGEMM with shared memory" >"$tmp/va.json" 2>"$tmp/va.err"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['semantics']=='not verified' and 'no task' in d['semantics_note'], d" \
    "$tmp/va.json" && ok || bad "gen --json lacks the semantics verdict"
grep -q "semantics not verified" "$tmp/va.err" && ok || bad "gen's summary does not say the semantics were not verified"
grep -q '^\.visible \.entry tiled_16x16_sgemm($' "$tmp/va.ptx" && ok || bad "the kernel is not named after the request: $(grep entry "$tmp/va.ptx")"
"$P" gen --model "$T" --samples 1 --max-tokens 200 --name my_kernel -o "$tmp/vn.ptx" "vector add" 2>/dev/null
grep -q '^\.visible \.entry my_kernel($' "$tmp/vn.ptx" && ok || bad "--name was not used"
expect_rc 2 "gen --name with a bad identifier" "$P" gen --model "$T" --name "../x" "vector add"
if ! "$P" devinfo >/dev/null 2>&1; then
    expect_rc 3 "gen --verify gpu without a GPU" "$P" gen --model "$T" --task corpus/saxpy/task.json --verify gpu
    # best-of-k without a GPU: the best candidate is still written, and the verdict says "not verified"
    "$P" gen --model "$T" --task corpus/saxpy/task.json --verify gpu --samples 2 --max-tokens 200 --json -o "$tmp/bk.ptx" \
        >"$tmp/bk.json" 2>/dev/null
    rc=$?
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['semantics']=='not verified' and d['semantics_note'].startswith('no GPU'), d" \
        "$tmp/bk.json" && [ "$rc" -eq 3 ] && [ -s "$tmp/bk.ptx" ] && ok || bad "gen --verify gpu --samples 2 without a GPU: exit $rc, $(head -c 300 "$tmp/bk.json")"
fi
# task-only training tasks: N task folders; --seed is required; a missing --exclude folder is an error
"$P" synth --tasks-only "$tmp/pool" --count 4 --seed 5 --exclude bench/suite 2>/dev/null
[ "$(ls "$tmp/pool" | wc -l)" -eq 4 ] && ls "$tmp"/pool/*/task.json >/dev/null 2>&1 && ok || bad "synth --tasks-only: $(ls "$tmp/pool" 2>&1)"
expect_rc 2 "synth --tasks-only without --seed" "$P" synth --tasks-only "$tmp/pool2" --count 2
expect_rc 2 "synth --tasks-only with a missing --exclude folder" "$P" synth --tasks-only "$tmp/pool3" --count 2 --seed 1 --exclude "$tmp/nope"
# gate pairs kernels of other names: --pair, or the only kernel of each file
sed 's/\.entry poly(/.entry poly_v2(/' tests/gate/base.ptx >"$tmp/renamed.ptx"
expect_rc 1 "gate by name fails on a renamed kernel" "$P" gate --no-ptxas --baseline tests/gate/base.ptx --candidate "$tmp/renamed.ptx"
expect_rc 0 "gate --pair poly=poly_v2" "$P" gate --no-ptxas --pair poly=poly_v2 --baseline tests/gate/base.ptx --candidate "$tmp/renamed.ptx"
expect_rc 2 "gate --pair with an unknown kernel" "$P" gate --no-ptxas --pair poly=nope --baseline tests/gate/base.ptx --candidate "$tmp/renamed.ptx"
sed 's/\.entry poly(/.entry other(/' tests/gate/cand_missing.ptx >"$tmp/one.ptx"
expect_rc 0 "gate pairs the only kernel of each file" "$P" gate --no-ptxas --baseline tests/gate/cand_missing.ptx --candidate "$tmp/one.ptx"

# CUDA C twins: prompts --twin pairs (only samples with CUDA C), gen --twin-file (the user's twin:
# written beside the PTX, an inferred task, a verdict that never claims more than was shown)
python3 - "$tmp/twin_in.jsonl" <<'PY'
import json, sys
ptx = open("examples/vecadd.ptx").read()
cu = 'extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n'
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"id": "t1", "description": "c = a + b", "ptx_code": ptx, "arch": "sm_80", "cuda_c": cu}) + "\n")
    f.write(json.dumps({"id": "t2", "description": "c = a + b", "ptx_code": ptx, "arch": "sm_80"}) + "\n")
PY
"$P" prompts --twin --in "$tmp/twin_in.jsonl" --out "$tmp/twin_pairs.jsonl" 2>"$tmp/twin_pairs.err" && ok || bad "prompts --twin failed"
python3 - "$tmp/twin_pairs.jsonl" <<'PY' && ok || bad "prompts --twin pairs: $(head -c 300 "$tmp/twin_pairs.err")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1 and rows[0]["id"] == "t1" and rows[0]["turn"] == "twin", rows
r = rows[0]
assert "Write the CUDA C twin of this kernel" in r["prompt"] and ".entry vecadd(" in r["prompt"] and "<|end|>" in r["prompt"], r["prompt"][-300:]
assert r["completion"].startswith('extern "C" __global__ void vecadd(') and r["completion"].endswith("}\n<|end|>"), r["completion"]
PY
grep -q "1 samples without CUDA C skipped" "$tmp/twin_pairs.err" && ok || bad "prompts --twin does not count the skipped sample"
mkdir -p "$tmp/tw"
cp tests/twin/saxpy.cu "$tmp/tw/user_twin.cu"
NVCC=/nonexistent/nvcc "$P" gen --model "$T" --samples 1 --max-tokens 200 --json --twin-file "$tmp/tw/user_twin.cu" \
    -o "$tmp/tw/saxpy.ptx" "y = a*x + y" >"$tmp/tw/nonvcc.json" 2>"$tmp/tw/nonvcc.err"
rc=$?
python3 - "$tmp/tw" "$rc" <<'PY' && ok || bad "gen --twin-file without nvcc: exit $rc, $(tail -c 300 "$tmp/tw/nonvcc.err")"
import json, sys, os
d, rc = sys.argv[1], int(sys.argv[2])
j = json.load(open(f"{d}/nonvcc.json"))
t = j["twin"]
assert rc == (1 if j["unfinished"] else 0) and t["verdict"] == "no-nvcc" and t["line"] == "twin written; nvcc not found; not compiled", (rc, t)
assert open(f"{d}/saxpy.cu").read() == open(f"{d}/user_twin.cu").read()
assert j["semantics"] == "not verified" and ".entry saxpy(" in open(f"{d}/saxpy.ptx").read()
spec = json.load(open(t["task_file"]))
assert spec["reference"] == {"kind": "cu", "file": "saxpy.cu", "must_write": True} and [p["len"] for p in spec["params"][:2]] == ["n", "n"], spec
PY
"$P" gen --model "$T" --samples 1 --max-tokens 120 --task "$tmp/tw/saxpy.task.json" -o "$tmp/tw/again.ptx" >/dev/null 2>&1
rc=$?   # 1: the random model's kernel is cut at 120 tokens (unfinished); 2 would be a task that does not load
[ "$rc" -le 1 ] && [ -s "$tmp/tw/again.ptx" ] && ok || bad "the inferred task does not load (gen --task saxpy.task.json): exit $rc"
if PATH="$PATH:/usr/local/cuda/bin" command -v nvcc >/dev/null && ! "$P" devinfo >/dev/null 2>&1; then
    expect_rc 2 "ptxgen twin: --task-out away from the PTX's folder" env PATH="$PATH:/usr/local/cuda/bin" "$P" twin \
        tests/twin/saxpy_good.ptx "$tmp/tw/saxpy.cu" --task-out "$tmp/tw/x.task.json"
    cp tests/twin/saxpy_good.ptx "$tmp/tw/k.ptx"
    PATH="$PATH:/usr/local/cuda/bin" "$P" twin --json "$tmp/tw/k.ptx" "$tmp/tw/saxpy.cu" >"$tmp/tw/k.json" 2>"$tmp/tw/k.err"
    rc=$?
    grep -q '"verdict": "not-run"' "$tmp/tw/k.json" && grep -q 'twin compiles; not run (no GPU' "$tmp/tw/k.json" && [ "$rc" -eq 0 ] \
        && [ -f "$tmp/tw/k.cu" ] && [ -f "$tmp/tw/k.task.json" ] && ok || bad "ptxgen twin without a GPU: exit $rc $(cat "$tmp/tw/k.json")"
else
    echo "SKIPPED: ptxgen twin with nvcc and no GPU (nvcc missing or a GPU present: gpu_tests.sh covers it)"
fi
printf 'extern "C" __global__ void other(float *y) { y[0] = 1.0f; }\n' >"$tmp/tw/o.cu"
cp tests/twin/saxpy_good.ptx "$tmp/tw/o.ptx"
expect_rc 2 "ptxgen twin: a copy would overwrite another KERNEL.cu" "$P" twin "$tmp/tw/o.ptx" tests/twin/saxpy.cu --json
rm -f "$tmp/tw/o.cu"
"$P" twin "$tmp/tw/o.ptx" tests/twin/not_extern.cu >/dev/null 2>"$tmp/tw/ne.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'not_extern.cu:1:1: error\[E704\].*not extern "C"' "$tmp/tw/ne.err" && ok || bad "twin not extern C: exit $rc $(cat "$tmp/tw/ne.err")"
expect_rc 2 "gen --twin-file: a twin ptxgen cannot read" "$P" gen --model "$T" --twin-file tests/twin/ptrptr.cu "x"
expect_rc 2 "gen --twin-file with --name naming another kernel" "$P" gen --model "$T" --twin-file tests/twin/saxpy.cu --name other "x"
# the model's own twin (the tiny random model writes noise): written with its GENERATED_BY line, and the
# verdict never better than what nvcc and the GPU showed
"$P" gen --model "$T" --samples 1 --max-tokens 120 --json --twin -o "$tmp/tw/m.ptx" "y = a*x + y" >"$tmp/tw/m.json" 2>"$tmp/tw/m.err"
rc=$?
python3 - "$tmp/tw" "$rc" <<'PY' && ok || bad "gen --twin with the tiny model: exit $rc, $(tail -c 300 "$tmp/tw/m.err")"
import json, sys
d, rc = sys.argv[1], int(sys.argv[2])
t = json.load(open(f"{d}/m.json"))["twin"]
assert rc in (0, 1) and t["generated"] is True and t["file"].endswith("/m.cu"), t
assert open(t["file"], "rb").readline().startswith(b"// GENERATED_BY: ptxgen tiny (CUDA C twin"), open(t["file"], "rb").read()[:200]
assert t["verdict"] in ("no-nvcc", "nvcc-failed", "not-compared", "not-run"), t
PY
expect_rc 2 "gen --twin with --baseline" "$P" gen --model "$T" --twin --baseline tests/twin/saxpy_good.ptx

# eval --kernels with twins beside the PTX: without a GPU the twin columns say "not run", never a number
"$P" eval --suite bench/suite --only relu6 --kernels tests/twin/eval_kernels --no-gpu --no-progress --no-ablations \
    --out "$tmp/evtwin.json" >"$tmp/evtwin.md" 2>&1 && ok || bad "eval --kernels with twins failed"
python3 - "$tmp/evtwin.json" <<'PY' && ok || bad "eval twin rows/aggregate without a GPU"
import json, sys
d = json.load(open(sys.argv[1]))
tw = {r["description"]: r.get("twin") for r in d["rows"]}
assert tw["zh"] is None and all(tw[s]["verdict"] in ("not-run", "no-nvcc") for s in ("terse", "detailed", "card")), tw
assert tw["prose"]["verdict"] in ("nvcc-failed", "no-nvcc"), tw["prose"]   # its twin does not compile
if tw["prose"]["verdict"] == "nvcc-failed":
    assert "six" in tw["prose"]["detail"] and "error" in tw["prose"]["detail"], tw["prose"]
a = d["configs"]["full"]["twin"]
assert a["with_twin"] == 4 and a["precision"] == "not run" and a["by_style"]["card"]["agrees"] == "not run", a
PY
# --no-twins: the .cu beside each kernel is left alone (a plan folder: the .cu is the PTX's own source), no twin row
"$P" eval --suite bench/suite --only relu6 --kernels tests/twin/eval_kernels --no-gpu --no-progress --no-ablations --no-twins \
    --out "$tmp/evnotw.json" >/dev/null 2>&1 && ok || bad "eval --no-twins failed"
python3 - "$tmp/evnotw.json" "$tmp/evtwin.json" <<'PY' && ok || bad "eval --no-twins still ran the twins"
import json, sys
d, w = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert all("twin" not in r for r in d["rows"]) and "twin" not in d["configs"]["full"], d["configs"]["full"].get("twin")
key = lambda r: (r["description"], r["last_stage"], r["check"])
assert sorted(map(key, d["rows"])) == sorted(map(key, w["rows"])), (d["rows"], w["rows"])   # the kernels' own verdicts unchanged
PY
expect_rc 2 "eval --twin-own with --no-twins" "$P" eval --suite bench/suite --only relu6 --kernels tests/twin/eval_kernels --no-gpu \
    --twin-own --no-twins
# --styles: only the named description styles are run and counted (a pool sampled in two of five);
# with --kernels the report states who sampled them instead of eval's own (unused) sampler settings
"$P" eval --suite bench/suite --only relu6 --kernels tests/twin/eval_kernels --no-gpu --no-progress --no-ablations \
    --styles terse,zh --out "$tmp/evsty.json" >/dev/null 2>&1 && ok || bad "eval --styles failed"
"$P" eval --report "$tmp/evsty.json" >"$tmp/evsty.md" 2>&1
python3 - "$tmp/evsty.json" "$tmp/evsty.md" <<'PY' && ok || bad "eval --styles rows, plan and report"
import json, sys
d = json.load(open(sys.argv[1])); md = open(sys.argv[2]).read()
assert sorted(r["description"] for r in d["rows"]) == ["terse", "zh"], d["rows"]
assert d["planned"]["samples"] == 2 and d["settings"]["styles"] == ["terse", "zh"], (d["planned"], d["settings"])
assert "temperature" not in d["settings"] and "kernels generated outside ptxgen eval" in md and "temperature" not in md, md[:400]
assert "x terse, zh description styles" in md and "| card |" not in md, md[:600]
PY
expect_rc 2 "eval --styles with a name that is not a style" "$P" eval --suite bench/suite --styles terse,bogus --no-gpu
"$P" eval --suite bench/suite --styles terse,bogus --no-gpu 2>&1 | grep -q "'bogus' is not a description style" && ok \
    || bad "eval --styles names the bad style"
# --twin-own: the twins' own correctness (GPU rows faked here; tests/gpu_tests.sh runs it for real)
"$P" eval --suite bench/suite --only relu6 --kernels tests/twin/eval_kernels --no-gpu --no-progress --no-ablations --twin-own \
    --out "$tmp/evown.json" >/dev/null 2>&1 && ok || bad "eval --twin-own without a GPU failed"
python3 - "$tmp/evown.json" "$tmp/evown2.json" <<'PY' && ok || bad "eval --twin-own without a GPU must not claim a twin verdict"
import json, sys
d = json.load(open(sys.argv[1]))
assert all("twin_own" not in r for r in d["rows"]) and d["configs"]["full"]["twin"]["own_run"] == 0, d["configs"]["full"]["twin"]
own = {"terse": True, "detailed": False, "card": True}
for r in d["rows"]:
    if r["description"] in own:
        r["twin_own"] = {"correct": own[r["description"]], "stage": "correct" if own[r["description"]] else "wrong"}
d["gpu_ran"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
"$P" eval --merge "$tmp/evown2.json" --out "$tmp/evown3.json" >/dev/null 2>&1 && "$P" eval --report "$tmp/evown3.json" >"$tmp/evown.md" 2>&1
grep -q 'The twins themselves against the real reference (--twin-own): 2 of 3 correct (66.7%); by style:.*detailed 0/1' "$tmp/evown.md" \
    && ok || bad "eval report: the twins' own correctness line: $(grep -i 'twins themselves' "$tmp/evown.md")"

# ---- what a newcomer meets in the first hour (issue 33): the classes, not only the instances ----
# every command: `ptxgen help CMD` prints its usage; a usage error is its one line and a hint
cmds=$("$P" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ "$(echo $cmds | wc -w)" -ge 15 ] && ok || bad "ptxgen --help lists only: $cmds"
for c in $cmds; do
    out=$("$P" help "$c" 2>/dev/null); rc=$?
    [ "$rc" -eq 0 ] && [[ "$out" == "usage: ptxgen $c"* ]] && ok || bad "ptxgen help $c: exit $rc, '$(echo "$out" | head -n 1)'"
    [ "$c" = nvcc ] && continue   # a drop-in nvcc: unknown options and no arguments are nvcc's business
    for args in "--frobnicate" ""; do
        # shellcheck disable=SC2086
        err=$("$P" "$c" $args 2>&1 >/dev/null); rc=$?
        [ -z "$args" ] && [ "$rc" -ne 2 ] && continue   # runs without arguments (isa, devinfo)
        [ "$rc" -eq 2 ] && [ "$(echo "$err" | wc -l)" -le 2 ] && [ "$(echo "$err" | tail -n 1)" = "try 'ptxgen help $c'" ] && ok ||
            bad "ptxgen $c ${args:-(no arguments)}: exit $rc, $(echo "$err" | wc -l) lines: $(echo "$err" | head -n 3)"
    done
done
err=$("$P" gen --samples x "x" 2>&1); [ "$(echo "$err" | tail -n 1)" = "try 'ptxgen help gen'" ] && ok || bad "a bad flag value gives no hint: $err"
# --json: stdout holds one JSON document and nothing else, whatever the command
json_only() {   # json_only DESC CMD...
    local desc=$1; shift
    "$@" >"$tmp/j.out" 2>/dev/null
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/j.out" 2>/dev/null && ok ||
        bad "$desc: stdout is not only JSON: $(head -c 200 "$tmp/j.out")"
}
mkdir -p "$tmp/suite2" && cp -r corpus/vecadd corpus/saxpy "$tmp/suite2/" && cp -r bench/suite/relu6 "$tmp/suite2/"
json_only "check --json" "$P" check --json examples/vecadd.ptx tests/golden/bad_vecadd.ptx
json_only "explain --json" "$P" explain --json examples/vecadd.ptx
json_only "stats" "$P" stats examples/vecadd.ptx
json_only "run --dry-run --json" "$P" run --dry-run --json corpus/vecadd/task.json
json_only "run --dry-run --json --suite (one task without its kernel)" "$P" run --dry-run --json --suite "$tmp/suite2"
json_only "gen --json" "$P" gen --model tests/gen/tiny --samples 1 --max-tokens 64 --json -o "$tmp/j.ptx" "vector add"
json_only "tokenize --json" "$P" tokenize --tokenizer tests/gen/tiny/tokenizer.json --json "add two vectors"
# run on a held-out task without its kernel: "give a kernel", never a failed check it did not do
"$P" run --dry-run bench/suite/relu6/task.json >"$tmp/nk.out" 2>"$tmp/nk.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "no kernel" "$tmp/nk.err" && grep -q "give one" "$tmp/nk.err" && ! grep -q "FAILED" "$tmp/nk.out" \
    && grep -q "task ok" "$tmp/nk.out" && ok || bad "run --dry-run without kernel.ptx: exit $rc: $(cat "$tmp/nk.out" "$tmp/nk.err" | head -c 300)"
"$P" run bench/suite/relu6/task.json >/dev/null 2>"$tmp/nk2.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "no kernel" "$tmp/nk2.err" && ok || bad "run without kernel.ptx: exit $rc: $(head -c 200 "$tmp/nk2.err")"
# an architecture the installed ptxas does not know: refused before any sample (a ptxas that knows none)
printf '#!/bin/sh\necho "ptxas fatal   : Value '"'"'sm_80'"'"' is not defined for option '"'"'gpu-name'"'"'" >&2\nexit 255\n' >"$tmp/oldptxas"
chmod +x "$tmp/oldptxas"
for cmdline in "gen --model tests/gen/tiny --samples 3 x" "eval --suite bench/suite --only relu6 --model tests/gen/tiny --no-gpu --no-progress --arch sm_80" \
               "synth --count 5 --seed 1 --arch sm_80 --out $tmp/never.jsonl"; do
    # shellcheck disable=SC2086
    PTXAS="$tmp/oldptxas" "$P" $cmdline >/dev/null 2>"$tmp/arch.err"; rc=$?
    [ "$rc" -eq 2 ] && grep -q "the installed ptxas ($tmp/oldptxas) does not know it: Value 'sm_80' is not defined" "$tmp/arch.err" &&
        ! grep -q "attempt" "$tmp/arch.err" && [ ! -e "$tmp/never.jsonl" ] && ok ||
        bad "ptxgen ${cmdline%% *} with a target ptxas does not know: exit $rc: $(head -c 300 "$tmp/arch.err")"
done
# free text: the summary says the model invented the signature; its names are words of the request
# or a<k> (the random model samples junk names, so this sees the renaming); several seeds
for seed in 1 2 3; do
    req="scale x by alpha into y over n elements"
    "$P" gen --model tests/gen/tiny --samples 1 --max-tokens 300 --seed "$seed" --json -o "$tmp/ft.ptx" "$req" >"$tmp/ft.json" 2>"$tmp/ft.err"
    python3 - "$tmp/ft.json" "$req" "$tmp/ft.ptx" <<'PY' && ok || bad "gen free text, seed $seed: $(tail -c 400 "$tmp/ft.err")"
import json, re, sys
d, req = json.load(open(sys.argv[1])), sys.argv[2]
names = re.findall(r"\.param \.\w+ (\w+)", d["signature"])
words = set(re.findall(r"[A-Za-z_]\w*", req))
assert names and all(n in words or re.fullmatch(r"a\d+_*", n) for n in names), names
assert d["signature_source"] == "model", d["signature_source"]
assert d["signature"] in open(sys.argv[3]).read()   # the file has the renamed signature too
PY
    grep -q "the signature was invented by the model" "$tmp/ft.err" && grep -q "kernel card" "$tmp/ft.err" && grep -q -- "--task" "$tmp/ft.err" \
        && ok || bad "gen free text: the summary does not say the signature was invented: $(tail -n 3 "$tmp/ft.err")"
done
# the invented-signature note word for word, with no name renamed (every parameter a word of the request: the
# 15M models/default writes x, y, out, n here; the note once read "...gave one)0; give ...") and with some renamed
inv_note() {   # inv_note RENAMED: the note gen prints
    local r=""
    [ "$1" -gt 0 ] && r=": $1 parameter name(s) not in the request renamed a<k>"
    printf 'gen: the signature was invented by the model (no card, --task or twin gave one)%s; give the parameters with a Markdown kernel card (see examples/saxpy.card.md) or --task spec.json\n' "$r"
}
for req in "add vectors x and y into out over n elements" "add two float vectors"; do
    "$P" gen --model models/default --samples 1 --max-tokens 200 --json -o "$tmp/inv.ptx" "$req" >"$tmp/inv.json" 2>"$tmp/inv.err"
    nr=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['params_renamed'])" "$tmp/inv.json" 2>/dev/null || echo -1)
    want=0; [ "$req" = "add two float vectors" ] && want=4
    [ "$nr" -eq "$want" ] && [ "$(grep -c '^gen: the signature was invented' "$tmp/inv.err")" -eq 1 ] && grep -qxF "$(inv_note "$nr")" "$tmp/inv.err" &&
        ok || bad "gen \"$req\": the invented-signature note ($nr renamed, want $want): $(grep invented "$tmp/inv.err")"
done
"$P" gen --model tests/gen/tiny --samples 1 --max-tokens 300 --json -o "$tmp/fc.ptx" "$(cat examples/saxpy.card.md)" 2>"$tmp/fc.err" |
    python3 -c "import json,sys; d=json.load(sys.stdin); assert d['signature_source']=='card' and d['params_renamed']==0" && \
    ! grep -q "invented" "$tmp/fc.err" && ok || bad "gen with a card: the signature is the card's, not invented"
# an unfinished kernel (the token budget closed it) is a failure, said so
"$P" gen --model tests/gen/tiny --samples 2 --max-tokens 60 --json -o "$tmp/cut.ptx" "vector add" >"$tmp/cut.json" 2>"$tmp/cut.err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "^gen: UNFINISHED: the token budget (--max-tokens 60) ran out" "$tmp/cut.err" &&
    [ "$(grep -c 'failed (unfinished' "$tmp/cut.err")" -eq 2 ] &&
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['unfinished'] and not d['finished']" "$tmp/cut.json" \
    && ok || bad "gen --max-tokens 60: exit $rc, $(tail -n 3 "$tmp/cut.err")"
# the default-model search (model_default_dir): without --model and $PTXGEN_MODEL, gen takes
# models/qwen-plan only when the base file its base.json names is there, else models/default,
# and the summary line and --json say which folder
D=$tmp/defsearch; R=$PWD; mkdir -p "$D/models/qwen-plan" "$D/models/base"
ln -s "$R/models/default" "$D/models/default"
printf '{"gguf": "../base/b.gguf", "sha256": "%064d"}' 0 >"$D/models/qwen-plan/base.json"
case $P in /*) PA=$P ;; *) PA=$PWD/$P ;; esac
(cd "$D" && env -u PTXGEN_MODEL "$PA" gen --samples 1 --max-tokens 32 --json -o k.ptx "vector add" >d1.json 2>d1.err)
grep -q '), model models/default, ' "$D/d1.err" &&
    python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['model_dir'] == 'models/default'" "$D/d1.json" &&
    ok || bad "gen, no base: want models/default named: $(grep '^gen:' "$D/d1.err" | head -1)"
: >"$D/models/base/b.gguf"   # the base "fetched": the search takes the adapter, whose pinned sha256 refuses it
(cd "$D" && env -u PTXGEN_MODEL "$PA" gen --samples 1 --max-tokens 32 -o k2.ptx "vector add" >/dev/null 2>d2.err); rc=$?
[ "$rc" -ne 0 ] && grep -q 'models/qwen-plan/../base/b.gguf' "$D/d2.err" && ok ||
    bad "gen, base present: want models/qwen-plan tried: exit $rc, $(head -c 300 "$D/d2.err")"
(cd "$D" && PTXGEN_MODEL="$R/tests/gen/tiny" "$PA" gen --samples 1 --max-tokens 32 -o k3.ptx "vector add" >/dev/null 2>d3.err)
grep -q "), model $R/tests/gen/tiny, " "$D/d3.err" && ok || bad "\$PTXGEN_MODEL overrides the search: $(grep '^gen:' "$D/d3.err" | head -1)"
# super-optimization keeps its adapter on the model it was trained over, not on the adapter the search found
ln -s "$R/models/superopt" "$D/models/superopt"
(cd "$D" && env -u PTXGEN_MODEL -u PTXGEN_SUPEROPT_ADAPTER "$PA" gen --baseline "$R/tests/twin/saxpy_good.ptx" --samples 1 \
    --max-tokens 64 -o k4.ptx >/dev/null 2>d4.err)
grep -q "super-optimization mode, adapter models/qwen-plan/../superopt" "$D/d4.err" &&
    grep -q "), model models/qwen-plan/../default, " "$D/d4.err" && ok ||
    bad "gen --baseline, base present: want models/default with the superopt adapter: $(grep '^gen' "$D/d4.err" | head -2)"
# the 1.5B's adapter comes first once its own base is fetched (the default since 2026-12-07)
mkdir -p "$D/models/qwen15-plan"
printf '{"gguf": "../base/b15.gguf", "sha256": "%064d"}' 0 >"$D/models/qwen15-plan/base.json"
: >"$D/models/base/b15.gguf"
(cd "$D" && env -u PTXGEN_MODEL "$PA" gen --samples 1 --max-tokens 32 -o k5.ptx "vector add" >/dev/null 2>d5.err); rc=$?
[ "$rc" -ne 0 ] && grep -q 'models/qwen15-plan/../base/b15.gguf' "$D/d5.err" && ok ||
    bad "gen, both bases present: want models/qwen15-plan tried: exit $rc, $(head -c 300 "$D/d5.err")"
# one card parser: a one-line card gives `ptxgen gen` and the Python package the same signature
card1='## scale - Input: `float* x` (n), `float s` - Output: `float* y` (n) - Goal: y = s * x'
sig_c=$("$P" gen --model tests/gen/tiny --samples 1 --max-tokens 64 --json -o "$tmp/c1.ptx" "$card1" 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['signature'])")
sig_py=$(PTXGEN_LIB="$PWD/${PTXGEN_BUILD:-build}/libptxgen.so" python3 -c "import sys; sys.path.insert(0, 'python')
from ptxgen.card import parse_card; print(parse_card(sys.argv[1]).signature())" "$card1" 2>&1)
want=$'.visible .entry scale(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .f32 s,\n\t.param .u32 n\n)'
[ "$sig_c" = "$want" ] && [ "$sig_py" = "$want" ] && ok || bad "one-line card: gen says '$sig_c', python says '$sig_py'"
# the README runner: a broken example fails it, a GPU-only one is skipped and says so
cat >"$tmp/examples.md" <<'MD'
```sh
build/ptxgen check examples/vecadd.ptx
build/ptxgen check tests/golden/bad_vecadd.ptx
build/ptxgen check tests/golden/bad_vecadd.ptx   # exit 1
build/ptxgen run corpus/saxpy/task.json
ptxgen check examples/vecadd.ptx
```
<!-- example: skip -- a reason the reader sees -->
```bash
false
```
MD
bash tests/readme_examples.sh "$tmp/examples.md" >"$tmp/ex.out" 2>&1; rc=$?
ex=$(grep -cE '^  (ok|FAIL|SKIP) ' "$tmp/ex.out")
[ "$rc" -ne 0 ] && [ "$ex" -eq 6 ] && grep -q "FAIL  $tmp/examples.md:3 " "$tmp/ex.out" && grep -q "ok    $tmp/examples.md:4 " "$tmp/ex.out" &&
    grep -q "FAIL  $tmp/examples.md:6  ptxgen check" "$tmp/ex.out" && grep -q "SKIP  $tmp/examples.md:9  block: a reason the reader sees" "$tmp/ex.out" &&
    { "$P" devinfo >/dev/null 2>&1 || grep -q "SKIP  $tmp/examples.md:5 .*(needs a GPU" "$tmp/ex.out"; } &&
    grep -qE "^(2|3) passed, 2 failed" "$tmp/ex.out" && ok || bad "tests/readme_examples.sh on a broken fixture (exit $rc): $(cat "$tmp/ex.out")"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
