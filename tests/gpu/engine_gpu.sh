#!/usr/bin/env bash
# tests/gpu/engine_gpu.sh — the GPU engine (src/model/gpu*.c, `gen --device gpu`) on the GPU
# machine: its logits against the CPU engine's, greedy tokens, decode speed, and best-of-16
# generation end to end.  One run, every part time-boxed, a clear line per part; the report
# is $OUT/engine_gpu.json (and each part's own JSON / log beside it).
#
# Carry the binaries built on the build machine (build/ is ignored by git):
#     build/ptxgen build/bench_gpu            (make all build/bench_gpu)
# and run from the repository root:
#     OUT=... bash tests/gpu/engine_gpu.sh
# Optional: QWEN_GGUF=path/to/qwen2.5-coder-0.5b-instruct.gguf (else models/base/ when fetched),
# QWEN_ADAPTER=DIR (default models/qwen-plan, its LoRA merged on the GPU), BUDGET=seconds for
# the whole run (default 540), TOL=max relative logit error (default 0.02), NO_PEER=1 (skip
# transformers), GEN_BIN=path (part 3's ptxgen, default build/ptxgen: another build's binary, e.g. main's, for a
# before/after on one machine), SKIP="NAME ..." (parts left out by name: default, qwen, gen_default, gen_qwen, peer;
# when the device time is short, e.g. SKIP="default gen_default" measures only the Qwen model).  Parts: 0 environment, 1 models/default (15M, always there), 2 the Qwen GGUF
# with the adapter, 3 `gen --device gpu --verify gpu --samples 16` on bench/suite, timed wall
# to wall, with models/default and with the two-stage Qwen model when its GGUF is given, 4 the
# peer (transformers' generate on the same GPU and GGUF, when torch, transformers and gguf import).
# The summary lines (and "summary" in the report) give per model the decode tok/s, k = 32 tok/s
# three ways (rows copied, top 64 from the device, engine alone) and gen's wall time.
# Parts 1 and 2 also time one sequence with its token chosen on the device (model_forward_top,
# "decode_tok_s_top"), pg_attention against the split-KV attention (pg_attn_split + pg_attn_merge,
# model_gpu_option "attn_split"; the engine's default since 2026-12-07, PTXGEN_GPU_ATTN=full the old
# pg_attention for the whole run, "attention" in the JSON) back to back, one sequence and k batched (logits against the CPU
# engine, exact bits: bench_gpu's "check attn_split", "attn_split" in its JSON), and profile a
# one-token step and a k-sequence step kernel by kernel with each ($OUT/engine_gpu_profile_<model>.json:
# ms per step and launches per step, per kernel and matrix).
# Part 2 loads the engine with PTXGEN_GPU_WEIGHTS=q8 (WEIGHTS=f16 leaves it out): the int8 copies beside the f16
# weights; bench_gpu runs its checks on the f16 ones, then times one sequence f16 and q8 (pg_matvec_q8)
# alternating and compares q8's logits with the CPU engine's over Q8_STEPS (512) teacher-forced greedy tokens
# (max rel err, top-token agreement, exact bits; bench_gpu's "check q8", "q8" in its JSON, fails only on a
# gross error).  The part's cap grows by Q8_CAP (150) s for the CPU engine's Q8_STEPS steps.
# Parts 1 and 2 also time the k-sequence run with each row's top 64 selected on the device
# (pg_topk; "k_tok_s_topk" in their JSON) and check that it picks the tokens the whole rows give
# (bench_gpu's "check topk").
# A part that has fewer than 10 s of the budget left is skipped with a line saying so (rc -2 in
# the report; -3 for a part SKIP names).  Part 3 fails if the harness found no usable GPU after the engine ran (gen keeps
# the engine in one child process that serves its draws, src/pipeline/draw.h, so its own process can fork
# the harness's children).
# Exit status: 0 every check passed, 1 a check failed, 2 the engine could not run at all.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ptxgen-out}
mkdir -p "$OUT"
BUDGET=${BUDGET:-540}
TOL=${TOL:-0.02}
T0=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin"
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
# the timeout of a part: its own cap, or what is left of the budget less a reserve (may be <= 0)
cap() { local l; l=$(( $(left) - ${2:-20} )); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
# room NAME CAP [RESERVE]: sets T to the part's timeout; false (and a skip line, a record) when
# fewer than 10 s are left for it, so `timeout` never gets a zero or negative duration
room() {
    case " ${SKIP:-} " in *" $1 "*)
        echo "part $1 skipped: SKIP=\"$SKIP\""; record "$1" -3 0 "skipped: SKIP"; return 1 ;;
    esac
    T=$(cap "$2" "${3:-20}")
    [ "$T" -ge 10 ] && return 0
    echo "part $1 skipped: out of time (${T} s left for it of BUDGET=$BUDGET after $(( $(date +%s) - T0 )) s)"
    record "$1" -2 0 "skipped: out of time"
    return 1
}
say() { echo "== $*"; }
status=0
parts=()
record() {   # name, rc, seconds, detail
    parts+=("{\"part\": \"$1\", \"rc\": $2, \"seconds\": $3, \"detail\": \"$4\"}")
}

say "0. environment ($(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?))"
timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader 2>&1 | tee "$OUT/nvidia-smi.txt"
for b in build/ptxgen build/bench_gpu; do
    if [ ! -x "$b" ]; then
        echo "engine_gpu: $b is missing: build it on the build machine (make all build/bench_gpu) and carry build/" >&2
        exit 2
    fi
done
# cuBLAS: the loader's search path, /usr/local/cuda/lib64, else a pip wheel's (torch ships one)
if [ -z "${PTXGEN_CUBLAS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so' && ! ls /usr/local/cuda/lib64/libcublas.so* >/dev/null 2>&1; then
    c=$(timeout 30 find / -xdev -name 'libcublas.so.1[0-9]*' -not -path '*/proc/*' 2>/dev/null | head -1)
    [ -n "$c" ] && export PTXGEN_CUBLAS="$c"
fi
# libcublas.so.12 needs libcublasLt.so.12 beside it: its folder on the loader's path
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -n "${PTXGEN_CUBLAS:-}" ] && export LD_LIBRARY_PATH="$(dirname "$PTXGEN_CUBLAS"):$LD_LIBRARY_PATH"
echo "cuBLAS: ${PTXGEN_CUBLAS:-found by the dynamic loader} (the engine's line below says which it loaded, or why none)"
ldd build/ptxgen | grep -E 'cuda|cublas' && echo "engine_gpu: WARNING: the binary links CUDA at build time (it should dlopen it)"

# 1. models/default: every check, and the speed of a small model (launch-bound)
say "1. models/default (the 15M from-scratch model)"
if room default 120; then
    t=$(date +%s)
    timeout "$T" build/bench_gpu models/default --steps 64 --tg 256 --k 32 --ksteps 64 --tol "$TOL" \
        --out "$OUT/engine_gpu_default.json" 2>&1 | tee "$OUT/engine_gpu_default.log"
    rc=${PIPESTATUS[0]}
    echo "part 1: rc $rc in $(( $(date +%s) - t )) s (0 pass, 1 a check failed, 2 no engine, 124 out of time)"
    record default "$rc" $(( $(date +%s) - t )) "models/default"
    [ "$rc" -eq 2 ] && { echo "engine_gpu: the GPU engine did not start; the diagnostic above says why" >&2; status=2; }
    [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=1
fi

# 2. the Qwen base with the shipped adapter (LoRA merged into the f16 weights)
GGUF=${QWEN_GGUF:-}
[ -z "$GGUF" ] && [ -f models/base/qwen2.5-coder-0.5b-instruct.gguf ] && GGUF=models/base/qwen2.5-coder-0.5b-instruct.gguf
ADAPTER=${QWEN_ADAPTER:-models/qwen-plan}
# the time kept back for part 3's Qwen gen: none when SKIP leaves it out
reserve=150; case " ${SKIP:-} " in *" gen_qwen "*) reserve=10 ;; esac
WEIGHTS=${WEIGHTS:-q8}
case "$WEIGHTS" in q8) qcap=${Q8_CAP:-150} ;; f16) qcap=0 ;; *) echo "engine_gpu: WEIGHTS=$WEIGHTS: q8 or f16" >&2; exit 2 ;; esac
if [ "$status" -ne 2 ] && [ -n "$GGUF" ] && [ -f "$GGUF" ] && room qwen $(( 200 + qcap )) "$reserve"; then
    say "2. $GGUF + adapter $ADAPTER (PTXGEN_GPU_WEIGHTS=$WEIGHTS)"
    t=$(date +%s)
    PTXGEN_GPU_WEIGHTS=$WEIGHTS timeout "$T" build/bench_gpu "$GGUF" --adapter "$ADAPTER" --steps 64 --tg 512 --k 32 --ksteps 64 --tol "$TOL" \
        --qsteps "${Q8_STEPS:-512}" \
        --out "$OUT/engine_gpu_qwen.json" 2>&1 | tee "$OUT/engine_gpu_qwen.log"
    rc=${PIPESTATUS[0]}
    echo "part 2: rc $rc in $(( $(date +%s) - t )) s"
    record qwen "$rc" $(( $(date +%s) - t )) "$GGUF + $ADAPTER"
    [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=1
elif [ -z "$GGUF" ] || [ ! -f "$GGUF" ]; then
    echo "part 2 skipped: no Qwen GGUF (set QWEN_GGUF, or fetch it with models/fetch_base.sh)"
    record qwen -1 0 "skipped: no GGUF"
fi

# 3. generation end to end: verified best-of-16 on a bench/suite task (goal: <= 20 s wall), timed with
#    models/default and, when the Qwen GGUF is there, the two-stage model (its adapter on that GGUF).
#    One engine child serves all of a gen's draws (src/pipeline/draw.h); the candidates are drawn from
#    each row's top 64 on the device (src/decode/top.c; --json "top_candidates").
TASK=${TASK:-bias_gelu_residual}
QMODEL=
if [ -n "$GGUF" ] && [ -f "$GGUF" ] && [ -f "$ADAPTER/base.json" ]; then
    # the shipped two-stage model names ../base/<file>.gguf beside it: a scratch copy of that layout
    W=$(mktemp -d /tmp/ptxgen-engine.XXXXXX)
    mkdir -p "$W/model" "$W/base"
    for f in "$ADAPTER"/*; do ln -s "$(readlink -f "$f")" "$W/model/$(basename "$f")"; done
    rel=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gguf"])' "$ADAPTER/base.json")
    ln -s "$(readlink -f "$GGUF")" "$W/base/$(basename "$rel")"
    QMODEL="$W/model"
fi
for which in default qwen; do
    GMODEL=models/default
    [ "$which" = qwen ] && GMODEL=$QMODEL
    if [ -z "$GMODEL" ]; then
        record "gen_$which" -1 0 "skipped: no Qwen GGUF + two-stage adapter"
        continue
    fi
    if [ "$status" -ne 2 ] && [ -f "bench/suite/$TASK/task.json" ] && room "gen_$which" 150 30; then
        say "3. gen --device gpu --verify gpu --samples 16 --task bench/suite/$TASK (model $GMODEL)"
        t=$(date +%s%N)
        timeout "$T" "${GEN_BIN:-build/ptxgen}" gen --device gpu --model "$GMODEL" --task "bench/suite/$TASK/task.json" --verify gpu \
            --samples 16 --threads 8 --json -o "$OUT/gen_gpu_${which}_$TASK.ptx" --force > "$OUT/gen_gpu_$which.json" 2> "$OUT/gen_gpu_$which.err"
        rc=$?
        wall=$(awk -v a="$t" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
        tail -5 "$OUT/gen_gpu_$which.err"
        echo "part 3 ($which): rc $rc, $wall s wall (goal <= 20 s; rc 0 a correct kernel, 1 none correct, 124 out of time)"
        # where the verification's time went: the input sets prepared ahead (gpu_memo_prepare) and each verified attempt
        python3 - "$OUT/gen_gpu_$which.json" <<'PY' 2> /dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
st = d["stages"]
p = st.get("prepare", {})
pl = d.get("plan")
if pl:   # a two-stage model: its plans' GPU checks share gen's memo (one worker, the prepared sets)
    print("part 3: plan %.1f s, GPU check %s (%s run), its checks %s CUDA start(s) and %s sets built" % (pl["seconds"], pl.get("gpu", "-"),
          pl.get("gpu_checked", "-"), pl.get("gpu_cuda_starts", "-"), pl.get("gpu_refs", "-")))
print("part 3: draw %.1f s, verify %.1f s; input sets prepared ahead: %s, %s of %s sets in %.1f s%s" % (st["draw_s"], st["verify_s"],
      p.get("state", "-"), p.get("sets", "-"), p.get("total", "-"), p.get("seconds", 0), " (%s)" % p["why"] if p.get("why") else ""))
for a in st["attempts"]:
    g = a.get("gpu")
    if g and a["seconds"] >= 1:
        print("part 3: attempt %d %s %.1f s: sets %.2f s, timing %.2f s, baseline %.2f s, waited for the preparation %.2f s, %d sets built" % (
              a["attempt"], a["stage"], a["seconds"], g["sets_s"], g["timing_s"], g["baseline_s"], g.get("prep_wait_s", 0), g["refs"]))
PY
        record "gen_$which" "$rc" "$wall" "$TASK, 16 samples, $GMODEL, ${GEN_BIN:-build/ptxgen}${PTXGEN_GPU_PREPARE:+, PTXGEN_GPU_PREPARE=$PTXGEN_GPU_PREPARE}"
        grep -q 'no usable GPU' "$OUT/gen_gpu_$which.err" "$OUT/gen_gpu_$which.json" &&
            { echo "part 3: FAIL: the harness found no usable GPU after the engine ran (the fork rule)"; [ "$status" -eq 0 ] && status=1; }
    elif [ "$status" -eq 2 ] || [ ! -f "bench/suite/$TASK/task.json" ]; then
        record "gen_$which" -1 0 "skipped"
    fi
done

# 4. the peer: transformers' generate on the same GPU, the same GGUF (dequantized by transformers)
if [ -z "${NO_PEER:-}" ] && [ -n "$GGUF" ] && [ -f "$GGUF" ] && room peer 150 10; then
    say "4. peer: transformers generate (same GPU, $GGUF)"
    t=$(date +%s)
    timeout "$T" python3 - "$GGUF" "$OUT/peer_transformers.json" <<'EOF' 2>&1 | tail -15
import json, os, sys, time
gguf, out = sys.argv[1], sys.argv[2]
try:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
except Exception as e:
    print("peer skipped:", e); json.dump({"skipped": str(e)}, open(out, "w")); sys.exit(0)
d, f = os.path.dirname(os.path.abspath(gguf)), os.path.basename(gguf)
tok = AutoTokenizer.from_pretrained(d, gguf_file=f)
model = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, torch_dtype=torch.float16).cuda().eval()
prompt = "Write a PTX kernel: y[i] = a * x[i] + y[i] for i < n, one element per thread.\n.version 8.0\n.target sm_80\n"
ids = tok(prompt, return_tensors="pt").input_ids.cuda()
res = {"device": torch.cuda.get_device_name(0), "prompt_tokens": ids.shape[1], "dtype": "float16"}
with torch.no_grad():
    model.generate(ids, max_new_tokens=16, do_sample=False)   # warm-up
    for k, n in ((1, 256), (32, 128)):
        batch = ids.repeat(k, 1)
        torch.cuda.synchronize(); t = time.time()
        o = model.generate(batch, max_new_tokens=n, min_new_tokens=n, do_sample=k > 1, top_k=5)
        torch.cuda.synchronize(); dt = time.time() - t
        res["k%d_tok_s" % k] = k * (o.shape[1] - ids.shape[1]) / dt
        print("transformers generate, k = %d: %.0f tok/s" % (k, res["k%d_tok_s" % k]))
json.dump(res, open(out, "w"), indent=1)
EOF
    record peer 0 $(( $(date +%s) - t )) "transformers"
fi

# the report: every part's JSON, and a summary of the numbers issue 29 asks for
python3 - "$OUT" "$status" "${parts[@]}" <<'EOF'
import json, os, sys
out, status, parts = sys.argv[1], int(sys.argv[2]), [json.loads(p) for p in sys.argv[3:]]
rep = {"test": "tests/gpu/engine_gpu.sh", "status": status, "parts": parts}
for name in ("engine_gpu_default", "engine_gpu_qwen", "gen_gpu_default", "gen_gpu_qwen", "peer_transformers"):
    p = os.path.join(out, name + ".json")
    try:
        rep[name] = json.load(open(p))
    except Exception as e:
        rep[name] = {"missing": str(e)}
summary = {}
for m in ("default", "qwen"):
    e, g = rep["engine_gpu_" + m], rep["gen_gpu_" + m]
    s = summary[m] = {k: e.get(k) for k in ("decode_tok_s", "decode_tok_s_top", "decode_tok_s_engine", "k", "k_tok_s", "k_tok_s_topk",
                                            "k_tok_s_no_logits", "attention", "attn_split", "weights", "q8")}
    # the per-kernel profiles of a one-token step and a k-sequence step with each attention (bench_gpu --profile), its own file too
    prof = {md: e["profile_" + md] for md in ("matvec", "split", "k", "k_split", "q8") if "profile_" + md in e}
    if prof:
        json.dump(prof, open(os.path.join(out, "engine_gpu_profile_%s.json" % m), "w"), indent=1)
        s["profile"] = {md: {"step_ms_eager": p["step_ms_eager"], "launches_per_step": p["profile"]["launches_per_step"],
                             "kernel_ms_per_step": p["profile"]["kernel_ms_per_step"],
                             "top": [(k["name"], round(k["ms_per_step"], 4)) for k in p["profile"]["kernels"][:6]]} for md, p in prof.items()}
    part = next((p for p in parts if p["part"] == "gen_" + m), {})
    s["gen_rc"] = part.get("rc")
    # a run the part's timeout stopped (rc 124) has no wall time, only a lower bound ("> N")
    rc = part.get("rc", -1)
    s["gen_wall_s"] = part.get("seconds") if rc >= 0 and rc != 124 else None
    s["gen_wall_s_at_least"] = part.get("seconds") if rc == 124 else None
    if "seconds" in g:
        s["gen"] = {k: g.get(k) for k in ("kernel", "tokens", "seconds", "tokens_per_s", "semantics", "verdicts", "best_of", "top_candidates", "stages")}
        s["gen"]["device"] = g.get("device", {}).get("detail")
rep["summary"] = summary
json.dump(rep, open(os.path.join(out, "engine_gpu.json"), "w"), indent=1)
f = lambda x: "-" if x is None else x
for m, s in summary.items():
    print("summary %s (attention %s): decode %s tok/s single; k=%s: %s tok/s rows copied, %s tok/s top 64 from the device (pg_topk), %s engine alone; "
          "gen --verify gpu --samples 16: %s s wall (rc %s; goal <= 20 s)" % (m, f(s["attention"]), f(s["decode_tok_s"]), f(s["k"]), f(s["k_tok_s"]),
          f(s["k_tok_s_topk"]), f(s["k_tok_s_no_logits"]),
          "> %s" % s["gen_wall_s_at_least"] if s["gen_wall_s_at_least"] is not None else f(s["gen_wall_s"]), f(s["gen_rc"])))
for m, s in summary.items():
    g = s.get("attn_split") or {}
    if g:
        print("summary %s: token on the device (model_forward_top) %s tok/s; attention: pg_attention %s vs pg_attn_split %s tok/s single, "
              "%s vs %s tok/s at k=%s (engine alone); split logits rel err %s against the CPU engine, %s against pg_attention (4 rows), "
              "exact bits %s, greedy tokens the same %s of %s" % (m, f(s["decode_tok_s_top"]), g["decode_tok_s"]["attention"],
              g["decode_tok_s"]["split"], g["k_tok_s"]["attention"], g["k_tok_s"]["split"], g["k"], g["rel_err_cpu"], g["rel_err_batch4"],
              g["exact_bits"], g["greedy_same"], g["greedy_of"]))
    q = s.get("q8") or {}
    if q:
        print("summary %s: weights f16 vs q8 (pg_matvec_q8), one sequence: %s vs %s tok/s (logits row to the host), %s vs %s tok/s "
              "(token on the device); q8 against the CPU engine over %s teacher-forced steps: max rel err %s (f16 %s), top token agrees "
              "in %s (f16 %s), first disagreement at %s; prompt's last row rel err %s, top %s (cpu %s); exact bits %s"
              % (m, q["decode_tok_s"]["f16"], q["decode_tok_s"]["q8"], q["decode_tok_s_top"]["f16"], q["decode_tok_s_top"]["q8"], q["steps"],
                 q["max_rel_err"]["q8"], q["max_rel_err"]["f16"], q["top_agree"]["q8"], q["top_agree"]["f16"], q["first_disagreement_q8"],
                 q["prefill_rel_err"]["q8"], q["prefill_top"]["q8"], q["prefill_top"]["cpu"], q["exact_bits_q8"]))
    for md, p in (s.get("profile") or {}).items():
        print("summary %s profile %s: %.3f ms a step eagerly, %.3f ms in kernels, %s launches; top: %s" % (m, md, p["step_ms_eager"],
              p["kernel_ms_per_step"], p["launches_per_step"], ", ".join("%s %.3f" % t for t in p["top"])))
print("summary: status %d" % status)
EOF
echo "engine_gpu: report $OUT/engine_gpu.json ($(( $(date +%s) - T0 )) s)"
exit "$status"
