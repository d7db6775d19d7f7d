#!/usr/bin/env bash
# bench_gen_cpu.sh — issue 29 on the CPU, side by side in one run (make bench runs it when the
# base GGUF is present): decode of the C engine against the engine before (BASE_REF) and
# llama.cpp on the same GGUF, the engine's per-stage profile, and end-to-end `ptxgen gen` of
# bench/suite tasks with plain decoding (--draft 0) and speculative decoding + jump-forward
# (--draft 8), whose outputs must be byte-identical.
#   bash bench/bench_gen_cpu.sh [OUT.json]
# Knobs (environment):
#   GGUF       the model (default models/base/qwen2.5-coder-0.5b-instruct.gguf, models/fetch_base.sh)
#   THREADS    2; ROUNDS 3 (alternations of each comparison); TG 64 decode steps per bench_model run
#   BASE_REF   git ref of the engine before (default df31c89, the tree issue 29 started from; "" skips):
#              its bench_model and ptxgen are built from `git archive` in a temp dir
#   LLAMA_DIR  a llama.cpp tree with build/bin/llama-bench (built as bench/bench_llama_cpp.sh does:
#              Release, GGML_NATIVE=ON, CPU only); unset: no llama.cpp rows
#   TASKS      how many bench/suite tasks (sorted, every task by default) go through gen both ways
#   SAMPLES    gen --samples (default 1: one attempt, the speed of writing a kernel; the base model
#              without an adapter often runs out of tokens, and 4 attempts would time its retries)
#   EXACT_BEFORE  a bench_model of the engine before (one with --exact): its exact-step rows are
#              measured alternating with the engine's now (side "before" / "now")
#   REUSE      a kept work folder of an earlier run (its decode.jsonl, exact.jsonl and base/build):
#              skip the decode part and the baseline build, run only the gen part (the JSON says so)
# Method: each comparison alternates its sides round by round, so drift in machine speed (this VM
# is shared) hits both alike; the load average is recorded before and after every round.
# "Median task": the suite task whose plain output has the median token count; it is then
# generated ROUNDS more times each way.  gen's own timer (JSON "seconds": decoding, no ptxas).
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
GGUF=${GGUF:-models/base/qwen2.5-coder-0.5b-instruct.gguf}
OUT=${1:-bench/results/$(date +%F)-gen-cpu.json}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
TG=${TG:-64}
BASE_REF=${BASE_REF-df31c89}
TASKS=${TASKS:-0}
SAMPLES=${SAMPLES:-1}
[ -f "$GGUF" ] || { echo "bench_gen_cpu: no $GGUF (bash models/fetch_base.sh)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-gen.XXXXXX")
tmp_out=
trap 'rm -rf "$WORK"; [ -z "$tmp_out" ] || rm -f "$tmp_out"' EXIT
make -s all "$BUILD/bench_model"
BASE_BM= BASE_PG=
if [ -n "${REUSE:-}" ]; then
    cp "$REUSE/decode.jsonl" "$REUSE/exact.jsonl" "$WORK/"
    [ -x "$REUSE/base/build/ptxgen" ] && BASE_PG=$REUSE/base/build/ptxgen
elif [ -n "$BASE_REF" ]; then
    mkdir -p "$WORK/base"
    git archive "$BASE_REF" | tar -x -C "$WORK/base"
    make -s -C "$WORK/base" build/bench_model build/ptxgen >/dev/null
    BASE_BM=$WORK/base/build/bench_model
    BASE_PG=$WORK/base/build/ptxgen
fi
LLAMA_BENCH=
llama_commit=null
if [ -n "${LLAMA_DIR:-}" ]; then
    LLAMA_BENCH=$LLAMA_DIR/build/bin/llama-bench
    [ -x "$LLAMA_BENCH" ] || { echo "bench_gen_cpu: no $LLAMA_BENCH" >&2; exit 1; }
    llama_commit=\"$(cat "$LLAMA_DIR/COMMIT" 2>/dev/null || git -C "$LLAMA_DIR" rev-parse HEAD 2>/dev/null || echo unknown)\"
fi
"$BUILD/ptxgen" fmt corpus/axpby_relu/kernel.ptx > "$WORK/replay.ptx"   # canonical, gen's sm_80 header
load() { cut -d' ' -f1-3 /proc/loadavg; }

# --- 1. decode: the engine now (with its profile), before, and llama.cpp --------------------------
[ -n "${REUSE:-}" ] || : > "$WORK/decode.jsonl"
for r in $(seq 1 "$ROUNDS"); do
    [ -z "${REUSE:-}" ] || break
    echo "{\"round\": $r, \"load_before\": \"$(load)\"}" >> "$WORK/decode.jsonl"
    run_new() { "$BUILD/bench_model" "$GGUF" --threads "$THREADS" --pp 16 --tg "$TG" --reps 3 --profile --constraint "$WORK/replay.ptx" \
                  | sed "s/^{/{\"side\": \"now\", \"round\": $r, /" >> "$WORK/decode.jsonl"; }
    run_base() { [ -z "$BASE_BM" ] || "$BASE_BM" "$GGUF" --threads "$THREADS" --pp 16 --tg "$TG" --reps 3 \
                  | sed "s/^{/{\"side\": \"before\", \"round\": $r, /" >> "$WORK/decode.jsonl"; }
    run_llama() { [ -z "$LLAMA_BENCH" ] || { "$LLAMA_BENCH" -m "$GGUF" -t "$THREADS" -p 16 -n "$TG" -r 3 -o json 2>/dev/null \
                  | python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'side':'llama.cpp','round':$r,'tests':[{'n_prompt':t['n_prompt'],'n_gen':t['n_gen'],'samples_ts':t['samples_ts']} for t in d]}))" >> "$WORK/decode.jsonl"; }; }
    if [ $((r % 2)) = 1 ]; then run_new; run_base; run_llama; else run_llama; run_base; run_new; fi
    echo "{\"round\": $r, \"load_after\": \"$(load)\"}" >> "$WORK/decode.jsonl"
    echo "decode round $r done" >&2
done
# the verify step's cost curve (model_forward_exact of n rows vs n one-token steps)
if [ -z "${REUSE:-}" ]; then
    : > "$WORK/exact.jsonl"
    for r in $(seq 1 "$ROUNDS"); do   # alternating with the engine before, when given
        ex_now() { "$BUILD/bench_model" "$GGUF" --threads "$THREADS" --reps 3 --exact 1,2,4,8,16 --profile \
                     | sed "s/^{/{\"side\": \"now\", \"round\": $r, \"load\": \"$(load)\", /" >> "$WORK/exact.jsonl"; }
        ex_before() { [ -z "${EXACT_BEFORE:-}" ] || "$EXACT_BEFORE" "$GGUF" --threads "$THREADS" --reps 3 --exact 1,2,4,8,16 \
                     | sed "s/^{/{\"side\": \"before\", \"round\": $r, \"load\": \"$(load)\", /" >> "$WORK/exact.jsonl"; }
        if [ $((r % 2)) = 1 ]; then ex_now; ex_before; else ex_before; ex_now; fi
        echo "exact round $r done" >&2
    done
fi

# Qwen tokens per kernel of the corpus's hand-written kernels (canonical text): what a kernel costs a
# model that writes real ones (the base without an adapter writes short ones, below)
for d in corpus/*/; do "$BUILD/ptxgen" fmt "$d/kernel.ptx" 2>/dev/null | python3 -c 'import json,sys; print(json.dumps({"ptx_code": sys.stdin.read()}))'; done > "$WORK/corpus.jsonl"
"$BUILD/ptxgen" tokenize --tokenizer "$GGUF" --stats "$WORK/corpus.jsonl" > "$WORK/corpus_tokens.txt" 2>&1 || true

# --- 2. gen over the suite: plain and speculative, alternating per task -------------------------
js() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$1" 2>/dev/null || echo null; }   # a gen --json result on one line, or null when gen failed
gen() {   # gen SIDE TASK_DIR TAG [ptxgen]
    local bin=${4:-$BUILD/ptxgen} extra=
    [ "$1" = plain ] && extra="--draft 0"
    [ "$1" = spec ] && extra="--draft 8"
    "$bin" gen --model "$GGUF" --task "$2/task.json" --threads "$THREADS" --samples "$SAMPLES" $extra --json -o "$WORK/$3.ptx" \
        > "$WORK/$3.json" 2> "$WORK/$3.err" || true
}
: > "$WORK/gen.jsonl"
i=0
for d in bench/suite/*/; do
    d=${d%/}
    i=$((i + 1))
    [ "$TASKS" = 0 ] || [ "$i" -le "$TASKS" ] || break
    t=$(basename "$d")
    if [ $((i % 2)) = 1 ]; then gen plain "$d" "p-$t"; gen spec "$d" "s-$t"; else gen spec "$d" "s-$t"; gen plain "$d" "p-$t"; fi
    same=false   # the same module, or (gen failed both ways) the same last line of the error
    if [ -s "$WORK/p-$t.json" ]; then cmp -s "$WORK/p-$t.ptx" "$WORK/s-$t.ptx" && same=true
    elif [ ! -s "$WORK/s-$t.json" ] && [ "$(tail -1 "$WORK/p-$t.err")" = "$(tail -1 "$WORK/s-$t.err")" ]; then same=true; fi
    err=$(tail -1 "$WORK/p-$t.err" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()[:300]))')
    echo "{\"task\": \"$t\", \"same\": $same, \"plain\": $(js "$WORK/p-$t.json"), \"spec\": $(js "$WORK/s-$t.json"), \"plain_stderr_last\": $err, \"load\": \"$(load)\"}" >> "$WORK/gen.jsonl"
    echo "gen $t: same=$same" >&2
done
median=$(python3 - "$WORK/gen.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows = [r for r in rows if r["plain"] and r["spec"]]
rows.sort(key=lambda r: (r["plain"]["tokens"], r["task"]))
print(rows[(len(rows) - 1) // 2]["task"])
PY
)
: > "$WORK/median.jsonl"
for r in $(seq 1 "$ROUNDS"); do
    sides="plain spec before"
    [ $((r % 2)) = 0 ] && sides="before spec plain"
    for s in $sides; do
        case $s in
            before) [ -z "$BASE_PG" ] && continue; gen before "bench/suite/$median" "m$r-before" "$BASE_PG" ;;
            *) gen "$s" "bench/suite/$median" "m$r-$s" ;;
        esac
        echo "{\"round\": $r, \"side\": \"$s\", \"result\": $(js "$WORK/m$r-$s.json"), \"load\": \"$(load)\"}" >> "$WORK/median.jsonl"
    done
    cmp -s "$WORK/m$r-plain.ptx" "$WORK/m$r-spec.ptx" && echo "{\"round\": $r, \"same\": true}" >> "$WORK/median.jsonl" \
        || echo "{\"round\": $r, \"same\": false}" >> "$WORK/median.jsonl"
    echo "median task $median round $r done" >&2
done

# --- the result file --------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
tmp_out=$(mktemp "$OUT.XXXXXX")
python3 - "$WORK" "$GGUF" "$THREADS" "$ROUNDS" "$TG" "$BASE_REF" "$llama_commit" "$median" "${REUSE:-}" > "$tmp_out" <<'PY'
import datetime, json, os, platform, statistics, sys
work, gguf, threads, rounds, tg, base_ref, llama_commit, median, reuse = sys.argv[1:10]
med = statistics.median
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
rd = [json.loads(l) for l in open(os.path.join(work, "decode.jsonl"))]
now = [r for r in rd if r.get("side") == "now"]
before = [r for r in rd if r.get("side") == "before"]
llama = [r for r in rd if r.get("side") == "llama.cpp"]
def pct(r):   # decode's streamed bytes per second over the read bandwidth the same run measured
    return 100 * r["decode_bytes"] * r[f"tg{tg}_tok_s"] / 1e9 / r["read_bw_gb_s"] if r.get("read_bw_gb_s") else None
dec = {"now": {"tg_tok_s": [r[f"tg{tg}_tok_s"] for r in now], "read_bw_gb_s": [r["read_bw_gb_s"] for r in now],
               "pct_of_read_bw": [round(pct(r), 1) for r in now], "pp16_tok_s": [r["pp16_tok_s"] for r in now]}}
if before:
    # the old bench_model counts the whole embedding table as streamed: recompute with the bytes a step streams
    db = now[0]["decode_bytes"]
    dec["before"] = {"tg_tok_s": [r[f"tg{tg}_tok_s"] for r in before], "read_bw_gb_s": [r["read_bw_gb_s"] for r in before],
                     "pct_of_read_bw": [round(100 * db * r[f"tg{tg}_tok_s"] / 1e9 / r["read_bw_gb_s"], 1) for r in before]}
if llama:
    dec["llama.cpp"] = {"tg_tok_s": [round(med(t["samples_ts"]), 2) for r in llama for t in r["tests"] if t["n_gen"]],
                        "pp16_tok_s": [round(med(t["samples_ts"]), 2) for r in llama for t in r["tests"] if t["n_prompt"]]}
for k, v in dec.items():
    v["median"] = {m: round(med(x), 2) for m, x in v.items() if x and m != "median"}
gen = [json.loads(l) for l in open(os.path.join(work, "gen.jsonl"))]
ok = [g for g in gen if g["plain"] and g["spec"]]
toks = sorted(g["plain"]["tokens"] for g in ok)
mm = [json.loads(l) for l in open(os.path.join(work, "median.jsonl"))]
side = lambda s: [m["result"] for m in mm if m.get("side") == s and m.get("result")]
mt = {s: [r["seconds"] for r in side(s)] for s in ("plain", "spec", "before")}
res = {
    "name": "gen-cpu", "date": datetime.date.today().isoformat(),
    "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                "isa": sorted(x for x in flags if x.startswith(("avx512", "amx", "avx2", "fma", "f16c")))},
    "model": {"file": gguf, "bytes": os.path.getsize(gguf), "adapter": None,
              "note": "the Qwen2.5-Coder-0.5B base GGUF without an adapter (none shipped yet): it writes short, mostly "
                      "trivial kernels, so tokens per kernel here are the base's, not a fine-tuned model's"},
    "threads": int(threads), "rounds": int(rounds), "tg": int(tg), "base_ref": base_ref or None,
    "samples": int(os.environ.get("SAMPLES", "1")), "exact_before": os.environ.get("EXACT_BEFORE") or None,
    "note": ("decode and exact-step rows come from an earlier invocation on the same build (REUSE); the gen part ran after it"
             if reuse else "one invocation"),
    "llama_cpp": {"commit": json.loads(llama_commit) if llama_commit != "null" else None,
                  "build": "cmake -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DGGML_CUDA=OFF; llama-bench -t THREADS -p 16 -n TG -r 3"},
    "corpus_tokens_per_kernel": open(os.path.join(work, "corpus_tokens.txt")).read().strip().splitlines()[-2:],
    "decode": dec,
    "decode_rounds": rd,
    "exact_step": [json.loads(l) for l in open(os.path.join(work, "exact.jsonl"))],
    "gen_suite": {"tasks": len(gen), "byte_identical": sum(g["same"] for g in ok), "compared": len(ok),
                  "failed_both_ways_identically": sum(1 for g in gen if not g["plain"] and not g["spec"] and g["same"]),
                  "failed": [{"task": g["task"], "plain_stderr_last": g["plain_stderr_last"], "same_failure": g["same"]} for g in gen if not g["plain"] or not g["spec"]],
                  "plain_tokens_per_kernel": {"median": med(toks) if toks else None, "min": toks[0] if toks else None,
                                              "max": toks[-1] if toks else None},
                  "plain_seconds_sum": round(sum(g["plain"]["seconds"] for g in ok), 2),
                  "spec_seconds_sum": round(sum(g["spec"]["seconds"] for g in ok), 2),
                  "plain_model_steps_sum": sum(g["plain"]["speculative"]["model_steps"] for g in ok),
                  "spec_model_steps_sum": sum(g["spec"]["speculative"]["model_steps"] for g in ok),
                  "rows": [{"task": g["task"], "same": g["same"], "tokens": g["plain"]["tokens"] if g["plain"] else None,
                            "plain_s": g["plain"]["seconds"] if g["plain"] else None, "spec_s": g["spec"]["seconds"] if g["spec"] else None,
                            "plain_steps": g["plain"]["speculative"]["model_steps"] if g["plain"] else None,
                            "spec": g["spec"]["speculative"] if g["spec"] else None, "load": g["load"]} for g in gen]},
    "median_task": {"task": median, "rounds": mm,
                    "byte_identical_rounds": sum(1 for m in mm if m.get("same") is True),
                    "median_seconds": {s: round(med(v), 2) for s, v in mt.items() if v},
                    "speedup_spec_over_plain": round(med(mt["plain"]) / med(mt["spec"]), 2) if mt["plain"] and mt["spec"] else None,
                    "speedup_spec_over_before": round(med(mt["before"]) / med(mt["spec"]), 2) if mt["before"] and mt["spec"] else None},
}
json.dump(res, sys.stdout, indent=1)
print()
PY
mv "$tmp_out" "$OUT"
tmp_out=
python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k, v in r["decode"].items():
    print(f"decode {k:10} {v['median']}")
g = r["gen_suite"]
print(f"gen suite: {g['byte_identical']}/{g['compared']} byte-identical; plain tokens per kernel {g['plain_tokens_per_kernel']}; "
      f"seconds plain {g['plain_seconds_sum']} spec {g['spec_seconds_sum']}; model steps {g['plain_model_steps_sum']} -> {g['spec_model_steps_sum']}")
m = r["median_task"]
print(f"median task {m['task']}: {m['median_seconds']} speedup spec/plain {m['speedup_spec_over_plain']} "
      f"identical rounds {m['byte_identical_rounds']}")
print("wrote", sys.argv[1])
PY
