#!/usr/bin/env bash
# tests/gpu_engine_fake.sh — the GPU engine's host half without a GPU: build/bench_gpu and
# `ptxgen gen --device gpu` against tests/gpu/fakecuda.c, a stand-in libcuda/libcublas whose
# "kernels" are C versions of what gpu_ptx.c's kernels compute (device memory is host memory,
# graphs replay recorded launches).  Checks the buffers, offsets, row descriptors, kept logits
# rows, the graph path and cuBLAS's arguments against the CPU engine; the PTX is
# test_gpu_ptx's and tests/gpu/engine_gpu.sh's.  Ends with "N passed, N failed".
# Every gen names models/default (the 15M model): with the Qwen base fetched, gen's default is the
# two-stage 0.5B, which the stand-in's C kernels would run for minutes a request.
set -u
unset PTXGEN_GPU_ATTN PTXGEN_GPU_WEIGHTS   # the runs below that name none check the defaults
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$BUILD/bench_gpu" ] || [ ! -x "$BUILD/ptxgen" ]; then
    echo "gpu_engine_fake: build $BUILD/bench_gpu and $BUILD/ptxgen first (make all $BUILD/bench_gpu)"
    echo "0 passed, 1 failed"
    exit 1
fi
cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$tmp/libcuda.so.1" tests/gpu/fakecuda.c -lm && ok || bad "fakecuda.c does not build"
export LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PTXGEN_CUBLAS="$tmp/libcuda.so.1" FAKECUDA_REPORT="$tmp/rep.txt"

# every check of bench_gpu, on a short prompt (the stand-in computes in plain loops), with the engine's default
# attention: the split-KV attention since 2026-12-07 (pg_attn_split + pg_attn_merge for prefill chunks, the
# one-row graph, batched and exact steps); a prompt of 40 so rows span two splits (positions past 32)
timeout 300 "$BUILD/bench_gpu" models/default --prompt 40 --steps 12 --tg 4 --k 3 --ksteps 2 --profile 3 --out "$tmp/b.json" > "$tmp/b.txt" 2>&1
rc=$?
cat "$tmp/b.txt"
[ "$rc" -eq 0 ] && ok || bad "bench_gpu against the stand-in: exit $rc"
for c in all prefill greedy exact batch top1 topk attn_split; do
    grep -q "^check $c *pass" "$tmp/b.txt" && ok || bad "check $c did not pass"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed_checks"] == 0 and d["decode_tok_s"] > 0 and d["decode_tok_s_top"] > 0' "$tmp/b.json" \
    && ok || bad "bench_gpu's JSON: $(head -c 300 "$tmp/b.json")"
# the default is the split attention: the engine's description and bench_gpu's JSON say so, and check top1's decode
# launched its kernels (8L + 4 a token with the top 64: pg_attn_split and pg_attn_merge a layer; 7L + 4 with pg_attention)
attn_is() {   # attn_is JSON split|full: the attention bench_gpu's load ran
    python3 - "$1" "$2" models/default/config.json <<'PY'
import json, re, sys
d, want, L = json.load(open(sys.argv[1])), sys.argv[2], json.load(open(sys.argv[3]))["num_hidden_layers"]
per = float(re.search(r"([0-9.]+) kernels a token", d["check_top1"]["detail"]).group(1))
assert d["attention"] == want and d["device"].endswith("; %s)" % ("pg_attn_split" if want == "split" else "pg_attention")), (d["attention"], d["device"])
assert per == (8 if want == "split" else 7) * L + 4, (want, per, L)
PY
}
grep -q '^gpu engine: .*; pg_attn_split)' "$tmp/b.txt" && attn_is "$tmp/b.json" split && ok ||
    bad "the default attention is not the split one: $(grep '^gpu engine' "$tmp/b.txt") $(grep -o '"attention": "[a-z]*"' "$tmp/b.json")"
# the per-kernel profile (model_gpu_option "profile"): every launch of a one-token step timed and named, each
# matmul named by its matrix; the split attention one launch a layer more (pg_attn_split, pg_attn_merge)
python3 - "$tmp/b.json" models/default/config.json <<'PY' && ok || bad "the profile in bench_gpu's JSON: $(grep -o '"profile_[a-z_]*": {[^]]*' "$tmp/b.json" | head -c 600)"
import json, sys
d, cfg = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
L = cfg["num_hidden_layers"]
pm, ps = d["profile_matvec"]["profile"], d["profile_split"]["profile"]
S = 3   # --profile 3
assert pm["steps"] == ps["steps"] == S, (pm["steps"], ps["steps"])
assert pm["launches_per_step"] == 7 * L + 4 and ps["launches_per_step"] == 8 * L + 4, (pm["launches_per_step"], ps["launches_per_step"])
for p, split in ((pm, False), (ps, True)):
    k = {x["name"]: x for x in p["kernels"]}
    for m in ("qkv", "o", "gate_up", "down", "head"):
        assert k["pg_matvec " + m]["calls"] == (1 if m == "head" else L) * S, (m, k.get("pg_matvec " + m))
    assert k["pg_topk"]["calls"] == 2 * S and k["pg_embed"]["calls"] == S and k["pg_silu_mul"]["calls"] == L * S, k.keys()
    if split:
        assert "pg_attention" not in k and k["pg_attn_split"]["calls"] == k["pg_attn_merge"]["calls"] == L * S, k.keys()
    else:
        assert k["pg_attention"]["calls"] == L * S and "pg_attn_split" not in k, k.keys()
    assert all(x["ms"] >= 0 for x in p["kernels"]) and p["kernel_ms"] > 0 and abs(sum(x["share"] for x in p["kernels"]) - 1) < 1e-3
# k = 3 batched steps through cuBLAS: a norm launch before each normed matmul, SiLU-mul, the head's norm and GemmEx, the top 64 in two
for name, extra in (("profile_k", 0), ("profile_k_split", 1)):
    pk = d[name]["profile"]
    k = {x["name"]: x for x in pk["kernels"]}
    assert pk["launches_per_step"] == (9 + extra) * L + 5 and k["cublasGemmEx down"]["calls"] == L * pk["steps"], (name, pk)
    assert k["pg_rmsnorm"]["calls"] == (2 * L + 1) * pk["steps"], (name, k["pg_rmsnorm"])
a = d["attn_split"]
assert a["exact_bits"] is True and a["rel_err_cpu"] <= d["tol"] and a["rel_err_batch4"] <= d["tol"] and a["decode_tok_s"]["split"] > 0, a
PY
# every check with the old attention, pg_attention ($PTXGEN_GPU_ATTN=full): prefill chunks, the one-row graph, batched
# and exact steps through it
PTXGEN_GPU_ATTN=full timeout 300 "$BUILD/bench_gpu" models/default --prompt 24 --steps 8 --tg 3 --k 5 --ksteps 1 --profile 0 --out "$tmp/bg.json" > "$tmp/bg.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^gpu engine: .*; pg_attention)' "$tmp/bg.txt" && attn_is "$tmp/bg.json" full && ok ||
    bad "bench_gpu with PTXGEN_GPU_ATTN=full: exit $rc: $(grep -E '^check.*FAIL|gpu engine' "$tmp/bg.txt")"
grep -q 'graph_launches [1-9]' "$tmp/rep.txt" && ok || bad "one-row steps did not replay the graph: $(cat "$tmp/rep.txt")"
# the same with graphs off: every launch direct
PTXGEN_GPU_GRAPH=0 timeout 300 "$BUILD/bench_gpu" models/default --prompt 16 --steps 8 --tg 2 --k 2 --ksteps 1 --out "$tmp/b2.json" > "$tmp/b2.txt" 2>&1 \
    && grep -q 'graph_launches 0' "$tmp/rep.txt" && grep -q 'no graphs' "$tmp/b2.txt" && ok || bad "PTXGEN_GPU_GRAPH=0: $(tail -3 "$tmp/b2.txt") $(cat "$tmp/rep.txt")"

# $PTXGEN_GPU_WEIGHTS=q8: int8 copies beside the f16 weights (the description says so), bench_gpu's checks on
# the f16 ones and its q8 section (pg_matvec_q8 in one-row graphs and exact steps, teacher-forced against the
# CPU engine, its exact step of 4 bit for bit); the stand-in's pg_matvec_q8 checks the q8 layout's offsets
PTXGEN_GPU_WEIGHTS=q8 timeout 300 "$BUILD/bench_gpu" models/default --prompt 24 --steps 8 --tg 3 --k 2 --ksteps 1 --profile 2 --qsteps 6 \
    --out "$tmp/bq.json" > "$tmp/bq.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^check q8 *pass' "$tmp/bq.txt" && grep -q '^gpu engine: .*int8 copies [0-9]* MB.*pg_matvec_q8; pg_attn_split)' "$tmp/bq.txt" && ok ||
    bad "bench_gpu with PTXGEN_GPU_WEIGHTS=q8: exit $rc: $(grep -E '^check.*FAIL|gpu engine|check q8' "$tmp/bq.txt")"
python3 - "$tmp/bq.json" <<'PY' && ok || bad "bench_gpu's q8 JSON: $(grep -o '"q8": {[^}]*}[^}]*}' "$tmp/bq.json" | head -c 600)"
import json, sys
d = json.load(open(sys.argv[1]))
q = d["q8"]
assert d["weights"] == "q8" and d["failed_checks"] == 0, d["weights"]
assert q["exact_bits_q8"] is True and q["steps"] == 6 and q["max_rel_err"]["q8"] <= 0.1 and q["max_rel_err"]["q8"] != q["max_rel_err"]["f16"], q
assert q["decode_tok_s"]["f16"] > 0 and q["decode_tok_s"]["q8"] > 0 and q["decode_tok_s_top"]["q8"] > 0, q
assert q["prefill_top"]["q8"] == q["prefill_top"]["cpu"], q
# the q8 profile: every matmul of a one-token step through pg_matvec_q8, none through pg_matvec; the f16 one the reverse
names = {k["name"] for k in d["profile_q8"]["profile"]["kernels"]}
assert {"pg_matvec_q8 " + m for m in ("qkv", "o", "gate_up", "down", "head")} <= names and not any(n.startswith("pg_matvec ") for n in names), names
assert not any(k["name"].startswith("pg_matvec_q8") for k in d["profile_split"]["profile"]["kernels"]), d["profile_split"]
PY
grep -q 'graph_launches [1-9]' "$tmp/rep.txt" && ok || bad "q8: one-row steps did not replay the graph: $(cat "$tmp/rep.txt")"
# an unknown value is refused at load, naming the variable and the values it takes
PTXGEN_GPU_WEIGHTS=q4 timeout 300 "$BUILD/ptxgen" gen --model models/default --device gpu "add two float vectors" --samples 1 --max-tokens 48 \
    -o "$tmp/wbad.ptx" > /dev/null 2> "$tmp/wbad.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'E7[0-9][0-9].*PTXGEN_GPU_WEIGHTS="q4": f16 (the default) or q8' "$tmp/wbad.err" && [ ! -e "$tmp/wbad.ptx" ] && ok ||
    bad "PTXGEN_GPU_WEIGHTS=q4: exit $rc: $(tail -3 "$tmp/wbad.err")"

# gen end to end on the engine: the summary line names the device, --json says it
timeout 300 "$BUILD/ptxgen" gen --model models/default --device gpu "add two float vectors" --samples 1 --max-tokens 48 --json -o "$tmp/k.ptx" > "$tmp/g.json" 2> "$tmp/g.err"
rc=$?
[ "$rc" -le 1 ] && ok || bad "gen --device gpu: exit $rc: $(tail -3 "$tmp/g.err")"
grep -q 'tok/s, gpu)' "$tmp/g.err" && ok || bad "the summary line names the device: $(grep '^gen:' "$tmp/g.err" | head -1)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["device"]["name"] == "gpu" and "fakecuda" in d["device"]["detail"]' "$tmp/g.json" \
    && ok || bad "gen --json device: $(head -c 300 "$tmp/g.json")"
# the same request on the CPU engine draws the same tokens (logits within f16 rounding; seed 1)
LD_LIBRARY_PATH= timeout 300 "$BUILD/ptxgen" gen --model models/default --device cpu "add two float vectors" --samples 1 --max-tokens 48 -o "$tmp/c.ptx" 2> /dev/null
[ -s "$tmp/k.ptx" ] && cmp -s "$tmp/k.ptx" "$tmp/c.ptx" && ok || bad "gen --device gpu and --device cpu differ: $(diff "$tmp/k.ptx" "$tmp/c.ptx" | head -5)"
# $PTXGEN_GPU_ATTN in gen (the engine in its child): unset (the run above) and "split" the split attention, "full"
# pg_attention, each drawing those tokens; anything else refused at load (exit 2, no output), not run as the default
cp "$tmp/g.json" "$tmp/adefault.json" && cp "$tmp/k.ptx" "$tmp/adefault.ptx"
for a in default split full; do
    [ $a != default ] && PTXGEN_GPU_ATTN=$a timeout 300 "$BUILD/ptxgen" gen --model models/default --device gpu "add two float vectors" --samples 1 \
        --max-tokens 48 --json -o "$tmp/a$a.ptx" > "$tmp/a$a.json" 2> "$tmp/a$a.err"
    want=pg_attn_split; [ $a = full ] && want=pg_attention
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["device"]["detail"].endswith("; %s)" % sys.argv[2]), d["device"]' "$tmp/a$a.json" "$want" &&
        cmp -s "$tmp/a$a.ptx" "$tmp/c.ptx" && ok || bad "gen with PTXGEN_GPU_ATTN $a: $(head -c 300 "$tmp/a$a.json") $(tail -2 "$tmp/a$a.err" 2> /dev/null)"
done
PTXGEN_GPU_ATTN=ful timeout 300 "$BUILD/ptxgen" gen --model models/default --device gpu "add two float vectors" --samples 1 --max-tokens 48 \
    -o "$tmp/abad.ptx" > /dev/null 2> "$tmp/abad.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'E7[0-9][0-9].*PTXGEN_GPU_ATTN="ful": full (pg_attention) or split' "$tmp/abad.err" && [ ! -e "$tmp/abad.ptx" ] && ok ||
    bad "PTXGEN_GPU_ATTN=ful: exit $rc: $(tail -3 "$tmp/abad.err")"

# gen --device gpu --verify gpu: the harness must still run after the engine did.  The stand-in built
# with the harness's entry points (-DFAKECUDA_HARNESS) keeps the driver's fork rule: a child forked
# after its parent's cuInit gets a failing cuInit (logged to $FAKECUDA_INITLOG).  An engine started
# in gen's own process made every attempt's probe fail ("gpu: not run (... no usable GPU ...)");
# started in the engine's child (src/pipeline/draw.h), gen's process never calls cuInit, so every
# cuInit succeeds: the engine's (in that child) and the harness's probes after it.
mkdir -p "$tmp/h"
cc -std=c11 -O2 -Wall -Wextra -Werror -DFAKECUDA_HARNESS -shared -fPIC -o "$tmp/h/libcuda.so.1" tests/gpu/fakecuda.c -lm && ok || bad "fakecuda.c -DFAKECUDA_HARNESS does not build"
# (This run copies the whole logits rows, $PTXGEN_GEN_TOPK=0; the one after it draws from the top 64.)
LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_INITLOG="$tmp/init.log" PTXGEN_GEN_TOPK=0 \
    timeout 300 "$BUILD/ptxgen" gen --model models/default silu --device gpu --task bench/suite/ew_silu/task.json --verify gpu --samples 2 --max-tokens 64 --json \
    -o "$tmp/v.ptx" > "$tmp/v.json" 2> "$tmp/v.err"
rc=$?
[ "$rc" -le 1 ] && ok || bad "gen --device gpu --verify gpu: exit $rc: $(tail -3 "$tmp/v.err")"
! grep -q 'no usable GPU' "$tmp/v.err" "$tmp/v.json" && ok || bad "the harness found no usable GPU after the engine ran: $(grep -m2 'no usable GPU' "$tmp/v.err")"
# the load's probe, the engine in its child, and a probe per attempt after it, all succeeding
[ "$(grep -c -- '-> 0$' "$tmp/init.log")" -ge 4 ] && ! grep -q -- '-> [1-9]' "$tmp/init.log" && ok ||
    bad "a cuInit failed (a CUDA process forked a child): $(sort "$tmp/init.log" | uniq -c | head -5)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["device"]["name"] == "gpu" and "fakecuda" in d["device"]["detail"], d["device"]' "$tmp/v.json" \
    && ok || bad "gen --verify gpu --json device: $(head -c 300 "$tmp/v.json")"

# one engine child per gen (src/pipeline/draw.h): three draws (the attempts the token budget cuts short
# resample), one engine start (the stand-in logs the engine's cublasCreate beside the cuInits)
LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_INITLOG="$tmp/init2.log" timeout 300 \
    "$BUILD/ptxgen" gen --model models/default --device gpu --task bench/suite/ew_silu/task.json --verify ptxas --samples 3 --max-tokens 16 -o "$tmp/p.ptx" \
    > /dev/null 2> "$tmp/p.err"
rc=$?
[ "$rc" -le 1 ] && grep -q 'attempt 3/3 failed' "$tmp/p.err" && [ "$(grep -c '^cublasCreate' "$tmp/init2.log")" -eq 1 ] && ok ||
    bad "three draws, one engine start: exit $rc, $(grep -c '^cublasCreate' "$tmp/init2.log") starts: $(tail -2 "$tmp/p.err")"

# an engine child that dies mid-draw: that draw is an E702 saying so, gen exits 1, nothing is left running
LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_ABORT_AT=5 timeout 300 \
    "$BUILD/ptxgen" gen --model models/default silu --device gpu --task bench/suite/ew_silu/task.json --verify ptxas --samples 2 --max-tokens 16 -o "$tmp/x.ptx" \
    > /dev/null 2> "$tmp/x.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "E702.*the GPU engine's child process was killed by a signal" "$tmp/x.err" && [ ! -e "$tmp/x.ptx" ] && ok ||
    bad "a crashing engine child: exit $rc: $(tail -3 "$tmp/x.err")"

# best-of-k draws from each row's top 64 on the device (src/decode/top.c) as from the whole rows: the same
# candidates, so the same kept kernel (the run above copied the whole rows)
LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" timeout 300 \
    "$BUILD/ptxgen" gen --model models/default silu --device gpu --task bench/suite/ew_silu/task.json --verify gpu --samples 2 --max-tokens 64 --json \
    -o "$tmp/t.ptx" > "$tmp/t.json" 2> "$tmp/t.err"
[ -s "$tmp/v.ptx" ] && cmp -s "$tmp/v.ptx" "$tmp/t.ptx" && ok || bad "best-of-2 from the top 64 and from whole rows differ: $(diff "$tmp/v.ptx" "$tmp/t.ptx" | head -5)"
python3 -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); assert a["top_candidates"]["decided"] == 0 and b["top_candidates"]["decided"] > 0, (a["top_candidates"], b["top_candidates"]); assert a["best_of"] == b["best_of"] and a["tokens"] == b["tokens"]' \
    "$tmp/v.json" "$tmp/t.json" && ok || bad "top 64 vs whole rows (--json): $(grep -h -A2 top_candidates "$tmp/v.json" "$tmp/t.json" | tr -d '\n') $(tail -2 "$tmp/t.err")"

# the same kernel is verified once (src/pipeline/select.c): greedy best-of-3 draws three copies of one
# kernel; ptxas (counted by a $PTXAS wrapper) and the harness run for the first only, the copies take its
# verdict ("same kernel as attempt 1"), and the kept kernel and verdicts are best-of-1's
real_ptxas=$(command -v "${PTXAS:-ptxas}" || ls /usr/local/cuda/bin/ptxas 2>/dev/null)
if [ -n "$real_ptxas" ]; then
    printf '#!/bin/sh\necho run >> "%s"\nexec "%s" "$@"\n' "$tmp/ptxas.runs" "$real_ptxas" > "$tmp/ptxas" && chmod +x "$tmp/ptxas"
    for n in 3 1; do
        : > "$tmp/ptxas.runs"
        LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" PTXAS="$tmp/ptxas" timeout 300 \
            "$BUILD/ptxgen" gen --model models/default silu --device gpu --task bench/suite/ew_silu/task.json --verify gpu --samples $n --temperature 0 \
            --max-tokens 64 --json -o "$tmp/s$n.ptx" > "$tmp/s$n.json" 2> "$tmp/s$n.err"
        echo "$(wc -l < "$tmp/ptxas.runs")" > "$tmp/s$n.runs"
    done
    # as often as for best-of-1 (gen also asks ptxas once whether it knows the arch)
    [ "$(cat "$tmp/s3.runs")" -eq "$(cat "$tmp/s1.runs")" ] && [ "$(cat "$tmp/s1.runs")" -ge 1 ] &&
        [ "$(grep -c 'same kernel as attempt 1' "$tmp/s3.err")" -eq 2 ] && ok ||
        bad "greedy best-of-3: ptxas ran $(cat "$tmp/s3.runs") times, best-of-1 $(cat "$tmp/s1.runs"): $(grep '^gen: attempt' "$tmp/s3.err" | cut -c1-160)"
    python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
st = a["stages"]
assert st["verified"] == 1 and a["best_of"]["verified"] == 1 and a["attempts"] == 1, (st, a["best_of"])
assert [x["same_as"] for x in st["attempts"]] == [None, 1, 1], st
g = st["attempts"][0]["gpu"]
assert g["kernel_s"] > 0 and g["probe_s"] > 0 and "gpu" not in st["attempts"][1], st  # the harness ran once
assert st["attempts"][0]["seconds"] >= st["attempts"][0]["gpu_s"] > g["kernel_s"] + g["nvcc_s"], st
assert st["draw_s"] > 0 and st["attempts"][0]["ptxas_s"] > 0 and st["attempts"][2]["ptxas_s"] == 0, st
assert a["verdicts"] == b["verdicts"] and a["why"] == b["why"] and a["best_of"]["kept_stage"] == b["best_of"]["kept_stage"], (a["verdicts"], b["verdicts"])
' "$tmp/s3.json" "$tmp/s1.json" && cmp -s "$tmp/s3.ptx" "$tmp/s1.ptx" && ok ||
        bad "greedy best-of-3 vs best-of-1 (--json stages): $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("stages"))' "$tmp/s3.json" 2>&1 | head -c 600) $(tail -2 "$tmp/s3.err")"
else
    echo "SKIPPED: the same-kernel test (no ptxas)"
fi

# the GPU stage's fixed cost once per gen (gpu_memo, src/gpu/run.c): best-of-3 over distinct kernels probes
# the GPU and queries the device once, and one harness process (the memo's worker) checks every kernel: a
# kernel that does not load leaves its context usable, so best-of-3 initialises CUDA as often as best-of-1
# (at temperature 1 two of the three are distinct; without $FAKECUDA_TASK_KERNEL the stand-in loads no
# harness kernel, so each fails and nvcc's baseline must not run at all).  With PTXGEN_GPU_MEMO=0 (every
# attempt asks again, one process per kernel) the verdicts and the kept kernel are the same.
for m in 1:3 1:1 0:3; do
    memo=${m%:*} n=${m#*:}
    : > "$tmp/memo$m.log"
    LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_INITLOG="$tmp/memo$m.log" \
        PTXGEN_GPU_MEMO=$memo timeout 300 "$BUILD/ptxgen" gen --model models/default silu --device gpu --task bench/suite/ew_silu/task.json --verify gpu \
        --samples "$n" --temperature 1 --max-tokens 64 --json -o "$tmp/memo$m.ptx" > "$tmp/memo$m.json" 2> "$tmp/memo$m.err"
done
python3 - "$tmp" <<'PY' && ok || bad "the GPU stage's fixed cost once per gen: $(grep -h '^gen: attempt' "$tmp/memo1:3.err" | cut -c1-160)"
import json, sys
t = sys.argv[1]
def run(m):
    d = json.load(open(f"{t}/memo{m}.json"))
    inits = [x for x in open(f"{t}/memo{m}.log").read().splitlines() if x.startswith("cuInit")]
    assert inits and all(x.endswith("-> 0") for x in inits), (m, inits)
    ran = [a for a in d["stages"]["attempts"] if "gpu" in a]   # the attempts whose kernel reached the harness
    return d, len(inits), ran
on3, n_on3, ran3 = run("1:3")
on1, n_on1, ran1 = run("1:1")
off3, n_off3, ranoff = run("0:3")
assert len(ran3) >= 2 and len({a["attempt"] for a in ran3}) == len(ran3), on3["stages"]   # distinct kernels, all run
assert n_on3 == n_on1 and sum(a["gpu"]["cuda_starts"] for a in ran3) == 1, (n_on3, n_on1, ran3)   # one worker for all
assert all(a["gpu"]["baseline_s"] == 0 and not a["passed"] for a in ran3), ran3   # failed kernels: no baseline run
assert n_off3 - n_on3 >= 3 * (len(ran3) - 1), (n_off3, n_on3)   # probes and device queries per attempt without it
assert on3["verdicts"] == off3["verdicts"] and on3["why"] == off3["why"] and on3["best_of"] == off3["best_of"], (on3, off3)
assert [(a["stage"], a["same_as"]) for a in on3["stages"]["attempts"]] == [(a["stage"], a["same_as"]) for a in off3["stages"]["attempts"]]
PY
cmp -s "$tmp/memo1:3.ptx" "$tmp/memo0:3.ptx" && ok || bad "PTXGEN_GPU_MEMO=0 kept another kernel: $(diff "$tmp/memo1:3.ptx" "$tmp/memo0:3.ptx" | head -5)"

# the harness's per-gen counts (issue 29 item 5): CUDA initialisations, input sets built with their reference,
# nvcc baseline runs.  The stand-in runs the task's kernel ($FAKECUDA_TASK_KERNEL) as each distinct candidate's
# letter of $FAKECUDA_VERDICTS says: right, a trap that poisons the context (700 from every later call), right,
# wrong.  ew_silu with three small sizes (45 input sets).  One worker per gen (default) against one process per
# kernel (PTXGEN_GPU_WORKER=0, the harness before the worker): the same verdicts, reasons and kept kernel (the
# kernel after a trap is judged in a fresh process, not the poisoned one); per gen, CUDA is initialised once plus
# once after each fault, each input set is built once (a worker started after a fault takes the sets the one
# before it built), nvcc's baseline runs once, and each count is at most the one-process-per-kernel count
# (strictly below it where two kernels shared a process).
mkdir -p "$tmp/task"
cp bench/suite/ew_silu/reference.cu "$tmp/task/"
python3 -c 'import json,sys; d=json.load(open("bench/suite/ew_silu/task.json")); d["sizes"]=[{"n": 65537, "time": True}, {"n": 1030}, {"n": 5}]
json.dump(d, open(sys.argv[1], "w"))' "$tmp/task/task.json"
# What the checks asked of the device (the resident input sets): the harness's counts (--json gpu.htod_bytes ...)
# equal the stand-in's own ($FAKECUDA_COPYLOG); with the worker each input set crosses host to device once per
# worker (the first kernel's check uploads them all, nvcc's baseline and every later kernel copy them device to
# device), one process per kernel uploads them for every kernel.  "sc": a kernel whose stray writes alter the
# resident sets (no guard zone sees them): the failures they cause are found, the sets uploaded again and
# the sets run again, so the verdicts are those of one process per kernel (where the stray writes hit nothing).
# "p0": as "1" with gen's preparation of the input sets off (PTXGEN_GPU_PREPARE=0: the worker builds them, as before it).
for w in 1 0 s1 s0 p0; do
    : > "$tmp/w$w.log"
    v=ctcw; [ "${w#s}" != "$w" ] && v=sc
    wk=${w#s}; prep=1; [ "$w" = p0 ] && wk=1 prep=0
    LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_INITLOG="$tmp/w$w.log" FAKECUDA_COPYLOG="$tmp/copy$w" \
        FAKECUDA_TASK_KERNEL=ew_silu FAKECUDA_VERDICTS=$v FAKECUDA_EVENT_MS=1 PTXGEN_GPU_WORKER=$wk PTXGEN_GPU_PREPARE=$prep timeout 300 "$BUILD/ptxgen" gen --model models/default silu --device gpu \
        --task "$tmp/task/task.json" --verify gpu --samples 4 --temperature 1 --max-tokens 64 --json -o "$tmp/w$w.ptx" \
        > "$tmp/w$w.json" 2> "$tmp/w$w.err"
done
python3 - "$tmp" <<'PY' && ok || bad "the harness's per-gen counts: $(grep -h '^gen: attempt' "$tmp/w1.err" | cut -c1-200)"
import json, sys
t = sys.argv[1]
def run(w):
    d = json.load(open(f"{t}/w{w}.json"))
    log = open(f"{t}/w{w}.log").read().splitlines()
    ran = [a for a in d["stages"]["attempts"] if "gpu" in a]
    counts = {k: sum(a["gpu"][k] for a in ran) for k in ("cuda_starts", "refs", "baseline_runs")}
    loads = [x.split() for x in log if x.startswith("load ")]
    # the stand-in's view: processes that loaded a harness kernel, baseline loads
    seen = {"cuda_starts": len({x[-1] for x in loads}), "baseline_runs": sum(x[1] == "baseline" for x in loads)}
    return d, ran, counts, seen, [x[2] for x in loads if x[1] == "candidate"]
d1, ran1, c1, seen1, cls1 = run(1)
d0, ran0, c0, seen0, cls0 = run(0)
print("harness counts per gen: worker", c1, "| one process per kernel", c0, "| candidates", "".join(cls1))
assert len(ran1) >= 2 and cls1 == cls0 and len(cls1) == len(ran1), (cls1, cls0, ran1)
for c, seen in ((c1, seen1), (c0, seen0)):
    assert c["cuda_starts"] == seen["cuda_starts"] and c["baseline_runs"] == seen["baseline_runs"], (c, seen)
assert d1["verdicts"] == d0["verdicts"] and d1["why"] == d0["why"] and d1["best_of"] == d0["best_of"], (d1, d0)
assert [(a["stage"], a["same_as"]) for a in d1["stages"]["attempts"]] == [(a["stage"], a["same_as"]) for a in d0["stages"]["attempts"]]
stages = [a["stage"] for a in ran1]
want = {"c": "timed", "w": "wrong", "t": "fault"}
assert stages == [want[x] for x in cls1], (stages, cls1)   # right after a trap stays right: no poisoned context
faults_before_more = sum(a["stage"] == "fault" for a in ran1[:-1])
assert c1["cuda_starts"] == 1 + faults_before_more, (c1, stages)
assert c1["baseline_runs"] == (1 if "timed" in stages else 0) == c0["baseline_runs"], (c1, c0)
# each input set built once per gen, also across the worker that replaced the trapped one (the shared sets): by gen's
# preparation (stages.prepare), which leaves the workers none to build, or by the workers without it
prep1, prep0 = d1["stages"]["prepare"], d0["stages"]["prepare"]
built = c1["refs"] + prep1["sets"]
assert built == 45 if "timed" in stages else 0 < built <= 45, (c1, prep1, stages)
assert prep1["total"] == 45 and (prep1["state"] != "done" or (prep1["sets"] == 45 and c1["refs"] == 0)), prep1
assert prep0["state"] == "off" and prep0["sets"] == 0, prep0   # one-shot children keep no sets: nothing prepared
assert all(c1[k] <= c0[k] for k in c1), (c1, c0)
assert c1["cuda_starts"] < c0["cuda_starts"] and c1["refs"] < c0["refs"], (c1, c0)
# device traffic: the harness's counts are the stand-in's, per gen
import glob
K = ("htod_bytes", "dtoh_bytes", "dtod_bytes", "allocs", "syncs")
def traffic(w):
    d = json.load(open(f"{t}/w{w}.json"))
    ran = [a for a in d["stages"]["attempts"] if "gpu" in a]
    own = {k: sum(a["gpu"][k] for a in ran) for k in K + ("resident_refreshed",)}
    seen = dict.fromkeys(K, 0)
    for f in glob.glob(f"{t}/copy{w}.*"):
        x = open(f).read().split()
        for k, v in zip(x[0::2], x[1::2]):
            seen[{"htod": "htod_bytes", "dtoh": "dtoh_bytes", "dtod": "dtod_bytes"}.get(k, k)] += int(v)
    assert all(own[k] == seen[k] for k in K), (w, own, seen)
    return d, ran, own
task = json.load(open(f"{t}/task/task.json"))
SET = sum(len(task["distributions"]) * 5 * 2 * 4 * s["n"] for s in task["sizes"])   # every input set: a and out, f32
_, r1, t1 = traffic(1)
_, r0, t0 = traffic(0)
print("device traffic per gen: worker", t1, "| one process per kernel", t0, "| all input sets", SET, "bytes")
assert r1[0]["gpu"]["htod_bytes"] == SET, (r1[0]["gpu"], SET)   # candidate and baseline: each set uploaded once
assert all(a["gpu"]["htod_bytes"] == 0 for a in r1[1:] if a["gpu"]["cuda_starts"] == 0), r1   # later kernels: none
assert t1["htod_bytes"] == c1["cuda_starts"] * SET and t1["resident_refreshed"] == 0, (t1, c1)   # once per worker
full = sum(a["stage"] == "timed" for a in r0) + 1   # kernels that ran every set, nvcc's baseline included
assert t0["htod_bytes"] >= full * SET and t0["dtod_bytes"] == 0, (t0, full)
# gen's preparation on and off: the same verdicts, reasons, kept kernel and device traffic; off, the workers build every set
dp, rp, tp = traffic("p0")
_, _, cp, _, clsp = run("p0")
assert clsp == cls1 and dp["verdicts"] == d1["verdicts"] and dp["why"] == d1["why"] and dp["best_of"] == d1["best_of"], (dp, d1)
assert [(a["stage"], a["same_as"]) for a in dp["stages"]["attempts"]] == [(a["stage"], a["same_as"]) for a in d1["stages"]["attempts"]]
assert all(t1[k] == tp[k] for k in K), (t1, tp)
assert dp["stages"]["prepare"]["state"] == "off" and cp["refs"] == built and cp["cuda_starts"] == c1["cuda_starts"], (dp["stages"]["prepare"], cp, c1)
assert all("prep_wait_s" in a["gpu"] and a["gpu"]["prep_wait_s"] >= 0 for a in ran1), ran1
print("preparation: on", prep1, "| off: sets built by the workers", cp["refs"])
ds1, rs1, ts1 = traffic("s1")
ds0, rs0, ts0 = traffic("s0")
print("stray writes: worker", ts1, "| one process per kernel", ts0)
assert ts1["resident_refreshed"] > 0 and ts0["resident_refreshed"] == 0, (ts1, ts0)
assert ds1["verdicts"] == ds0["verdicts"] and ds1["why"] == ds0["why"] and ds1["best_of"] == ds0["best_of"], (ds1, ds0)
assert [(a["stage"], a["same_as"]) for a in ds1["stages"]["attempts"]] == [(a["stage"], a["same_as"]) for a in ds0["stages"]["attempts"]]
PY
cmp -s "$tmp/w1.ptx" "$tmp/w0.ptx" && ok || bad "PTXGEN_GPU_WORKER=0 kept another kernel: $(diff "$tmp/w1.ptx" "$tmp/w0.ptx" | head -5)"
cmp -s "$tmp/w1.ptx" "$tmp/wp0.ptx" && ok || bad "PTXGEN_GPU_PREPARE=0 kept another kernel: $(diff "$tmp/w1.ptx" "$tmp/wp0.ptx" | head -5)"
# eval's memo, one a task (src/eval/eval.c): five kernels of one task (the kernel the runs above kept, under each
# style's name), verdicts "cwtcw" by load order; with the memo one CUDA start a worker (a trap starts another)
# and each input set built once for the task, where one process a kernel (PTXGEN_GPU_MEMO=0) starts CUDA and
# builds every set for each kernel; the rows' verdicts are the same both ways
if [ -s "$tmp/w1.ptx" ]; then
    mkdir -p "$tmp/esuite/ew_silu" "$tmp/ek"
    cp "$tmp/task/task.json" "$tmp/task/reference.cu" "$tmp/esuite/ew_silu/"
    for s in terse detailed card zh prose; do cp "$tmp/w1.ptx" "$tmp/ek/ew_silu.$s.no_bias.0.ptx"; done
    for m in 1 0; do
        : > "$tmp/ev$m.log"
        LD_LIBRARY_PATH="$tmp/h" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_INITLOG="$tmp/ev$m.log" FAKECUDA_TASK_KERNEL=ew_silu \
            FAKECUDA_VERDICTS=cwtcw FAKECUDA_EVENT_MS=1 PTXGEN_GPU_MEMO=$m timeout 300 "$BUILD/ptxgen" eval --suite "$tmp/esuite" \
            --kernels "$tmp/ek" --no-bias --samples 1 --no-timing --no-progress --out "$tmp/ev$m.json" > "$tmp/ev$m.out" 2> "$tmp/ev$m.err"
    done
    python3 - "$tmp" <<'PY' && ok || bad "eval's memo a task: $(tail -3 "$tmp/ev1.err") $(tail -3 "$tmp/ev0.err")"
import json, sys
t = sys.argv[1]
r1, r0 = (sorted(json.load(open(f"{t}/ev{m}.json"))["rows"], key=lambda r: r["description"]) for m in (1, 0))
v = lambda rows: [(r["description"], r["last_stage"], r["correct"], r.get("gpu_status")) for r in rows]
print("eval rows, memo:", v(r1), "| starts", [r["gpu_cuda_starts"] for r in r1], "refs", [r["gpu_refs_built"] for r in r1])
assert len(r1) == 5 and v(r1) == v(r0), (v(r1), v(r0))
assert [r["last_stage"] for r in r1].count("correct") == 2, v(r1)   # terse c, detailed w, card t, zh c, prose w
s1, s0 = sum(r["gpu_cuda_starts"] for r in r1), sum(r["gpu_cuda_starts"] for r in r0)
b1, b0 = sum(r["gpu_refs_built"] for r in r1), sum(r["gpu_refs_built"] for r in r0)
assert s1 == 2 and s0 == 5, (s1, s0)          # the worker, and the one that replaced it after the trap
assert b1 < b0 and 0 < b1 <= 45, (b1, b0)
PY
else
    bad "eval's memo: no kernel kept by the runs above ($tmp/w1.ptx)"
fi
# a preparation that fails is reported, not swallowed: a C reference that cannot run the largest size (its input a is
# one element short there) is the same setup-error for every candidate that reaches it with the preparation and
# without it, and with it gen also says the preparation failed, in the same words (--json stages.prepare, a note)
mkdir -p "$tmp/tfail"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["params"][0]["len"]="min(n,65536)"; d["reference"]={"kind": "c", "name": "fam_elem_act"}
d["family_params"]={"act": "silu", "x": "a", "y": "out"}; json.dump(d, open(sys.argv[2], "w"))' "$tmp/task/task.json" "$tmp/tfail/task.json"
for prep in 1 0; do
    LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_TASK_KERNEL=ew_silu FAKECUDA_VERDICTS=c \
        PTXGEN_GPU_PREPARE=$prep timeout 300 "$BUILD/ptxgen" gen --model models/default silu --device gpu --task "$tmp/tfail/task.json" --verify gpu \
        --samples 2 --temperature 1 --max-tokens 64 --json -o "$tmp/f$prep.ptx" > "$tmp/f$prep.json" 2> "$tmp/f$prep.err"
done
python3 - "$tmp" <<'PY' && ok || bad "a failed preparation: $(grep -h '^gen: \(attempt\|note\)' "$tmp/f1.err" | cut -c1-240)"
import json, sys
t = sys.argv[1]
on, off = (json.load(open(f"{t}/f{p}.json")) for p in (1, 0))
err_on, err_off = (open(f"{t}/f{p}.err").read() for p in (1, 0))
want = "size 0: the C reference failed: "
p = on["stages"]["prepare"]
assert p["state"] == "failed" and p["why"].startswith(want) and "has 65536 elements, the computation needs 65537" in p["why"], p
assert p["sets"] == 30 and p["total"] == 45, p   # the two smaller sizes prepared, the largest not
assert off["stages"]["prepare"]["state"] == "off", off["stages"]["prepare"]
assert "gen: note: preparing the input sets ahead failed (%s)" % p["why"] in err_on and "preparing the input sets" not in err_off
assert on["verdicts"] == off["verdicts"] and on["why"] == off["why"] and on["why"].endswith(p["why"]), (on["why"], off["why"])
assert [a["stage"] for a in on["stages"]["attempts"]] == [a["stage"] for a in off["stages"]["attempts"]], (on["stages"], off["stages"])
PY
# a kernel wrong only on the large sets (the stand-in's "l"): on a set with 64 KiB of outputs or more the harness compares
# the outputs on a helper thread while the inputs come back (src/gpu/run.c check_kernel); the failure is still found on
# the first large set and said as on the small ones, in a worker and in one process per kernel alike
for wk in 1 0; do
    LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_TASK_KERNEL=ew_silu FAKECUDA_VERDICTS=l \
        PTXGEN_GPU_WORKER=$wk timeout 300 "$BUILD/ptxgen" gen --model models/default silu --device gpu --task "$tmp/task/task.json" --verify gpu \
        --samples 1 --max-tokens 64 --json -o "$tmp/l$wk.ptx" > "$tmp/l$wk.json" 2> "$tmp/l$wk.err"
done
python3 - "$tmp" <<'PY' && ok || bad "a kernel wrong on the large sets only: $(grep -h '^gen: attempt' "$tmp/l1.err" | cut -c1-300)"
import json, re, sys
t = sys.argv[1]
a, b = (json.load(open(f"{t}/l{w}.json")) for w in (1, 0))
assert a["why"] == b["why"] and a["verdicts"] == b["verdicts"], (a["why"], b["why"])
assert re.search(r"gpu: wrong: input set 31 of 45 wrong .*: size n=65537, distribution uniform\(-10,10\), seed 1: output 'out': rel L2 [0-9.e+-]+ \(tol 0\.0001\)", a["why"]), a["why"]
PY
# a gen killed while its worker hangs in a kernel (the watchdog is gen's, gone with it): the worker goes too
# (PR_SET_PDEATHSIG), it does not keep the GPU
: > "$tmp/hang.log"
LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_INITLOG="$tmp/hang.log" \
    FAKECUDA_TASK_KERNEL=ew_silu FAKECUDA_VERDICTS=h timeout 300 "$BUILD/ptxgen" gen --model models/default silu --device gpu --task "$tmp/task/task.json" \
    --verify gpu --samples 1 --max-tokens 64 -o "$tmp/hang.ptx" > /dev/null 2>&1 &
gpid=$!
for _ in $(seq 1 600); do grep -q '^load candidate h' "$tmp/hang.log" && break; sleep 0.5; done
wpid=$(awk '/^load candidate h/ { print $NF }' "$tmp/hang.log")
kill -9 "$(pgrep -P "$gpid" -x ptxgen | head -1)" 2> /dev/null   # gen itself (timeout's child)
wait "$gpid" 2> /dev/null
gone=no
for _ in $(seq 1 50); do if [ -n "$wpid" ] && ! kill -0 "$wpid" 2> /dev/null; then gone=yes; break; fi; sleep 0.1; done
[ -n "$wpid" ] && [ "$gone" = yes ] && ok || { bad "a worker outlived its killed gen (pid ${wpid:-none})"; [ -n "$wpid" ] && kill -9 "$wpid" 2> /dev/null; }

# the plans' GPU check of a two-stage model (pipe_plan with --verify gpu --task) through the harness on the stand-in:
# test_pipeline's test_plan_gpu and test_plan_gpu_memo alone ($FAKECUDA_TASK_KERNEL set): a plan that runs wrong
# (nvcc's PTX naming fakecuda_wrong) is drawn again and the right one kept; two wrong plans keep the last with a
# warning; a given wrong plan is kept with a warning; with gen's one memo for plans and candidates (pipe_in.memo), a
# plan that ran wrong or trapped (fakecuda_trap) leaves the candidate after it right, and each input set is built once
TP=${PTXGEN_SBUILD:-$BUILD/san}/tests/pipeline/test_pipeline
if [ -x "$TP" ] && command -v nvcc > /dev/null 2>&1; then
    LD_LIBRARY_PATH="$tmp/h" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_TASK_KERNEL=ew_silu FAKECUDA_INITLOG="$tmp/plan.log" timeout 600 \
        "$TP" > "$tmp/plan.txt" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] && ! grep -q SKIPPED "$tmp/plan.txt" && [ "$(grep -c '^load plan-wrong' "$tmp/plan.log")" -eq 6 ] &&
        [ "$(grep -c '^load plan-trap' "$tmp/plan.log")" -eq 1 ] && ok ||
        bad "the plans' GPU check on the stand-in: exit $rc: $(tail -5 "$tmp/plan.txt"); $(sort "$tmp/plan.log" 2> /dev/null | uniq -c | head -5)"
else
    echo "SKIPPED: $TP or nvcc absent; the plans' GPU check on the stand-in not run (make $TP)"
fi

# one memo for the whole two-stage gen (--verify gpu --task): the plans' checks and the candidates' share gen's gpu_memo,
# so its preparation's input sets serve both, each built once per gen, and CUDA starts once (plus once after a fault).
# models/qwen-plan on the CPU engine (the stand-in's C kernels would take minutes a draw with the 0.5B) and a given plan
# (no plan turn): "on" its right plan; "off" the same with PTXGEN_GPU_MEMO=0 (no memo: the plan's check and each
# candidate's in processes of their own, the same verdicts and kept kernel); "trap" a plan that traps (fakecuda_trap): kept
# with a warning, and the candidates after it still right (a fresh worker, the same sets)
if [ -s models/base/qwen2.5-coder-0.5b-instruct.gguf ] && command -v nvcc > /dev/null 2>&1; then
    sed -n '/^extern/,$p' tests/gen/two_stage/plan_silu.cu > "$tmp/plan_body.cu"
    { echo '// ew_silu, 4 consecutive elements a thread'; cat "$tmp/plan_body.cu"; } > "$tmp/plan_on.cu"
    { echo '// ew_silu that traps on the stand-in'; echo '__device__ int fakecuda_trap;'; cat "$tmp/plan_body.cu"; } > "$tmp/plan_trap.cu"
    for r in on off trap; do
        memo=1; plan=on; n=2
        [ $r = off ] && memo=0
        [ $r = trap ] && plan=trap n=1
        : > "$tmp/two$r.log"
        LD_LIBRARY_PATH="$tmp/h" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_TASK_KERNEL=ew_silu FAKECUDA_INITLOG="$tmp/two$r.log" PTXGEN_GPU_MEMO=$memo \
            timeout 300 "$BUILD/ptxgen" gen --model models/qwen-plan --device cpu --threads 2 --plan "$tmp/plan_$plan.cu" --task "$tmp/task/task.json" \
            --verify gpu --samples $n --max-tokens 400 --json -o "$tmp/two$r.ptx" > "$tmp/two$r.json" 2> "$tmp/two$r.err"
    done
    python3 - "$tmp" <<'PY' && ok || bad "one memo for the two-stage gen: $(grep -h '^gen: \(plan\|attempt\)' "$tmp"/two*.err | cut -c1-200)"
import json, sys
t = sys.argv[1]
def run(r):
    d = json.load(open(f"{t}/two{r}.json"))
    ran = [a for a in d["stages"]["attempts"] if "gpu" in a]
    c = {k: d["plan"]["gpu_" + k] + sum(a["gpu"][k] for a in ran) for k in ("cuda_starts", "refs")}
    pids = {x.split()[-1] for x in open(f"{t}/two{r}.log") if x.startswith("load ")}
    return d, ran, c, pids
on, ran_on, c_on, pids_on = run("on")
off, ran_off, c_off, pids_off = run("off")
trap, ran_trap, c_trap, pids_trap = run("trap")
print("two-stage gen, plan + candidates: one memo", c_on, on["stages"]["prepare"], "| PTXGEN_GPU_MEMO=0", c_off, "| a trapping plan", c_trap)
assert on["plan"]["gpu"] == "pass" and on["plan"]["gpu_checked"] == 1 and ran_on, (on["plan"], on["stages"])
assert all(a["stage"] == "timed" for a in ran_on + ran_trap), (ran_on, ran_trap)   # the stand-in's "c": right
# the right plan ran every input set: all 45 built once, by gen's preparation, none by a check; one harness process
assert on["stages"]["prepare"]["state"] == "done" and on["stages"]["prepare"]["sets"] == 45 and c_on["refs"] == 0, (on["stages"], c_on)
assert on["plan"]["gpu_cuda_starts"] == 1 and c_on["cuda_starts"] == 1 and len(pids_on) == 1, (c_on, pids_on)
# no memo: as before it, nothing prepared, the plan's check and every candidate's in processes of their own
assert off["stages"]["prepare"]["state"] == "off" and off["plan"]["gpu_refs"] == 45, off
assert c_off["cuda_starts"] == 1 + sum(1 + a["gpu"]["baseline_runs"] for a in ran_off) and c_off["refs"] > 45, (c_off, ran_off)
same = lambda b: {k: v for k, v in b.items() if k != "speedup"}   # timed against the stand-in's clock
assert off["verdicts"] == on["verdicts"] and same(off["best_of"]) == same(on["best_of"]) and off["plan"]["gpu"] == "pass", (off["best_of"], on["best_of"])
# the trap retired the plan's worker: the candidates' checks in a fresh one, on the same sets
assert trap["plan"]["gpu"] == "fail" and "the given plan ran wrong on the GPU" in trap["plan"]["gpu_note"], trap["plan"]
assert c_trap["cuda_starts"] == 2 and len(pids_trap) == 2 and c_trap["refs"] + trap["stages"]["prepare"]["sets"] == 45, (c_trap, trap["stages"])
assert trap["verdicts"]["gpu"] == "pass", trap["verdicts"]
PY
    cmp -s "$tmp/twoon.ptx" "$tmp/twooff.ptx" && ok || bad "PTXGEN_GPU_MEMO=0 kept another kernel in the two-stage gen"
else
    echo "SKIPPED: models/base/qwen2.5-coder-0.5b-instruct.gguf or nvcc absent; one memo for the two-stage gen not checked (bash models/fetch_base.sh)"
fi

# --verify gpu with a GPU where no candidate reaches it: the summary says what stopped them, not "--verify gpu was not
# requested" (which --verify ptxas still says): cut at 16 tokens they fail the validator; a ptxas that refuses every
# attempt (a wrapper) leaves them at ptxas.  The counts are the attempts' stages in --json.
printf '#!/bin/sh\ncase "$*" in *attempt*) echo "ptxas fatal   : refused by the test wrapper" >&2; exit 255;; esac\nexec "%s" "$@"\n' \
    "$(command -v "${PTXAS:-ptxas}" || echo /usr/local/cuda/bin/ptxas)" > "$tmp/noptxas" && chmod +x "$tmp/noptxas"
for r in validator ptxas level1; do
    mt=16 v=gpu px=${PTXAS:-}
    [ $r = ptxas ] && mt=64 px="$tmp/noptxas"
    [ $r = level1 ] && v=ptxas
    LD_LIBRARY_PATH="$tmp/h" PTXGEN_CUBLAS="$tmp/h/libcuda.so.1" XDG_CACHE_HOME="$tmp/cache" FAKECUDA_TASK_KERNEL=ew_silu PTXAS=$px timeout 300 \
        "$BUILD/ptxgen" gen --model models/default silu --task "$tmp/task/task.json" --verify $v --samples 3 --temperature 1 --max-tokens $mt \
        --json -o "$tmp/nr$r.ptx" > "$tmp/nr$r.json" 2> "$tmp/nr$r.err"
done
python3 - "$tmp" <<'PY' && ok || bad "no candidate reached the GPU: $(grep -h '^gen: silu\|^gen: ew_silu' "$tmp"/nr*.err | cut -c1-400)"
import json, re, sys
t = sys.argv[1]
for r, who in (("validator", "the validator"), ("ptxas", "ptxas")):
    d, err = json.load(open(f"{t}/nr{r}.json")), open(f"{t}/nr{r}.err").read()
    stages = [a["stage"] for a in d["stages"]["attempts"]]
    assert stages == [r] * 3, (r, stages)
    want = "no candidate reached the GPU: 3 refused by %s" % who
    assert d["semantics_note"] == want and "semantics not verified (%s);" % want in err and "was not requested" not in err, (r, d["semantics_note"])
d, err = json.load(open(f"{t}/nrlevel1.json")), open(f"{t}/nrlevel1.err").read()
assert d["semantics_note"] == "--verify gpu was not requested" and "semantics not verified (--verify gpu was not requested);" in err, d["semantics_note"]
PY

# tests/gpu/engine_gpu.sh's SKIP: the parts it names are left out, recorded as rc -3, and the run still reports
SKIP="default gen_default qwen gen_qwen" NO_PEER=1 OUT="$tmp/eg" BUDGET=60 timeout 120 bash tests/gpu/engine_gpu.sh > "$tmp/eg.txt" 2>&1
rc=$?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p={x["part"]: x["rc"] for x in d["parts"]}
assert p["default"] == -3 and p["gen_default"] == -3 and d["status"] == 0, d["parts"]' "$tmp/eg/engine_gpu.json" 2>/dev/null &&
    [ "$rc" -eq 0 ] && grep -q 'part default skipped: SKIP=' "$tmp/eg.txt" && ok || bad "engine_gpu.sh SKIP: exit $rc: $(tail -5 "$tmp/eg.txt")"

# one libcuda loader, each user's entry points: the stand-in has only the engine's (used above), so the
# harness (ptxgen devinfo, gpu_available) loads the same file and names the first one it needs and lacks
out=$(timeout 60 "$BUILD/ptxgen" devinfo 2>&1); rc=$?
[ "$rc" -eq 3 ] && grep -q 'the CUDA driver lacks cuDeviceGetAttribute (too old a driver?)' <<<"$out" && ok ||
    bad "the harness against the engine's stand-in: exit $rc: $out"

# no driver at all: a clean refusal naming libcuda (the loader finds no libcuda.so.1 in an empty dir)
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    LD_LIBRARY_PATH= "$BUILD/ptxgen" gen --model models/default --device gpu "add two float vectors" -o "$tmp/n.ptx" > /dev/null 2> "$tmp/n.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q 'E702.*libcuda.*--device cpu' "$tmp/n.err" && [ ! -e "$tmp/n.ptx" ] && ok || bad "no driver: exit $rc: $(cat "$tmp/n.err")"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
