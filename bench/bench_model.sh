#!/usr/bin/env bash
# bench_model.sh — CPU speed of the C inference engine vs PyTorch on a 15.7M-parameter
# random Qwen2 (bench/make_bench_model.py), per compute dtype and thread count.
# Measures prefill tokens/s (pp64), decode tokens/s (tg256 from an empty context),
# time to first token (64-token prompt) and peak RSS, and batched decode on the shipped model
# (bench_model --batch); writes bench/results/<date>-model-cpu.json.
#   bash bench/bench_model.sh [OUT.json]
# Run it on a quiet machine: every number here is bound by memory bandwidth or FMA
# throughput, and another process on one of the two cores halves it.
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
OUT=${1:-bench/results/$(date +%F)-model-cpu.json}
MODEL=$BUILD/bench-model
[ -f "$MODEL/model.safetensors" ] || python3 bench/make_bench_model.py "$MODEL"
make -s "$BUILD/libptxgen.a"
# same flags as the Makefile's bench_ptx rule (no -march: the kernels pick AVX-512/AVX2 at run time)
${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L -O2 -g \
    -o "$BUILD/bench_model" src/model/bench_model.c "$BUILD/libptxgen.a" -ljansson -lpcre2-8 -ldl -lm -lpthread
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for dt in f32 bf16 q8; do
    for th in 1 2; do
        "$BUILD/bench_model" "$MODEL" --dtype $dt --threads $th --pp 64 --tg 256 --reps "${REPS:-5}" | tee -a "$tmp"
    done
done
python3 bench/make_bench_model.py --torch "$MODEL" | tee -a "$tmp"
# the shipped model as well (the issue's "default model" rows): 2 threads, each compute dtype, and PyTorch
DEFAULT=${DEFAULT_MODEL:-models/default}
for dt in f32 bf16 q8; do
    "$BUILD/bench_model" "$DEFAULT" --dtype $dt --threads 2 --pp 64 --tg 256 --reps "${REPS:-5}" | tee -a "$tmp"
done
python3 bench/make_bench_model.py --torch "$DEFAULT" | tee -a "$tmp"
# batched decode (best-of-k in `gen --samples k`): k = 1, 4, 8 sequences stepped together vs one at a time
for dt in f32 bf16 q8; do
    "$BUILD/bench_model" "$DEFAULT" --dtype $dt --threads 2 --tg 128 --reps "${REPS:-5}" --batch 1,4,8 | tee -a "$tmp"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$tmp" "$OUT" "$load_before" "$load_after" "$MODEL" <<'PY'
import json, sys, platform, subprocess, datetime, os
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
# llama.cpp on this machine (2 threads, the same 15.7M random Qwen2; llama-bench pp64 / tg256)
llama = {"f32": {"tg256": 560, "pp64": [5400, 6500]}, "bf16": {"tg256": 780, "pp64": [5400, 6500]},
         "q8": {"tg256": [930, 1170], "pp64": [5400, 6500]}}
cmp = {}
for r in rows:
    if r.get("engine") != "ptxgen" or r["threads"] != 2 or r.get("model") != sys.argv[5]:
        continue
    l = llama[r["dtype"]]
    tg_bar = l["tg256"] if isinstance(l["tg256"], (int, float)) else l["tg256"][1]
    cmp[r["dtype"]] = {"tg256_vs_llama_cpp": round(r["tg256_tok_s"] / tg_bar, 3),
                       "tg256_target_1.2x_met": r["tg256_tok_s"] >= 1.2 * tg_bar,
                       "pp64_vs_llama_cpp_low": round(r["pp64_tok_s"] / l["pp64"][0], 3),
                       "pp64_target_met": r["pp64_tok_s"] >= l["pp64"][0]}
res = {"name": "model-cpu", "date": datetime.date.today().isoformat(),
       "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                   "loadavg_before": sys.argv[3], "loadavg_after": sys.argv[4]},
       "model": "random Qwen2, 15.74M params: vocab 8192, hidden 384, 8 layers, 6 heads / 2 kv heads, head_dim 64, "
                "intermediate 1024, tied embeddings (bench/make_bench_model.py, seed 0); the rows whose model is "
                "models/default are the shipped model (15.0M params, vocab 6144, bf16 file)",
       "method": "pp64: one 64-token prefill incl. picking the first token (= time to first token); "
                 "tg256: 256 single-token steps from an empty context; median of REPS runs after a warm-up; "
                 "one process per row (peak RSS)",
       "warning": ("machine busy (1-minute load average %s on %d cores): these numbers measure contention, "
                   "not the engine; rerun on a quiet machine" % (sys.argv[3].split()[0], os.cpu_count()))
                  if float(sys.argv[3].split()[0]) > 0.5 * (os.cpu_count() or 1) else None,
       "results": rows, "llama_cpp_bar_2_threads": llama, "vs_llama_cpp_2_threads": cmp}
os.makedirs(os.path.dirname(sys.argv[2]) or ".", exist_ok=True)
with open(sys.argv[2], "w") as f:
    json.dump(res, f, indent=1)
print("wrote", sys.argv[2])
PY
