#!/usr/bin/env bash
# bench_llama_cpp.sh — llama.cpp vs the C inference engine on this machine, same conditions.
# Both engines run the 15.7M-parameter random Qwen2 of bench/make_bench_model.py with the same
# thread count, a 64-token prompt (pp64) and 256 decode steps from an empty context (tg256),
# REPS timed repetitions after one warm-up, per dtype (f32, bf16, q8 = llama.cpp Q8_0).
# Rounds alternate the engines dtype by dtype (llama-bench, then build/bench_model) so drift
# in machine speed hits both alike. llama.cpp Q8_0 runs twice: with its defaults (repack on:
# on AMX machines the weights go to the AMX buffer type, AMX-INT8 tiles for prefill and
# AVX512-VNNI for decode) and with --repack 0 (plain CPU buffer, the generic Q8_0 kernels).
# Writes bench/results/<date>-llama-cpp-vs-ptxgen.json (per-round numbers, medians over
# rounds, ptxgen/llama.cpp ratios, load averages).
#   bash bench/bench_llama_cpp.sh [OUT.json]
# Knobs (environment):
#   LLAMA_DIR  a llama.cpp source tree with build/bin/llama-bench built (CPU, Release,
#              GGML_NATIVE=ON). Unset: fetch the llama-cpp-python sdist from PyPI
#              (pip download, it vendors llama.cpp with its git metadata) into a temp dir
#              and build llama-bench there (~4 min on 2 cores), removed on exit.
#   LLAMA_CPP_PYTHON_VERSION  the sdist to fetch (0.3.36 = llama.cpp 0c1e57098)
#   ROUNDS     rounds of the alternation (3); REPS repetitions per run (5); THREADS (2)
#   LOAD_MAX   wait (up to QUIET_WAIT s, 300) for the 1-min load average to fall below this (0.3)
# llama.cpp's convert_hf_to_gguf.py needs a tokenizer: the scratch copy of the model gets
# models/default's byte-level BPE tokenizer (6144 ids < vocab 8192; the converter pads the
# rest). Two things in the converter are bypassed for that custom tokenizer: the
# sentencepiece probe (Qwen2 tries it first and only catches FileNotFoundError, so a missing
# sentencepiece module aborts) and the pre-tokenizer hash lookup (unknown regex -> "default").
# Neither affects timing: llama-bench feeds random token ids and never tokenizes.
# GCC 12 miscompiles ggml's AMX tile setup (ggml-cpu/amx/mmq.cpp ggml_tile_config_init: the
# stores into the tile_config_t are dropped before _tile_loadconfig, so the first tileloadd of
# a Q8_0 prefill raises SIGILL). When this script builds llama.cpp it adds a compiler barrier
# there (one line, no effect on what the kernels compute); a LLAMA_DIR tree needs the same fix
# or a compiler that does not drop the stores. The JSON says whether the fix is in the tree.
# Run it on a quiet machine; nothing is built while measuring.
#
# GGUF mode (GGUF="name=FILE.gguf name2=FILE2.gguf ..."): the same alternation on real GGUF files,
# which both engines read as they are (ptxgen computes from the stored blocks, quant.c): per round
# and file, llama-bench -p PP -n TG and build/bench_model --pp PP --tg TG (64 and 128; order swapped every
# round), each under /usr/bin/time for its peak RSS. With PURE="Q4_0 Q5_0 Q8_0" and a file named
# smol, llama-quantize --allow-requantize --pure first makes single-type copies of it (the
# per-quantization-type rows). Writes bench/results/<date>-gguf-cpu.json by default.
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
OUT=${1:-bench/results/$(date +%F)-llama-cpp-vs-ptxgen.json}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-5}
THREADS=${THREADS:-2}
LOAD_MAX=${LOAD_MAX:-0.3}
QUIET_WAIT=${QUIET_WAIT:-300}
MODEL=$BUILD/bench-model
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-llama.XXXXXX")
tmp_out=
trap 'rm -rf "$WORK"; [ -z "$tmp_out" ] || rm -f "$tmp_out"' EXIT

# --- llama.cpp: source and build -------------------------------------------------------------
if [ -z "${LLAMA_DIR:-}" ]; then
    pip download --no-deps --no-binary :all: -d "$WORK/sdist" "llama-cpp-python==${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
    tar -xzf "$WORK"/sdist/llama_cpp_python-*.tar.gz -C "$WORK"
    LLAMA_DIR=$(echo "$WORK"/llama_cpp_python-*/vendor/llama.cpp)
    sed -i 's|^    _tile_loadconfig(&tc);|    __asm__ __volatile__("" : : "r"(\&tc) : "memory");  // ptxgen bench: GCC 12 drops the tc stores otherwise\n    _tile_loadconfig(\&tc);|' \
        "$LLAMA_DIR/ggml/src/ggml-cpu/amx/mmq.cpp"
    t0=$(date +%s)
    cmake -S "$LLAMA_DIR" -B "$LLAMA_DIR/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DGGML_CUDA=OFF \
        -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF
    cmake --build "$LLAMA_DIR/build" --target llama-bench llama-quantize -j2
    echo $(($(date +%s) - t0)) > "$LLAMA_DIR/build/ptxgen-build-seconds"
fi
LLAMA_DIR=$(cd "$LLAMA_DIR" && pwd)
LLAMA_BENCH=$LLAMA_DIR/build/bin/llama-bench
[ -x "$LLAMA_BENCH" ] || { echo "bench_llama_cpp: no $LLAMA_BENCH (build llama-bench first)" >&2; exit 1; }
llama_commit=$(git -C "$LLAMA_DIR" rev-parse HEAD 2>/dev/null || echo unknown)
amx_fix=false
if grep -q 'ptxgen bench: GCC 12' "$LLAMA_DIR/ggml/src/ggml-cpu/amx/mmq.cpp" 2>/dev/null; then amx_fix=true; fi
llama_build_s=$(cat "$LLAMA_DIR/build/ptxgen-build-seconds" 2>/dev/null || echo null)
llama_cmake=$(grep -E '^(GGML_NATIVE|GGML_AVX512[A-Z0-9_]*|GGML_AMX_[A-Z0-9]*|GGML_OPENMP|GGML_LLAMAFILE|GGML_CPU_REPACK|CMAKE_BUILD_TYPE|CMAKE_C_COMPILER):' \
    "$LLAMA_DIR/build/CMakeCache.txt" 2>/dev/null | tr '\n' ';' || true)

if [ -n "${GGUF:-}" ]; then
    OUT=${1:-bench/results/$(date +%F)-gguf-cpu.json}
    PP=${PP:-64}
    TG=${TG:-128}
    make -s "$BUILD/libptxgen.a"
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L -O2 -g \
        -o "$BUILD/bench_model" src/model/bench_model.c "$BUILD/libptxgen.a" -ljansson -lpcre2-8 -ldl -lm -lpthread
    models=""
    for kv in $GGUF; do
        models="$models $kv"
        name=${kv%%=*}
        file=${kv#*=}
        if [ "$name" = smol ] && [ -n "${PURE:-}" ]; then
            for q in $PURE; do
                "$LLAMA_DIR/build/bin/llama-quantize" --allow-requantize --pure "$file" "$WORK/smol-$q.gguf" "$q" \
                    > "$WORK/quantize-$q.log" 2>&1 || { tail -5 "$WORK/quantize-$q.log" >&2; exit 1; }
                models="$models smol-$q=$WORK/smol-$q.gguf"
            done
        fi
    done
    waited=0
    while awk -v m="$LOAD_MAX" '{ exit !($1 >= m) }' /proc/loadavg && [ "$waited" -lt "$QUIET_WAIT" ]; do
        sleep 10
        waited=$((waited + 10))
    done
    : > "$WORK/loads"
    for r in $(seq 1 "$ROUNDS"); do
        before=$(cut -d' ' -f1-3 /proc/loadavg)
        for kv in $models; do
            name=${kv%%=*}
            file=${kv#*=}
            run_llama() {
                /usr/bin/time -f '%M' -o "$WORK/rss-llama-$r-$name" "$LLAMA_BENCH" -m "$file" -t "$THREADS" -p "$PP" -n "$TG" -r "$REPS" -o json \
                    > "$WORK/llama-$r-$name.json" 2> "$WORK/llama-$r-$name.log"
            }
            run_ptxgen() {
                /usr/bin/time -f '%M' -o "$WORK/rss-ptxgen-$r-$name" "$BUILD/bench_model" "$file" --threads "$THREADS" --pp "$PP" \
                    --tg "$TG" --reps "$REPS" > "$WORK/ptxgen-$r-$name.json"
            }
            if [ $((r % 2)) = 1 ]; then run_llama; run_ptxgen; else run_ptxgen; run_llama; fi
            echo "round $r $name done" >&2
        done
        echo "$r $before $(cut -d' ' -f1-3 /proc/loadavg)" >> "$WORK/loads"
    done
    mkdir -p "$(dirname "$OUT")"
    tmp_out=$(mktemp "$OUT.XXXXXX")
    python3 - "$WORK" "$ROUNDS" "$THREADS" "$REPS" "$llama_commit" "$amx_fix" "$models" "$waited" "$PP" "$TG" > "$tmp_out" <<'PY'
import datetime, json, os, platform, statistics, sys
work, rounds, threads, reps, commit, amx_fix, models, waited, pp, tg = sys.argv[1:11]
rounds, threads, reps = int(rounds), int(threads), int(reps)
models = [kv.split("=", 1) for kv in models.split()]
med = statistics.median
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
loads = {}
for line in open(os.path.join(work, "loads")):
    f = line.split()
    loads[int(f[0])] = {"before": " ".join(f[1:4]), "after": " ".join(f[4:7])}
res = {"name": "gguf-cpu", "date": datetime.date.today().isoformat(),
       "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                   "isa": sorted(x for x in flags if x.startswith(("avx512", "amx", "avx2", "fma", "f16c")))},
       "threads": threads, "reps": reps, "rounds": rounds, "waited_for_quiet_s": int(waited), "pp": int(pp), "tg": int(tg),
       "method": "per round and file: llama-bench -t THREADS -p PP -n TG -r REPS -o json and build/bench_model FILE "
                 "--threads THREADS --pp PP --tg TG --reps REPS (order swapped every round), each under /usr/bin/time "
                 "for peak RSS. Both read the same GGUF; ptxgen decodes straight from the blocks (int8 activations), "
                 "prefill dequantizes weight panels to f32. Per-run value: median over REPS; 'median': over rounds. "
                 "ttft_ms: ptxgen's measured PP-token prefill incl. picking the token; llama.cpp's PP / pp tok/s. "
                 "smol-Qx rows: llama-quantize --allow-requantize --pure copies of the SmolLM2 file.",
       "llama_cpp": {"source": "llama-cpp-python sdist (PyPI), vendor/llama.cpp", "commit": commit,
                     "amx_tile_config_fix": amx_fix == "true"},
       "files": {}, "rounds_data": [], "median": {}, "ratio_ptxgen_over_llama_cpp": {}, "loadavg": loads}
per = {}
for r in range(1, rounds + 1):
    row = {"round": r}
    for name, path in models:
        lj = json.load(open(os.path.join(work, f"llama-{r}-{name}.json")))
        l = {}
        for t in lj:
            key = "pp" if t["n_gen"] == 0 else "tg"
            l[key + "_tok_s"] = round(med(t["samples_ts"]), 2)
        l["ttft_ms"] = round(int(pp) / l["pp_tok_s"] * 1e3, 1)
        l["peak_rss_mb"] = round(int(open(os.path.join(work, f"rss-llama-{r}-{name}")).read().split()[-1]) / 1024, 1)
        res["files"].setdefault(name, {"path": path, "bytes": os.path.getsize(path), "llama_type": lj[0].get("model_type"),
                                       "llama_cpu_info": lj[0].get("cpu_info"), "llama_repack": lj[0].get("repack")})
        pj = json.loads(next(x for x in open(os.path.join(work, f"ptxgen-{r}-{name}.json")) if x.startswith("{")))
        p = {"pp_tok_s": pj[f"pp{pp}_tok_s"], "tg_tok_s": pj[f"tg{tg}_tok_s"], "ttft_ms": pj["ttft_ms"],
             "peak_rss_mb": round(int(open(os.path.join(work, f"rss-ptxgen-{r}-{name}")).read().split()[-1]) / 1024, 1),
             "weight_bytes": pj["weight_bytes"], "kernels": pj["kernels"]}
        row[name] = {"llama_cpp": l, "ptxgen": p}
        for eng, d in (("llama_cpp", l), ("ptxgen", p)):
            for k in ("pp_tok_s", "tg_tok_s", "ttft_ms", "peak_rss_mb"):
                per.setdefault(name, {}).setdefault(eng, {}).setdefault(k, []).append(d[k])
    res["rounds_data"].append(row)
for name, engs in per.items():
    res["median"][name] = {eng: {k: round(med(v), 2) for k, v in ks.items()} for eng, ks in engs.items()}
    res["ratio_ptxgen_over_llama_cpp"][name] = {
        k: round(med(engs["ptxgen"][k]) / med(engs["llama_cpp"][k]), 3) for k in ("pp_tok_s", "tg_tok_s")}
json.dump(res, sys.stdout, indent=1)
print()
PY
    mv "$tmp_out" "$OUT"
    tmp_out=
    python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{'file':10} {'engine':10} {'pp':>8} {'tg':>8} {'ttft_ms':>8} {'rss_mb':>8}")
for n, e in r["median"].items():
    for eng, v in e.items():
        print(f"{n:10} {eng:10} {v['pp_tok_s']:8.1f} {v['tg_tok_s']:8.1f} {v['ttft_ms']:8.1f} {v['peak_rss_mb']:8.1f}")
for n, q in r["ratio_ptxgen_over_llama_cpp"].items():
    print(f"ptxgen/llama.cpp {n:10} pp {q['pp_tok_s']:.3f}  tg {q['tg_tok_s']:.3f}")
print("wrote", sys.argv[1])
PY
    exit 0
fi

# --- the model, as GGUF ----------------------------------------------------------------------
[ -f "$MODEL/model.safetensors" ] || python3 bench/make_bench_model.py "$MODEL"
mkdir -p "$WORK/model"
cp "$MODEL"/config.json "$MODEL"/model.safetensors "$WORK/model/"
if [ -f "$MODEL/generation_config.json" ]; then cp "$MODEL/generation_config.json" "$WORK/model/"; fi
if [ -f "$MODEL/tokenizer.json" ]; then
    cp "$MODEL"/tokenizer*.json "$WORK/model/"
else
    cp models/default/tokenizer.json models/default/tokenizer_config.json "$WORK/model/"
fi
python3 - "$WORK/model" <<'PY'
import json, sys
d = sys.argv[1]
n = json.load(open(d + "/config.json"))["vocab_size"]
t = json.load(open(d + "/tokenizer.json"))
ids = list(t["model"]["vocab"].values()) + [a["id"] for a in t.get("added_tokens", [])]
assert max(ids) < n, f"tokenizer ids reach {max(ids)}, model vocab_size is {n}"
PY
cat > "$WORK/convert.py" <<'PY'
# convert_hf_to_gguf.py with the sentencepiece probe and the pre-tokenizer hash lookup bypassed
import runpy, sys
llama_dir = sys.argv.pop(1)
sys.path.insert(0, llama_dir)
import conversion.base as base


def no_sentencepiece(self):
    raise FileNotFoundError("no tokenizer.model")


base.TextModel._create_vocab_sentencepiece = no_sentencepiece
base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "default"
runpy.run_path(llama_dir + "/convert_hf_to_gguf.py", run_name="__main__")
PY
for t in f32 bf16 q8_0; do
    python3 "$WORK/convert.py" "$LLAMA_DIR" "$WORK/model" --outtype $t --outfile "$WORK/bench-$t.gguf" > "$WORK/convert-$t.log" 2>&1 \
        || { tail -20 "$WORK/convert-$t.log" >&2; exit 1; }
done

# --- the C engine's bench binary (same flags as bench/bench_model.sh) -------------------------
make -s "$BUILD/libptxgen.a"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L -O2 -g \
    -o "$BUILD/bench_model" src/model/bench_model.c "$BUILD/libptxgen.a" -ljansson -lpcre2-8 -ldl -lm -lpthread

# --- measure ---------------------------------------------------------------------------------
waited=0
while awk -v m="$LOAD_MAX" '{ exit !($1 >= m) }' /proc/loadavg && [ "$waited" -lt "$QUIET_WAIT" ]; do
    sleep 10
    waited=$((waited + 10))
done
echo "load average before measuring (waited ${waited}s): $(cut -d' ' -f1-3 /proc/loadavg)" >&2
: > "$WORK/loads"
for r in $(seq 1 "$ROUNDS"); do
    before=$(cut -d' ' -f1-3 /proc/loadavg)
    for dt in f32 bf16 q8; do
        gg=$dt
        [ "$dt" = q8 ] && gg=q8_0
        "$LLAMA_BENCH" -m "$WORK/bench-$gg.gguf" -t "$THREADS" -p 64 -n 256 -r "$REPS" -o json \
            > "$WORK/llama-$r-$dt.json" 2> "$WORK/llama-$r-$dt.log"
        if [ "$dt" = q8 ]; then
            "$LLAMA_BENCH" -m "$WORK/bench-q8_0.gguf" -t "$THREADS" -p 64 -n 256 -r "$REPS" --repack 0 -o json \
                > "$WORK/llama-norepack-$r-$dt.json" 2> "$WORK/llama-norepack-$r-$dt.log"
        fi
        "$BUILD/bench_model" "$MODEL" --dtype "$dt" --threads "$THREADS" --pp 64 --tg 256 --reps "$REPS" \
            > "$WORK/ptxgen-$r-$dt.json"
        echo "round $r $dt done" >&2
    done
    echo "$r $before $(cut -d' ' -f1-3 /proc/loadavg)" >> "$WORK/loads"
done

# --- the result file -------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
tmp_out=$(mktemp "$OUT.XXXXXX")
python3 - "$WORK" "$ROUNDS" "$THREADS" "$REPS" "$llama_commit" "$llama_build_s" "$llama_cmake" "$LLAMA_DIR" "$amx_fix" > "$tmp_out" <<'PY'
import datetime, json, os, platform, statistics, sys
work, rounds, threads, reps, commit, build_s, cmake_opts, llama_dir, amx_fix = sys.argv[1:10]
rounds, threads, reps = int(rounds), int(threads), int(reps)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
loads = {}
for line in open(os.path.join(work, "loads")):
    f = line.split()
    loads[int(f[0])] = {"before": " ".join(f[1:4]), "after": " ".join(f[4:7])}
med = statistics.median
res = {"name": "llama-cpp-vs-ptxgen", "date": datetime.date.today().isoformat(),
       "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                   "isa": sorted(x for x in flags if x.startswith(("avx512", "amx", "avx2", "fma")))},
       "threads": threads, "reps": reps, "rounds": rounds,
       "model": "random Qwen2, 15.74M params: vocab 8192, hidden 384, 8 layers, 6 heads / 2 kv heads, head_dim 64, "
                "intermediate 1024, tied embeddings (bench/make_bench_model.py, seed 0)",
       "method": "per round and dtype: llama-bench -t THREADS -p 64 -n 256 -r REPS -o json, then "
                 "build/bench_model --threads THREADS --pp 64 --tg 256 --reps REPS. Both warm up once first. "
                 "Per-run value = median over the REPS repetitions (llama.cpp: median of samples_ts; "
                 "its mean avg_ts is kept too); 'median' = median over rounds of the per-run values. "
                 "tg256 decodes 256 single tokens from an empty context in both (ptxgen also argmax-samples "
                 "each step; llama-bench feeds random ids). GGUF from llama.cpp's convert_hf_to_gguf.py "
                 "--outtype f32|bf16|q8_0 (norms and biases stay f32; Q8_0 includes the tied embedding/output).",
       "llama_cpp": {"source": "llama-cpp-python sdist (PyPI), vendor/llama.cpp", "commit": commit,
                     "build_s": None if build_s == "null" else float(build_s), "cmake": cmake_opts,
                     "amx_tile_config_fix": amx_fix == "true"},
       "rounds_data": [], "median": {}, "ratio_ptxgen_over_llama_cpp": {}, "loadavg": loads}
def llama_row(path):
    lj = json.load(open(path))
    row = {}
    for t in lj:
        key = f"pp{t['n_prompt']}" if t["n_gen"] == 0 else f"tg{t['n_gen']}"
        row[key + "_tok_s"] = round(med(t["samples_ts"]), 1)
        row[key + "_avg_tok_s"] = round(t["avg_ts"], 1)
        row[key + "_stddev_tok_s"] = round(t["stddev_ts"], 1)
        row[key + "_samples_tok_s"] = [round(x, 1) for x in t["samples_ts"]]
    t0 = lj[0]
    row.update({"model_type": t0.get("model_type"), "model_size": t0.get("model_size"), "repack": t0.get("repack")})
    res["llama_cpp"].update({k: t0.get(k) for k in ("build_commit", "build_number", "cpu_info", "backends", "n_batch",
                                                    "n_ubatch", "flash_attn", "type_k", "type_v")})
    return row


per = {}
for r in range(1, rounds + 1):
    row = {"round": r, "loadavg": loads.get(r)}
    for dt in ("f32", "bf16", "q8"):
        engines = {"llama_cpp": llama_row(os.path.join(work, f"llama-{r}-{dt}.json"))}
        extra = os.path.join(work, f"llama-norepack-{r}-{dt}.json")
        if os.path.exists(extra):
            engines["llama_cpp_repack0"] = llama_row(extra)
        pj = json.loads(next(l for l in open(os.path.join(work, f"ptxgen-{r}-{dt}.json")) if l.startswith("{")))
        engines["ptxgen"] = {k: pj[k] for k in ("pp64_tok_s", "pp_best_tok_s", "tg256_tok_s", "tg_best_tok_s",
                                                "kernels", "weight_bytes", "peak_rss_mb") if k in pj}
        row[dt] = engines
        for eng, d in engines.items():
            for m in ("pp64", "tg256"):
                per.setdefault(dt, {}).setdefault(eng, {}).setdefault(m, []).append(d[m + "_tok_s"])
    res["rounds_data"].append(row)
for dt, engs in per.items():
    res["median"][dt] = {eng: {m + "_tok_s": round(med(v), 1) for m, v in ms.items()} for eng, ms in engs.items()}
    for eng in engs:
        if eng == "ptxgen":
            continue
        key = dt if eng == "llama_cpp" else f"{dt}_vs_{eng}"
        res["ratio_ptxgen_over_llama_cpp"][key] = {
            m: round(med(engs["ptxgen"][m]) / med(engs[eng][m]), 3) for m in ("pp64", "tg256")}
json.dump(res, sys.stdout, indent=1)
print()
PY
mv "$tmp_out" "$OUT"
python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{'dtype':6} {'engine':18} {'pp64':>9} {'tg256':>9}")
for dt, e in r["median"].items():
    for eng, v in e.items():
        print(f"{dt:6} {eng:18} {v['pp64_tok_s']:9.1f} {v['tg256_tok_s']:9.1f}")
for k, q in r["ratio_ptxgen_over_llama_cpp"].items():
    print(f"ptxgen/llama.cpp {k:22} pp64 {q['pp64']:.3f}  tg256 {q['tg256']:.3f}")
print("wrote", sys.argv[1])
PY
